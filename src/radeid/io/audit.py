"""The audit: one record per replacement, written by `radeid deid` and `spark-deid`. Its fields and
how a `Result` becomes audit rows are defined here once, so every writer agrees.

A line is `{"doc_id", "patient_id"?, "start", "end", "category", "subtype", "source", "score",
"out_start", "out_end", "replacement_kind"?}`: where a span was in the original (`start`, `end`),
where its replacement is in the output (`out_start`, `out_end`), what it was judged to be, and
never the original or the new text, so the audit can be kept and shared more widely than the
vault. `patient_id` only when asked (it is often an MRN); `replacement_kind` when the
replacement carries a `kind`. Spark writes the same lines (less the optional fields, and
without `subtype` when it is null).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from radeid.document import Result
from radeid.io.atomic import AtomicTextFile, TextFileOutput

__all__ = [
    "AUDIT_FIELDS",
    "SPAN_FIELDS",
    "AuditWriter",
    "audit_rows",
    "span_rows",
]

#: The fields of one replacement, with their types (`int`, `string`, `double`): Spark's audit struct.
SPAN_FIELDS: tuple[tuple[str, str], ...] = (
    ("start", "int"),
    ("end", "int"),
    ("category", "string"),
    ("subtype", "string"),
    ("source", "string"),
    ("score", "double"),
    ("out_start", "int"),
    ("out_end", "int"),
)
#: Every field of an audit line, in file order; `patient_id` and `replacement_kind` are optional.
AUDIT_FIELDS: tuple[tuple[str, str], ...] = (
    ("doc_id", "string"),
    ("patient_id", "string"),
    *SPAN_FIELDS,
    ("replacement_kind", "string"),
)


# ------------------------------------------------------------------------------------ serializing


def span_rows(result: Result) -> list[dict[str, Any]]:
    """The `SPAN_FIELDS` of each replacement of `result`, in order (Spark's audit struct)."""
    rows = []
    for rep, (out_start, out_end) in zip(result.replacements, result.output_offsets(), strict=True):
        span = rep.span
        rows.append(
            {
                "start": span.start,
                "end": span.end,
                "category": span.category.value,
                "subtype": span.subtype,
                "source": span.source,
                "score": round(float(span.score), 4),
                "out_start": out_start,
                "out_end": out_end,
            }
        )
    return rows


def audit_rows(result: Result, *, include_patient_id: bool = False) -> list[dict[str, Any]]:
    """The audit lines of one document, as dicts in file order (see the module doc)."""
    doc = result.document
    head: dict[str, Any] = {"doc_id": doc.id}
    if include_patient_id and doc.patient_id is not None:
        head["patient_id"] = doc.patient_id
    rows = []
    for rep, fields in zip(result.replacements, span_rows(result), strict=True):
        row = {**head, **fields}
        kind = getattr(rep, "kind", None)
        if kind is not None:
            row["replacement_kind"] = str(kind)
        rows.append(row)
    return rows


class AuditWriter(TextFileOutput):
    """Writes the audit JSONL of a run, atomically (see `radeid.io.atomic`); gzip for `.gz`."""

    def __init__(
        self, path: str | os.PathLike[str], *, include_patient_id: bool = False, overwrite: bool | None = None
    ) -> None:
        self.path = Path(path)
        self.include_patient_id = include_patient_id
        self.count = 0
        self.documents = 0
        self._file = AtomicTextFile(self.path, overwrite)

    def __enter__(self) -> AuditWriter:
        return self

    def write(self, result: Result) -> int:
        """Audit every replacement of one document; returns the number of lines written."""
        self._ensure_open()
        rows = audit_rows(result, include_patient_id=self.include_patient_id)
        self._file.handle.write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        self.count += len(rows)
        self.documents += 1
        return len(rows)
