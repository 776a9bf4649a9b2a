"""Streaming readers: every format yields `Document`s and `ReadIssue`s, one record at a time.

Memory stays constant in the number of documents: JSONL is read line by line, CSV row by row,
Parquet record batch by record batch, folders file by file. The only per-document state is an
8-byte hash of each id, for the duplicate-id warning (turn it off with `warn_duplicates=False`).

Decisions, in one place:

* Ids. JSONL, CSV and Parquet need an id field: a record without one is an *error* (we never
  invent ids for row formats, because the output must be joinable back to the input). Integer ids
  are accepted and turned into strings. Folder formats (txt, i2b2, BRAT) have natural ids: the path
  relative to the folder, without the suffix, with `/` separators (`2019/ct/r12`); a single file's
  id is its stem.
* Privacy. Input columns other than id and text may hold PHI, so they are *not* carried into the
  `Document` unless listed in `keep_columns` (then in `metadata["columns"]`, and writers copy them
  out). The patient id is read into `Document.patient_id` for surrogate consistency but written out
  only when `keep_columns` lists it.
* Warnings vs errors (see `errors.py`): an error skips the record; a warning keeps it. Empty text,
  duplicate ids and broken gold annotations are warnings; undecodable bytes, malformed JSON/CSV,
  missing id/text and texts over `max_chars` are errors.
* Whole-input problems (missing path, unknown format, a column that does not exist) are raised up
  front by `read_documents` itself, before any record is read.
* JSONL has no header, so its *first* object stands in for one: if it lacks the id or text
  field, a `ColumnError` names the fields it does have (one error, not one per line).
* Folders are read in sorted path order, recursively; hidden files and folders are skipped.
* Text is kept exactly: files are decoded from bytes without newline translation, so `\\r\\n`,
  a BOM in a .txt file, and every code point survive (offsets in gold files stay valid).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import json
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import IO, Any

from radeid.document import Document, Span
from radeid.io.errors import (
    ColumnError,
    FormatError,
    InputNotFoundError,
    RadeidIOError,
    ReadIssue,
)
from radeid.io.formats import InputFormat, detect_format, is_gzip, walk_files
from radeid.io.gold import IGNORED_SPANS_KEY, ParsedGold, parse_brat_ann, parse_i2b2, parse_span_dict
from radeid.labelmaps import load_label_map

__all__ = [
    "ColumnError",
    "FormatError",
    "InputFormat",
    "InputNotFoundError",
    "RadeidIOError",
    "ReadIssue",
    "ReadOptions",
    "detect_format",
    "read_documents",
]

#: Gold-annotation problems reported one by one per document; the rest are summed up in one line.
MAX_PROBLEMS_PER_DOC = 10
_PARQUET_BATCH_ROWS = 256
_JSONL_SCHEMA_PEEK_LINES = 1000
# What a truncated or corrupt (gzip) stream raises midway: reported, never a crash.
_STREAM_ERRORS = (OSError, EOFError, zlib.error)
# Any code point in the surrogate range in a decoded str is either an undecodable byte
# (surrogateescape) or a lone `\udXXX` JSON escape: neither can be written as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ReadOptions:
    """How to read row formats (JSONL, CSV, Parquet) and gold annotations.

    `patient_col=None` uses a `patient_id` column when one exists. `keep_columns` are copied into
    `Document.metadata["columns"]` and written out again; nothing else is (columns may hold PHI).
    `label_map` (bundled name or TOML path) maps gold labels; i2b2 defaults to `i2b2_2014`.
    `delimiter=None` means tab for `.tsv`, comma otherwise.
    """

    id_col: str = "id"
    text_col: str = "text"
    patient_col: str | None = None
    spans_field: str = "spans"
    label_map: str | None = None
    encoding: str = "utf-8"
    max_chars: int = 10_000_000
    keep_columns: tuple[str, ...] = ()
    delimiter: str | None = None
    warn_duplicates: bool = True

    def __post_init__(self) -> None:
        keep = (self.keep_columns,) if isinstance(self.keep_columns, str) else tuple(self.keep_columns)
        keep = tuple(dict.fromkeys(c for c in keep if c != self.id_col))
        object.__setattr__(self, "keep_columns", keep)
        if not self.id_col or not self.text_col:
            raise FormatError("id_col and text_col must be non-empty")
        if self.text_col in keep:
            raise FormatError(
                f"keep_columns lists the text column {self.text_col!r}: that would copy the original, "
                "un-de-identified text to the output"
            )
        try:
            codecs.lookup(self.encoding)
        except LookupError:
            raise FormatError(f"unknown encoding {self.encoding!r}") from None
        if self.max_chars < 1:
            raise FormatError("max_chars must be at least 1")
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise FormatError(f"delimiter must be one character, got {self.delimiter!r}")

    def label_mapping(self) -> dict[str, str] | None:
        """The label map named in the options (None when none is)."""
        if self.label_map is None:
            return None
        try:
            return load_label_map(self.label_map)
        except ValueError as exc:
            raise FormatError(str(exc)) from None


def read_documents(
    path: str | os.PathLike[str],
    fmt: InputFormat | str | None = None,
    options: ReadOptions | None = None,
) -> Iterator[Document | ReadIssue]:
    """Stream the documents (and issues) of `path`, in file order.

    Raises `InputNotFoundError`, `FormatError` or `ColumnError` here, before the first record,
    for problems that concern the whole input; per-record problems are yielded as `ReadIssue`s.
    """
    options = options or ReadOptions()
    p = Path(path)
    if not p.exists():
        raise InputNotFoundError(f"input not found: {p}")
    f = InputFormat.parse(fmt) if fmt is not None else detect_format(p)
    mapping = options.label_mapping()
    if f is InputFormat.JSONL:
        records = _read_jsonl(p, options, mapping)
    elif f is InputFormat.CSV:
        records = _read_csv(p, options)
    elif f is InputFormat.PARQUET:
        records = _read_parquet(p, options, mapping)
    elif f is InputFormat.TXT:
        records = _read_txt(p, options)
    elif f is InputFormat.I2B2:
        records = _read_i2b2(p, options, mapping)
    else:
        records = _read_brat(p, options, mapping)
    return _checked(records, str(p), options)


# ------------------------------------------------------------------------------------ shared


def _issue_at(doc: Document, reason: str, severity: str) -> ReadIssue:
    meta = doc.metadata
    return ReadIssue(str(meta.get("path", "")), meta.get("line"), doc.id, reason, severity, meta.get("row"))


def _id_hash(doc_id: str) -> int:
    digest = hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _checked(
    records: Iterator[Document | ReadIssue], source: str, options: ReadOptions
) -> Iterator[Document | ReadIssue]:
    """Checks shared by every format: size limit, empty text, duplicate ids, empty input."""
    seen: set[int] = set()
    anything = False
    for item in records:
        anything = True
        if isinstance(item, ReadIssue):
            yield item
            continue
        doc = item
        if len(doc.text) > options.max_chars:
            yield _issue_at(
                doc, f"text has {len(doc.text):,} characters, more than max_chars={options.max_chars:,}", "error"
            )
            continue
        if not doc.text.strip():
            what = "empty document" if not doc.text else "document holds only whitespace"
            yield _issue_at(doc, f"{what}; passed through unchanged", "warning")
        if options.warn_duplicates:
            key = _id_hash(doc.id)
            if key in seen:
                meta = doc.metadata
                yield ReadIssue(
                    str(meta.get("path", "")),
                    meta.get("line"),
                    doc.id,
                    "duplicate document id; ids should be unique",
                    "warning",
                    meta.get("row"),
                    code="duplicate-id",
                )
            seen.add(key)
        yield doc
    if not anything:
        yield ReadIssue(source, None, None, "no documents found", "warning")


def _bad_unicode(value: str) -> int | None:
    """Index of the first character that cannot be written as UTF-8 (see `_SURROGATE`)."""
    m = _SURROGATE.search(value)
    return m.start() if m else None


def _decode_error_reason(exc: UnicodeDecodeError, encoding: str, data: bytes) -> str:
    return f"not valid {encoding}: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _bom_encoding(encoding: str) -> str:
    """Structural formats (JSONL, CSV) drop a UTF-8 BOM so it never sticks to the first key."""
    return "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding


def _column_error(what: str, name: str, available: list[str], where: str, option: str) -> ColumnError:
    close = get_close_matches(name, available, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    names = ", ".join(repr(a) for a in available) or "none"
    return ColumnError(
        f"{what} column {name!r} not found in {where}{hint}; available columns: {names}; choose it with {option}"
    )


class _Record:
    """What a row format hands to `_build`: a mapping of fields plus where it came from."""

    __slots__ = ("fields", "path", "line", "row")

    def __init__(self, fields: Mapping[str, Any], path: str, line: int | None, row: int | None) -> None:
        self.fields = fields
        self.path = path
        self.line = line
        self.row = row

    def issue(self, doc_id: str | None, reason: str, severity: str = "error") -> ReadIssue:
        return ReadIssue(self.path, self.line, doc_id, reason, severity, self.row)


def _coerce_id(value: Any, name: str) -> tuple[str | None, str | None]:
    """`(id, None)` or `(None, reason)`: ids are non-empty strings or integers."""
    if value is None:
        return None, f"{name!r} is null"
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return None, f"{name!r} is not valid utf-8"
    if isinstance(value, float) and value.is_integer():
        # An integer column with nulls often arrives as floats (pandas, Spark): 3.0 is id "3", as
        # in `radeid spark-deid`. Other floats (3.5, NaN) are refused: their text is ambiguous.
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None, f"{name!r} must be a string or an integer, not {type(value).__name__}"
    text = str(value)
    if not text.strip():
        return None, f"{name!r} is empty"
    if _bad_unicode(text) is not None:
        return None, f"{name!r} is not valid text (undecodable byte or unpaired surrogate)"
    return text, None


def _build(
    rec: _Record,
    options: ReadOptions,
    *,
    patient_col: str | None,
    mapping: Mapping[str, str] | None,
    with_spans: bool,
    encoding: str,
) -> Iterator[Document | ReadIssue]:
    """One record of a row format -> warnings (if any) and a Document, or one error."""
    fields = rec.fields
    raw_id = fields.get(options.id_col, _MISSING)
    doc_id, why = (None, f"no {options.id_col!r} field") if raw_id is _MISSING else _coerce_id(raw_id, options.id_col)
    if doc_id is None:
        yield rec.issue(None, f"{why}; a document needs an id")
        return
    text = fields.get(options.text_col, _MISSING)
    if text is _MISSING:
        yield rec.issue(doc_id, f"no {options.text_col!r} field")
        return
    if isinstance(text, bytes):
        try:
            text = text.decode(encoding)
        except UnicodeDecodeError as exc:
            yield rec.issue(doc_id, _decode_error_reason(exc, encoding, text))
            return
    if text is None:
        yield rec.issue(doc_id, f"{options.text_col!r} is null")
        return
    if not isinstance(text, str):
        yield rec.issue(doc_id, f"{options.text_col!r} must be a string, not {type(text).__name__}")
        return
    if (at := _bad_unicode(text)) is not None:
        yield rec.issue(
            doc_id,
            f"{options.text_col!r} is not valid {encoding} (undecodable byte or unpaired surrogate at character {at})",
        )
        return

    patient_id: str | None = None
    if patient_col is not None:
        raw_patient = fields.get(patient_col)
        if raw_patient not in (None, ""):
            patient_id, why = _coerce_id(raw_patient, patient_col)
            if patient_id is None:
                yield rec.issue(doc_id, f"{why}; patient id ignored", "warning")

    metadata: dict[str, Any] = {"path": rec.path}
    if rec.line is not None:
        metadata["line"] = rec.line
    if rec.row is not None:
        metadata["row"] = rec.row
    if options.keep_columns:
        kept = {c: fields[c] for c in options.keep_columns if c in fields}
        for name, value in kept.items():
            if isinstance(value, str) and _bad_unicode(value) is not None:
                yield rec.issue(doc_id, f"kept column {name!r} is not valid {encoding}")
                return
        metadata["columns"] = kept

    spans: tuple[Span, ...] = ()
    if with_spans:
        raw_spans = fields.get(options.spans_field)
        if raw_spans is not None:
            if not isinstance(raw_spans, list):
                yield rec.issue(doc_id, f"{options.spans_field!r} must be a list; gold spans ignored", "warning")
            else:
                gold = ParsedGold()
                for n, item in enumerate(raw_spans, 1):
                    found, problem = parse_span_dict(item, text, mapping)
                    if isinstance(found, Span):
                        gold.spans.append(found)
                    elif found is not None:
                        gold.ignored.append(found)
                    if problem:
                        gold.problems.append((None, f"gold span {n}: {problem}" + ("" if found else "; skipped")))
                yield from _problem_issues(gold, lambda _line, reason: rec.issue(doc_id, reason, "warning"))
                spans = _with_gold(metadata, gold)
    yield Document(doc_id, text, patient_id, metadata, spans)


_MISSING: Any = object()


def _problem_issues(gold: ParsedGold, make: Callable[[int | None, str], ReadIssue]) -> Iterator[ReadIssue]:
    """One warning per problem, capped, so a systematically broken file cannot flood the log."""
    for line, reason in gold.problems[:MAX_PROBLEMS_PER_DOC]:
        yield make(line, reason)
    if len(gold.problems) > MAX_PROBLEMS_PER_DOC:
        yield make(None, f"and {len(gold.problems) - MAX_PROBLEMS_PER_DOC} more annotation problems")


def _with_gold(metadata: dict[str, Any], gold: ParsedGold) -> tuple[Span, ...]:
    """Sorted gold spans; not-PHI regions go to `metadata["ignored_spans"]` for evaluation."""
    if gold.ignored:
        metadata[IGNORED_SPANS_KEY] = sorted(gold.ignored)
    return tuple(sorted(gold.spans))


# ------------------------------------------------------------------------------------ JSONL


def _open_binary(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")  # noqa: SIM115


def _jsonl_objects(path: Path, encoding: str) -> Iterator[tuple[int, bytes, Any, str | None]]:
    """`(line, raw, object, error)` per non-blank line; exactly one of object/error is set."""
    first_encoding = _bom_encoding(encoding)
    with _open_binary(path) as handle:
        for lineno, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                line = raw.decode(first_encoding if lineno == 1 else encoding).rstrip("\r\n")
            except UnicodeDecodeError as exc:
                yield lineno, raw, None, _decode_error_reason(exc, encoding, raw)
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                # json's own message may end in "at" ("Invalid control character at")
                yield lineno, raw, None, f"malformed JSON: {exc.msg.removesuffix(' at')} at column {exc.pos + 1}"
                continue
            except RecursionError:
                yield lineno, raw, None, "malformed JSON: nested too deeply"
                continue
            yield lineno, raw, obj, None


def _salvage_id(raw: bytes, encoding: str, id_col: str) -> str | None:
    """The id of a line that failed to decode, to name it in the issue (best effort)."""
    try:
        obj = json.loads(raw.decode(encoding, errors="replace"))
    except (json.JSONDecodeError, RecursionError):
        return None
    if isinstance(obj, dict):
        doc_id, _ = _coerce_id(obj.get(id_col), id_col)
        return doc_id
    return None


def _check_jsonl_fields(path: Path, options: ReadOptions) -> None:
    """The first object decides: if it lacks the id or text field, the names are surely wrong."""
    try:
        for lineno, _raw, obj, _error in _jsonl_objects(path, options.encoding):
            if lineno > _JSONL_SCHEMA_PEEK_LINES:
                return
            if not isinstance(obj, dict):
                continue
            available = [str(k) for k in obj]
            where = f"the first record of {path} (line {lineno})"
            if options.id_col not in obj:
                raise _column_error("id", options.id_col, available, where, "id_col / --id-col")
            if options.text_col not in obj:
                raise _column_error("text", options.text_col, available, where, "text_col / --text-col")
            return
    except _STREAM_ERRORS as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None


def _read_jsonl(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
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
            if error is not None:
                yield ReadIssue(source, lineno, _salvage_id(raw, options.encoding, options.id_col), error)
                continue
            if not isinstance(obj, dict):
                yield ReadIssue(source, lineno, None, f"expected a JSON object, got {_json_type(obj)}")
                continue
            patient_col = options.patient_col or ("patient_id" if "patient_id" in obj else None)
            rec = _Record(obj, source, lineno, None)
            yield from _build(
                rec, options, patient_col=patient_col, mapping=mapping, with_spans=True, encoding=options.encoding
            )
    except _STREAM_ERRORS as exc:
        yield ReadIssue(source, lineno + 1 if lineno else None, None, f"cannot read the rest of the file: {exc}")


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


# ------------------------------------------------------------------------------------ CSV


def _open_csv(path: Path, encoding: str) -> IO[str]:
    # surrogateescape: a bad byte becomes a lone surrogate instead of killing the whole file, and
    # `_bad_unicode` turns it into an issue for its own row only.
    enc = _bom_encoding(encoding)
    if is_gzip(path):
        return gzip.open(path, "rt", encoding=enc, errors="surrogateescape", newline="")
    return open(path, encoding=enc, errors="surrogateescape", newline="")  # noqa: SIM115


def _raise_field_limit() -> None:
    """Lift the csv module's 128 KiB field limit (process-wide, only ever raised): long reports are
    normal, and `max_chars` is the real limit, enforced with a proper per-row message."""
    limit = sys.maxsize
    while True:
        try:
            if csv.field_size_limit() < limit:
                csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


def _delimiter(path: Path, options: ReadOptions) -> str:
    if options.delimiter:
        return options.delimiter
    name = path.name.lower().removesuffix(".gz")
    return "\t" if name.endswith(".tsv") else ","


@dataclass(frozen=True)
class _CsvLayout:
    names: list[str]  # header, as written
    index: dict[str, int]  # chosen field name -> column index
    patient_col: str | None


def _csv_layout(path: Path, options: ReadOptions) -> _CsvLayout | None:
    """Read the header and resolve every chosen column once, up front."""
    _raise_field_limit()
    try:
        with _open_csv(path, options.encoding) as handle:
            header = next(csv.reader(handle, delimiter=_delimiter(path, options), strict=True), None)
    except csv.Error as exc:
        raise FormatError(f"{path}: malformed CSV header: {exc}") from None
    except _STREAM_ERRORS as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None
    if header is None:
        return None
    if any(_bad_unicode(h) is not None for h in header):
        raise FormatError(f"{path}: the header row is not valid {options.encoding}")
    stripped = [h.strip() for h in header]

    def find(name: str) -> int | None:
        for names in (header, stripped):
            if name in names:
                return names.index(name)
        return None

    where = f"the header of {path}"
    index: dict[str, int] = {}
    for what, name, option in (
        ("id", options.id_col, "id_col / --id-col"),
        ("text", options.text_col, "text_col / --text-col"),
    ):
        if (i := find(name)) is None:
            raise _column_error(what, name, header, where, option)
        index[name] = i
    patient_col = options.patient_col
    if patient_col is not None:
        if (i := find(patient_col)) is None:
            raise _column_error("patient", patient_col, header, where, "patient_col / --patient-col")
        index[patient_col] = i
    elif (i := find("patient_id")) is not None:
        patient_col = "patient_id"
        index[patient_col] = i
    for name in options.keep_columns:
        if (i := find(name)) is None:
            raise _column_error("kept", name, header, where, "keep_columns / --keep-column")
        index[name] = i
    return _CsvLayout(header, index, patient_col)


def _read_csv(path: Path, options: ReadOptions) -> Iterator[Document | ReadIssue]:
    layout = _csv_layout(path, options)
    if layout is None:
        return iter(())
    return _iter_csv(path, options, layout)


def _iter_csv(path: Path, options: ReadOptions, layout: _CsvLayout) -> Iterator[Document | ReadIssue]:
    source = str(path)
    width = len(layout.names)
    row_no = 0
    with _open_csv(path, options.encoding) as handle:
        reader = csv.reader(handle, delimiter=_delimiter(path, options), strict=True)
        try:
            next(reader)  # the header, already checked
        except (csv.Error, StopIteration):
            return
        while True:
            start_line = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                row_no += 1
                yield ReadIssue(source, start_line, None, f"malformed CSV: {exc}", row=row_no)
                if reader.line_num < start_line:  # no progress: stop rather than loop
                    return
                continue
            except _STREAM_ERRORS as exc:
                yield ReadIssue(source, start_line, None, f"cannot read the rest of the file: {exc}")
                return
            if not row:
                continue  # a blank line is not a record
            row_no += 1
            if len(row) != width:
                # A broken row (an unquoted multi-line cell, say): its "id" field may be report
                # text, so it is never printed; the file, line and row locate it.
                fewer = "missing columns" if len(row) < width else "too many columns"
                yield ReadIssue(
                    source,
                    start_line,
                    None,
                    f"{fewer}: row has {len(row)} fields, the header has {width}",
                    row=row_no,
                )
                continue
            fields = {name: row[i] for name, i in layout.index.items()}
            yield from _build(
                _Record(fields, source, start_line, row_no),
                options,
                patient_col=layout.patient_col,
                mapping=None,
                with_spans=False,
                encoding=options.encoding,
            )


# ------------------------------------------------------------------------------------ Parquet


def _read_parquet(
    path: Path, options: ReadOptions, mapping: Mapping[str, str] | None
) -> Iterator[Document | ReadIssue]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as pf:
            schema = pf.schema_arrow
    except (pa.ArrowException, OSError) as exc:
        raise FormatError(f"{path} is not a readable Parquet file: {exc}") from None
    names = list(schema.names)
    where = f"the schema of {path}"
    columns: list[str] = []
    for what, name, option in (
        ("id", options.id_col, "id_col / --id-col"),
        ("text", options.text_col, "text_col / --text-col"),
    ):
        if name not in names:
            raise _column_error(what, name, names, where, option)
        columns.append(name)
    text_type = schema.field(options.text_col).type
    if pa.types.is_dictionary(text_type):  # dictionary-encoded strings read back as plain values
        text_type = text_type.value_type
    if not (
        pa.types.is_string(text_type)
        or pa.types.is_large_string(text_type)
        or pa.types.is_binary(text_type)
        or pa.types.is_large_binary(text_type)
        or str(text_type) in ("string_view", "binary_view")
    ):
        raise ColumnError(f"text column {options.text_col!r} of {path} has type {text_type}, not string")
    patient_col = options.patient_col
    if patient_col is not None and patient_col not in names:
        raise _column_error("patient", patient_col, names, where, "patient_col / --patient-col")
    if patient_col is None and "patient_id" in names:
        patient_col = "patient_id"
    for name in (patient_col, *options.keep_columns):
        if name is not None and name not in names:
            raise _column_error("kept", name, names, where, "keep_columns / --keep-column")
        if name is not None and name not in columns:
            columns.append(name)
    if options.spans_field in names and options.spans_field not in columns:
        columns.append(options.spans_field)
    return _iter_parquet(path, options, mapping, columns, patient_col)


def _iter_parquet(
    path: Path,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
    columns: list[str],
    patient_col: str | None,
) -> Iterator[Document | ReadIssue]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)
    row_no = 0
    with pq.ParquetFile(path) as pf:
        for group in range(pf.num_row_groups):
            group_end = row_no + pf.metadata.row_group(group).num_rows
            try:
                for batch in pf.iter_batches(batch_size=_PARQUET_BATCH_ROWS, row_groups=[group], columns=columns):
                    values = {name: _column_values(batch.column(name)) for name in columns}
                    for i in range(batch.num_rows):
                        row_no += 1
                        rec = _Record({name: values[name][i] for name in columns}, source, None, row_no)
                        yield from _build(
                            rec,
                            options,
                            patient_col=patient_col,
                            mapping=mapping,
                            with_spans=options.spans_field in columns,
                            encoding=options.encoding,
                        )
            except (pa.ArrowException, OSError) as exc:
                yield ReadIssue(
                    source,
                    None,
                    None,
                    f"cannot read row group {group} ({type(exc).__name__}); its remaining "
                    f"rows {row_no + 1}-{group_end} were skipped",
                    row=row_no + 1,
                    records=group_end - row_no,
                )
                row_no = group_end


def _column_values(column: Any) -> list[Any]:
    """Python values of one Arrow column; invalid UTF-8 in a string column stays bytes per value
    (so only that row fails, in `_build`), instead of failing the whole batch."""
    try:
        return column.to_pylist()
    except UnicodeDecodeError:
        import pyarrow as pa

        raw = column.cast(pa.binary()).to_pylist()
        return raw


# ------------------------------------------------------------------------------------ folders


def _relative_id(file: Path, root: Path | None) -> tuple[str, str]:
    """`(id, relpath)`: path relative to the input folder without its suffix, `/`-separated."""
    rel = file.relative_to(root) if root is not None else Path(file.name)
    return rel.with_suffix("").as_posix(), rel.as_posix()


def _folder_files(root: Path, suffix: str) -> Iterator[Path | OSError]:
    """Files with `suffix` (any case) under `root`; walk errors come through in order."""
    errors: list[OSError] = []
    for file in walk_files(root, errors):
        while errors:
            yield errors.pop(0)
        if file.suffix.lower() == suffix:
            yield file
    yield from errors


def _walk_issue(exc: OSError) -> ReadIssue:
    return ReadIssue(str(exc.filename or ""), None, None, f"cannot read folder: {exc.strerror or exc}")


def _read_text_file(file: Path, doc_id: str, options: ReadOptions) -> tuple[str | None, ReadIssue | None]:
    """Exact text of one file (bytes decoded as they are, no newline translation) or an error."""
    source = str(file)
    try:
        size = file.stat().st_size
        if size > options.max_chars * 4:  # even 4-byte characters would be too many
            return None, ReadIssue(
                source, None, doc_id, f"file is {size:,} bytes, more than max_chars={options.max_chars:,} allows"
            )
        data = file.read_bytes()
    except OSError as exc:
        return None, ReadIssue(source, None, doc_id, f"cannot read file: {exc.strerror or exc}")
    try:
        return data.decode(options.encoding), None
    except UnicodeDecodeError as exc:
        line = _line_of(data, exc.start)
        return None, ReadIssue(source, line, doc_id, _decode_error_reason(exc, options.encoding, data))


def _read_txt(path: Path, options: ReadOptions) -> Iterator[Document | ReadIssue]:
    root = path if path.is_dir() else None
    files: Iterator[Path | OSError] = _folder_files(path, ".txt") if root else iter([path])
    return _iter_txt(files, root, options)


def _iter_txt(
    files: Iterator[Path | OSError], root: Path | None, options: ReadOptions
) -> Iterator[Document | ReadIssue]:
    for file in files:
        if isinstance(file, OSError):
            yield _walk_issue(file)
            continue
        doc_id, relpath = _relative_id(file, root)
        text, issue = _read_text_file(file, doc_id, options)
        if issue is not None:
            yield issue
            continue
        assert text is not None
        yield Document(doc_id, text, None, {"path": str(file), "relpath": relpath})


def _read_i2b2(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    root = path if path.is_dir() else None
    files: Iterator[Path | OSError] = _folder_files(path, ".xml") if root else iter([path])
    return _iter_i2b2(files, root, options, mapping)


def _iter_i2b2(
    files: Iterator[Path | OSError],
    root: Path | None,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
) -> Iterator[Document | ReadIssue]:
    for file in files:
        if isinstance(file, OSError):
            yield _walk_issue(file)
            continue
        source = str(file)
        doc_id, relpath = _relative_id(file, root)
        try:
            size = file.stat().st_size
            if size > options.max_chars * 4 + 1_000_000:  # text plus generous room for the tags
                yield ReadIssue(source, None, doc_id, f"file is {size:,} bytes, more than max_chars allows")
                continue
            data = file.read_bytes()
        except OSError as exc:
            yield ReadIssue(source, None, doc_id, f"cannot read file: {exc.strerror or exc}")
            continue
        try:
            # XML carries its own encoding declaration (UTF-8 by default); `encoding` is not used.
            text, gold = parse_i2b2(data, mapping)
        except ValueError as exc:
            yield ReadIssue(source, _xml_line(exc), doc_id, str(exc))
            continue
        yield from _problem_issues(gold, lambda line, r, s=source, d=doc_id: ReadIssue(s, line, d, r, "warning"))
        metadata: dict[str, Any] = {"path": source, "relpath": relpath}
        yield Document(doc_id, text, None, metadata, _with_gold(metadata, gold))


def _xml_line(exc: ValueError) -> int | None:
    m = re.search(r"line (\d+)", str(exc))
    return int(m.group(1)) if m else None


def _read_brat(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    if path.is_dir():
        return _iter_brat(_brat_pairs(path), path, options, mapping)
    if path.suffix.lower() not in (".txt", ".ann"):
        raise FormatError(f"a single BRAT document is given as its .txt or .ann file, not {path.name!r}")
    txt = path.with_suffix(".txt")
    if not txt.exists():
        raise InputNotFoundError(f"input not found: {txt} (the text of BRAT document {path.stem!r})")
    return _iter_brat(iter([(txt, path.with_suffix(".ann"))]), None, options, mapping)


@dataclass(frozen=True)
class _OrphanAnn:
    """A `.ann` file whose `.txt` is missing: reported, since its gold would silently vanish."""

    path: Path


def _brat_pairs(root: Path) -> Iterator[tuple[Path, Path] | _OrphanAnn | OSError]:
    """`(txt, ann)` per `.txt` under `root` (the `.ann` may be missing), then orphan `.ann`s."""
    for file in _folder_files(root, ".txt"):
        yield file if isinstance(file, OSError) else (file, file.with_suffix(".ann"))
    for file in _folder_files(root, ".ann"):
        if isinstance(file, Path) and not file.with_suffix(".txt").exists():
            yield _OrphanAnn(file)


def _iter_brat(
    pairs: Iterator[tuple[Path, Path] | _OrphanAnn | OSError],
    root: Path | None,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
) -> Iterator[Document | ReadIssue]:
    for pair in pairs:
        if isinstance(pair, _OrphanAnn):
            yield ReadIssue(str(pair.path), None, None, "annotation file without its .txt; skipped")
            continue
        if isinstance(pair, OSError):
            yield _walk_issue(pair)
            continue
        txt, ann = pair
        doc_id, relpath = _relative_id(txt, root)
        text, issue = _read_text_file(txt, doc_id, options)
        if issue is not None:
            yield issue
            continue
        assert text is not None
        gold = ParsedGold()
        ann_source = str(ann)
        if not ann.exists():
            yield ReadIssue(str(txt), None, doc_id, "no .ann file beside it; read without gold spans", "warning")
        else:
            ann_bytes = b""
            try:
                ann_bytes = ann.read_bytes()
                ann_text = ann_bytes.decode(options.encoding)
            except UnicodeDecodeError as exc:
                yield ReadIssue(
                    ann_source,
                    _line_of(ann_bytes, exc.start),
                    doc_id,
                    f"{_decode_error_reason(exc, options.encoding, ann_bytes)}; gold spans ignored",
                    "warning",
                )
                ann_text = ""
            except OSError as exc:
                yield ReadIssue(
                    ann_source,
                    None,
                    doc_id,
                    f"cannot read annotations: {exc.strerror or exc}; gold spans ignored",
                    "warning",
                )
                ann_text = ""
            gold = parse_brat_ann(ann_text, text, mapping)
            yield from _problem_issues(
                gold, lambda line, r, s=ann_source, d=doc_id: ReadIssue(s, line, d, r, "warning")
            )
        metadata: dict[str, Any] = {"path": str(txt), "relpath": relpath}
        yield Document(doc_id, text, None, metadata, _with_gold(metadata, gold))
