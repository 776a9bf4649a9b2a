"""What every reader shares: the read options, turning one record into a `Document`, and the
checks made on every document whatever its format.

A format module only finds records (a JSON line, a CSV row, a Parquet row, a file) and says where
each is; the decisions about ids, text, patient ids, kept columns, gold spans, size limits, empty
texts and duplicate ids are made here, once, so that every format makes them alike. See
`radeid.io.readers` for the decisions themselves.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import zlib
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from radeid.core import metakeys
from radeid.core.document import Document, Span
from radeid.core.labelmaps import load_label_map
from radeid.io.errors import ColumnError, FormatError, ReadIssue
from radeid.io.formats import is_gzip
from radeid.io.gold import ParsedGold, parse_span_dict
from radeid.io.patients import assign_patient

__all__ = [
    "MAX_PROBLEMS_PER_DOC",
    "STREAM_ERRORS",
    "ReadOptions",
    "Record",
    "bad_unicode",
    "bom_encoding",
    "cheap_to_scan",
    "build_document",
    "checked",
    "coerce_id",
    "column_error",
    "decode_error_reason",
    "document_check",
    "duplicate_issue",
    "id_hash",
    "no_documents_issue",
    "line_of",
    "problem_issues",
    "with_gold",
]

#: Gold-annotation problems reported one by one per document; the rest are summed up in one line.
MAX_PROBLEMS_PER_DOC = 10
#: What a truncated or corrupt (gzip) stream raises midway: reported, never a crash.
STREAM_ERRORS = (OSError, EOFError, zlib.error)
# Any code point in the surrogate range in a decoded str is either an undecodable byte
# (surrogateescape) or a lone `\udXXX` JSON escape: neither can be written as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ReadOptions:
    """How to read row formats (JSONL, CSV, Parquet) and gold annotations.

    `patient_col=None` uses a `patient_id` column when one exists. `keep_columns` are copied into
    `Document.metadata["columns"]` and written out again; nothing else is (columns may hold PHI).
    A kept column (or a `patient_col`) that no record has is a `ColumnError`, unless
    `require_kept=False`: then kept columns are optional, copied where present.
    `label_map` (bundled name or TOML path) maps gold labels; i2b2 defaults to `i2b2_2014`.
    `delimiter=None` means tab for `.tsv`, comma otherwise.
    `patients` (document id, relative path or file name -> patient id) and `patient_pattern` (a
    regular expression with a group `patient`) give a patient to documents whose record has none
    (`radeid.io.patients`).
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
    require_kept: bool = True
    patients: Mapping[str, str] = field(default_factory=dict)
    patient_pattern: str = ""
    #: A trial run (`radeid.io.select`): only the first `limit` documents, or a random `sample`
    #: of that many drawn with `seed`; 0 reads every document.
    limit: int = 0
    sample: int = 0
    seed: int = 0
    #: An HL7 v2 field map (TOML) laid over the bundled one (`radeid.io.hl7_map`); "" = the bundled map.
    hl7_fields: str = ""

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
        if self.limit < 0 or self.sample < 0:
            raise FormatError("limit and sample must not be negative")
        if self.limit and self.sample:
            raise FormatError("limit and sample contradict each other; pass one of them")
        if self.hl7_fields:  # checked whole here, so a mistake stops the run before any record is read
            from radeid.io.hl7_map import load_field_map

            load_field_map(self.hl7_fields)

    @property
    def selects(self) -> bool:
        """Whether only some of the documents are read (a trial run: `limit` or `sample`)."""
        return bool(self.limit or self.sample)

    def label_mapping(self) -> dict[str, str] | None:
        """The label map named in the options (None when none is)."""
        if self.label_map is None:
            return None
        try:
            return load_label_map(self.label_map)
        except ValueError as exc:
            raise FormatError(str(exc)) from None


# ------------------------------------------------------------------------------------ checks


def id_hash(doc_id: str) -> int:
    """8 bytes of BLAKE2b of an id: what the duplicate check keeps per document."""
    digest = hashlib.blake2b(doc_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def checked(
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
        doc = assign_patient(item, options.patients, options.patient_pattern)
        issue, keep = document_check(doc, options)
        if issue is not None:
            yield issue
        if not keep:
            continue
        if options.warn_duplicates:
            key = id_hash(doc.id)
            if key in seen:
                yield duplicate_issue(doc)
            seen.add(key)
        yield doc
    if not anything:
        yield no_documents_issue(source)


def document_check(doc: Document, options: ReadOptions) -> tuple[ReadIssue | None, bool]:
    """The checks of one document that need no other document: `(issue or None, keep it)`. Too
    long is an error (the document is left out); empty text is a warning (it is kept)."""
    if len(doc.text) > options.max_chars:
        reason = f"text has {len(doc.text):,} characters, more than max_chars={options.max_chars:,}"
        return ReadIssue.at(doc.id, doc.metadata, reason), False
    if not doc.text.strip():
        what = "empty document" if not doc.text else "document holds only whitespace"
        return ReadIssue.at(doc.id, doc.metadata, f"{what}; passed through unchanged", "warning"), True
    return None, True


def duplicate_issue(doc: Document) -> ReadIssue:
    """The warning for a document whose id an earlier document had (`DuplicateIdError` in a run)."""
    reason = "duplicate document id; ids should be unique"
    return ReadIssue.at(doc.id, doc.metadata, reason, "warning", code="duplicate-id")


def no_documents_issue(source: str) -> ReadIssue:
    return ReadIssue(source, None, None, "no documents found", "warning")


# ------------------------------------------------------------------------------------ helpers


def bad_unicode(value: str) -> int | None:
    """Index of the first character that cannot be written as UTF-8 (see `_SURROGATE`).

    Checked for every document the reader yields, so the common cases are answered in C first
    (ASCII, then a trial encoding: only a lone surrogate makes UTF-8 encoding fail); the regex
    runs only to locate the culprit. About 150 times cheaper than a regex scan of clean text."""
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        m = _SURROGATE.search(value)
        return m.start() if m else None
    return None


def decode_error_reason(exc: UnicodeDecodeError, encoding: str, data: bytes) -> str:
    return f"not valid {encoding}: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"


def line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def bom_encoding(encoding: str) -> str:
    """Structural formats (JSONL, CSV) drop a UTF-8 BOM so it never sticks to the first key."""
    return "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding


def cheap_to_scan(path: Path, max_bytes: int) -> bool:
    """An uncompressed regular file of at most `max_bytes`: the only kind a size estimate reads."""
    try:
        return not is_gzip(path) and path.is_file() and path.stat().st_size <= max_bytes
    except OSError:
        return False


def column_error(
    what: str, name: str, available: list[str], where: str, option: str, *, by_position: bool = False
) -> ColumnError:
    """`{what} column {name!r} not found in {where}`, with the names there and a likely match.

    `by_position=True` (a CSV header) names the columns by number only: a file without a header
    row has a record where the header should be, and its cells must never reach a message."""
    close = get_close_matches(name, available, n=1)
    if by_position:
        hint = f" (did you mean column {available.index(close[0]) + 1}?)" if close else ""
        count = len(available)
        names = (
            f"{count} column{'s' if count != 1 else ''}, not shown by name "
            "(without a header row they would be a record's text)"
        )
    else:
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        names = ", ".join(repr(a) for a in available) or "none"
    return ColumnError(
        f"{what} column {name!r} not found in {where}{hint}; available columns: {names}; choose it with {option}"
    )


def problem_issues(gold: ParsedGold, make: Callable[[int | None, str], ReadIssue]) -> Iterator[ReadIssue]:
    """One warning per problem, capped, so a systematically broken file cannot flood the log."""
    for line, reason in gold.problems[:MAX_PROBLEMS_PER_DOC]:
        yield make(line, reason)
    if len(gold.problems) > MAX_PROBLEMS_PER_DOC:
        yield make(None, f"and {len(gold.problems) - MAX_PROBLEMS_PER_DOC} more annotation problems")


def with_gold(metadata: dict[str, Any], gold: ParsedGold) -> tuple[Span, ...]:
    """Sorted gold spans; not-PHI regions go to `metadata["ignored_spans"]` for evaluation."""
    if gold.ignored:
        metadata[metakeys.IGNORED_SPANS] = sorted(gold.ignored)
    return tuple(sorted(gold.spans))


# ------------------------------------------------------------------------------------ records


class Record:
    """What a row format hands to `build_document`: a mapping of fields plus where it came from."""

    __slots__ = ("fields", "path", "line", "row")

    def __init__(self, fields: Mapping[str, Any], path: str, line: int | None, row: int | None) -> None:
        self.fields = fields
        self.path = path
        self.line = line
        self.row = row

    def issue(self, doc_id: str | None, reason: str, severity: str = "error") -> ReadIssue:
        return ReadIssue(self.path, self.line, doc_id, reason, severity, self.row)


def coerce_id(value: Any, name: str) -> tuple[str | None, str | None]:
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
    if bad_unicode(text) is not None:
        return None, f"{name!r} is not valid text (undecodable byte or unpaired surrogate)"
    return text, None


_MISSING: Any = object()


def build_document(
    rec: Record,
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
    doc_id, why = (None, f"no {options.id_col!r} field") if raw_id is _MISSING else coerce_id(raw_id, options.id_col)
    if doc_id is None:
        yield rec.issue(None, f"{why}; a document needs an id")
        return
    text = yield from _record_text(rec, options, doc_id, encoding)
    if text is None:
        return
    patient_id = yield from _record_patient(rec, patient_col, doc_id)
    metadata = yield from _record_metadata(rec, options, doc_id, encoding)
    if metadata is None:
        return
    spans: tuple[Span, ...] = ()
    if with_spans:
        spans = yield from _record_spans(rec, options, doc_id, text, mapping, metadata)
    yield Document(doc_id, text, patient_id, metadata, spans)


def _record_text(
    rec: Record, options: ReadOptions, doc_id: str, encoding: str
) -> Generator[ReadIssue, None, str | None]:
    """The record's text, decoded and checked; None after yielding the one error that says why not."""
    text = rec.fields.get(options.text_col, _MISSING)
    if text is _MISSING:
        yield rec.issue(doc_id, f"no {options.text_col!r} field")
        return None
    if isinstance(text, bytes):
        try:
            text = text.decode(encoding)
        except UnicodeDecodeError as exc:
            yield rec.issue(doc_id, decode_error_reason(exc, encoding, text))
            return None
    if text is None:
        yield rec.issue(doc_id, f"{options.text_col!r} is null")
        return None
    if not isinstance(text, str):
        yield rec.issue(doc_id, f"{options.text_col!r} must be a string, not {type(text).__name__}")
        return None
    if (at := bad_unicode(text)) is not None:
        yield rec.issue(
            doc_id,
            f"{options.text_col!r} is not valid {encoding} (undecodable byte or unpaired surrogate at character {at})",
        )
        return None
    return text


def _record_patient(rec: Record, patient_col: str | None, doc_id: str) -> Generator[ReadIssue, None, str | None]:
    """The patient id, if the column is given and set; an unusable one is a warning and no patient id."""
    patient_id: str | None = None
    if patient_col is not None:
        raw_patient = rec.fields.get(patient_col)
        if raw_patient not in (None, ""):
            patient_id, why = coerce_id(raw_patient, patient_col)
            if patient_id is None:
                yield rec.issue(doc_id, f"{why}; patient id ignored", "warning")
    return patient_id


def _record_metadata(
    rec: Record, options: ReadOptions, doc_id: str, encoding: str
) -> Generator[ReadIssue, None, dict[str, Any] | None]:
    """Where the record came from and its kept columns; None after the error for a kept column that is not text."""
    metadata: dict[str, Any] = {metakeys.PATH: rec.path}
    if rec.line is not None:
        metadata[metakeys.LINE] = rec.line
    if rec.row is not None:
        metadata[metakeys.ROW] = rec.row
    if options.keep_columns:
        fields = rec.fields
        kept = {c: fields[c] for c in options.keep_columns if c in fields}
        for name, value in kept.items():
            if isinstance(value, str) and bad_unicode(value) is not None:
                yield rec.issue(doc_id, f"kept column {name!r} is not valid {encoding}")
                return None
        metadata[metakeys.COLUMNS] = kept
    return metadata


def _record_spans(
    rec: Record,
    options: ReadOptions,
    doc_id: str,
    text: str,
    mapping: Mapping[str, str] | None,
    metadata: dict[str, Any],
) -> Generator[ReadIssue, None, tuple[Span, ...]]:
    """The record's gold spans (ignored ranges go to `metadata`); each unusable span is a warning."""
    raw_spans = rec.fields.get(options.spans_field)
    if raw_spans is None:
        return ()
    if not isinstance(raw_spans, list):
        yield rec.issue(doc_id, f"{options.spans_field!r} must be a list; gold spans ignored", "warning")
        return ()
    gold = ParsedGold()
    for n, item in enumerate(raw_spans, 1):
        found, problem = parse_span_dict(item, text, mapping)
        if isinstance(found, Span):
            gold.spans.append(found)
        elif found is not None:
            gold.ignored.append(found)
        if problem:
            gold.problems.append((None, f"gold span {n}: {problem}" + ("" if found else "; skipped")))
    yield from problem_issues(gold, lambda _line, reason: rec.issue(doc_id, reason, "warning"))
    return with_gold(metadata, gold)
