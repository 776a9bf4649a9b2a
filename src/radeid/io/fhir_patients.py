"""A run's memory of its FHIR Patients, for the records that refer to them from elsewhere.

In a bulk export (`$export`) each line is its own record and a patient's name is in `Patient.ndjson`,
while the reports that name the patient in their text are in `DiagnosticReport.ndjson`: the
record's own structured values (`radeid.pipeline.structured`) cannot seed that text. Before the
records are read, one pass over the input reads only the lines and files that hold a Patient (a byte
search before any JSON parsing) and keeps, per Patient id, the words of its names (`family`, each
`given`, the first given name with the family name, the words of `text`, titles left out) and its
identifier values (MRNs). The reader gives them to every record whose patient key is that id and
that does not hold the Patient itself (`metakeys.KNOWN_VALUES`), and the record's prose is searched
for them like for its own fields.

The memory holds PHI: it lives in this process only (and in the documents handed to the workers
of a parallel run), is never written to a file, a log or an error, and is bounded per patient
(`MAX_VALUES` values of at most `MAX_CHARS` characters each).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from radeid.core.categories import Category

__all__ = ["MAX_CHARS", "MAX_VALUES", "KnownValues", "patient_values"]

#: At most this many values are kept for one patient (names, then identifiers)...
MAX_VALUES = 24
#: ... each of at most this many characters (a longer one is no name).
MAX_CHARS = 64
#: `[value, category, subtype]` per value, as `metakeys.KNOWN_VALUES` holds them, by Patient id.
KnownValues = dict[str, list[list[str | None]]]

_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "md", "phd", "do", "rn", "jr", "sr", "ii", "iii"})
_PATIENT = b'"Patient"'


def patient_values(files: Iterable[Path], encoding: str) -> KnownValues:
    """The names and identifiers of every Patient in `files` (NDJSON lines, or whole `.json` files:
    a Patient, or a Bundle holding Patients), by Patient id. Whatever cannot be read is skipped
    here: the reader reports it when it reads the record."""
    known: KnownValues = {}
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if _PATIENT not in data:
            continue
        pieces = [data] if path.suffix.lower() == ".json" else data.split(b"\n")
        for piece in pieces:
            if _PATIENT in piece:
                for patient in _patients(_parse(piece, encoding)):
                    _remember(patient, known)
    return known


def _parse(raw: bytes, encoding: str) -> Any:
    try:
        return json.loads(raw.removeprefix(b"\xef\xbb\xbf").decode(encoding))
    except (ValueError, UnicodeDecodeError, LookupError):
        return None


def _patients(value: Any) -> Iterator[dict[str, Any]]:
    """The Patient resources of one record (itself, or a Bundle's entries, in nested Bundles too)."""
    if not isinstance(value, dict):
        return
    kind = value.get("resourceType")
    if kind == "Patient" and isinstance(value.get("id"), str):
        yield value
    elif kind == "Bundle" and isinstance(value.get("entry"), list):
        for entry in value["entry"]:
            if isinstance(entry, dict):
                yield from _patients(entry.get("resource"))


def _remember(patient: dict[str, Any], known: KnownValues) -> None:
    values = known.setdefault(patient["id"], [])
    seen = {str(v[0]).casefold() for v in values}
    found: list[tuple[str, str, str | None]] = [
        (v, Category.PATIENT.value, None) for v in _name_values(patient.get("name"))
    ]
    found += [(v, Category.ID.value, "MRN") for v in _identifier_values(patient.get("identifier"))]
    for value, category, subtype in found:
        value = value.strip()
        if value and len(value) <= MAX_CHARS and value.casefold() not in seen and len(values) < MAX_VALUES:
            seen.add(value.casefold())
            values.append([value, category, subtype])


def _name_values(names: Any) -> Iterator[str]:
    for name in names if isinstance(names, list) else ():
        if not isinstance(name, dict):
            continue
        family, given, text = name.get("family"), name.get("given"), name.get("text")
        given = [part for part in given if isinstance(part, str)] if isinstance(given, list) else []
        if isinstance(family, str):
            yield family
            if given:  # "Roy Roy": words too short to be looked for alone are found together
                yield f"{given[0]} {family}"
        yield from given
        if isinstance(text, str):
            yield from (w for w in (w.strip('.,;:()"') for w in text.split()) if w.casefold() not in _TITLES)


def _identifier_values(identifiers: Any) -> Iterator[str]:
    for ident in identifiers if isinstance(identifiers, list) else ():
        if isinstance(ident, dict) and isinstance(ident.get("value"), str):
            yield ident["value"]
