"""The audit: one record per replacement, written by `radeid deid` and `spark-deid`, read back by
the review page and by checks. Its fields, how a `Result` becomes audit rows and how an audit
file is read are defined here once, so every writer and reader agrees.

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
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radeid.core.categories import Category
from radeid.core.document import Result, Span
from radeid.io.atomic import AtomicTextFile, TextFileOutput
from radeid.io.errors import RadeidIOError, naming
from radeid.io.formats import open_binary, walk_files
from radeid.io.records import STREAM_ERRORS

__all__ = [
    "AUDIT_FIELDS",
    "SPAN_FIELDS",
    "AuditError",
    "AuditRecord",
    "AuditWriter",
    "audit_rows",
    "audit_text",
    "read_audit",
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
_OPTIONAL = frozenset({"patient_id", "subtype", "replacement_kind"})
_CATEGORIES = {c.value: c for c in Category}


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
        kind = rep.kind
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
        with naming(self.path):
            self._file.handle.write(audit_text(result, include_patient_id=self.include_patient_id))
        self.count += len(result.replacements)
        self.documents += 1
        return len(result.replacements)


def audit_text(result: Result, *, include_patient_id: bool = False) -> str:
    """The exact text `AuditWriter.write` adds for `result` (the parallel runner's workers use it):
    `json.dumps(row, ensure_ascii=False)` of each of `audit_rows`, one a line."""
    fast = _fast_lines(result, include_patient_id)
    if fast is not None:
        return fast
    return _lines(audit_rows(result, include_patient_id=include_patient_id))


def _lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


# What `json.dumps(..., ensure_ascii=False)` writes for a str (the C encoder where there is one).
_quote: Callable[[str], str] = json.encoder.encode_basestring


def _fast_lines(result: Result, include_patient_id: bool) -> str | None:
    """`_lines(audit_rows(...))` written directly: json.dumps per row was most of a worker's cost
    of serializing a batch (about 5 µs a line). Every value is formatted as `json.dumps` formats
    it (ints and finite floats by `repr`, strings by its own encoder); None when any value is of
    another type (an int subclass, a non-finite score), for `_lines` to write as before."""
    doc = result.document
    if type(doc.id) is not str:
        return None
    head = '{"doc_id": ' + _quote(doc.id)
    if include_patient_id and doc.patient_id is not None:
        if type(doc.patient_id) is not str:
            return None
        head += ', "patient_id": ' + _quote(doc.patient_id)
    lines: list[str] = []
    shift = 0
    for rep in result.replacements:
        span = rep.span
        start, end, subtype, source, new_text = span.start, span.end, span.subtype, span.source, rep.new_text
        score = round(float(span.score), 4)
        if (
            type(start) is not int
            or type(end) is not int
            or type(source) is not str
            or type(new_text) is not str
            or not (subtype is None or type(subtype) is str)
            or not math.isfinite(score)
        ):
            return None
        out_start = start + shift
        out_end = out_start + len(new_text)
        shift += len(new_text) - (end - start)
        kind = rep.kind
        labels = _LABELS.get((span.category, subtype, source))
        if labels is None:
            labels = _labels(span.category, subtype, source)
        lines.append(
            f'{head}, "start": {start}, "end": {end}{labels}"score": {score!r}, "out_start": {out_start}, '
            f'"out_end": {out_end}' + ("}\n" if kind is None else f', "replacement_kind": {_quote(str(kind))}}}\n')
        )
    return "".join(lines)


# `, "category": ..., "subtype": ..., "source": ..., ` by (category, subtype, source): a run has few.
_LABELS: dict[tuple[Category, str | None, str], str] = {}


def _labels(category: Category, subtype: str | None, source: str) -> str:
    text = f', "category": {_quote(category.value)}, "subtype": {"null" if subtype is None else _quote(subtype)}, '
    text += f'"source": {_quote(source)}, '
    if len(_LABELS) < 4096:
        _LABELS[(category, subtype, source)] = text
    return text


# ------------------------------------------------------------------------------------ reading


class AuditError(RadeidIOError, ValueError):
    """An audit file that cannot be read: names the file and line, never what the line holds."""


@dataclass(frozen=True)
class AuditRecord:
    """One audit line: a replacement, located in the original and in the output."""

    doc_id: str
    start: int
    end: int
    category: Category
    subtype: str | None
    source: str
    score: float
    out_start: int
    out_end: int
    patient_id: str | None = None
    replacement_kind: str | None = None

    @property
    def span(self) -> Span:
        """The detected span, in the original text."""
        return Span(self.start, self.end, self.category, self.subtype, self.score, self.source)

    def to_dict(self) -> dict[str, Any]:
        """The line as `AuditWriter` writes it (optional fields only when set)."""
        row: dict[str, Any] = {}
        for name, _kind in AUDIT_FIELDS:
            value = getattr(self, name)
            if value is None and name in ("patient_id", "replacement_kind"):
                continue
            row[name] = value.value if isinstance(value, Category) else value
        return row

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditRecord:
        """Check and convert one parsed line; `ValueError` says which field is wrong (not its value)."""
        values: dict[str, Any] = {}
        for name, kind in AUDIT_FIELDS:
            value = data.get(name)
            if value is None:
                if name not in _OPTIONAL:
                    raise ValueError(f"no {name!r} field" if name not in data else f"{name!r} is null")
                values[name] = None
            elif kind == "int":
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"{name!r} must be a non-negative integer")
                values[name] = value
            elif kind == "double":
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ValueError(f"{name!r} must be a number")
                values[name] = float(value)
            elif name == "category":
                if value not in _CATEGORIES:
                    raise ValueError(f"'category' is not one of {', '.join(_CATEGORIES)}")
                values[name] = _CATEGORIES[value]
            elif isinstance(value, str):
                values[name] = value
            else:
                raise ValueError(f"{name!r} must be a string")
        if values["end"] <= values["start"] or values["out_end"] < values["out_start"]:
            raise ValueError("offsets out of order ('end' must follow 'start', 'out_end' 'out_start')")
        return cls(**values)


def _audit_files(path: Path) -> list[Path]:
    """The file itself, or a folder's data files (Spark writes `part-*` files beside `_SUCCESS`)."""
    if not path.is_dir():
        return [path]
    return [f for f in walk_files(path) if not f.name.startswith("_")]


def read_audit(path: str | os.PathLike[str]) -> Iterator[AuditRecord]:
    """Every record of an audit JSONL (`.gz` too), or of a folder of them (Spark's output), in order.

    Blank lines are skipped. A line that is not an audit record raises `AuditError` naming the
    file and line and what is wrong, never the line's content; a missing path raises
    `FileNotFoundError`.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"audit not found: {p}")
    for file in _audit_files(p):
        lineno = 0
        try:
            with open_binary(file) as handle:
                for lineno, raw in enumerate(handle, 1):
                    if raw.strip():
                        yield _record(raw, file, lineno)
        except STREAM_ERRORS as exc:
            raise AuditError(f"{file} line {lineno + 1}: cannot read the audit ({type(exc).__name__})") from None


def _record(raw: bytes, file: Path, lineno: int) -> AuditRecord:
    try:
        data = json.loads(raw.decode("utf-8-sig" if lineno == 1 else "utf-8"))
    except UnicodeDecodeError as exc:
        raise AuditError(f"{file} line {lineno}: not valid UTF-8 (byte offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise AuditError(f"{file} line {lineno}: malformed JSON at column {exc.pos + 1}") from None
    except RecursionError:
        raise AuditError(f"{file} line {lineno}: malformed JSON (nested too deeply)") from None
    except ValueError:  # an integer over Python's digit limit (issue 27)
        raise AuditError(f"{file} line {lineno}: a number too long to read") from None
    if not isinstance(data, dict):
        raise AuditError(f"{file} line {lineno}: not a JSON object")
    try:
        return AuditRecord.from_dict(data)
    except ValueError as exc:
        raise AuditError(f"{file} line {lineno}: {exc}") from None
