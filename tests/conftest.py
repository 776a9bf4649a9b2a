"""Fixtures shared by the whole suite (issue 11: one definition instead of one per test file).

- `cli`: run the `radeid` command in process (typer's `CliRunner`); `cli("deid", src, "-o", out)`
  (optionally `env={...}`) returns (exit code, stdout + stderr, plus the traceback of an exception
  other than `SystemExit`);
- `write_jsonl` / `read_jsonl`: write rows (dicts, or raw lines written as they are) as JSONL and
  read them back;
- `reports`: three short reports, the first and last full of PHI, the middle one free of it;
- `key_file`: a hex key file with owner-only permissions (0600) in the test's `tmp_path`;
- `rules_only_config` / `rules_only`: the configuration and pipeline with the rules and word
  lists only (no model), built once per session.

Folder-specific data stays in that folder's conftest (`synth/`, `train/`) or helpers
(`surrogate/surrogate_helpers.py`).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

if TYPE_CHECKING:
    from radeid.config.config import Config
    from radeid.pipeline.deidentifier import Deidentifier

REPORTS = (
    {"id": "r1", "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344."},
    {"id": "r2", "text": "No acute cardiopulmonary process. Stable Parkinson disease."},
    {"id": "r3", "text": "Accession: CT-2019-004512. Email results to agrant@jurassic-health.org."},
)


def _invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    from radeid.cli.main import app

    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    out = result.output + (result.stderr if result.stderr_bytes is not None else "")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        out += "".join(traceback.format_exception(result.exception))
    return result.exit_code, out


def _write_jsonl(path: Path, rows: list[dict] | list[str] | list[dict | str]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


@pytest.fixture(scope="session")
def cli() -> Callable[..., tuple[int, str]]:
    return _invoke


@pytest.fixture(scope="session")
def write_jsonl() -> Callable[[Path, list], Path]:
    return _write_jsonl


@pytest.fixture(scope="session")
def read_jsonl() -> Callable[[Path], list[dict]]:
    return _read_jsonl


@pytest.fixture
def reports() -> list[dict]:
    """A fresh copy per test: tests may edit it."""
    return [dict(r) for r in REPORTS]


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "site.key"
    path.write_text("ab" * 32 + "\n", encoding="ascii")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="session")
def rules_only_config() -> Config:
    from radeid.config.config import Config

    return Config.load(overrides={"pipeline": {"detectors": ["rules", "lexicon"]}})


@pytest.fixture(scope="session")
def rules_only(rules_only_config: Config) -> Deidentifier:
    from radeid.pipeline.deidentifier import Deidentifier

    return Deidentifier(rules_only_config)
