"""Issue 16: `radeid review`, the review page of a run, built from a real `radeid deid` run
(rules only, no model): every replacement is on the page with its category, originals only with
the vault and key (then the file is 0600), document text can never become markup, the sample
is seeded, nothing is loaded from the network; and, in headless Chromium, filtering, marking and
the gold JSONL export work."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from radeid.cli.main import app
from radeid.core.document import Document
from radeid.io.audit import read_audit
from radeid.io.readers import read_documents
from radeid.review.page import AuditCheck

runner = CliRunner()
KEY_HEX = bytes(range(40, 72)).hex()
INJECTION = "</script><script>alert(1)</script>"
REPORTS = [
    {"id": "r1", "patient_id": "p1",
     "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344."},
    {"id": "r2", "patient_id": "p1", "text": f"Follow-up 04/05/2019 for Mr. Malcolm {INJECTION}, 93 years old."},
    {"id": "r3", "patient_id": "p2", "text": "No acute findings. Compared with CT of 01/02/2018. <b>bold</b> & done."},
]  # fmt: skip


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes is not None else "")


def island(page: str) -> dict[str, Any]:
    """The JSON data the page embeds (what its script shows)."""
    found = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One surrogate run with a vault, and one tag run, both by the real CLI."""
    tmp = tmp_path_factory.mktemp("review")
    src = tmp / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in REPORTS), encoding="utf-8")
    key = tmp / "site.key"
    key.write_text(KEY_HEX + "\n")
    key.chmod(0o600)
    out, tagged, vault = tmp / "deid.jsonl", tmp / "tag.jsonl", tmp / "vault.parquet"
    code, output = invoke("deid", src, "-o", out, "--no-model", "--key-file", key, "--vault", vault, "-q")
    assert code == 0, output
    code, output = invoke("deid", src, "-o", tagged, "--no-model", "--mode", "tag", "-q")
    assert code == 0, output
    return {"tmp": tmp, "src": src, "key": key, "out": out, "tagged": tagged, "vault": vault}


def build(run: dict[str, Path], name: str, *extra: str | Path, output: Path | None = None) -> Path:
    page = run["tmp"] / name
    page.unlink(missing_ok=True)
    code, text = invoke("review", output or run["out"], "-o", page, *extra)
    assert code == 0, text
    return page


def test_every_audit_span_is_on_the_page_with_its_category(run: dict[str, Path]) -> None:
    for output in (run["out"], run["tagged"]):
        data = island(build(run, "all.html", output=output).read_text(encoding="utf-8"))
        texts = {d.id: d.text for d in read_documents(output) if isinstance(d, Document)}
        assert [d["id"] for d in data["documents"]] == list(texts)
        shown = {
            (d["id"], s["start"], s["end"], s["category"], s["source"]) for d in data["documents"] for s in d["spans"]
        }
        audit = list(read_audit(str(output) + ".audit.jsonl"))
        assert len(audit) >= 8
        assert shown == {(r.doc_id, r.out_start, r.out_end, r.category.value, r.source) for r in audit}
        for doc in data["documents"]:
            assert doc["text"] == texts[doc["id"]]
    tagged = island(build(run, "tag.html", output=run["tagged"]).read_text(encoding="utf-8"))
    for doc in tagged["documents"]:  # tag mode: each highlighted span is the tag of its category
        for span in doc["spans"]:
            assert doc["text"][span["start"] : span["end"]].strip("[]").startswith(span["category"])


def test_summary_counts_category_and_source(run: dict[str, Path]) -> None:
    page = build(run, "summary.html").read_text(encoding="utf-8")
    table = re.search(r'<table id="summary">.*?</table>', page, re.S)
    assert table is not None
    audit = list(read_audit(str(run["out"]) + ".audit.jsonl"))
    for source in {r.source for r in audit}:
        assert f"<th>{source}</th>" in table.group(0)
    assert "<th>all sources</th>" in table.group(0)
    assert table.group(0).endswith(f"<td>{len(audit)}</td></tr></tbody></table>")


def test_originals_only_with_vault_and_key(run: dict[str, Path]) -> None:
    plain = build(run, "plain.html").read_text(encoding="utf-8")
    for original in ("Alan Grant", "4455667", "Malcolm", "(555) 201-3344"):
        assert original not in plain
    assert "Originals are not shown" in plain
    assert all(
        "original_text" not in d and all("original" not in s for s in d["spans"]) for d in island(plain)["documents"]
    )
    page = build(run, "orig.html", "--vault", run["vault"], "--key-file", run["key"])
    text = page.read_text(encoding="utf-8")
    assert "protected health information" in text and 'class="banner phi"' in text
    data = island(text)
    assert data["has_originals"] is True
    originals = {d["id"]: d["original_text"] for d in data["documents"]}
    assert originals == {r["id"]: r["text"] for r in REPORTS}
    for doc in data["documents"]:
        for span in doc["spans"]:
            assert doc["original_text"][span["orig_start"] : span["orig_end"]] == span["original"]
    assert stat.S_IMODE(page.stat().st_mode) == 0o600


def test_document_text_cannot_inject_markup(run: dict[str, Path]) -> None:
    for page in (build(run, "x.html"), build(run, "xo.html", "--vault", run["vault"], "--key-file", run["key"])):
        text = page.read_text(encoding="utf-8")
        assert INJECTION not in text and "alert(1)</script>" not in text and "<b>bold</b>" not in text
        assert text.count("</script>") == 2  # the data island and the page's own script, nothing else
        assert text.count("<script") == 2
        docs = {d["id"]: d for d in island(text)["documents"]}
        assert INJECTION in docs["r2"]["text"] and "<b>bold</b> & done." in docs["r3"]["text"]


def test_no_network_loads(run: dict[str, Path]) -> None:
    text = build(run, "net.html", "--vault", run["vault"], "--key-file", run["key"]).read_text(encoding="utf-8")
    assert (
        "http://" not in text
        and "https://" not in text
        and "//" not in re.sub(r"<script>.*?</script>", "", text, flags=re.S)
    )
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy and "unsafe" not in policy
    for tag in ("<img", "<link", "<iframe", "<object", "src=", "@import", "url("):
        assert tag not in text


def test_sample_is_seeded_and_deterministic(tmp_path: Path) -> None:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    rows = [{"id": f"d{i:02d}", "text": f"Seen on 0{1 + i % 9}/1{i % 10}/2019 by Dr. Alan Grant."} for i in range(30)]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert invoke("deid", src, "-o", out, "--no-model", "--mode", "tag", "-q")[0] == 0

    def ids(seed: int, n: int = 5) -> list[str]:
        page = tmp_path / f"s{seed}_{n}.html"
        code, text = invoke("review", out, "-o", page, "--sample", n, "--seed", seed)
        assert code == 0, text
        return [d["id"] for d in island(page.read_text(encoding="utf-8"))["documents"]]

    first = ids(3)
    assert len(first) == 5 and first == sorted(first)  # file order
    assert ids(3) == first
    assert any(ids(seed) != first for seed in (4, 5, 6))
    assert ids(3, n=100) == [r["id"] for r in rows]
    assert "5 of 30 documents (seed 3)" in (tmp_path / "s3_5.html").read_text(encoding="utf-8")


def test_refuses_to_overwrite_its_inputs(run: dict[str, Path]) -> None:
    audit = Path(str(run["out"]) + ".audit.jsonl")
    before = {p: p.read_bytes() for p in (run["out"], audit, run["vault"], run["key"])}
    for target in before:
        code, output = invoke("review", run["out"], "-o", target, "--vault", run["vault"], "--key-file", run["key"])
        assert code == 2 and ("clash" in output or "same path" in output), output
    assert {p: p.read_bytes() for p in before} == before


def test_usage_errors(run: dict[str, Path]) -> None:
    page = run["tmp"] / "err.html"
    code, output = invoke("review", run["out"], "-o", page, "--vault", run["vault"])
    assert code == 2 and "key" in output
    wrong = run["tmp"] / "wrong.key"
    wrong.write_text(bytes(range(32)).hex() + "\n")
    wrong.chmod(0o600)
    code, output = invoke("review", run["out"], "-o", page, "--vault", run["vault"], "--key-file", wrong)
    assert code == 3, output
    code, output = invoke("review", run["out"], "-o", page, "--audit", run["tmp"] / "missing.jsonl")
    assert code == 2 and "audit not found" in output
    bad = run["tmp"] / "bad.audit.jsonl"
    bad.write_text(
        json.dumps(
            {
                "doc_id": "r1",
                "start": 0,
                "end": 3,
                "category": "DATE",
                "subtype": None,
                "source": "x",
                "score": 1.0,
                "out_start": 70,
                "out_end": 900,
            }
        )
        + "\n"
    )
    code, output = invoke("review", run["out"], "-o", page, "--audit", bad)
    assert code == 2 and "do not fit their output text (e.g. id 'r1'" in output and "Alan" not in output
    assert 'id="audit-banner"' in page.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------ an audit of another run

OWN = [
    {"id": "a", "text": "Seen by Alan Grant on 03/04/2019 at Mercy."},
    {"id": "b", "text": "Call 555-0101 today."},
    {"id": "c", "text": "No findings."},
]
OWN_SPANS = [("a", "Alan Grant", "PATIENT"), ("a", "03/04/2019", "DATE"), ("a", "Mercy", "HOSPITAL"),
             ("b", "555-0101", "PHONE")]  # fmt: skip


def audit_line(doc_id: str, start: int, end: int, category: str) -> str:
    return json.dumps({"doc_id": doc_id, "start": start, "end": end, "category": category, "subtype": None,
                       "source": "rules/test", "score": 0.9, "out_start": start, "out_end": end}) + "\n"  # fmt: skip


def own_audit(shift: int = 0) -> list[str]:
    """The audit of OWN (each span where its text is), every offset moved by `shift`."""
    texts = {d["id"]: d["text"] for d in OWN}
    return [
        audit_line(i, texts[i].index(value) + shift, texts[i].index(value) + len(value) + shift, category)
        for i, value, category in OWN_SPANS
    ]


def review_with(tmp_path: Path, lines: list[str], *extra: str | Path) -> tuple[int, str, str]:
    """`radeid review` of OWN with an audit of these lines: exit code, messages, the page."""
    out, audit, page = tmp_path / "out.jsonl", tmp_path / "other.audit.jsonl", tmp_path / "page.html"
    out.write_text("".join(json.dumps(d) + "\n" for d in OWN), encoding="utf-8")
    audit.write_text("".join(lines), encoding="utf-8")
    page.unlink(missing_ok=True)
    code, output = invoke("review", out, "-o", page, "--audit", audit, *extra)
    return code, output, page.read_text(encoding="utf-8") if page.exists() else ""


def expected_error(tmp_path: Path, problems: str) -> str:
    return (
        f"error: the audit {str(tmp_path / 'other.audit.jsonl')!r} does not match the output "
        f"{str(tmp_path / 'out.jsonl')!r}: {problems}. The page says so in a banner; pass the run's own --audit"
    )


def banner(page: str) -> str | None:
    found = re.search(r'<div class="banner mismatch" id="audit-banner" role="alert">(.*?)</div>', page, re.S)
    return None if found is None else html.unescape(found.group(1))


def test_own_audit_has_no_banner(tmp_path: Path) -> None:
    code, output, page = review_with(tmp_path, own_audit())
    assert code == 0, output
    assert "wrote " in output and "3 of 3 documents, 4 replacements (surrogates only)" in output
    assert banner(page) is None and "audit-banner" not in page
    assert sum(len(d["spans"]) for d in island(page)["documents"]) == 4


def test_audit_with_no_shared_id_gives_banner_and_exit_2(tmp_path: Path) -> None:
    code, output, page = review_with(tmp_path, [audit_line("x2", 0, 4, "DATE"), audit_line("x1", 5, 9, "DATE")])
    problems = "none of its 2 document id(s) is in the output (e.g. id 'x1')"
    assert code == 2
    assert expected_error(tmp_path, problems) in output
    assert "3 of 3 documents, 0 replacements" in output  # the page was written all the same
    assert banner(page) == (
        f"Warning: the audit {str(tmp_path / 'other.audit.jsonl')!r} does not match the output "
        f"{str(tmp_path / 'out.jsonl')!r}: {problems}. The replacements shown here are wrong or missing: review "
        "with the run's own audit (<code>--audit</code>)."
    )


def test_audit_with_some_foreign_ids_warns_with_counts(tmp_path: Path) -> None:
    code, output, page = review_with(tmp_path, [*own_audit(), audit_line("x9", 0, 4, "DATE")])
    problems = "1 of its 3 document id(s) are not in the output (e.g. id 'x9')"
    assert code == 2
    assert expected_error(tmp_path, problems) in output
    assert banner(page) is not None and problems in (banner(page) or "")
    assert sum(len(d["spans"]) for d in island(page)["documents"]) == 4  # the shared documents keep theirs


def test_audit_offsets_that_cut_words_do_not_match(tmp_path: Path) -> None:
    code, output, page = review_with(tmp_path, own_audit(shift=1))  # same ids, offsets of another text
    problems = "4 of 4 replacements start or end inside a word of the output text"
    assert code == 2
    assert expected_error(tmp_path, problems) in output
    assert problems in (banner(page) or "")


def test_audit_spans_past_the_text_do_not_match(tmp_path: Path) -> None:
    code, output, page = review_with(tmp_path, [*own_audit()[:3], audit_line("b", 15, 40, "PHONE")])
    problems = (
        "the replacements of 1 document(s) do not fit their output text (e.g. id 'b'; shown without replacements)"
    )
    assert code == 2
    assert expected_error(tmp_path, problems) in output
    docs = {d["id"]: d for d in island(page)["documents"]}
    assert docs["b"]["spans"] == [] and len(docs["a"]["spans"]) == 3


def test_a_few_words_cut_are_a_runs_own(tmp_path: Path) -> None:
    """A run's own audit can cut a word now and then (`2019-03-04T10:15`); only a share over a
    quarter of at least four replacements is another run's."""
    assert AuditCheck(audit_documents=2, split=1, checked=4).matches
    assert not AuditCheck(audit_documents=2, split=2, checked=4).matches
    assert AuditCheck(audit_documents=2, split=3, checked=3).matches
    lines = own_audit()
    texts = {d["id"]: d["text"] for d in OWN}
    start = texts["a"].index("Grant")
    lines[0] = audit_line("a", start, start + 3, "PATIENT")  # "Gra": one cut in four
    assert review_with(tmp_path, lines)[0] == 0


def test_mismatched_audit_leaves_the_originals_out(run: dict[str, Path]) -> None:
    page = run["tmp"] / "mismatch.html"
    code, output = invoke("review", run["out"], "-o", page, "--audit", str(run["tagged"]) + ".audit.jsonl",
                          "--vault", run["vault"], "--key-file", run["key"])  # fmt: skip
    assert code == 2
    assert "does not match the output" in output and "the originals were left out" in output
    text = page.read_text(encoding="utf-8")
    data = island(text)
    assert data["has_originals"] is False and 'id="audit-banner"' in text
    for original in ("Alan Grant", "4455667", "Malcolm"):
        assert original not in text


# ------------------------------------------------------------------------------------ the browser


def _chrome(download_dir: Path) -> Any:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("needs Debian chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        options.add_argument(arg)
    options.binary_location = binary
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(download_dir), "download.prompt_for_download": False}
    )
    try:
        return webdriver.Chrome(options=options, service=Service(driver_path))
    except Exception as exc:  # a browser that cannot start here is an environment problem
        pytest.skip(f"headless chromium did not start: {type(exc).__name__}")


def test_browser_filter_mark_and_export(run: dict[str, Path]) -> None:
    page = build(run, "browser.html", "--vault", run["vault"], "--key-file", run["key"])
    data = island(page.read_text(encoding="utf-8"))
    downloads = run["tmp"] / "downloads"
    downloads.mkdir(exist_ok=True)
    driver = _chrome(downloads)
    try:
        from selenium.webdriver.common.by import By

        driver.get(page.resolve().as_uri())
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == []  # no CSP violation, no script error
        assert driver.execute_script("return typeof window.radeidReview") == "object"
        for i, doc in enumerate(data["documents"]):  # every replacement highlighted in its category
            driver.execute_script("window.radeidReview.show(arguments[0])", i)
            shown = [
                (h.text, h.get_attribute("class").split()[1])
                for h in driver.find_elements(By.CSS_SELECTOR, "#deid .hl")
            ]
            assert shown == [(doc["text"][s["start"] : s["end"]], "cat-" + s["category"]) for s in doc["spans"]]
        driver.execute_script("window.radeidReview.show(0)")
        first = data["documents"][0]
        highlights = driver.find_elements(By.CSS_SELECTOR, "#deid .hl")
        assert len(highlights) == len(first["spans"])
        assert [h.text for h in highlights] == [first["text"][s["start"] : s["end"]] for s in first["spans"]]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#original .hl")) == len(first["spans"])

        # Filter: only DATE left checked; only DATE highlights stay visible.
        for box in driver.find_elements(By.CSS_SELECTOR, "input.f-cat"):
            if box.get_attribute("value") != "DATE" and box.is_selected():
                box.click()
        on = driver.find_elements(By.CSS_SELECTOR, "#deid .hl:not(.off)")
        assert on and all("cat-DATE" in h.get_attribute("class").split() for h in on)
        off = driver.find_elements(By.CSS_SELECTOR, "#deid .hl.off")
        assert len(on) + len(off) == len(first["spans"])
        assert all(h.value_of_css_property("background-color") in ("rgba(0, 0, 0, 0)", "transparent") for h in off)

        # Mark the DATE replacement wrong by clicking it; mark missed PHI with a real selection.
        on[0].click()
        assert "wrong" in driver.find_element(By.CSS_SELECTOR, "#deid .hl.cat-DATE").get_attribute("class")
        plain = first["text"].index("Seen")  # "Seen" is not PHI: marked as missed PATIENT for the test
        _select(driver, plain, plain + 4)
        driver.find_element(By.CSS_SELECTOR, "#missed-category option[value='PATIENT']").click()
        driver.find_element(By.ID, "mark-missed").click()
        assert driver.find_element(By.ID, "mark-count").text == "2"
        driver.save_screenshot(str(_artifacts() / "review-page.png"))

        exported = driver.execute_script("return window.radeidReview.exportJSONL(false)")
        lines = [json.loads(line) for line in exported.splitlines()]
        assert [line["id"] for line in lines] == [first["id"]]
        gold = lines[0]
        assert gold["text"] == first["text"]
        date = next(s for s in first["spans"] if s["category"] == "DATE")
        expected = [
            {"start": s["start"], "end": s["end"], "label": s["category"]} for s in first["spans"] if s is not date
        ] + [{"start": plain, "end": plain + 4, "label": "PATIENT"}]
        assert gold["spans"] == sorted(expected, key=lambda s: (s["start"], s["end"]))
        assert gold["review"]["over_redaction"] == [
            {"start": date["start"], "end": date["end"], "label": "DATE", "source": date["source"]}
        ]
        assert gold["review"]["missed"] == [{"start": plain, "end": plain + 4, "label": "PATIENT"}]
        # The button downloads the same JSONL (a Blob: no network).
        driver.find_element(By.ID, "export").click()
        saved = downloads / "review-marks.jsonl"
        for _ in range(100):
            if saved.exists():
                break
            time.sleep(0.1)
        assert saved.read_text(encoding="utf-8") == exported
        # The export reads back as radeid gold.
        gold_file = run["tmp"] / "marks.jsonl"
        gold_file.write_text(exported, encoding="utf-8")
        docs = [d for d in read_documents(gold_file) if isinstance(d, Document)]
        assert [(s.start, s.end, s.category.value) for s in docs[0].spans] == [
            (s["start"], s["end"], s["label"]) for s in gold["spans"]
        ]

        # Keyboard: n goes to the next document, p back.
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys("n")
        assert driver.find_element(By.ID, "doc-title").text == f"Document {data['documents'][1]['id']}"
        body.send_keys("p")
        assert driver.find_element(By.ID, "doc-title").text == f"Document {first['id']}"
    finally:
        driver.quit()


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_browser_opens_on_the_first_document_at_1400x1000(tmp_path: Path) -> None:
    """The bundled examples (12 categories, over 30 detectors): at 1400x1000 the first document
    and its first replacement are on screen without scrolling; the filters fold into the side panel."""
    out, page = tmp_path / "out", tmp_path / "review.html"
    code, output = invoke("deid", EXAMPLES, "-o", out, "--no-model", "-q", "--key-file", _key(tmp_path))
    assert code == 0, output
    code, output = invoke("review", out, "-o", page)
    assert code == 0, output
    data = island(page.read_text(encoding="utf-8"))
    assert len({s["source"] for d in data["documents"] for s in d["spans"]}) > 30
    driver = _chrome(tmp_path)
    try:
        from selenium.webdriver.common.by import By

        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )
        driver.get(page.resolve().as_uri())
        assert [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"] == []
        assert driver.execute_script("return [window.innerWidth, window.innerHeight, window.scrollY]") == [
            1400,
            1000,
            0,
        ]
        first = data["documents"][0]
        assert driver.find_element(By.ID, "doc-title").text == f"Document {first['id']}"
        top = driver.execute_script("return document.getElementById('deid').getBoundingClientRect().top")
        assert 0 <= top < 1000
        mark = driver.find_element(By.CSS_SELECTOR, "#deid .hl")
        assert mark.text == first["text"][first["spans"][0]["start"] : first["spans"][0]["end"]]
        box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom];", mark)
        assert mark.is_displayed() and 0 <= box[0] and box[1] <= 1000
        # Sources and the summary start folded; the categories are open and filter as before.
        assert not driver.find_element(By.ID, "sources-box").get_attribute("open")
        assert not driver.find_element(By.ID, "summary-box").get_attribute("open")
        assert not driver.find_element(By.ID, "summary").is_displayed()
        driver.save_screenshot(str(_artifacts() / "review-1400x1000.png"))
        driver.find_element(By.CSS_SELECTOR, "#categories-box button.check-none").click()
        assert driver.find_elements(By.CSS_SELECTOR, "#deid .hl:not(.off)") == []
        driver.find_element(By.CSS_SELECTOR, "#categories-box button.check-all").click()
        assert len(driver.find_elements(By.CSS_SELECTOR, "#deid .hl:not(.off)")) == len(first["spans"])
        # Keys: n/p move between documents, f folds the side panel away and back.
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys("n")
        assert driver.find_element(By.ID, "doc-title").text == f"Document {data['documents'][1]['id']}"
        body.send_keys("k")
        assert driver.find_element(By.ID, "doc-title").text == f"Document {first['id']}"
        assert driver.find_element(By.ID, "sidebar").is_displayed()
        body.send_keys("f")
        assert not driver.find_element(By.ID, "sidebar").is_displayed()
        driver.find_element(By.ID, "toggle-sidebar").click()
        assert driver.find_element(By.ID, "sidebar").is_displayed()
    finally:
        driver.quit()


def _key(folder: Path) -> Path:
    key = folder / "site.key"
    key.write_text(KEY_HEX + "\n")
    key.chmod(0o600)
    return key


def _select(driver: Any, start: int, end: int) -> None:
    """Select [start, end) of the de-identified pane's text, as a user's mouse would."""
    driver.execute_script(
        """
        const pre = document.getElementById('deid');
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let seen = 0, node;
        while ((node = walker.nextNode())) {
          const n = node.textContent.length;
          if (seen <= arguments[0] && arguments[0] < seen + n) range.setStart(node, arguments[0] - seen);
          if (seen < arguments[1] && arguments[1] <= seen + n) range.setEnd(node, arguments[1] - seen);
          seen += n;
        }
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        """,
        start,
        end,
    )


def _artifacts() -> Path:
    folder = Path(os.environ.get("RADEID_TEST_ARTIFACTS", "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
