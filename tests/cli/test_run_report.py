"""The run report (`OUTPUT.report.json`): its fields, its schema, no text and no key, `--report`,
`--no-report`, resume and failed runs, and `radeid report FILE`."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from radeid.config.config import Config
from radeid.core.minischema import schema_errors
from radeid.io.ids import pseudonymize_id
from radeid.run.report import config_part, load_report, model_part, report_schema
from radeid.secure.keys import key_fingerprint

KEY = bytes.fromhex("ab" * 32)  # the `key_file` fixture's key
ROWS = [
    {"id": "r1", "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344."},
    {"id": "r2", "text": "No acute cardiopulmonary process. Stable Parkinson disease."},
    '{"id": "r3", "text": ',  # broken JSON: skipped with --on-error skip
    {"id": "r4", "text": "Accession: CT-2019-004512. Email results to agrant@jurassic-health.org."},
    {"id": "r5", "text": ""},  # a warning: empty text, kept
]


@pytest.fixture
def src(tmp_path: Path, write_jsonl) -> Path:
    return write_jsonl(tmp_path / "in.jsonl", ROWS)


def _run(cli, *args: str | Path) -> str:
    code, output = cli("deid", *args)
    assert code == 0, output
    return output


def _report(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert schema_errors(data, report_schema()) == []
    return data


def test_the_report_records_the_run(tmp_path: Path, src: Path, key_file: Path, cli, read_jsonl) -> None:
    out, vault = tmp_path / "out.jsonl", tmp_path / "v.parquet"
    output = _run(cli, src, "-o", out, "--key-file", key_file, "--vault", vault, "--no-model", "--on-error", "skip",
                  "-w", "1")  # fmt: skip
    data = _report(tmp_path / "out.jsonl.report.json")
    assert data["format"] == "radeid-run-report" and data["version"] == 1 and len(data["runs"]) == 1
    run = data["runs"][0]
    audit = read_jsonl(tmp_path / "out.jsonl.audit.jsonl")
    by_category: dict[str, int] = {}
    for row in audit:
        by_category[row["category"]] = by_category.get(row["category"], 0) + 1
    assert (run["status"], run["command"], run["dry_run"], run["resumed"]) == ("completed", "deid", False, False)
    assert run["documents"] == 4 and run["replacements"] == len(audit) and run["workers"] == 1
    assert run["replacements_by_category"] == by_category
    assert run["zero_replacement_ids"] == ["r2", "r5"] and run["zero_replacement_count"] == 2
    assert [(s["id"], s["code"], s["line"]) for s in run["skipped"]] == [(None, "read-error", 3)]
    assert [(w["id"], w["code"], w["line"]) for w in run["warnings"]] == [("r5", "read-warning", 5)]
    assert run["input"] == {
        "path": str(src.resolve()),
        "format": None,
        "sha256": hashlib.sha256(src.read_bytes()).hexdigest(),
        "records": 5,
        "records_exact": True,
    }
    assert (run["output"], run["audit"], run["vault"]) == (str(out), str(out) + ".audit.jsonl", str(vault))
    assert run["key"] == {"fingerprint": key_fingerprint(KEY)}
    assert run["model"] is None  # --no-model
    assert run["selection"] is None
    resolved = run["config"]["resolved"]
    assert resolved["io"]["vault"] == str(vault) and resolved["pipeline"]["detectors"] == ["rules", "lexicon"]
    assert run["config"]["sha256"] == config_part(Config.from_dict(resolved), None)["sha256"]
    assert run["duration_seconds"] >= 0 and run["started_at"] <= run["finished_at"]
    # the console summary says the same
    assert "2 document(s) with no replacement: r2, r5" in output
    assert f"report: {tmp_path / 'out.jsonl.report.json'}" in output


def test_the_report_holds_no_text_and_no_key(tmp_path: Path, src: Path, key_file: Path, cli) -> None:
    out = tmp_path / "out.jsonl"
    _run(cli, src, "-o", out, "--key-file", key_file, "--no-model", "--on-error", "skip", "-q")
    text = (tmp_path / "out.jsonl.report.json").read_text(encoding="utf-8")
    for row in ROWS:
        if isinstance(row, dict) and row["text"]:
            for word in row["text"].split():
                if len(word) > 4:  # any word of any document ("Grant", "4455667.", "agrant@...")
                    assert word.strip(".:") not in text, word
    for secret in (KEY.hex(), KEY.hex().upper(), base64.b64encode(KEY).decode(), base64.urlsafe_b64encode(KEY).decode(),
                   base64.b64encode(KEY).decode().rstrip("="), KEY.hex()[:16]):  # fmt: skip
        assert secret not in text
    assert key_fingerprint(KEY) in text


def test_a_passphrase_never_appears_in_the_report(tmp_path: Path, src: Path, cli) -> None:
    phrase = "correct horse battery staple"
    keyfile = tmp_path / "phrase.key"
    keyfile.write_text(phrase + "\n", encoding="utf-8")
    keyfile.chmod(0o600)
    _run(cli, src, "-o", tmp_path / "out.jsonl", "--key-file", keyfile, "--no-model", "--on-error", "skip", "-q")
    text = (tmp_path / "out.jsonl.report.json").read_text(encoding="utf-8")
    assert "horse" not in text and "staple" not in text


def test_ids_are_the_pseudonyms_when_ids_are_pseudonymized(tmp_path: Path, src: Path, key_file: Path, cli) -> None:
    out = tmp_path / "out.jsonl"
    _run(cli, src, "-o", out, "--key-file", key_file, "--no-model", "--on-error", "skip", "--pseudonymize-ids", "-q")
    run = _report(tmp_path / "out.jsonl.report.json")["runs"][0]
    assert run["zero_replacement_ids"] == [pseudonymize_id(KEY, "r2"), pseudonymize_id(KEY, "r5")]
    assert [w["id"] for w in run["warnings"]] == [pseudonymize_id(KEY, "r5")]
    assert '"r2"' not in (tmp_path / "out.jsonl.report.json").read_text()


def test_report_path_and_no_report(tmp_path: Path, src: Path, cli) -> None:
    chosen = tmp_path / "reports" / "run.json"
    _run(cli, src, "-o", tmp_path / "a.jsonl", "--mode", "tag", "--no-model", "--on-error", "skip", "--report",
         chosen, "-q")  # fmt: skip
    assert _report(chosen)["runs"][0]["documents"] == 4
    assert not (tmp_path / "a.jsonl.report.json").exists()
    _run(cli, src, "-o", tmp_path / "b.jsonl", "--mode", "tag", "--no-model", "--on-error", "skip", "--no-report", "-q")
    assert (tmp_path / "b.jsonl").exists() and not (tmp_path / "b.jsonl.report.json").exists()


def test_a_report_path_that_is_the_input_is_refused(tmp_path: Path, src: Path, cli) -> None:
    before = src.read_bytes()
    code, output = cli("deid", src, "-o", tmp_path / "a.jsonl", "--mode", "tag", "--no-model", "--report", src)
    assert code == 2 and "--report" in output
    assert src.read_bytes() == before and not (tmp_path / "a.jsonl").exists()


def test_a_new_run_replaces_the_report(tmp_path: Path, src: Path, cli) -> None:
    args = (src, "-o", tmp_path / "a.jsonl", "--mode", "tag", "--no-model", "--on-error", "skip", "-q")
    _run(cli, *args)
    _run(cli, *args, "--overwrite")
    assert len(_report(tmp_path / "a.jsonl.report.json")["runs"]) == 1


def test_an_interrupted_run_and_its_resume_each_add_an_entry(
    tmp_path: Path, write_jsonl, cli, read_jsonl, monkeypatch: pytest.MonkeyPatch
) -> None:
    from radeid.run.sink import OrderedSink

    src = write_jsonl(
        tmp_path / "in.jsonl", [{"id": f"n{i}", "text": f"Seen on 03/0{i % 9 + 1}/2019."} for i in range(10)]
    )
    out = tmp_path / "out.jsonl"
    args = ("deid", src, "-o", out, "--mode", "tag", "--no-model", "-w", "1", "--batch-size", "2", "-q")
    count = OrderedSink._count

    def interrupt_after_two(self, record) -> None:  # Ctrl-C once two batches are journaled
        count(self, record)
        if record.batch == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(OrderedSink, "_count", interrupt_after_two)
    code, output = cli(*args)
    assert code == 130, output
    monkeypatch.setattr(OrderedSink, "_count", count)
    first = _report(tmp_path / "out.jsonl.report.json")["runs"]
    assert [(r["status"], r["documents"], r["resumed"]) for r in first] == [("interrupted", 4, False)]
    assert (first[0]["input"]["sha256"], first[0]["input"]["records"]) == (None, None)  # not read again on Ctrl-C
    code, output = cli(*args, "--resume")
    assert code == 0, output
    runs = _report(tmp_path / "out.jsonl.report.json")["runs"]
    assert [(r["status"], r["documents"], r["resumed"]) for r in runs] == [
        ("interrupted", 4, False),
        ("completed", 10, True),
    ]
    assert runs[1]["replacements_by_category"] == {"DATE": 10}
    assert runs[1]["input"]["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert runs[1]["input"]["records"] == 10
    assert len(read_jsonl(out)) == 10


def test_a_run_stopped_by_a_bad_record_adds_a_failed_entry(tmp_path: Path, write_jsonl, cli) -> None:
    rows: list = [{"id": f"n{i}", "text": "Seen on 03/04/2019."} for i in range(4)] + ['{"id": "bad", "text": ']
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--mode", "tag", "--no-model", "-w", "1",
                       "--batch-size", "2", "-q")  # fmt: skip
    assert code == 1, output
    runs = _report(tmp_path / "o.jsonl.report.json")["runs"]
    assert [(r["status"], r["documents"]) for r in runs] == [("failed", 4)]
    assert not (tmp_path / "o.jsonl").exists()


def test_a_run_that_fails_in_its_first_batch_leaves_the_report_alone(tmp_path: Path, src: Path, cli) -> None:
    report = tmp_path / "a.jsonl.report.json"
    report.write_text("mine", encoding="utf-8")
    # --overwrite: an existing report is otherwise refused before any work (exit 2)
    code, _ = cli("deid", src, "-o", tmp_path / "a.jsonl", "--mode", "tag", "--no-model", "--overwrite")  # bad line 3

    assert code == 1
    assert report.read_text(encoding="utf-8") == "mine"


def test_radeid_report_prints_the_report(tmp_path: Path, src: Path, key_file: Path, cli) -> None:
    _run(cli, src, "-o", tmp_path / "out.jsonl", "--key-file", key_file, "--no-model", "--on-error", "skip", "-q")
    code, output = cli("report", tmp_path / "out.jsonl.report.json")
    assert code == 0, output
    assert "status:    completed" in output
    assert f"key:       {key_fingerprint(KEY)}" in output
    assert "documents: 4, replacements: " in output
    assert "no replacement: 2 document(s): r2, r5" in output
    assert f"skipped: {src.resolve()}:3 id None (read-error)" in output


@pytest.mark.parametrize("content", ["not json", '{"format": "radeid-run-report", "version": 1}', "[]"])
def test_radeid_report_refuses_what_is_not_a_report(tmp_path: Path, cli, content: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    code, output = cli("report", path)
    assert code == 2
    assert "is not a" in output and "Traceback" not in output


def test_load_report_names_what_is_wrong(tmp_path: Path, src: Path, cli) -> None:
    _run(cli, src, "-o", tmp_path / "a.jsonl", "--mode", "tag", "--no-model", "--on-error", "skip", "-q")
    path = tmp_path / "a.jsonl.report.json"
    data = json.loads(path.read_text())
    data["runs"][0]["documents"] = -1
    data["runs"][0]["text"] = "smuggled"
    del data["runs"][0]["key"]
    path.write_text(json.dumps(data))
    from radeid.run.report import ReportError

    with pytest.raises(ReportError) as caught:
        load_report(path)
    message = str(caught.value)
    assert "$.runs[0]: missing 'key'" in message and "$.runs[0]: unexpected 'text'" in message
    assert "$.runs[0].documents: below the minimum 0" in message


def test_the_schema_checker_refuses_keywords_it_does_not_check() -> None:
    with pytest.raises(ValueError, match="oneOf"):
        schema_errors(1, {"oneOf": [{"type": "integer"}]})
    assert schema_errors(True, {"type": "integer"}) == ["$: expected integer, got bool"]


def test_the_model_is_named_with_the_sha256_of_its_files() -> None:
    config = Config.load()
    part = model_part(config)
    assert part is not None and part["name"] == "bundled"
    folder = Path(part["path"])
    onnx = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()
    assert part["files"]["model.onnx"] == onnx
    listing = "".join(f"{sha}  {rel}\n" for rel, sha in sorted(part["files"].items()))
    assert part["sha256"] == hashlib.sha256(listing.encode()).hexdigest()
    assert set(part["files"]) == {p.name for p in folder.iterdir() if not p.name.startswith(".")}
    assert model_part(Config.load(overrides={"pipeline": {"detectors": ["rules"]}})) is None


def test_the_key_fingerprint_is_stable_and_short() -> None:
    assert key_fingerprint(KEY) == key_fingerprint(bytes(KEY))
    assert key_fingerprint(KEY) != key_fingerprint(os.urandom(32))
    assert len(key_fingerprint(KEY)) == len("hmac-sha256:") + 16
