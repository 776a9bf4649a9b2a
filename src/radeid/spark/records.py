"""`radeid spark-deid` for structured files: an HL7 v2 message file or a folder of DICOM SR files.

The executors de-identify one record per row with `deidentify_dataframe(record_format=...)`; the
driver names the records as `radeid deid` does and writes the output with the format's own writer,
so the files equal `radeid deid`'s for the same key:

- HL7: the driver reads the file (a local path) with the HL7 reader to split it into messages and
  name them (MSH-10, else `message-N`), and writes the de-identified messages, framing kept, in
  input order into one file.
- DICOM: Spark's `binaryFile` source reads the folder (any path Spark reads); a file's id is its
  path relative to the folder without `.dcm`; the driver writes one `.dcm` per record into a local
  output folder.

The output is therefore a local path written by the driver (not part files); the audit is JSONL
part files as for the other formats.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.config.config import ConfigError
from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.errors import ReadIssue
from radeid.io.records import ReadOptions
from radeid.pipeline.spec import PipelineSpec
from radeid.spark.dataframe import SparkInputError, _leave_out_failed, _write_audit, deidentify_dataframe

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["RECORD_FORMATS", "spark_deidentify_records"]

#: The file formats `spark-deid` reads one record per row.
RECORD_FORMATS = ("hl7", "dicom")
_ORDER = "__radeid_order"


def spark_deidentify_records(
    spark: SparkSession,
    input_path: str,
    output_path: str,
    *,
    spec: PipelineSpec,
    record_format: str,
    output_format: str | None = None,
    keep_columns: Sequence[str] = (),
    audit_path: str | None = None,
    partitions: int | None = None,
    overwrite: bool = False,
    on_error: str = "fail",
    skipped: list[tuple[str, str]] | None = None,
) -> int:
    """De-identify an HL7 file or a DICOM folder on Spark; write what `radeid deid` writes. Returns
    the number of records written. `on_error="skip"` leaves out records that do not parse or that
    the pipeline fails on and appends `(id, reason)` for each to `skipped`."""
    from pyspark import StorageLevel

    _check_job(spec, record_format, output_path, output_format, keep_columns)
    if record_format == "hl7":
        df = _hl7_rows(spark, input_path, spec, on_error, skipped)
    else:
        df = _dicom_rows(spark, input_path)
    if df is None:
        raise SparkInputError(f"no {record_format} record in {input_path!r}")
    if partitions:
        df = df.repartition(partitions)  # a shuffle: original records go to spark.local.dir
    spans_col, error_col = "__radeid_spans", "__radeid_error"
    result = deidentify_dataframe(
        df, "record", "id", None, spec, spans_col=spans_col, on_error=on_error, error_col=error_col,
        record_format=record_format,
    )  # fmt: skip
    persisted = result = result.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        if on_error == "skip":
            result = _leave_out_failed(result, "id", error_col, skipped)
        ordered = result.select("id", "record", _ORDER).orderBy(_ORDER).toLocalIterator()
        count = _write_output(ordered, output_path, input_path, record_format, spec, overwrite)
        if audit_path:
            _write_audit(result, "id", spans_col, "overwrite" if overwrite else "errorifexists", audit_path)
        return count
    finally:
        persisted.unpersist()


def _check_job(
    spec: PipelineSpec, record_format: str, output_path: str, output_format: str | None, keep_columns: Sequence[str]
) -> None:
    """What a table job may ask and a structured one cannot: a ConfigError before any work."""
    if record_format not in RECORD_FORMATS:
        raise ConfigError(f"record format must be one of {', '.join(RECORD_FORMATS)}, not {record_format!r}")
    if output_format and output_format.lower() != record_format:
        raise ConfigError(f"{record_format} input is written as {record_format}, not {output_format!r}")
    if keep_columns:
        raise ConfigError(f"--keep-column is for Parquet and JSONL input, not {record_format}")
    if spec.config.io.limit or spec.config.io.sample:
        raise ConfigError(f"--limit and --sample are for Parquet and JSONL input on Spark, not {record_format}")
    if "://" in output_path and not output_path.startswith("file://"):
        raise ConfigError(f"{record_format} output is written by the driver: OUTPUT must be a local path")


def _hl7_rows(
    spark: SparkSession, input_path: str, spec: PipelineSpec, on_error: str, skipped: list[tuple[str, str]] | None
) -> DataFrame | None:
    """The file's messages as rows (order, id, the message with its framing), named by the HL7 reader;
    a message it cannot read stops the job (`fail`) or is reported and left out (`skip`), as in `radeid deid`."""
    from radeid.io.readers import read_documents

    if "://" in input_path and not input_path.startswith("file://"):
        raise ConfigError("hl7 input is read by the driver: INPUT must be a local file")
    path = Path(input_path.removeprefix("file://"))
    options = ReadOptions(hl7_fields=spec.config.io.hl7_fields)
    rows: list[tuple[int, str, str]] = []
    for n, item in enumerate(read_documents(path, "hl7", options)):
        if isinstance(item, ReadIssue):
            if item.severity != "error":
                continue
            if on_error == "fail":
                raise SparkInputError(f"{item.describe()}; rerun with --on-error skip to leave it out")
            if skipped is not None:
                skipped.append((item.doc_id or f"line {item.line}", item.reason))
            continue
        rows.append((n, item.id, _framed(item)))
    if not rows:
        return None
    return spark.createDataFrame(rows, f"{_ORDER} long, id string, record string")


def _framed(doc: Document) -> str:
    prefix, suffix = doc.metadata.get(metakeys.FRAME) or ("", "")
    return f"{prefix}{doc.text}{suffix}"


def _dicom_rows(spark: SparkSession, input_path: str) -> DataFrame | None:
    """Every file under the folder (or the one file) as (order, id, bytes): the id is the path
    relative to the folder without `.dcm`, as `radeid deid` names it; files in path order."""
    from pyspark.sql import functions as F

    context: Any = spark.sparkContext  # py4j's JVM handles are untyped
    jvm, conf = context._jvm, context._jsc.hadoopConfiguration()
    hadoop_path = jvm.org.apache.hadoop.fs.Path(input_path)
    fs = hadoop_path.getFileSystem(conf)
    qualified = fs.makeQualified(hadoop_path)
    root = qualified if fs.getFileStatus(qualified).isDirectory() else qualified.getParent()
    prefix = root.toString().rstrip("/") + "/"
    files = (
        spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(input_path).select("path", "content")
    )
    inside = F.col("path").startswith(prefix)
    relative = F.when(inside, F.expr(f"substring(path, {len(prefix) + 1})")).otherwise(F.col("path"))
    named = files.filter(~relative.rlike(r"(^|/)\.")).select(  # hidden files and folders are never documents
        F.col("path").alias(_ORDER),
        F.regexp_replace(relative, r"(?i)\.dcm$", "").alias("id"),
        F.col("content").alias("record"),
    )
    return named


def _write_output(
    rows: Iterator[Any], output_path: str, input_path: str, record_format: str, spec: PipelineSpec, overwrite: bool
) -> int:
    """The de-identified records, in input order, through the format's writer (atomic: all or nothing)."""
    from radeid.io.dicom import DicomWriter
    from radeid.io.hl7v2 import Hl7Writer
    from radeid.io.writers import open_writer

    local_in = None if "://" in input_path and not input_path.startswith("file://") else input_path
    writer = open_writer(
        Path(output_path.removeprefix("file://")),
        record_format,
        overwrite=True if overwrite else None,
        input_path=local_in.removeprefix("file://") if local_in else None,
        private=True,  # as `radeid deid`: owner-only files
    )
    with writer:  # committed when every record is written; a failure leaves nothing in place
        for row in rows:
            if isinstance(writer, DicomWriter):
                writer.write_file(row["id"], bytes(row["record"]))
            elif isinstance(writer, Hl7Writer):
                writer.write_message(row["record"])
    return writer.count
