"""Shared helpers for the hardening tests (issue 12)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from radeid.cli import app

runner = CliRunner()


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    out = result.output + (result.stderr if result.stderr_bytes is not None else "")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        out += "".join(traceback.format_exception(result.exception))
    return result.exit_code, out


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


REPORTS = [
    {"id": "r1", "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344."},
    {"id": "r2", "text": "No acute cardiopulmonary process. Stable Parkinson disease."},
    {"id": "r3", "text": "Accession: CT-2019-004512. Email results to agrant@jurassic-health.org."},
]
