"""End to end through the CLI: the README quick start, formats, modes, bad input and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_quick_start_deidentifies_every_example(tmp_path: Path, cli) -> None:
    out = tmp_path / "out"
    code, output = cli("deid", EXAMPLES, "-o", out, "-q")
    assert code == 0, output
    inputs = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*.txt"))
    outputs = sorted(p.relative_to(out) for p in out.rglob("*.txt"))
    assert inputs and inputs == outputs  # no document lost
    audit = [json.loads(line) for line in (tmp_path / "out.audit.jsonl").read_text().splitlines()]
    assert audit, "the examples contain PHI, so the audit cannot be empty"
    assert {"doc_id", "start", "end", "category", "source", "score", "out_start", "out_end"} <= set(audit[0])
    for row in audit:
        assert "text" not in row and "original" not in row


def test_jsonl_mask_and_tag_modes(tmp_path: Path, write_jsonl, reports: list[dict], cli) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    code, output = cli("deid", src, "-o", tmp_path / "masked.jsonl", "--mode", "mask", "-q")
    assert code == 0, output
    masked = [json.loads(line) for line in (tmp_path / "masked.jsonl").read_text().splitlines()]
    assert [r["id"] for r in masked] == ["r1", "r2", "r3"]
    for original, row in zip(reports, masked, strict=True):
        assert len(row["text"]) == len(original["text"])  # same-length mask keeps offsets
    assert "4455667" not in masked[0]["text"] and "Grant" not in masked[0]["text"]
    assert masked[1]["text"] == reports[1]["text"]  # eponym and clean prose untouched

    code, output = cli("deid", src, "-o", tmp_path / "tagged.jsonl", "--mode", "tag", "-q")
    assert code == 0, output
    tagged = [json.loads(line) for line in (tmp_path / "tagged.jsonl").read_text().splitlines()]
    assert "[ID]" in tagged[0]["text"] and "[DATE]" in tagged[0]["text"] and "[PHONE]" in tagged[0]["text"]
    assert "[EMAIL]" in tagged[2]["text"]


def test_malformed_line_fails_cleanly_without_output(tmp_path: Path, write_jsonl, cli, reports: list[dict]) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [reports[0], '{"id": "r2", "text": oops}', reports[2]])
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "-q")
    assert code == 1
    assert "line 2" in output and "in.jsonl" in output
    assert "Grant" not in output  # errors never echo document text
    assert not out.exists()
    assert not list(tmp_path.glob("*.tmp*")) and not list(tmp_path.glob(".*tmp*"))


def test_skip_keeps_every_good_document(tmp_path: Path, write_jsonl, cli, reports: list[dict]) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [reports[0], '{"id": "r2", "text": oops}', reports[2]])
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--on-error", "skip", "-q")
    assert code == 0, output
    assert "line 2" in output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["r1", "r3"]


def test_existing_output_survives_a_failed_run(tmp_path: Path, write_jsonl, cli, reports: list[dict]) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("good old output\n", encoding="utf-8")
    src = write_jsonl(tmp_path / "in.jsonl", ['{"id": 1', reports[0]])
    code, _ = cli("deid", src, "-o", out, "-q", "--overwrite")
    assert code == 1
    assert out.read_text(encoding="utf-8") == "good old output\n"


def test_detect_writes_spans_without_text(tmp_path: Path, write_jsonl, reports: list[dict], cli) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out = tmp_path / "spans.jsonl"
    code, output = cli("detect", src, "-o", out, "-q")
    assert code == 0, output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["r1", "r2", "r3"]
    text = reports[0]["text"]
    found = {(text[s["start"] : s["end"]], s["category"]) for s in rows[0]["spans"]}
    assert ("4455667", "ID") in found and ("03/04/2019", "DATE") in found and ("Alan Grant", "HCW") in found
    assert rows[1]["spans"] == []
    assert "text" not in json.dumps(rows[0]["spans"])


def test_csv_columns_and_deny_list(tmp_path: Path, cli) -> None:
    src = tmp_path / "notes.csv"
    src.write_text('note_id,body,mrn\nn1,"Pt Zorblat seen today.\nStable.",123\n', encoding="utf-8")
    deny = tmp_path / "deny.tsv"
    deny.write_text("Zorblat\tPATIENT\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    code, output = cli(
        "deid", src, "-o", out, "--id-col", "note_id", "--text-col", "body", "--deny-list", deny, "--mode", "tag", "-q"
    )
    assert code == 0, output
    written = out.read_text(encoding="utf-8")
    assert "Pt [PATIENT] seen today.\nStable." in written
    assert "123" not in written  # columns not asked for are dropped (they may hold PHI)


def test_wrong_column_is_one_clear_error(tmp_path: Path, cli) -> None:
    src = tmp_path / "notes.csv"
    src.write_text("note_id,body\nn1,hello\n", encoding="utf-8")
    code, output = cli("deid", src, "-o", tmp_path / "o.csv", "-q")
    assert code == 2
    # counts the columns that exist, never their text: a file without a header row would show a record (issue 27)
    assert "2 columns" in output and "--id-col" in output and "hello" not in output


@pytest.mark.parametrize(
    "args",
    [
        ("deid", "missing.jsonl", "-o", "x.jsonl"),
        ("deid", "in.jsonl", "-o", "x.jsonl", "--format", "docx"),
        ("deid", "in.jsonl", "-o", "x.jsonl", "--mode", "blur"),
    ],
)
def test_usage_errors_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], write_jsonl, reports: list[dict], cli
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", reports)
    code, _ = cli(*args)
    assert code == 2


def test_help_documents_commands(cli) -> None:
    code, output = cli("--help")
    assert code == 0
    for command in ("deid", "detect", "default-config"):
        assert command in output


def test_surrogate_default_with_vault_round_trip(
    tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out, vault = tmp_path / "deid.jsonl", tmp_path / "vault.parquet"
    code, output = cli("deid", src, "-o", out, "--key-file", key_file, "--vault", vault, "-q")
    assert code == 0, output
    deid = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in deid] == ["r1", "r2", "r3"]
    for secret in ("4455667", "Alan Grant", "03/04/2019", "201-3344", "agrant@jurassic-health.org"):
        assert secret not in deid[0]["text"] + deid[2]["text"]
    assert deid[1]["text"] == reports[1]["text"]
    assert "Dr. " in deid[0]["text"] and "MRN: " in deid[0]["text"]  # surrounding text kept

    # the same key gives the same surrogates on a second run
    again = tmp_path / "again.jsonl"
    assert cli("deid", src, "-o", again, "--key-file", key_file, "-q")[0] == 0
    assert again.read_text() == out.read_text()

    restored = tmp_path / "restored.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored, "-q")
    assert code == 0, output
    assert [json.loads(line) for line in restored.read_text().splitlines()] == [
        {"id": r["id"], "text": r["text"]} for r in reports
    ]

    wrong = tmp_path / "wrong.key"
    wrong.write_text("cd" * 32 + "\n", encoding="ascii")
    wrong.chmod(0o600)
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", wrong, "-o", tmp_path / "no.jsonl")
    assert code == 3
    assert not (tmp_path / "no.jsonl").exists()


def test_without_a_key_one_is_generated_beside_the_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_jsonl, cli, reports: list[dict]
) -> None:
    monkeypatch.delenv("RADEID_KEY", raising=False)
    src = write_jsonl(tmp_path / "in.jsonl", reports[:1])
    code, output = cli("deid", src, "-o", tmp_path / "o" / "deid.jsonl", "-q")
    assert code == 0, output
    key = tmp_path / "o" / "radeid.key"
    assert key.exists() and (key.stat().st_mode & 0o777) == 0o600
    assert key.read_text().strip() not in output  # the key itself is never printed


def test_a_quiet_run_does_not_count_the_input_for_a_progress_bar(
    tmp_path: Path, write_jsonl, reports: list[dict], cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-q` shows no progress bar, so the input is not read an extra time to count its records."""
    import radeid.cli.deid

    counted: list[Path] = []
    monkeypatch.setattr(radeid.cli.deid, "estimate_total", lambda path, fmt=None: counted.append(path) or 3)
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    code, output = cli("deid", src, "-o", tmp_path / "quiet.jsonl", "--mode", "mask", "-q")
    assert code == 0, output
    assert counted == []
    code, output = cli("deid", src, "-o", tmp_path / "loud.jsonl", "--mode", "mask")
    assert code == 0, output
    assert counted == [src]
