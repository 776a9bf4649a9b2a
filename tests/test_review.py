"""Issue 16: `radeid review`, the review page of a run, built from a real `radeid deid` run
(rules only, no model): every replacement is on the page with its category, originals only with
the vault and key (then the file is 0600), document text can never become markup, the sample
is seeded, nothing is loaded from the network; and, in headless Chromium, filtering, marking and
the gold JSONL export work."""

from __future__ import annotations

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
    assert code == 1 and "does not fit" in output and "Alan" not in output
    assert not page.exists()


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
