"""Apache Spark adapter: de-identify a DataFrame column with `mapInPandas` (`pip install radeid[spark]`).

    from radeid.spark.dataframe import deidentify_dataframe
    out = deidentify_dataframe(df, "text", "id", patient_col="patient_id", config=spec_or_config)

No state is shared between executors: each executor's Python worker builds the pipeline once
from a picklable `PipelineSpec` (cached per process, keyed by the spec) and de-identifies its
partitions batch by batch. With keyed surrogates the output for a document depends only on the
key, the config and the document, so a cluster run gives exactly what `radeid deid` gives for
the same key. Documents are passed to the pipeline in batches of `pipeline.batch_size`; only a
model's numerical noise could depend on how they are batched (rules and lexicons never do).

Privacy: the spec, key included, travels to the executors inside the task closure; on a shared
cluster turn on Spark's RPC authentication and encryption (`spark.authenticate`,
`spark.network.crypto.enabled`) and local-disk encryption (`spark.io.encryption.enabled`).
Repartitioning (`partitions=` / `--partitions`) shuffles whole rows, *original text included*,
through Spark's shuffle files under `spark.local.dir` (default `/tmp`), and the persisted result
may spill there too: point it at a private folder (`--local-dir`, or `spark.local.dir` /
`SPARK_LOCAL_DIRS` on a cluster) and turn on `spark.io.encryption.enabled`. Nothing here logs
text or keys.

Kept as one module (about 640 lines): the DataFrame and the file entry points share one partition
function, the record formats' cell parsing and the audit schema; HL7 files and DICOM folders already
live in `radeid.spark.records`, and the next seam is the Parquet/JSONL file reading and writing.
"""

from __future__ import annotations

import math
import os
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.config.config import Config, ConfigError
from radeid.core.document import Document, Result
from radeid.io.audit import SPAN_FIELDS, span_rows
from radeid.io.errors import ReadIssue
from radeid.io.record_codecs import TEXT, RecordCodec, record_codec
from radeid.io.records import ReadOptions
from radeid.pipeline.spec import PipelineSpec

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from radeid.pipeline.deidentifier import Deidentifier

__all__ = [
    "AUDIT_FIELDS",
    "SparkDocumentError",
    "SparkInputError",
    "audit_schema",
    "deidentify_dataframe",
    "spark_deidentify_files",
]

#: The fields of one audit struct, as in the audit JSONL of `radeid deid` (less doc_id).
AUDIT_FIELDS = SPAN_FIELDS

_CACHE: OrderedDict[str, Deidentifier] = OrderedDict()
_CACHE_SIZE = 2


def audit_schema() -> Any:
    """`array<struct<start,end,category,subtype,source,score,out_start,out_end>>`."""
    from pyspark.sql.types import ArrayType, DoubleType, IntegerType, StringType, StructField, StructType

    types = {"int": IntegerType(), "string": StringType(), "double": DoubleType()}
    return ArrayType(StructType([StructField(name, types[kind], True) for name, kind in AUDIT_FIELDS]), True)


def _as_spec(config: Config | PipelineSpec | str | os.PathLike[str] | None) -> PipelineSpec:
    if isinstance(config, PipelineSpec):
        return config
    if config is None or isinstance(config, str | os.PathLike):
        return PipelineSpec(Config.load(config))  # surrogate mode (the default) needs a spec with a key
    if isinstance(config, Config):
        return PipelineSpec(config)
    raise TypeError(f"config must be a Config, a PipelineSpec or a TOML path, not {type(config).__name__}")


# ------------------------------------------------------------------------------------ executors


def _pipeline(spec: PipelineSpec, cache_key: str) -> Deidentifier:
    """The pipeline of this executor process, built on first use (Python workers are reused)."""
    found = _CACHE.get(cache_key)
    if found is None:
        found = spec.build()
        _CACHE[cache_key] = found
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(cache_key)
    return found


def _as_id(value: Any) -> str | None:
    """Ids as `radeid deid` reads them: strings, integers as their digits; null stays None."""
    if value is None or type(value).__name__ == "NAType":  # pandas.NA: a null of a nullable integer column
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():  # an integer column with nulls reaches pandas as float64
            return str(int(value))
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return _as_id(value.item())
    text = str(value)
    return text if text.strip() else None


class SparkDocumentError(RuntimeError):
    """The pipeline failed on one document (`on_error="fail"`): named by id and exception type only."""


def _deid_partition(
    frames: Iterator[pd.DataFrame],
    *,
    spec: PipelineSpec,
    cache_key: str,
    text_col: str,
    id_col: str,
    patient_col: str | None,
    output_col: str,
    spans_col: str,
    error_col: str | None,
    batch_size: int,
    on_error: str,
    id_key: bytes | None = None,
    record_format: str = TEXT,
) -> Iterator[pd.DataFrame]:
    """mapInPandas body: each Arrow batch of a partition, de-identified `batch_size` documents at a time.

    With `id_key` (`pseudonymize_ids`), the id column is written as the keyed pseudonym
    `radeid deid --pseudonymize-ids` writes (`io.ids.pseudonymize_id`), and failures name it; the
    surrogates are still keyed by the original id, as in `radeid deid`.

    `record_format` (`radeid.io.record_codecs`): each cell is one record of that format (an HL7
    message, a DICOM file's bytes), read into the Document its file reader makes, and the output
    cell is what that format's writer writes for it.

    A document the pipeline fails on stops the task with its id and exception type (`fail`), or
    gets a null text, no spans and the exception type in `error_col` (`skip`). Never its text:
    the original exception, whose message may quote the document, is not chained.
    """
    from pyspark import TaskContext

    context = TaskContext.get()
    cpus = context.cpus() if context is not None and hasattr(context, "cpus") else 1
    deid = _pipeline(spec.with_threads(cpus), cache_key)  # a model: the task's cores (spark.task.cpus)
    for frame in frames:
        yield _deid_frame(deid, frame, text_col=text_col, id_col=id_col, patient_col=patient_col,
                          output_col=output_col, spans_col=spans_col, error_col=error_col, batch_size=batch_size,
                          on_error=on_error, id_key=id_key, record_format=record_format)  # fmt: skip


def _deid_frame(
    deid: Deidentifier,
    frame: pd.DataFrame,
    *,
    text_col: str,
    id_col: str,
    patient_col: str | None,
    output_col: str,
    spans_col: str,
    error_col: str | None,
    batch_size: int,
    on_error: str,
    id_key: bytes | None,
    record_format: str = TEXT,
) -> pd.DataFrame:
    """One Arrow batch de-identified: a copy of `frame` with the output text, spans, errors (and pseudonymous ids)."""
    from radeid.io.ids import pseudonymize_id

    values = frame[text_col].tolist()
    ids = frame[id_col].tolist()
    shown: list[Any] = ids
    if id_key is not None:
        shown = [None if (x := _as_id(v)) is None else pseudonymize_id(id_key, x) for v in ids]
    patients = frame[patient_col].tolist() if patient_col else [None] * len(values)
    todo, unread = _documents(deid, values, ids, patients, record_format)
    out = _Outputs(values, shown, on_error, record_codec(record_format))
    for i, reason in unread:
        out.unreadable(i, reason)
    for start in range(0, len(todo), batch_size):
        _deid_chunk(deid, todo[start : start + batch_size], out)
    result = frame.copy()
    if id_key is not None:
        result[id_col] = shown
    result[output_col] = out.values
    result[spans_col] = out.spans
    if error_col:
        result[error_col] = out.errors
    return result


def _documents(
    deid: Deidentifier, values: list[Any], ids: list[Any], patients: list[Any], record_format: str
) -> tuple[list[tuple[int, Document]], list[tuple[int, str]]]:
    """Each non-null cell as (row, Document), and (row, why) for cells its record format cannot read.

    The row's id is the document id (it keys the surrogates, as for text). A record's own patient
    (HL7 PID-3, DICOM PatientID) wins over the patient column, which serves records without one,
    as `radeid deid` gives a record's own id precedence over a patient map."""
    codec = record_codec(record_format)
    if codec is None:
        return [(i, Document(_as_id(ids[i]) or "", v, _as_id(patients[i]))) for i, v in enumerate(values)
                if isinstance(v, str)], []  # fmt: skip
    read = codec.reader(ReadOptions(hl7_fields=deid.config.io.hl7_fields))
    todo: list[tuple[int, Document]] = []
    unread: list[tuple[int, str]] = []
    for i, value in enumerate(values):
        if not isinstance(value, str | bytes | bytearray):
            continue  # a null cell stays null
        doc_id = _as_id(ids[i]) or ""
        doc = read(bytes(value) if isinstance(value, bytearray) else value, doc_id)
        if isinstance(doc, ReadIssue):
            unread.append((i, doc.reason))
        else:
            todo.append((i, replace(doc, id=doc_id, patient_id=doc.patient_id or _as_id(patients[i]))))
    return todo, unread


class _Outputs:
    """A batch's output cells, spans and errors by row; a failure stops the task or is noted (`on_error`)."""

    def __init__(self, values: list[Any], shown: list[Any], on_error: str, codec: RecordCodec | None) -> None:
        self.inputs, self.shown, self.on_error, self.codec = values, shown, on_error, codec
        self.values: list[Any] = [None] * len(values)
        self.spans: list[list[dict[str, Any]]] = [[] for _ in values]
        self.errors: list[str | None] = [None] * len(values)

    def failed(self, i: int, exc: BaseException, doing: str = "de-identifying") -> None:
        """The pipeline (or the format's writer) failed on row `i`: named by id and exception type only."""
        if self.on_error == "fail":
            raise SparkDocumentError(
                f"document {self.shown[i]!r}: {type(exc).__name__} while {doing}; "
                "rerun with --on-error skip to leave it out"
            ) from None
        self.errors[i] = type(exc).__name__

    def unreadable(self, i: int, reason: str) -> None:
        """Row `i` is no record of its format: the reader's reason, which never holds a value."""
        if self.on_error == "fail":
            raise SparkDocumentError(
                f"document {self.shown[i]!r}: {reason}; rerun with --on-error skip to leave it out"
            )
        self.errors[i] = reason

    def done(self, i: int, result: Result) -> None:
        if self.codec is None:
            self.values[i] = result.text
        else:
            try:
                self.values[i] = self.codec.write(result, self.inputs[i])
            except Exception as exc:  # noqa: BLE001 - one record's failure, named by type (never chained)
                self.failed(i, exc, "writing it")
                return
        self.spans[i] = span_rows(result)


def _deid_chunk(deid: Deidentifier, chunk: list[tuple[int, Document]], out: _Outputs) -> None:
    """One batch of (row, document) through the pipeline, results written by row; a failure stops or is noted."""
    from radeid.run.batch import deidentify_each

    results, failed = deidentify_each(deid, [doc for _, doc in chunk], out.on_error)  # type: ignore[arg-type]
    bad = {index for index, _ in failed}
    for index, exc in failed:
        out.failed(chunk[index][0], exc)
    good = [pair for n, pair in enumerate(chunk) if n not in bad]
    for (i, _doc), result in zip(good, results, strict=True):
        out.done(i, result)


def deidentify_dataframe(
    df: DataFrame,
    text_col: str = "text",
    id_col: str = "id",
    patient_col: str | None = None,
    config: Config | PipelineSpec | str | os.PathLike[str] | None = None,
    *,
    output_col: str | None = None,
    spans_col: str = "phi_spans",
    batch_size: int | None = None,
    on_error: str = "fail",
    error_col: str = "phi_error",
    pseudonymize_ids: bool | None = None,
    record_format: str = TEXT,
) -> DataFrame:
    """De-identify `df[text_col]`; returns `df` with the text replaced and an audit spans column.

    `config`: a `PipelineSpec` (config and key: any mode, surrogates included), or a `Config` or
    a TOML path whose `[replace] mode` is a mask mode (surrogates need a key, hence a spec), or
    None (the bundled defaults: surrogate mode, so an error without a key).

    `output_col` (default: `text_col`, replaced in place so the original never sits beside the
    output) receives the de-identified text; `spans_col` an array of structs (start, end,
    category, subtype, source, score, out_start, out_end) with offsets into the original and the
    output, never text. The document id (`id_col`) and patient id (`patient_col`) key the
    surrogates exactly as in `radeid deid`: integer ids count as their digits. A null text stays
    null with no spans.

    `on_error`: a document the pipeline fails on stops the job with a `SparkDocumentError`
    naming its id and the exception type (`"fail"`), or (`"skip"`) gets a null text, no spans
    and the exception type in an extra string column `error_col`; never its text.

    `pseudonymize_ids` (default: the config's `io.pseudonymize_ids`): the id column becomes a
    string column of keyed pseudonyms (`doc-` + 16 hex), the same `radeid deid
    --pseudonymize-ids` writes for the same key; a null id stays null.

    `record_format`: `"text"` (each cell a document's text), `"hl7"` (a string cell: one HL7 v2
    message, framing kept) or `"dicom"` (a binary cell: a DICOM SR file, as `content` of Spark's
    `binaryFile` source), read as its file reader reads it (`radeid.io.record_codecs`); the output
    cell is what `radeid deid` writes for it, and the spans' offsets refer to the record's text as
    in its audit. The record's own patient (PID-3, PatientID) wins over `patient_col`, which serves
    records without one. A cell that does not parse is a failed document (`on_error`), named by
    id and the reader's reason, never a value.
    """
    codec = record_codec(record_format)  # an unknown name: a ConfigError here, on the driver
    spec = _as_spec(config)
    id_key = _id_key(spec, pseudonymize_ids)
    output_col = output_col or text_col
    binary = codec is not None and codec.binary
    errors = _check_columns(df, text_col, id_col, patient_col, output_col, spans_col, error_col, on_error, binary)
    schema = _output_schema(
        df, id_col, output_col, spans_col, errors, pseudonymous_ids=id_key is not None, binary=binary
    )
    body = partial(
        _deid_partition, spec=spec, cache_key=spec.cache_key(), text_col=text_col, id_col=id_col,
        patient_col=patient_col, output_col=output_col, spans_col=spans_col, error_col=errors,
        batch_size=batch_size or spec.config.pipeline.batch_size, on_error=on_error, id_key=id_key,
        record_format=record_format.strip().lower(),
    )  # fmt: skip
    return df.mapInPandas(body, schema=schema)


def _id_key(spec: PipelineSpec, pseudonymize_ids: bool | None) -> bytes | None:
    """The key of the id pseudonyms when asked for (default: the config's `io.pseudonymize_ids`), else None."""
    if pseudonymize_ids is None:
        pseudonymize_ids = spec.config.io.pseudonymize_ids
    if pseudonymize_ids and not spec.key:
        raise ConfigError("pseudonymize_ids needs a key (a key file or the RADEID_KEY variable)")
    return spec.key if pseudonymize_ids else None


def _check_columns(
    df: DataFrame,
    text_col: str,
    id_col: str,
    patient_col: str | None,
    output_col: str,
    spans_col: str,
    error_col: str,
    on_error: str,
    binary: bool = False,
) -> str | None:
    """The input columns exist (text a string, or binary for a binary record format) and no output
    column overwrites another; the error column or None."""
    from pyspark.sql.types import BinaryType, StringType

    names = df.schema.fieldNames()
    for what, name in (("text", text_col), ("id", id_col), ("patient", patient_col)):
        if name is not None and name not in names:
            raise ConfigError(f"{what} column {name!r} not found; columns: {', '.join(names)}")
    wanted = BinaryType if binary else StringType
    if not isinstance(df.schema[text_col].dataType, wanted):
        kind = df.schema[text_col].dataType.simpleString()
        raise ConfigError(f"text column {text_col!r} has type {kind}, not {wanted().simpleString()}")
    if on_error not in ("fail", "skip"):
        raise ConfigError(f"on_error must be fail or skip, not {on_error!r}")
    if spans_col in (output_col, text_col, id_col):
        raise ConfigError(f"spans column {spans_col!r} would overwrite an input column")
    errors = error_col if on_error == "skip" else None
    if errors in (output_col, text_col, id_col, spans_col):
        raise ConfigError(f"error column {errors!r} would overwrite another column")
    return errors


def _output_schema(
    df: DataFrame,
    id_col: str,
    output_col: str,
    spans_col: str,
    errors: str | None,
    *,
    pseudonymous_ids: bool,
    binary: bool = False,
) -> StructType:
    """The input's columns, the output text (binary for a binary record format) and pseudonymous
    ids as strings, then the spans and error columns."""
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    names = df.schema.fieldNames()
    fields = [f for f in df.schema.fields if f.name not in (spans_col, errors)]
    if output_col not in names:
        fields.append(StructField(output_col, StringType(), True))
    output_type = BinaryType() if binary else StringType()
    fields = [StructField(f.name, output_type, True) if f.name == output_col else f for f in fields]
    if pseudonymous_ids:
        fields = [StructField(f.name, StringType(), True) if f.name == id_col else f for f in fields]
    extra = [StructField(errors, StringType(), True)] if errors else []
    return StructType([*fields, StructField(spans_col, audit_schema(), True), *extra])


# ------------------------------------------------------------------------------------ files


#: What `spark-deid` reads: tables (Parquet, JSONL) and structured files, one record per row.
SPARK_FORMATS = ("parquet", "jsonl", "hl7", "dicom")


def _suffix_format(path: str) -> str | None:
    name = path.rstrip("/").lower().removesuffix(".gz")
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".hl7"):
        return "hl7"
    if name.endswith(".dcm"):
        return "dicom"
    return None


def _spark_format(path: str, fmt: str | None) -> str:
    """As asked, else by suffix, else by what a local folder holds (Parquet, DICOM files, else JSONL)."""
    chosen = fmt.lower() if fmt else _suffix_format(path)
    if chosen is None and Path(path).is_dir():
        if next(Path(path).rglob("*.parquet"), None) is not None:
            chosen = "parquet"
        elif next(Path(path).rglob("*.[dD][cC][mM]"), None) is not None:
            chosen = "dicom"
        else:
            chosen = "jsonl"
    if chosen not in SPARK_FORMATS:
        raise ConfigError(f"cannot tell the format of {path!r}; pass --format {'|'.join(SPARK_FORMATS)}")
    return chosen


def spark_deidentify_files(
    spark: SparkSession,
    input_path: str,
    output_path: str,
    *,
    spec: PipelineSpec,
    input_format: str | None = None,
    output_format: str | None = None,
    id_col: str = "id",
    text_col: str = "text",
    patient_col: str | None = None,
    keep_columns: Sequence[str] = (),
    audit_path: str | None = None,
    partitions: int | None = None,
    overwrite: bool = False,
    on_error: str = "fail",
    skipped: list[tuple[str, str]] | None = None,
) -> int:
    """Read Parquet/JSONL, de-identify, write `id`, text and kept columns (as `radeid deid` does:
    other columns may hold PHI and are dropped) plus the audit as JSONL. Returns the number of
    documents written.

    `patient_col=None` uses a `patient_id` column when there is one, as `radeid deid` does.
    `on_error="skip"` leaves out documents the pipeline fails on and appends `(id, exception
    type)` for each to `skipped`; `"fail"` stops with a `SparkDocumentError` naming the id.
    """
    from pyspark import StorageLevel

    in_fmt = _spark_format(input_path, input_format)
    if in_fmt not in ("parquet", "jsonl"):
        raise ConfigError(f"{in_fmt} input: use radeid.spark.records.spark_deidentify_records")
    out_fmt = (output_format or _suffix_format(output_path) or in_fmt).lower()
    if out_fmt not in ("parquet", "jsonl"):
        raise ConfigError(f"output format must be parquet or jsonl, not {out_fmt!r}")
    reader = spark.read
    df = reader.parquet(input_path) if in_fmt == "parquet" else reader.json(input_path)
    if patient_col is None and "patient_id" in df.columns:
        patient_col = "patient_id"
    _check_kept(df, keep_columns, text_col)
    df = _trial(df, spec.config.io, id_col)
    _refuse_null_records(df, id_col, text_col, spec.key if spec.config.io.pseudonymize_ids else None)
    if partitions:
        df = df.repartition(partitions)  # a shuffle: original text goes to spark.local.dir (see module doc)
    spans_col, error_col = "__radeid_spans", "__radeid_error"
    result = deidentify_dataframe(
        df, text_col, id_col, patient_col, spec, spans_col=spans_col, on_error=on_error, error_col=error_col
    )
    # Two writes (output and audit) read one de-identified dataset: run the pipeline once.
    persisted = result = result.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        if on_error == "skip":
            result = _leave_out_failed(result, id_col, error_col, skipped)
        mode = "overwrite" if overwrite else "errorifexists"
        keep = [c for c in keep_columns if c not in (id_col, text_col)]
        _write(result.select(id_col, text_col, *keep), out_fmt, mode, output_path)
        if audit_path:
            _write_audit(result, id_col, spans_col, mode, audit_path)
        return result.count()
    finally:
        persisted.unpersist()


def _trial(df: DataFrame, io: Any, id_col: str) -> DataFrame:
    """A trial run (`[io] limit`, `sample`, `seed`): the first N rows, or N rows chosen by a seeded
    hash of their id (xxhash64 of id and seed: the same rows for the same ids and seed however the
    input is partitioned; not the rows `radeid deid --sample` draws), kept in input order."""
    from pyspark.sql import functions as F

    if io.limit:
        return df.limit(io.limit)
    if not io.sample:
        return df
    position = "__radeid_position"
    ranked = df.withColumn(position, F.monotonically_increasing_id())
    chosen = ranked.orderBy(F.xxhash64(F.col(id_col).cast("string"), F.lit(io.seed)), F.col(id_col)).limit(io.sample)
    return chosen.orderBy(position).drop(position)


def _check_kept(df: DataFrame, keep_columns: Sequence[str], text_col: str) -> None:
    """Kept columns must exist and never be the text column (that would copy the original text)."""
    for name in keep_columns:
        if name not in df.columns:
            raise ConfigError(f"kept column {name!r} not found; columns: {', '.join(df.columns)}")
    if text_col in keep_columns:
        raise ConfigError(f"--keep-column lists the text column {text_col!r}: that would copy the original text")


def _leave_out_failed(
    result: DataFrame, id_col: str, error_col: str, skipped: list[tuple[str, str]] | None
) -> DataFrame:
    """The documents the pipeline failed on, (id, exception type) appended to `skipped`, left out."""
    from pyspark.sql import functions as F

    failed = result.filter(F.col(error_col).isNotNull()).select(id_col, error_col).collect()
    if skipped is not None:
        skipped.extend((str(row[0]), str(row[1])) for row in failed)
    if failed:
        result = result.filter(F.col(error_col).isNull())
    return result


def _write(output: DataFrame, out_fmt: str, mode: str, output_path: str) -> None:
    """The output columns as Parquet or JSONL part files."""
    if out_fmt == "parquet":
        output.write.mode(mode).parquet(output_path)
    else:
        output.write.mode(mode).json(output_path)


def _write_audit(result: DataFrame, id_col: str, spans_col: str, mode: str, audit_path: str) -> None:
    """The audit as JSONL: one row per span (document id, offsets, category, ...), never text."""
    from pyspark.sql import functions as F

    audit = result.select(F.col(id_col).cast("string").alias("doc_id"), F.explode(spans_col).alias("s"))
    audit.select("doc_id", *(F.col(f"s.{name}").alias(name) for name, _ in AUDIT_FIELDS)).write.mode(mode).json(
        audit_path
    )


class SparkInputError(ValueError):
    """Records `radeid deid` would refuse (a null or empty id, a null text): named by id, never text."""


def _refuse_null_records(df: DataFrame, id_col: str, text_col: str, id_key: bytes | None = None) -> None:
    """As `radeid deid`: a record without an id or a text is an error (one extra pass over two
    columns); with `id_key` (`pseudonymize_ids`) the error names ids by their pseudonyms."""
    from pyspark.sql import functions as F

    from radeid.io.ids import pseudonymize_id

    for name in (id_col, text_col):
        if name not in df.columns:
            raise ConfigError(f"column {name!r} not found; columns: {', '.join(df.columns)}")
    no_id = F.col(id_col).isNull() | (F.trim(F.col(id_col).cast("string")) == "")
    bad = df.filter(no_id | F.col(text_col).isNull()).select(id_col, text_col)
    found = bad.limit(6).collect()
    if not found:
        return
    total = bad.count()
    null_ids = sum(1 for r in found if r[id_col] is None or not str(r[id_col]).strip())
    named = [
        repr(pseudonymize_id(id_key, str(r[id_col])) if id_key else str(r[id_col]))
        for r in found
        if r[id_col] is not None and str(r[id_col]).strip()
    ][:5]
    detail = f" (documents with a null {text_col!r}: {', '.join(named)})" if named else ""
    raise SparkInputError(
        f"{total} record(s) have a null or empty {id_col!r} or a null {text_col!r}{detail}"
        + (f"; {null_ids}+ without an id" if null_ids else "")
        + "; radeid deid refuses such records: drop or fix them first"
    )


# ------------------------------------------------------------------------------------ CLI


def existing_paths(spark: SparkSession, paths: Mapping[str, str | None]) -> list[str]:
    """Which of `paths` (by the name the user knows them by) exist, on whatever file system Spark
    writes to (local, HDFS, S3...): "NAME 'path'" each. Asked before any work, so that a job that
    would end in Spark's PATH_ALREADY_EXISTS says so at once."""
    context: Any = spark.sparkContext  # py4j's JVM handles are untyped
    jvm, conf = context._jvm, context._jsc.hadoopConfiguration()
    found = []
    for name, path in paths.items():
        if path:
            hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
            if hadoop_path.getFileSystem(conf).exists(hadoop_path):
                found.append(f"{name} {path!r}")
    return found


def _spark_session(master: str | None, local_dir: Path | None = None, *, quiet: bool = False) -> SparkSession:
    """The session: spark-submit's when launched by it; else local, on every core (Spark's default).
    `local_dir`: Spark's scratch space (shuffle and spill files, which hold original text)."""
    from pyspark.sql import SparkSession

    launched_by_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    if not launched_by_submit and (master is None or master.startswith("local")):
        # Local executors are Python processes on this machine: make them this interpreter (the
        # one radeid is installed in), not whatever `python3` is first on PATH.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("radeid")
    if quiet:  # no stage bars on the console (a session already running keeps its own)
        builder = builder.config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    if local_dir is not None:
        Path(local_dir).mkdir(parents=True, exist_ok=True, mode=0o700)
        builder = builder.config("spark.local.dir", str(Path(local_dir).resolve()))
    return builder.getOrCreate()
