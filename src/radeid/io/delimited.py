"""CSV and TSV (optionally gzip): reader, writer, size estimate.

The header is read and every chosen column (id, text, patient, kept) resolved once, up front: a
wrong name is one `ColumnError` listing the header. Rows are then read one at a time; a bad byte
or a broken row is an issue for that row only. Output follows RFC 4180 (`\r\n` line ends, cells
holding line breaks quoted), so multi-line reports survive a round trip.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import TextDocumentWriter
from radeid.io.errors import ColumnError, FormatError, ReadIssue
from radeid.io.formats import InputFormat, is_gzip
from radeid.io.records import (
    STREAM_ERRORS,
    ReadOptions,
    Record,
    bad_unicode,
    bom_encoding,
    build_document,
    cheap_to_scan,
    column_error,
)
from radeid.io.registry import FormatHandler

__all__ = ["CSV", "CsvWriter", "estimate_csv", "read_csv"]

#: `estimate_csv` parses files up to this size (uncompressed), for at most this long.
ESTIMATE_MAX_BYTES = 64 << 20
ESTIMATE_SECONDS = 1.0


def _open_csv(path: Path, encoding: str) -> IO[str]:
    # surrogateescape: a bad byte becomes a lone surrogate instead of killing the whole file, and
    # `bad_unicode` turns it into an issue for its own row only.
    enc = bom_encoding(encoding)
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
    except STREAM_ERRORS as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None
    if header is None:
        return None
    if any(bad_unicode(h) is not None for h in header):
        raise FormatError(f"{path}: the header row is not valid {options.encoding}")
    find = _column_finder(path, header)
    index: dict[str, int] = {}
    for what, name, option in (
        ("id", options.id_col, "id_col / --id-col"),
        ("text", options.text_col, "text_col / --text-col"),
    ):
        if (i := find(name)) is None:
            raise _column_error(path, what, name, header, option)
        index[name] = i
    patient_col = options.patient_col
    if patient_col is not None:
        if (i := find(patient_col)) is None:
            raise _column_error(path, "patient", patient_col, header, "patient_col / --patient-col")
        index[patient_col] = i
    elif (i := find("patient_id")) is not None:
        patient_col = "patient_id"
        index[patient_col] = i
    for name in options.keep_columns:
        if (i := find(name)) is not None:
            index[name] = i
        elif options.require_kept:
            raise _column_error(path, "kept", name, header, "keep_columns / --keep-column")
    return _CsvLayout(header, index, patient_col)


def _column_error(path: Path, what: str, name: str, header: list[str], option: str) -> ColumnError:
    # By position: a file without a header row has a record where the header should be (issue 27).
    return column_error(what, name, header, f"the header of {path}", option, by_position=True)


def _column_finder(path: Path, header: list[str]) -> Callable[[str], int | None]:
    """`find(name)`: the index of the column named `name` (as written, else with the spaces around
    it stripped), None when there is none. A chosen name found twice is a `FormatError`: which of
    the two is the report cannot be guessed, and taking the first silently could leave the other
    (a second text column, say) un-de-identified."""
    stripped = [h.strip() for h in header]

    def find(name: str) -> int | None:
        for names in (header, stripped):
            where = [i for i, n in enumerate(names) if n == name]
            if len(where) > 1:
                columns = ", ".join(str(i + 1) for i in where)
                raise FormatError(
                    f"column {name!r} appears {len(where)} times in the header of {path} (columns {columns}); "
                    "column names must be unique: rename all but one"
                )
            if where:
                return where[0]
        return None

    return find


def read_csv(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
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
            except STREAM_ERRORS as exc:
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
            yield from build_document(
                Record(fields, source, start_line, row_no),
                options,
                patient_col=layout.patient_col,
                mapping=None,
                with_spans=False,
                encoding=options.encoding,
            )


def estimate_csv(path: Path) -> int | None:
    """Data rows, counted by parsing (a quoted cell may span lines), only for a small uncompressed
    file that parses within `ESTIMATE_SECONDS`; else None."""
    if not cheap_to_scan(path, ESTIMATE_MAX_BYTES):
        return None
    deadline = time.monotonic() + ESTIMATE_SECONDS
    try:
        _raise_field_limit()
        rows = 0
        with open(path, encoding="latin-1", newline="") as handle:  # any bytes; only the structure counts
            for n, row in enumerate(csv.reader(handle, delimiter=_delimiter(path, ReadOptions())), 1):
                rows += bool(row)
                if n % 4096 == 0 and time.monotonic() > deadline:
                    return None
    except (OSError, csv.Error):
        return None
    return max(rows - 1, 0)  # the header


# ------------------------------------------------------------------------------------ writing


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


class CsvWriter(TextDocumentWriter):
    """A header `id_col, text_col, *kept`, then one row per document."""

    format = InputFormat.CSV

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options, overwrite)
        # RFC 4180 line ends: with "\r\n" as terminator, any cell holding \r or \n gets quoted.
        self._csv = csv.writer(self._file.handle, delimiter=_delimiter(path, options), lineterminator="\r\n")
        self._csv.writerow([options.id_col, options.text_col, *options.keep_columns])

    def _write(self, result: Result) -> None:
        self._csv.writerow(_csv_row(self.options, result))

    @classmethod
    def encoder(cls, path: Path, options: ReadOptions) -> Callable[[Result], str] | None:
        if is_gzip(path):
            return None
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=_delimiter(path, options), lineterminator="\r\n")

        def encode(result: Result) -> str:
            buffer.seek(0)
            buffer.truncate()
            writer.writerow(_csv_row(options, result))
            return buffer.getvalue()

        return encode


def _csv_row(options: ReadOptions, result: Result) -> list[str]:
    columns = result.document.metadata.get(metakeys.COLUMNS) or {}
    kept = [_csv_cell(columns.get(c)) for c in options.keep_columns]
    return [result.document.id, result.text, *kept]


CSV = FormatHandler(read=read_csv, open_writer=CsvWriter, estimate=estimate_csv)
