"""Patients for inputs that carry none: a map file (`--patients`) and a file-name pattern.

A folder of `.txt`, BRAT or i2b2 files has no patient id, so each file would be its own patient
(its own fake name, MRN and date shift). `[io] patients = "map.csv"` names a CSV file with the
header `id,patient_id`; `id` is a document id as radeid gives it (a folder file's path relative to
the folder, without its suffix: `2024/cxr_118402`), that path with its suffix
(`2024/cxr_118402.txt`), or the bare file name (`cxr_118402.txt`). `[io] patient_pattern` is a
regular expression with a named group `patient`, searched in the file's relative path (or the
document id of a row format). A record's own patient id always wins, then the map, then the pattern.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.errors import FormatError

__all__ = ["assign_patient", "read_patient_map"]

_HEADER = ["id", "patient_id"]


def read_patient_map(path: str | Path) -> dict[str, str]:
    """The `id -> patient_id` map of a CSV file; a `FormatError` names the file and line of a
    bad line (never what it holds: ids and patient ids are often MRNs)."""
    where = f"patients file {path}"
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a UTF-8 CSV file"
        raise FormatError(f"{where}: cannot read it: {reason}") from None
    if not rows or [c.strip().lower() for c in rows[0]] != _HEADER:
        raise FormatError(f"{where}, line 1: the header must be exactly 'id,patient_id'")
    found: dict[str, str] = {}
    for number, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 2:
            raise FormatError(f"{where}, line {number}: expected 2 fields (id, patient_id), found {len(row)}")
        doc_id, patient = (cell.strip() for cell in row)
        if not doc_id or not patient:
            raise FormatError(f"{where}, line {number}: id and patient_id must not be empty")
        if found.setdefault(doc_id, patient) != patient:
            raise FormatError(f"{where}, line {number}: this id is listed before with a different patient_id")
    return found


def assign_patient(doc: Document, patients: Mapping[str, str], pattern: str) -> Document:
    """`doc` with the patient the map or the pattern gives it, when its record gave none."""
    if doc.patient_id or (not patients and not pattern):
        return doc
    relpath = doc.metadata.get(metakeys.RELPATH)
    names = [doc.id]
    if isinstance(relpath, str):
        names += [relpath, PurePosixPath(relpath).name]
    for name in names:
        patient = patients.get(name)
        if patient:
            return dataclasses.replace(doc, patient_id=patient)
    if pattern:
        found = re.search(pattern, names[1] if len(names) > 1 else doc.id)
        patient = found.group("patient") if found else None
        if patient:
            return dataclasses.replace(doc, patient_id=patient)
    return doc
