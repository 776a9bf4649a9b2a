"""Issue 12, point 18: smaller things."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from radeid.io.errors import ReadIssue
from radeid.io.readers import read_documents


def test_json_control_character_message_reads_well(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    src.write_bytes(b'{"id": "b", "text": "abc\x01def"}\n')
    [issue] = [i for i in read_documents(src) if isinstance(i, ReadIssue)]
    assert "at at" not in issue.reason and "column" in issue.reason


def test_a_dictionary_encoded_text_column_is_read(tmp_path: Path) -> None:
    src = tmp_path / "d.parquet"
    table = pa.table({"id": ["a", "b"], "text": pa.array(["Dr. Alan Grant", "Dr. Alan Grant"]).dictionary_encode()})
    pq.write_table(table, src)
    docs = [d for d in read_documents(src) if not isinstance(d, ReadIssue)]
    assert [(d.id, d.text) for d in docs] == [("a", "Dr. Alan Grant"), ("b", "Dr. Alan Grant")]


def test_integral_float_ids_and_patient_ids_count_as_their_digits(tmp_path: Path) -> None:
    src = tmp_path / "f.parquet"
    pq.write_table(pa.table({"id": [1.0, 2.0], "patient_id": [3.0, 3.5], "text": ["x", "y"]}), src)
    items = list(read_documents(src))
    docs = [d for d in items if not isinstance(d, ReadIssue)]
    assert [(d.id, d.patient_id) for d in docs] == [("1", "3"), ("2", None)]
    [warning] = [i for i in items if isinstance(i, ReadIssue)]
    assert warning.severity == "warning" and "3.5" not in warning.describe()


def test_a_lost_row_group_counts_all_its_rows(tmp_path: Path, monkeypatch, cli) -> None:  # noqa: ANN001
    import radeid.io.parquet as parquet_format

    src = tmp_path / "g.parquet"
    pq.write_table(pa.table({"id": [f"r{i}" for i in range(1000)], "text": ["x"] * 1000}), src, row_group_size=1000)
    monkeypatch.setattr(parquet_format, "_column_values", lambda column: (_ for _ in ()).throw(pa.ArrowInvalid("bad")))
    out = tmp_path / "o.parquet"
    code, output = cli("deid", src, "-o", out, "--no-model", "--mode", "tag", "--on-error", "skip", "-w", "1")
    assert "1000 record(s) skipped" in output.replace("\n", " "), output


def test_stopped_message_counts_the_valid_documents_read(tmp_path: Path, cli) -> None:
    src = tmp_path / "s.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "c", "text": "z"}\n{broken\n')
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--mode", "tag", "-w", "1")
    assert code == 1, output
    flat = output.replace("\n", " ")
    assert "Stopped after 0 documents" not in flat and "3 valid document(s) read" in flat
