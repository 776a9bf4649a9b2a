"""One CLI (issue 29): messages in the command line's words, help placeholders that read as words,
`--quiet` on every command that prints."""

from __future__ import annotations

from pathlib import Path


def test_a_missing_audit_names_options_that_exist(tmp_path: Path, cli, write_jsonl, reports: list[dict]) -> None:
    out = write_jsonl(tmp_path / "deid.jsonl", reports)
    code, output = cli("review", out, "-o", tmp_path / "page.html", "--audit", tmp_path / "missing.jsonl")
    assert code == 2, output
    assert f"error: audit not found: {tmp_path / 'missing.jsonl'} (pass --audit with the audit the run wrote: " in output
    assert "--no-audit" not in output
