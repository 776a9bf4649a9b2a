"""Structured records one per table cell: how a cell becomes the Document a file reader makes, and
how its result becomes the cell's output (the Spark adapter's `record_format`).

A file format whose records can sit one per cell (an HL7 message as a string, a DICOM file as the
bytes Spark's `binaryFile` source reads) defines one `RecordCodec` in its own module, and
`RECORD_CODECS` names it; entries are lazy, so pydicom is imported only when DICOM is used.
Adding a format is one entry here and one `RecordCodec` in its module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

from radeid.core.document import Document, Result
from radeid.core.errors import ConfigError
from radeid.io.errors import ReadIssue
from radeid.io.records import ReadOptions

__all__ = ["RECORD_CODECS", "TEXT", "CellReader", "RecordCodec", "record_codec"]

#: `(cell value, source) -> Document | ReadIssue`: `source` names the record in issues (its row id).
CellReader = Callable[[str | bytes, str], Document | ReadIssue]

#: The plain-text format: a cell is the document's text (no codec).
TEXT = "text"

#: Format name -> `module:attribute` of its `RecordCodec`.
RECORD_CODECS: dict[str, str] = {
    "hl7": "radeid.io.hl7v2:HL7_RECORD",
    "dicom": "radeid.io.dicom:DICOM_RECORD",
    "fhir": "radeid.io.fhir:FHIR_RECORD",
}


@dataclass(frozen=True)
class RecordCodec:
    """One structured format, one record per cell.

    `binary`: cells are bytes (a whole file), else strings. `reader(options)` returns the function
    that reads one cell (built once per batch: a field map is loaded once); the Document it gives
    is the one the file reader gives for the same record, metadata included, so the pipeline treats
    it alike. `write(result, cell)` is the output cell, byte for byte what the format's file writer
    writes for that record; it may raise `ValueError` naming the record by id only.
    """

    binary: bool
    reader: Callable[[ReadOptions], CellReader]
    write: Callable[[Result, str | bytes], str | bytes]


def record_codec(name: str) -> RecordCodec | None:
    """The codec of `name` (any case); None for plain text; an unknown name is a `ConfigError`."""
    key = str(name).strip().lower()
    if key == TEXT:
        return None
    if key not in RECORD_CODECS:
        known = ", ".join([TEXT, *sorted(RECORD_CODECS)])
        raise ConfigError(f"unknown record format {name!r}; known: {known}")
    module, attribute = RECORD_CODECS[key].split(":")
    codec: RecordCodec = getattr(import_module(module), attribute)
    return codec
