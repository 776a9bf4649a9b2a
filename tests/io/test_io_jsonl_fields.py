"""JSONL field names are checked up front, as CSV headers and Parquet schemas are: a patient or kept
column that no record has is one `ColumnError` (exit 2) listing the fields seen, not a run whose
per-patient surrogates silently fall back to per-document ones."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from radeid.cli.main import app
from radeid.io.errors import ColumnError, ReadIssue
from radeid.io.readers import ReadOptions, read_documents

SECRET = "Zorblat Quuxley"


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def docs_of(path: Path, options: ReadOptions) -> list:
    return [d for d in read_documents(path, options=options) if not isinstance(d, ReadIssue)]


def test_jsonl_patient_col_no_record_has_is_a_column_error(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": SECRET, "pid": "p1"}, {"id": "b", "text": "x", "mrn": 5}])
    with pytest.raises(ColumnError) as info:
        read_documents(src, options=ReadOptions(patient_col="patient"))  # raised up front, not per record
    message = str(info.value)
    assert "patient column 'patient'" in message and "--patient-col" in message
    for field in ("'id'", "'text'", "'pid'", "'mrn'"):  # every field of the records seen
        assert field in message
    assert SECRET not in message


def test_jsonl_keep_column_no_record_has_is_a_column_error(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x", "site": "N"}] * 3)
    with pytest.raises(ColumnError, match="kept column 'sites'.*did you mean 'site'.*--keep-column"):
        read_documents(src, options=ReadOptions(keep_columns=("site", "sites")))


def test_jsonl_field_some_record_has_is_fine_however_late(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "text": "x"} for i in range(2500)]
    rows[2200]["pid"] = "p9"  # past the records read whole: found by the cheap scan
    rows[2300]["site"] = "N"
    src = jsonl(tmp_path / "in.jsonl", rows)
    docs = docs_of(src, ReadOptions(patient_col="pid", keep_columns=("site",)))
    assert len(docs) == 2500 and docs[2200].patient_id == "p9" and docs[2300].metadata["columns"] == {"site": "N"}
    # the key written \u-escaped, or only inside a text, counts as what it is
    gz = tmp_path / "in.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"id": "a", "text": "\\"pid\\": 1"}\n{"id": "b", "text": "y", "\\u0070id": "p"}\n'))
    assert [d.patient_id for d in docs_of(gz, ReadOptions(patient_col="pid"))] == [None, "p"]
    only_in_text = jsonl(tmp_path / "t.jsonl", [{"id": "a", "text": 'say "pid": 1'}])
    with pytest.raises(ColumnError, match="patient column 'pid'"):
        read_documents(only_in_text, options=ReadOptions(patient_col="pid"))


def test_jsonl_default_patient_col_stays_optional(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x"}, {"id": "b", "text": "y", "patient_id": "p"}])
    assert [d.patient_id for d in docs_of(src, ReadOptions())] == [None, "p"]


def test_optional_kept_columns_are_copied_where_present(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x", "kind": "ct"}])
    docs = docs_of(src, ReadOptions(keep_columns=("kind", "source"), require_kept=False))
    assert docs[0].metadata["columns"] == {"kind": "ct"}
    csv = tmp_path / "in.csv"
    csv.write_text("id,text\na,x\n", encoding="utf-8")
    assert docs_of(csv, ReadOptions(keep_columns=("kind",), require_kept=False))[0].metadata["columns"] == {}
    with pytest.raises(ColumnError, match="patient"):  # a named patient column is never optional
        read_documents(src, options=ReadOptions(patient_col="pid", require_kept=False))


@pytest.mark.parametrize("option", [("--patient-col", "patient"), ("--keep-column", "site")])
def test_cli_jsonl_missing_patient_or_kept_column_exits_2(tmp_path: Path, option: tuple[str, str]) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "MRN 4455667", "pid": "p1"}])
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["deid", str(src), "-o", str(out), "--mode", "tag", "--no-model", *option])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code == 2, output
    flat = " ".join(output.split())
    assert f"'{option[1]}'" in flat and "'pid'" in flat  # the field asked for and the fields seen
    assert not out.exists()
