"""Patients for documents whose record has none: the map file and the pattern (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.patients import assign_patient, read_patient_map
from radeid.io.readers import ReadOptions, read_documents


def _doc(doc_id: str, relpath: str | None = None, patient: str | None = None) -> Document:
    metadata = {metakeys.RELPATH: relpath} if relpath else {}
    return Document(doc_id, "text", patient, metadata)


def test_the_map_matches_the_id_the_relative_path_or_the_file_name() -> None:
    patients = {"2024/a": "P1", "2024/b.txt": "P2", "c.txt": "P3"}
    assert assign_patient(_doc("2024/a", "2024/a.txt"), patients, "").patient_id == "P1"
    assert assign_patient(_doc("2024/b", "2024/b.txt"), patients, "").patient_id == "P2"
    assert assign_patient(_doc("2024/c", "2024/c.txt"), patients, "").patient_id == "P3"
    assert assign_patient(_doc("2024/d", "2024/d.txt"), patients, "").patient_id is None


def test_precedence_record_then_map_then_pattern() -> None:
    pattern = r"^(?P<patient>[^_/]+)_"
    patients = {"X_1": "MAPPED"}
    assert assign_patient(_doc("X_1", "X_1.txt", patient="OWN"), patients, pattern).patient_id == "OWN"
    assert assign_patient(_doc("X_1", "X_1.txt"), patients, pattern).patient_id == "MAPPED"
    assert assign_patient(_doc("X_2", "X_2.txt"), patients, pattern).patient_id == "X"
    assert assign_patient(_doc("row-7"), {}, pattern).patient_id is None  # no match: its own patient
    assert assign_patient(_doc("Y_row"), {}, pattern).patient_id == "Y"  # row formats: the id


def test_row_formats_without_a_patient_column_take_the_map(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"id": "a", "text": "x"}, {"id": "b", "text": "y", "patient_id": "own"}, {"id": "c", "text": "z"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = ReadOptions(patients={"a": "P1", "b": "P1"})
    found = [d.patient_id for d in read_documents(src, options=options) if isinstance(d, Document)]
    assert found == ["P1", "own", None]


def test_the_map_file_skips_blank_lines_and_allows_repeats_that_agree(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("\ufeffid,patient_id\r\na,1\r\n\r\na,1\r\n b , 2 \r\n", encoding="utf-8")
    assert read_patient_map(path) == {"a": "1", "b": "2"}
