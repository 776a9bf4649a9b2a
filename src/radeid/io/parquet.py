"""Parquet: reader, writer, size estimate (pyarrow is imported only when a Parquet file is used).

The schema is checked up front (id and text columns present, text a string or binary column,
patient and kept columns present); rows are then read record batch by record batch, and a row
group that cannot be decoded is one issue that counts all its rows. Output is written in row
groups of about `WRITE_BATCH_ROWS` documents.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from radeid.core.document import Document, Result
from radeid.io.atomic import AtomicTarget, DocumentWriter
from radeid.io.commit import Move, fsync_file
from radeid.io.errors import ColumnError, FormatError, ReadIssue
from radeid.io.formats import InputFormat
from radeid.io.records import ReadOptions, Record, build_document, column_error
from radeid.io.registry import FormatHandler

__all__ = ["PARQUET", "ParquetWriter", "estimate_parquet", "read_parquet"]

READ_BATCH_ROWS = 256
WRITE_BATCH_ROWS = 1000
WRITE_BATCH_CHARS = 16_000_000


def read_parquet(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
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
            raise column_error(what, name, names, where, option)
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
    patient_col: str | None = options.patient_col
    if patient_col is not None and patient_col not in names:
        raise column_error("patient", patient_col, names, where, "patient_col / --patient-col")
    if patient_col is None and "patient_id" in names:
        patient_col = "patient_id"
    for name in options.keep_columns:
        if name not in names and options.require_kept:
            raise column_error("kept", name, names, where, "keep_columns / --keep-column")
    for wanted in (patient_col, *options.keep_columns):
        if wanted is not None and wanted in names and wanted not in columns:
            columns.append(wanted)
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
                for batch in pf.iter_batches(batch_size=READ_BATCH_ROWS, row_groups=[group], columns=columns):
                    values = {name: _column_values(batch.column(name)) for name in columns}
                    for i in range(batch.num_rows):
                        row_no += 1
                        rec = Record({name: values[name][i] for name in columns}, source, None, row_no)
                        yield from build_document(
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
        values: list[Any] = column.to_pylist()
        return values
    except UnicodeDecodeError:
        import pyarrow as pa

        raw: list[Any] = column.cast(pa.binary()).to_pylist()
        return raw


def estimate_parquet(path: Path) -> int | None:
    """The row count the file's footer records (no data is read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as pf:
            return int(pf.metadata.num_rows)
    except (pa.ArrowException, OSError):
        return None


# ------------------------------------------------------------------------------------ writing


class ParquetWriter(DocumentWriter):
    """Row groups of ~1000 documents; schema: id, text (strings) + kept columns (types inferred
    from the first batch, all-null columns as strings)."""

    format = InputFormat.PARQUET

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        self._atomic = AtomicTarget(path, folder=False, overwrite=overwrite)
        self._names = [options.id_col, options.text_col, *options.keep_columns]
        self._buffer: dict[str, list[Any]] = {name: [] for name in self._names}
        self._chars = 0
        self._writer: Any = None
        self._schema: Any = None

    def _write(self, result: Result) -> None:
        kept = self.kept(result)
        self._buffer[self.options.id_col].append(result.document.id)
        self._buffer[self.options.text_col].append(result.text)
        for name in self.options.keep_columns:
            self._buffer[name].append(kept.get(name))
        self._chars += len(result.text)
        if len(self._buffer[self.options.id_col]) >= WRITE_BATCH_ROWS or self._chars >= WRITE_BATCH_CHARS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._buffer[self.options.id_col] and self._writer is not None:
            return
        if self._schema is None:
            fields = [pa.field(self.options.id_col, pa.string()), pa.field(self.options.text_col, pa.string())]
            for name in self.options.keep_columns:
                inferred = pa.array(self._buffer[name]).type if self._buffer[name] else pa.null()
                fields.append(pa.field(name, pa.string() if pa.types.is_null(inferred) else inferred))
            self._schema = pa.schema(fields)
        try:
            table = pa.Table.from_pydict(self._buffer, schema=self._schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise ValueError(
                f"kept columns changed type between batches; cannot write Parquet ({type(exc).__name__})"
            ) from None
        if self._writer is None:
            self._writer = pq.ParquetWriter(str(self._atomic.tmp), self._schema)
        self._writer.write_table(table)
        self._buffer = {name: [] for name in self._names}
        self._chars = 0

    def _stage(self) -> list[Move]:
        self._flush()
        self._writer.close()
        fsync_file(self._atomic.tmp)
        return self._atomic.moves()

    def _abort(self) -> None:
        try:
            if self._writer is not None:
                self._writer.close()
        except Exception:  # noqa: BLE001 - cleaning up after a failure
            pass
        self._atomic.discard()


PARQUET = FormatHandler(read=read_parquet, open_writer=ParquetWriter, estimate=estimate_parquet)
