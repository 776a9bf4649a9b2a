"""JSONL (one JSON object per line, `.jsonl`/`.ndjson`, optionally gzip): reader, writer, size estimate.

Lines are split on the byte `\\n` before decoding, so one bad line (undecodable bytes, broken JSON)
is one `ReadIssue` and never spoils the others. JSONL has no header: the first object stands in
for one (a missing id or text field is one `ColumnError` up front), and a patient or kept column
that no record has is a `ColumnError` too, listing the fields the first records have.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import TextDocumentWriter
from radeid.io.errors import FormatError, ReadIssue
from radeid.io.formats import InputFormat, is_gzip, open_binary
from radeid.io.records import (
    STREAM_ERRORS,
    ReadOptions,
    Record,
    bom_encoding,
    build_document,
    cheap_to_scan,
    coerce_id,
    column_error,
    decode_error_reason,
)
from radeid.io.registry import FormatHandler

__all__ = [
    "JSONL",
    "JsonlWriter",
    "count_lines",
    "estimate_jsonl",
    "parse_lines",
    "raw_lines",
    "read_jsonl",
    "stream_error_issue",
]

#: Records read whole to check the field names (their fields are what an error lists).
SCHEMA_PEEK_LINES = 1000
#: `estimate_jsonl` counts lines only in files up to this size, and for at most this long.
ESTIMATE_MAX_BYTES = 2 << 30
ESTIMATE_SECONDS = 1.0


def _parse(raw: bytes, encoding: str) -> tuple[Any, str | None]:
    """`(object, None)` or `(None, reason)` for one line."""
    try:
        line = raw.decode(encoding).rstrip("\r\n")
    except UnicodeDecodeError as exc:
        return None, decode_error_reason(exc, encoding, raw)
    try:
        return json.loads(line), None
    except json.JSONDecodeError as exc:
        # json's own message may end in "at" ("Invalid control character at")
        return None, f"malformed JSON: {exc.msg.removesuffix(' at')} at column {exc.pos + 1}"
    except RecursionError:
        return None, "malformed JSON: nested too deeply"
    except ValueError:
        # Only an integer over `sys.get_int_max_str_digits()` digits gets here (issue 27): one
        # record's error, like any malformed line, never the whole run's.
        return None, _huge_int_reason(line)


class _HugeInt:
    """What `_lenient_loads` puts where an integer has too many digits to convert."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _lenient_int(literal: str) -> int | _HugeInt:
    digits = len(literal.lstrip("-"))
    return _HugeInt(digits) if digits > sys.get_int_max_str_digits() > 0 else int(literal)


def _lenient_loads(line: str) -> Any:
    """`json.loads`, with a `_HugeInt` in place of each integer too long to convert (error paths only)."""
    return json.loads(line, parse_int=_lenient_int)


def _huge_int_reason(line: str) -> str:
    """Which top-level field holds the too-long integer, and how long it is; never the value."""
    limit = sys.get_int_max_str_digits()
    try:
        obj = _lenient_loads(line)
    except (ValueError, RecursionError):
        obj = None
    where = "a number"
    if isinstance(obj, dict):
        for key, value in obj.items():
            if (digits := _huge_digits(value)) is not None:
                where = f"field {key!r} holds an integer of {digits:,} digits"
                break
    return f"{where}, more than the {limit:,} digits Python reads"


def _huge_digits(value: Any) -> int | None:
    """The digits of the first `_HugeInt` in `value` (searched depth first), None without one."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _HugeInt):
            return item.digits
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _jsonl_objects(path: Path, encoding: str) -> Iterator[tuple[int, bytes, Any, str | None]]:
    """`(line, raw, object, error)` per non-blank line; exactly one of object/error is set."""
    first_encoding = bom_encoding(encoding)
    with open_binary(path) as handle:
        for lineno, raw in enumerate(handle, 1):
            if raw.strip():
                yield lineno, raw, *_parse(raw, first_encoding if lineno == 1 else encoding)


def _salvage_id(raw: bytes, encoding: str, id_col: str) -> str | None:
    """The id of a line that failed to decode, to name it in the issue (best effort)."""
    try:
        obj = _lenient_loads(raw.decode(encoding, errors="replace"))
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and not isinstance(obj.get(id_col), _HugeInt):
        doc_id, _ = coerce_id(obj.get(id_col), id_col)
        return doc_id
    return None


# ------------------------------------------------------------------------------------ field check


def _needles(name: str, encoding: str) -> tuple[bytes, ...]:
    """The bytes a key `name` is written as (raw, `\\u`-escaped, `\\/`-escaped): a line without any
    of them cannot hold the key, so only lines with one are parsed."""
    forms = {json.dumps(name, ensure_ascii=False), json.dumps(name)}
    forms |= {form.replace("/", "\\/") for form in forms}
    found = []
    for form in forms:
        try:
            found.append(form.encode(encoding))
        except UnicodeEncodeError:
            continue
    return tuple(found)


def _wanted_fields(options: ReadOptions) -> dict[str, tuple[str, str]]:
    """Fields some record must have: `name -> (what, option)` for the error message."""
    wanted: dict[str, tuple[str, str]] = {}
    if options.patient_col is not None:
        wanted[options.patient_col] = ("patient", "patient_col / --patient-col")
    if options.require_kept:
        for name in options.keep_columns:
            wanted.setdefault(name, ("kept", "keep_columns / --keep-column"))
    return wanted


def _check_jsonl_fields(path: Path, options: ReadOptions) -> None:
    """Raise a `ColumnError` up front when the field names cannot be right.

    The first object stands in for a header: without the id or text field, the names are surely
    wrong. A patient column (when one is named) and the kept columns must be in *some* record:
    the first `SCHEMA_PEEK_LINES` records are read whole (the error lists their fields); past
    them, only while a field is still missing, a line is parsed only when it holds the field's
    name, and the scan stops as soon as every field was seen.
    """
    encoding = options.encoding
    missing = _wanted_fields(options)
    needles = {name: _needles(name, encoding) for name in missing}
    seen: dict[str, None] = {}
    first_checked = False
    lineno = 0
    try:
        with open_binary(path) as handle:
            for lineno, raw in enumerate(handle, 1):
                peek = lineno <= SCHEMA_PEEK_LINES
                if not missing and (first_checked or not peek):
                    return
                if not raw.strip():
                    continue
                if not peek and not any(n in raw for name in missing for n in needles[name]):
                    continue
                obj, _error = _parse(raw, bom_encoding(encoding) if lineno == 1 else encoding)
                if not isinstance(obj, dict):
                    continue
                if peek:
                    seen.update((str(k), None) for k in obj)
                if peek and not first_checked:
                    _check_first(path, options, obj, lineno)
                    first_checked = True
                for name in [n for n in missing if n in obj]:
                    del missing[name]
    except STREAM_ERRORS as exc:
        if not first_checked:
            raise FormatError(f"cannot read {path}: {exc}") from None
        return  # the rest cannot be scanned: reading it reports the broken stream
    for name, (what, option) in missing.items():
        raise column_error(what, name, list(seen), f"any record of {path}", option)


def _check_first(path: Path, options: ReadOptions, obj: dict[str, Any], lineno: int) -> None:
    available = [str(k) for k in obj]
    where = f"the first record of {path} (line {lineno})"
    if options.id_col not in obj:
        raise column_error("id", options.id_col, available, where, "id_col / --id-col")
    if options.text_col not in obj:
        raise column_error("text", options.text_col, available, where, "text_col / --text-col")


# ------------------------------------------------------------------------------------ reading


def read_jsonl(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    if "\n".encode(options.encoding) != b"\n":
        # Lines are split on the byte 0x0A before decoding (so one bad line cannot spoil the rest).
        raise FormatError(f"JSONL needs an ASCII-compatible encoding (utf-8, latin-1, ...), not {options.encoding!r}")
    _check_jsonl_fields(path, options)
    return _iter_jsonl(path, options, mapping)


def _iter_jsonl(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    source = str(path)
    lineno = 0
    try:
        for lineno, raw, obj, error in _jsonl_objects(path, options.encoding):
            yield from _line_items(source, lineno, raw, obj, error, options, mapping)
    except STREAM_ERRORS as exc:
        yield stream_error_issue(source, lineno, exc)


def stream_error_issue(source: str, lineno: int, exc: BaseException) -> ReadIssue:
    """The issue for a file that could not be read past line `lineno` (0: not even its first)."""
    return ReadIssue(source, lineno + 1 if lineno else None, None, f"cannot read the rest of the file: {exc}")


def _line_items(
    source: str,
    lineno: int,
    raw: bytes,
    obj: Any,
    error: str | None,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
) -> Iterator[Document | ReadIssue]:
    """One parsed line -> a Document (after its warnings), or one issue."""
    if error is not None:
        yield ReadIssue(source, lineno, _salvage_id(raw, options.encoding, options.id_col), error)
        return
    if not isinstance(obj, dict):
        yield ReadIssue(source, lineno, None, f"expected a JSON object, got {_json_type(obj)}")
        return
    patient_col = options.patient_col or ("patient_id" if "patient_id" in obj else None)
    rec = Record(obj, source, lineno, None)
    yield from build_document(
        rec, options, patient_col=patient_col, mapping=mapping, with_spans=True, encoding=options.encoding
    )


def raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """`(line number, bytes)` of every non-blank line, unparsed: all a parallel run's coordinating
    process reads of a JSONL input (`radeid.run.chunks`); its workers parse them
    (`parse_lines`). Raises what reading raises (`STREAM_ERRORS`)."""
    with open_binary(path) as handle:
        for lineno, raw in enumerate(handle, 1):
            if raw.strip():
                yield lineno, raw


def parse_lines(
    source: str, lines: Iterable[tuple[int, bytes]], options: ReadOptions, mapping: Mapping[str, str] | None
) -> Iterator[Document | ReadIssue]:
    """What `read_jsonl` yields for these lines of `source` (as `raw_lines` gave them)."""
    first_encoding = bom_encoding(options.encoding)
    for lineno, raw in lines:
        obj, error = _parse(raw, first_encoding if lineno == 1 else options.encoding)
        yield from _line_items(source, lineno, raw, obj, error, options, mapping)


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def count_lines(path: Path, *, max_bytes: int = ESTIMATE_MAX_BYTES, seconds: float = ESTIMATE_SECONDS) -> int | None:
    """Lines in an uncompressed file (a last line without `\\n` counts), or None when the file is
    compressed, larger than `max_bytes`, unreadable, or takes longer than `seconds` to count."""
    if not cheap_to_scan(path, max_bytes):
        return None
    deadline = time.monotonic() + seconds
    try:
        count, last = 0, b"\n"
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
                if time.monotonic() > deadline:
                    return None
    except OSError:
        return None
    return count + (last != b"\n")


def estimate_jsonl(path: Path) -> int | None:
    """About one record a line (blank lines count too): see `count_lines`."""
    return count_lines(path)


# ------------------------------------------------------------------------------------ writing


class JsonlWriter(TextDocumentWriter):
    """One object a line: `{id_col, text_col, *kept}`."""

    format = InputFormat.JSONL

    def _write(self, result: Result) -> None:
        self._file.handle.write(_jsonl_line(self.options, result))

    @classmethod
    def encoder(cls, path: Path, options: ReadOptions) -> Callable[[Result], str] | None:
        if is_gzip(path):
            return None
        return lambda result: _jsonl_line(options, result)


def _jsonl_line(options: ReadOptions, result: Result) -> str:
    record: dict[str, Any] = {options.id_col: result.document.id, options.text_col: result.text}
    columns = result.document.metadata.get(metakeys.COLUMNS) or {}
    record.update({c: columns[c] for c in options.keep_columns if c in columns})
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


JSONL = FormatHandler(read=read_jsonl, open_writer=JsonlWriter, estimate=estimate_jsonl)
