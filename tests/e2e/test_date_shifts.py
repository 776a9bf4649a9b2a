"""Issue 28: a per-patient date-shift table (`--date-shifts shifts.csv`, `[surrogate] date_shifts`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from radeid.cli.main import app
from radeid.core.errors import ConfigError
from radeid.replace.surrogate.shift_table import read_shift_table

runner = CliRunner()
KEY_HEX = bytes(range(40, 72)).hex()
REPORTS = [
    {"id": "r1", "patient_id": "p1", "text": "Exam date 03/04/2019. Prior CT 01/02/2018."},
    {"id": "r2", "patient_id": "p2", "text": "Exam date 03/04/2019."},
    {"id": "r3", "patient_id": "p3", "text": "Exam date 03/04/2019."},
]


def _job(tmp_path: Path, table: str) -> tuple[Path, Path, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in REPORTS), encoding="utf-8")
    key = tmp_path / "site.key"
    key.write_text(KEY_HEX + "\n")
    key.chmod(0o600)
    shifts = tmp_path / "shifts.csv"
    shifts.write_text(table, encoding="utf-8")
    return src, key, shifts


def _texts(out: Path) -> dict[str, str]:
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r["text"] for r in rows}


def test_patients_in_the_table_get_exactly_their_shift(tmp_path: Path) -> None:
    src, key, shifts = _job(tmp_path, "patient_id,shift_days\np1,10\np2,-400\n")
    out = tmp_path / "out.jsonl"
    result = runner.invoke(
        app, ["deid", str(src), "-o", str(out), "--no-model", "--key-file", str(key), "--date-shifts", str(shifts)]
    )
    assert result.exit_code == 0, result.output
    texts = _texts(out)
    assert texts["r1"] == "Exam date 03/14/2019. Prior CT 01/12/2018."
    assert texts["r2"] == "Exam date 01/28/2018."
    assert "03/04/2019" not in texts["r3"]  # not in the table: the keyed shift


def test_the_config_key_reads_the_same_table(tmp_path: Path) -> None:
    src, key, shifts = _job(tmp_path, "patient_id,shift_days\r\np1,10\r\n")
    config = tmp_path / "job.toml"
    config.write_text(f'[surrogate]\ndate_shifts = "{shifts.as_posix()}"\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = runner.invoke(
        app, ["deid", str(src), "-o", str(out), "--no-model", "--key-file", str(key), "--config", str(config)]
    )
    assert result.exit_code == 0, result.output
    assert _texts(out)["r1"] == "Exam date 03/14/2019. Prior CT 01/12/2018."


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("patient,shift\np1,10\n", "line 1: the header must be exactly: patient_id,shift_days"),
        ("patient_id,shift_days\np1,10\nsecret-id,ten\n", "line 3: shift_days must be a whole number of days"),
        ("patient_id,shift_days\np1,10\n\nsecret-id,1,2\n", "line 4: expected 2 fields"),
        ("patient_id,shift_days\n,10\n", "line 2: the patient_id is empty"),
        ("patient_id,shift_days\nsecret-id,1\nsecret-id,2\n", "line 3: the patient_id of line 2 again"),
        ("patient_id,shift_days\nsecret-id,99999\n", "line 2: shift_days must be within"),
    ],
)
def test_a_bad_table_is_a_usage_error_naming_file_and_line(tmp_path: Path, table: str, message: str) -> None:
    src, key, shifts = _job(tmp_path, table)
    out = tmp_path / "out" / "deid.jsonl"
    out.parent.mkdir()
    result = runner.invoke(
        app, ["deid", str(src), "-o", str(out), "--no-model", "--key-file", str(key), "--date-shifts", str(shifts)]
    )
    output = result.output
    assert result.exit_code == 2
    assert message in " ".join(output.split()) and "shifts.csv" in output
    assert "secret-id" not in output and "Traceback" not in output
    assert list(out.parent.iterdir()) == []


def test_a_missing_table_and_the_output_on_the_table_are_refused(tmp_path: Path) -> None:
    src, key, shifts = _job(tmp_path, "patient_id,shift_days\n")
    with pytest.raises(ConfigError, match="no such file"):
        read_shift_table(tmp_path / "none.csv")
    result = runner.invoke(
        app, ["deid", str(src), "-o", str(shifts), "--no-model", "--key-file", str(key), "--date-shifts", str(shifts)]
    )
    assert result.exit_code == 2
    assert shifts.read_text(encoding="utf-8") == "patient_id,shift_days\n"
