"""Issue 12, point 3: duplicate document ids are refused (exit 2, the ids, no text)."""

from __future__ import annotations

from pathlib import Path

from radeid.run.journal import work_folder_for


def test_duplicate_ids_are_refused(tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli) -> None:
    rows = [*reports, {"id": "r2", "text": "Seen by Dr. Zanzibar Quill."}]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    for workers in ("1", "2"):
        code, output = cli("deid", src, "-o", out, "--no-model", "-w", workers, "--key-file", key_file)
        assert code == 2, output
        assert "'r2'" in output and "duplicate" in output
        assert "Zanzibar" not in output
        assert not out.exists()
        assert not work_folder_for(out).exists()


def test_detect_still_accepts_duplicates(tmp_path: Path, write_jsonl, cli, reports: list[dict]) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [*reports, reports[0]])
    code, output = cli("detect", src, "-o", tmp_path / "spans.jsonl", "--no-model", "-q")
    assert code == 0, output
