"""`radeid spark-deid`: the command line of the Spark adapter (`radeid.spark.dataframe`), registered on the
main CLI with `register(app)`. PySpark is imported only when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from radeid.cli.deid import deid
from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, fail, note
from radeid.cli.jobs import config_reads, existing, refuse_existing
from radeid.cli.options import ModeOpt, borrowed_options, with_options
from radeid.config.config import Config, ConfigError
from radeid.pipeline.spec import PipelineSpec
from radeid.replace.base import KEYED_MODES
from radeid.spark.dataframe import (
    SparkDocumentError,
    SparkInputError,
    _spark_format,
    _spark_session,
    existing_paths,
    spark_deidentify_files,
)
from radeid.spark.records import RECORD_FORMATS, spark_deidentify_records

__all__ = ["register", "spark_deid"]


def _spark_message(exc: Exception) -> str:
    """The first line of a Spark error, or radeid's own line from inside a Python worker's
    traceback (a `SparkDocumentError` names the document by id only)."""
    text = str(exc)
    marker = f"{SparkDocumentError.__name__}: "
    for line in text.splitlines():
        if marker in line:
            return line[line.index(marker) + len(marker) :].strip()
    return text.splitlines()[0] if text else type(exc).__name__


def register(app: typer.Typer) -> None:
    """Add `radeid spark-deid` to the command line."""
    app.command("spark-deid")(spark_deid)


#: `radeid deid`'s options that mean the same on Spark, borrowed from it (one wording, one behaviour).
#: Left out: the vault, --workers and --resume (Spark's own), --progress (Spark's UI shows it).
FROM_DEID = (
    "scope", "date_shift", "max_shift_days", "day_first", "length_preserving", "age_mode", "typos", "locale",
    "keep_state", "mask_char", "mask_length", "hospital_list", "vendor_list", "deny_list", "allow_list",
    "batch_size", "age_threshold", "lang", "model", "no_model", "threshold", "quiet", "limit", "sample", "seed",
)  # fmt: skip


@with_options(borrowed_options(deid, FROM_DEID))
def spark_deid(
    input_path: Annotated[
        str,
        typer.Argument(
            metavar="INPUT", help="Parquet or JSONL file/folder (Spark path), an HL7 file or a DICOM folder."
        ),
    ],
    output_path: Annotated[
        str,
        typer.Argument(
            metavar="OUTPUT", help="Output folder (Spark writes part files); HL7: a file; DICOM: a local folder."
        ),
    ],
    mode: ModeOpt = None,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="Key for surrogate mode (else $RADEID_KEY).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="TOML merged over the defaults (the whole job).")
    ] = None,
    input_format: Annotated[str | None, typer.Option("--format", "-f", help="parquet, jsonl, hl7 or dicom.")] = None,
    output_format: Annotated[
        str | None, typer.Option("--output-format", help="parquet or jsonl (default: the input's).")
    ] = None,
    audit: Annotated[str | None, typer.Option("--audit", help="Audit JSONL folder (default: OUTPUT.audit).")] = None,
    no_audit: Annotated[bool, typer.Option("--no-audit", help="Do not write the audit.")] = False,
    id_col: Annotated[str | None, typer.Option("--id-col", help="io.id_col ('id').")] = None,
    text_col: Annotated[str | None, typer.Option("--text-col", help="io.text_col ('text').")] = None,
    patient_col: Annotated[str | None, typer.Option("--patient-col", help="io.patient_col.")] = None,
    keep_column: Annotated[list[str] | None, typer.Option("--keep-column", help="Copy to the output.")] = None,
    master: Annotated[
        str | None, typer.Option("--master", help="Spark master (default: spark-submit's, else local[*]).")
    ] = None,
    partitions: Annotated[
        int | None,
        typer.Option(
            "--partitions", min=1, help="Repartition the input (a shuffle: original text goes to --local-dir)."
        ),
    ] = None,
    local_dir: Annotated[
        Path | None,
        typer.Option(
            "--local-dir",
            help="Spark scratch folder for shuffle/spill files, which hold original text (default: /tmp). "
            "Use a private folder.",
        ),
    ] = None,
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace existing output and audit folders; without it they are refused."),
    ] = False,
    on_error: Annotated[
        str | None,
        typer.Option("--on-error", help="fail: stop at a document the pipeline fails on; skip: leave it out."),
    ] = None,
    pseudonymize_ids: Annotated[
        bool | None,
        typer.Option(
            "--pseudonymize-ids/--keep-ids",
            help="Write document ids as keyed pseudonyms (doc-3f9a...), as radeid deid does; else as they are.",
        ),
    ] = None,
    **job: Any,
) -> None:
    """De-identify Parquet/JSONL, HL7 v2 or DICOM SR on Apache Spark (local or a cluster; see `spark-submit`).

    Example:

      radeid spark-deid notes.parquet deid/ --master "local[2]" --key-file site.key

      spark-submit --master yarn "$(python -c 'import radeid.__main__ as m; print(m.__file__)')" \\
        spark-deid hdfs:///notes/ hdfs:///deid/ --key-file site.key
    """
    from radeid.cli.options import job_overrides

    no_model, quiet = job.pop("no_model"), job.pop("quiet")
    overlay = job_overrides(
        mode=mode, key_file=key_file, input_format=input_format, output_format=output_format, audit=audit,
        id_col=id_col, text_col=text_col, patient_col=patient_col, keep_column=keep_column, on_error=on_error,
        pseudonymize_ids=pseudonymize_ids, **job,
    )  # fmt: skip
    cfg, found, audit_path = _load_job(config, overlay, output_path, no_audit, no_model)
    spec = _check_job(cfg, found, input_path, output_path, audit_path, config, local_dir, overwrite)
    if found and found[1]:
        note(found[1])
    _require_pyspark()
    skipped: list[tuple[str, str]] = []
    count = _run_job(
        cfg, spec, input_path, output_path, audit_path, master, local_dir, partitions, overwrite, skipped, quiet
    )
    _report(skipped, count, output_path, quiet)


def _load_job(
    config: Path | None, overlay: dict[str, Any], output_path: str, no_audit: bool, no_model: bool = False
) -> tuple[Config, tuple[bytes, str] | None, str | None]:
    """The job's config, its key and audit folder: a usage error (exit 2) before Spark starts, never a generated key."""
    from radeid.cli.options import load_job_config
    from radeid.secure.keys import ENV_VAR, load_key

    try:
        cfg = load_job_config(config, overlay, no_model=no_model)
        io = cfg.io
        audit_path = None if no_audit else (io.audit or output_path.rstrip("/") + ".audit")
        if io.patients or io.patient_pattern:  # a table has columns: a patient column says it directly
            raise ConfigError(
                "io.patients and io.patient_pattern are for files without a patient column; on Spark, join "
                'the patient ids as a column and pass --patient-col (io.patient_from = "mrn" works here too)'
            )
        surrogates = bool(cfg.replace.modes() & KEYED_MODES)
        keyed = surrogates or io.pseudonymize_ids
        found = load_key(io.key_file or None) if keyed else None
        if keyed and found is None:  # never a generated key: a cluster's files
            what = "surrogate mode" if surrogates else "--pseudonymize-ids"
            raise ConfigError(f"{what} on Spark needs --key-file or ${ENV_VAR} (or a mask mode: --mode tag)")
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    return cfg, found, audit_path


def _check_job(
    cfg: Config,
    found: tuple[bytes, str] | None,
    input_path: str,
    output_path: str,
    audit_path: str | None,
    config: Path | None,
    local_dir: Path | None,
    overwrite: bool = False,
) -> PipelineSpec:
    """Local paths checked against each other (cluster URIs are checked once Spark is up) and the
    pipeline built. An existing local output or audit is refused here, without --overwrite, before
    Spark starts (an empty folder too: Spark refuses any existing path)."""
    from radeid.io.paths import PathConflictError, check_paths

    io = cfg.io
    local = {
        name: Path(p)
        for name, p in (("INPUT", input_path), ("OUTPUT", output_path), ("--audit", audit_path))
        if p is not None and "://" not in p
    }  # fmt: skip (cluster URIs are Spark's to check)
    try:
        check_paths(
            {"INPUT": local.get("INPUT"), "--config": config, **config_reads(cfg)},
            {"OUTPUT": local.get("OUTPUT"), "--audit": local.get("--audit"), "--local-dir": local_dir},
            secrets={"--key-file": Path(io.key_file) if io.key_file else None},
        )
    except PathConflictError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    refuse_existing({"OUTPUT": local.get("OUTPUT"), "--audit": local.get("--audit")}, overwrite=overwrite,
                    empty_folder_ok=False)  # fmt: skip
    try:
        return PipelineSpec(cfg, found[0] if found else None)
    except ConfigError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _require_pyspark() -> None:
    """PySpark is an extra: without it, a usage error that says how to install it."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise fail("spark-deid needs PySpark: pip install 'radeid[spark]'", EXIT_USAGE) from None


def _run_job(
    cfg: Config,
    spec: PipelineSpec,
    input_path: str,
    output_path: str,
    audit_path: str | None,
    master: str | None,
    local_dir: Path | None,
    partitions: int | None,
    overwrite: bool,
    skipped: list[tuple[str, str]],
    quiet: bool = False,
) -> int:
    """Run the job on a Spark session; Spark's and radeid's errors become one line and an exit code.
    An existing output or audit (a cluster URI too) is refused before Spark reads anything."""
    from pyspark.errors import PySparkException

    io = cfg.io
    spark = _spark_session(master, local_dir, quiet=quiet)
    if quiet:
        spark.sparkContext.setLogLevel("ERROR")
    if not overwrite:
        existing(existing_paths(spark, {"OUTPUT": output_path, "--audit": audit_path}))
    common: dict[str, Any] = {
        "spec": spec, "output_format": io.output_format or None, "keep_columns": io.keep_columns,
        "audit_path": audit_path, "partitions": partitions, "overwrite": overwrite, "on_error": io.on_error,
        "skipped": skipped,
    }  # fmt: skip
    try:
        fmt = _spark_format(input_path, io.format or None)
        if fmt in RECORD_FORMATS:  # an HL7 file, a DICOM folder: one record per row
            return spark_deidentify_records(spark, input_path, output_path, record_format=fmt, **common)
        return spark_deidentify_files(
            spark, input_path, output_path, input_format=fmt, id_col=io.id_col, text_col=io.text_col,
            patient_col=io.patient_col or None, **common,
        )  # fmt: skip
    except ConfigError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except SparkInputError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except PySparkException as exc:  # e.g. a path cannot be read
        if "PATH_ALREADY_EXISTS" in str(exc):  # made meanwhile by another job
            raise fail(f"{_spark_message(exc)}; pass --overwrite to replace it", EXIT_USAGE) from None
        raise fail(_spark_message(exc), EXIT_FAILED) from None


def _report(skipped: list[tuple[str, str]], count: int, output_path: str, quiet: bool = False) -> None:
    """The skipped documents (the first 20, then a count) and the total (not with --quiet), on stderr."""
    for doc_id, error in skipped[:20]:
        said = f"{error} while de-identifying" if error.isidentifier() else error  # an exception type, or why
        typer.echo(f"skipped: document {doc_id!r}: {said}", err=True)  # a record did not parse
    if len(skipped) > 20:
        typer.echo(f"... and {len(skipped) - 20} more skipped documents", err=True)
    if not quiet:
        typer.echo(f"de-identified {count} documents -> {output_path}", err=True)
