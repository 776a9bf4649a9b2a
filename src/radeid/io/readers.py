"""Streaming readers: every format yields `Document`s and `ReadIssue`s, one record at a time.

This module is the entry point (`read_documents`, `estimate_total`) and names the decisions; the
work is done per format family (`radeid.io.jsonl`, `.delimited`, `.parquet`, `.folders`), found
through the format registry (`radeid.io.registry`), on top of what they share
(`radeid.io.records`).

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
  field, a `ColumnError` names the fields it does have (one error, not one per line). A patient
  or kept column that *no* record has is a `ColumnError` too, as in CSV and Parquet (unless
  `require_kept=False` makes kept columns optional).
* Folders are read in sorted path order, recursively; hidden files and folders are skipped.
* Text is kept exactly: files are decoded from bytes without newline translation, so `\\r\\n`,
  a BOM in a .txt file, and every code point survive (offsets in gold files stay valid).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from radeid.core.document import Document
from radeid.io.errors import (
    ColumnError,
    FormatError,
    InputNotFoundError,
    RadeidIOError,
    ReadIssue,
)
from radeid.io.formats import InputFormat, detect_format
from radeid.io.records import MAX_PROBLEMS_PER_DOC, ReadOptions, checked
from radeid.io.registry import format_handler
from radeid.io.select import first, sample

__all__ = [
    "MAX_PROBLEMS_PER_DOC",
    "ColumnError",
    "FormatError",
    "InputFormat",
    "InputNotFoundError",
    "RadeidIOError",
    "ReadIssue",
    "ReadOptions",
    "detect_format",
    "estimate_total",
    "read_documents",
]


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
    handler = format_handler(InputFormat.parse(fmt) if fmt is not None else detect_format(p))
    mapping = options.label_mapping()
    items = checked(handler.read(p, options, mapping), str(p), options)
    if options.limit:
        return first(items, options.limit)
    if options.sample:
        return sample(items, options.sample, options.seed)
    return items


def estimate_total(path: str | os.PathLike[str], fmt: InputFormat | str | None = None) -> int | None:
    """About how many records `read_documents(path, fmt)` will yield, when that is cheap to know,
    for a progress bar's total: JSONL counts lines (uncompressed files up to 2 GiB, within a
    second), CSV parses small uncompressed files, Parquet reads the row count in its footer,
    folder formats count their files. None when it is not cheap, or when the path or format is
    unusable (`read_documents` reports that). Blank or broken records may make it a little high.
    """
    p = Path(path)
    try:
        if not p.exists():
            return None
        handler = format_handler(InputFormat.parse(fmt) if fmt is not None else detect_format(p))
        return handler.estimate(p)
    except (RadeidIOError, OSError):
        return None
