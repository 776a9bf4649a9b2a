"""The keys of `Document.metadata`, defined once.

Readers set them, writers, the journal, the batch runner, evaluation and synthesis read them;
a key spelled two ways would silently lose what one side wrote. Values are plain strings so
that metadata stays a JSON-friendly mapping.
"""

from __future__ import annotations

__all__ = [
    "ATOMIC",
    "AUGMENTED_FROM",
    "COLUMNS",
    "ENCODED",
    "ESCAPE_NON_ASCII",
    "FRAME",
    "IGNORED_SPANS",
    "KIND",
    "KNOWN_VALUES",
    "LINE",
    "NARRATIVE",
    "NEGATIVES",
    "ORIGIN",
    "ORIGINAL_ID",
    "PATH",
    "RELPATH",
    "RESERVED",
    "ROW",
    "SOURCE",
    "STRUCTURED_SPANS",
    "UPPER",
    "VERBATIM",
]

# ---- where a document was read from (set by `radeid.io` readers)
#: The file the document came from (`str`).
PATH = "path"
#: 1-based physical line where the record starts (JSONL, CSV; `int`).
LINE = "line"
#: 1-based data row, header not counted (CSV, Parquet; `int`).
ROW = "row"
#: Path relative to the input folder, `/`-separated, with suffix (folder formats; `str`).
RELPATH = "relpath"
#: Input columns the user chose to keep (`keep_columns`), copied to the output (`dict`).
COLUMNS = "columns"
#: The document's own id when the run wrote a pseudonym in its place (`pseudonymize_ids`; `str`):
#: set by `io.ids.pseudonymize_result` for the vault only, never written to an output.
ORIGINAL_ID = "original_id"
#: Gold regions that are not PHI, as sorted `(start, end)` pairs (gold readers; evaluation).
IGNORED_SPANS = "ignored_spans"

# ---- structured records (HL7 v2, FHIR: set by `radeid.io.hl7v2`, `radeid.io.fhir`; used by
# `radeid.pipeline.structured`)
# A structured record's text is the whole record as read; these say which parts of it are prose.
#: Character ranges `[start, end]` of the free-text fields: the only places detections are kept.
NARRATIVE = "narrative"
#: PHI known from the record's structure, `[start, end, category, subtype or None]`: always replaced.
STRUCTURED_SPANS = "structured_spans"
#: Ranges `[start, end]` that must stay byte for byte (escape sequences): no span cuts or covers them.
VERBATIM = "verbatim"
#: Ranges `[start, end]` never cut: a span that touches one covers it whole (a JSON `\u00e9` escape).
ATOMIC = "atomic"
#: Characters a replacement must not contain, each with what to write instead (`{"|": "\\F\\"}`).
RESERVED = "reserved"
#: What the writer puts before and after the record's text (`[prefix, suffix]`: MLLP framing bytes).
FRAME = "frame"
#: The record was pure ASCII JSON, read with its `\u00e9` escapes decoded: the writer writes every
#: non-ASCII character as such an escape again (`bool`).
ESCAPE_NON_ASCII = "escape_non_ascii"
#: Strings read decoded from base64 (a FHIR attachment's `data`), each `[path, charset]` with the
#: path of keys and indexes to the string in the record's JSON: the writer encodes them again.
ENCODED = "encoded"
#: PHI known from *other* records of the run, not written in this one: `[value, category, subtype]` (a
#: FHIR bulk export's Patient names and MRNs, for the reports that refer to that Patient). Found again in the
#: prose like the record's own structured values; held in memory only, never written anywhere.
KNOWN_VALUES = "known_values"

# ---- what a generated document is (synthesis, augmentation, training data)
#: Where a generated document comes from (`"radeid-synth"`, an augmentation, prose).
SOURCE = "source"
#: The corpus a prose document was drawn from.
ORIGIN = "origin"
#: The report kind of a synthetic document (`"ct"`, ...).
KIND = "kind"
#: Hard negatives planted in a synthetic document.
NEGATIVES = "negatives"
#: Whether a synthetic document is written in upper case.
UPPER = "upper"
#: The id of the document an augmented one was made from.
AUGMENTED_FROM = "augmented_from"
