"""The `radeid` command line: a thin layer over `Deidentifier` and the batch runner."""

from __future__ import annotations

import dataclasses
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from radeid import __version__
from radeid.batch import RunAborted, RunSummary, default_audit_path, detect_path, reidentify_path
from radeid.config import Config, ConfigError
from radeid.evaluate.commands import register as register_evaluate
from radeid.io.errors import RadeidIOError
from radeid.io.readers import InputFormat, ReadOptions
from radeid.keys import ENV_VAR, key_dir_for, resolve_key
from radeid.model.commands import register as register_model
from radeid.parallel import ParallelRunError, default_workers, deidentify_path_parallel, work_folder_for
from radeid.paths import check_paths
from radeid.pipeline import Deidentifier
from radeid.spark import register as register_spark
from radeid.spec import PipelineSpec
from radeid.surrogate import SurrogateOptions
from radeid.synth.commands import register as register_synth
from radeid.train.commands import register as register_train
from radeid.vault import VaultError, WrongKeyError, read_vault
from radeid.wordlists import bundled_data_path

app = typer.Typer(
    name="radeid",
    help=(
        "De-identify radiology reports and clinical notes.\n\n"
        "radeid finds protected health information (names, dates, IDs, phones, places, vendors, ...) "
        "with rules, word lists and (optionally) a transformer model, then masks it or replaces it.\n\n"
        "Quick start:  radeid deid examples/ -o out/"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    # A traceback must never print local variables: they hold document text. Plain tracebacks
    # only (and the CLI maps every known failure to a message without one).
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
)
err = Console(stderr=True, soft_wrap=True)  # messages are never hard-wrapped (logs, tests at any width)

EXIT_OK, EXIT_INPUT_ERROR, EXIT_USAGE, EXIT_WRONG_KEY = 0, 1, 2, 3


class Mode(str, Enum):
    """How detected PHI is replaced."""

    surrogate = "surrogate"
    mask = "mask"
    tag = "tag"
    numbered = "numbered"
    fixed = "fixed"


class Scope(str, Enum):
    patient = "patient"
    corpus = "corpus"


class AgeMode(str, Enum):
    keep_over = "keep_over"
    aggregate = "aggregate"


class OnErrorChoice(str, Enum):
    fail = "fail"
    skip = "skip"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"radeid {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """De-identify radiology reports and clinical notes."""


# Options shared by `deid` and `detect`.
FormatOpt = Annotated[
    InputFormat | None,
    typer.Option("--format", "-f", help="Input format; guessed from the suffix or folder content when left out."),
]
ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="TOML file merged over the bundled defaults.")]
HospitalOpt = Annotated[
    list[Path] | None, typer.Option("--hospital-list", help="Extra hospital names, one per line (repeatable).")
]
VendorOpt = Annotated[
    list[Path] | None, typer.Option("--vendor-list", help="Extra vendor/software names, one per line (repeatable).")
]
DenyOpt = Annotated[
    list[Path] | None,
    typer.Option("--deny-list", help="Terms always redacted: 'term<TAB>CATEGORY' per line (repeatable)."),
]
AllowOpt = Annotated[
    list[Path] | None,
    typer.Option("--allow-list", help="Terms never redacted (whole-span match, any case), one per line (repeatable)."),
]
IdColOpt = Annotated[str, typer.Option("--id-col", help="CSV/Parquet/JSONL field with the document id.")]
TextColOpt = Annotated[str, typer.Option("--text-col", help="CSV/Parquet/JSONL field with the text.")]
PatientColOpt = Annotated[
    str | None,
    typer.Option("--patient-col", help="Field with the patient id (default: 'patient_id' when present)."),
]
OnErrorOpt = Annotated[
    OnErrorChoice,
    typer.Option("--on-error", help="fail: stop at the first bad record, write nothing; skip: leave it out, go on."),
]
BatchOpt = Annotated[int | None, typer.Option("--batch-size", min=1, help="Documents per detection batch.")]
AgeOpt = Annotated[int | None, typer.Option("--age-threshold", min=0, help="Ages above this are PHI (default 89).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary table.")]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model", help="Add the transformer detector with this model (ONNX or Hugging Face folder, or hub name)."
    ),
]
NoModelOpt = Annotated[
    bool, typer.Option("--no-model", help="Rules and word lists only: no transformer model (about 50x faster).")
]
ThresholdOpt = Annotated[
    float | None,
    typer.Option(
        "--threshold",
        min=0.0,
        max=1.0,
        help="Model score from which a word piece is PHI (default: transformer.threshold, 0.3 for the bundled model).",
    ),
]


def _overrides(
    hospital_list: list[Path] | None,
    vendor_list: list[Path] | None,
    deny_list: list[Path] | None,
    allow_list: list[Path] | None,
    batch_size: int | None,
    age_threshold: int | None,
    model: str | None = None,
    threshold: float | None = None,
) -> dict[str, Any]:
    """CLI flags as a config overlay; list flags add to what the config file already names."""
    overrides: dict[str, Any] = {}
    if model:
        overrides["transformer"] = {"model": model}
        overrides["pipeline"] = {"detectors": ["transformer"]}
    if threshold is not None:
        overrides.setdefault("transformer", {})["threshold"] = threshold
    lexicon: dict[str, Any] = {}
    if hospital_list:
        lexicon["hospital_lists"] = [str(p) for p in hospital_list]
    if vendor_list:
        lexicon["vendor_lists"] = [str(p) for p in vendor_list]
    if deny_list:
        lexicon["deny_lists"] = [str(p) for p in deny_list]
    if lexicon:
        overrides["lexicon"] = lexicon
    if allow_list:
        overrides["resolver"] = {"allow_lists": [str(p) for p in allow_list]}
    if batch_size:
        overrides.setdefault("pipeline", {})["batch_size"] = batch_size
    if age_threshold is not None:
        overrides["rules"] = {"age_threshold": age_threshold}
    return overrides


def _load_config(config_path: Path | None, overrides: dict[str, Any], no_model: bool = False) -> Config:
    config = _merged_config(config_path, overrides)
    if no_model:
        detectors = tuple(d for d in config.pipeline.detectors if d != "transformer")
        config = dataclasses.replace(config, pipeline=dataclasses.replace(config.pipeline, detectors=detectors))
    return config


def _merged_config(config_path: Path | None, overrides: dict[str, Any]) -> Config:
    base = Config.load(config_path)
    # List flags extend the lists of the loaded config rather than replace them.
    for section, values in overrides.items():
        for key, value in values.items():
            current = getattr(getattr(base, section), key)
            if isinstance(value, list) and isinstance(current, tuple):
                values[key] = list(dict.fromkeys([*current, *value]))  # extend, without repeats
    return Config.load(config_path, overrides)


def _progress(quiet: bool) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=err,
        disable=quiet or not err.is_terminal,
        transient=True,
    )


def _report(summary: RunSummary, quiet: bool, what: str) -> None:
    for issue in summary.warnings[:20]:
        err.print(f"[yellow]warning[/]: {escape(issue.describe())}", highlight=False)
    if len(summary.warnings) > 20:
        err.print(f"[yellow]... and {len(summary.warnings) - 20} more warnings[/]")
    for issue in summary.errors[:20]:
        err.print(f"[red]skipped[/]: {escape(issue.describe())}", highlight=False)
    if len(summary.errors) > 20:
        err.print(f"[red]... and {len(summary.errors) - 20} more skipped records[/]")
    if quiet:
        return
    err.print(f"{what} {summary.documents} documents, {summary.spans} spans")
    table = Table(show_edge=False)
    table.add_column("category")
    table.add_column("spans", justify="right")
    for category, count in sorted(summary.by_category.items(), key=lambda kv: -kv[1]):
        table.add_row(category, str(count))
    err.print(table)
    if summary.errors:
        err.print(f"[red]{sum(i.records for i in summary.errors)} record(s) skipped[/] (see above)")


def _fail(message: str, code: int) -> typer.Exit:
    err.print(f"[red]error[/]: {escape(message)}", highlight=False)
    return typer.Exit(code)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (a KeyboardInterrupt, so every cleanup path is the same)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


def _resume_hint(output: Path | None) -> str:
    if output is not None and work_folder_for(output).exists():
        return "; finished batches are kept: rerun the same command with --resume to continue"
    return ""


def _os_message(exc: OSError, output: Path | None) -> str:
    """An OS error naming the path (the output's folder when the error names none), never text."""
    what = exc.strerror or type(exc).__name__
    where = exc.filename if exc.filename is not None else (output.resolve().parent if output is not None else None)
    return (f"{what}: {where}" if where is not None else what) + _resume_hint(output)


def _run(job: Any, quiet: bool, label: str, output: Path | None = None) -> RunSummary:
    """Run a job with a progress bar; map known failures to exit codes and clear messages.
    SIGTERM is handled like Ctrl-C (exit 143 instead of 130); the work folder stays for --resume."""
    import signal
    import threading

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run_job(job, quiet, label, output)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run_job(job: Any, quiet: bool, label: str, output: Path | None) -> RunSummary:
    with _progress(quiet) as progress:
        task = progress.add_task(label, total=None, rate="")

        def on_batch(n: int) -> None:
            progress.advance(task, n)
            elapsed = progress.tasks[0].elapsed or 0.0
            done = progress.tasks[0].completed
            progress.update(task, rate=f"{done / elapsed:,.0f} docs/s" if elapsed > 0 else "")

        try:
            return job(on_batch)
        except RunAborted as exc:
            raise _fail(
                f"{exc.issue.describe()}\nStopped at this record ({exc.summary.read} valid document(s) read); no "
                "output was written. Fix the record or rerun with --on-error skip.",
                EXIT_INPUT_ERROR,
            ) from None
        except ParallelRunError as exc:
            raise _fail(str(exc), EXIT_INPUT_ERROR) from None
        except KeyboardInterrupt as exc:
            how, code = ("terminated (SIGTERM)", 143) if isinstance(exc, _Terminated) else ("interrupted", 130)
            raise _fail(how + (_resume_hint(output) or "; nothing was written"), code) from None
        except (RadeidIOError, ConfigError) as exc:
            raise _fail(str(exc), EXIT_USAGE) from None
        except OSError as exc:
            raise _fail(_os_message(exc, output), EXIT_USAGE) from None


def _check_input(path: Path) -> None:
    if not path.exists():
        raise _fail(f"input not found: {path}", EXIT_USAGE)


def _read_paths(
    input_path: Path, config: Path | None, lists: dict[str, list[Path] | None], **named: Path | None
) -> dict[str, Path | None]:
    """Every path a command reads, labelled as the user named it (for `check_paths`)."""
    reads: dict[str, Path | None] = {"the input": input_path, "--config": config, **named}
    for option, paths in lists.items():
        for n, path in enumerate(paths or (), 1):
            reads[f"{option} #{n}" if len(paths or ()) > 1 else option] = path
    return reads


def _check_paths(reads: dict[str, Path | None], writes: dict[str, Path | None]) -> None:
    try:
        check_paths(reads, writes)
    except RadeidIOError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None


@app.command()
def deid(
    input_path: Annotated[
        Path, typer.Argument(metavar="INPUT", help="A file (.jsonl/.csv/.parquet/.txt/.xml) or a folder.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output file, or folder for folder formats.")],
    mode: Annotated[
        Mode, typer.Option("--mode", "-m", help="surrogate (realistic fakes), mask, tag, numbered or fixed.")
    ] = Mode.surrogate,
    key_file: Annotated[
        Path | None,
        typer.Option(
            "--key-file",
            help="Secret key for surrogates and the vault (else $RADEID_KEY, else radeid.key beside the output).",
        ),
    ] = None,
    scope: Annotated[
        Scope, typer.Option("--scope", help="patient: fakes consistent per patient; corpus: across the corpus.")
    ] = Scope.patient,
    date_shift: Annotated[
        str, typer.Option("--date-shift", help="patient (one keyed shift per patient), none, or fixed:N days.")
    ] = "patient",
    max_shift_days: Annotated[
        int, typer.Option("--max-shift-days", min=1, help="Largest date shift in days, either way.")
    ] = 365,
    day_first: Annotated[bool, typer.Option("--day-first", help="Read 03/04/2019 as 3 April.")] = False,
    length_preserving: Annotated[
        bool, typer.Option("--length-preserving", help="Pad or trim surrogates to the original's length.")
    ] = False,
    age_mode: Annotated[
        AgeMode, typer.Option("--age-mode", help="keep_over: ages stay over 89; aggregate: write '90+'.")
    ] = AgeMode.keep_over,
    typos: Annotated[
        float, typer.Option("--typos", min=0.0, max=1.0, help="Rate of typos in surrogates (augmentation).")
    ] = 0.0,
    locale: Annotated[str, typer.Option("--locale", help="Faker locale for names and places.")] = "en_US",
    keep_state: Annotated[
        bool, typer.Option("--keep-state", help="Keep US state names; fake ZIPs stay inside the state.")
    ] = False,
    vault: Annotated[
        Path | None,
        typer.Option("--vault", help="Write an encrypted re-identification vault (Parquet) here."),
    ] = None,
    mask_char: Annotated[str | None, typer.Option("--mask-char", help="Character for mask/fixed modes.")] = None,
    mask_length: Annotated[int | None, typer.Option("--mask-length", min=1, help="Length in fixed mode.")] = None,
    input_format: FormatOpt = None,
    output_format: Annotated[
        InputFormat | None, typer.Option("--output-format", help="Output format (default: the input's).")
    ] = None,
    config: ConfigOpt = None,
    audit: Annotated[
        Path | None, typer.Option("--audit", help="Audit JSONL path (default: OUTPUT.audit.jsonl beside OUTPUT).")
    ] = None,
    hospital_list: HospitalOpt = None,
    vendor_list: VendorOpt = None,
    deny_list: DenyOpt = None,
    allow_list: AllowOpt = None,
    id_col: IdColOpt = "id",
    text_col: TextColOpt = "text",
    patient_col: PatientColOpt = None,
    keep_column: Annotated[
        list[str] | None,
        typer.Option("--keep-column", help="Copy this input column to the output unchanged (repeatable)."),
    ] = None,
    on_error: OnErrorOpt = OnErrorChoice.fail,
    batch_size: BatchOpt = None,
    age_threshold: AgeOpt = None,
    model: ModelOpt = None,
    no_model: NoModelOpt = False,
    threshold: ThresholdOpt = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, help="Worker processes (default: one per available core)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue an interrupted run from its work folder beside the output."),
    ] = False,
    quiet: QuietOpt = False,
) -> None:
    """De-identify documents: detect PHI, replace it, write the output and an audit of every span.

    Examples:

      radeid deid examples/ -o out/

      radeid deid reports.jsonl -o deid.jsonl --key-file site.key --vault vault.parquet

      radeid deid reports.jsonl -o deid.jsonl --mode tag --deny-list staff.tsv

      radeid deid notes.csv -o deid.csv --id-col note_id --text-col body --on-error skip

      radeid deid big.jsonl -o deid.jsonl --workers 2 --resume
    """
    _check_input(input_path)
    lists = {"--hospital-list": hospital_list, "--vendor-list": vendor_list, "--deny-list": deny_list}
    lists["--allow-list"] = allow_list
    _check_paths(
        _read_paths(input_path, config, lists, **{"--key-file": key_file}),
        {"--output": output, "--audit": audit or default_audit_path(output), "--vault": vault},
    )
    try:
        overrides = _overrides(
            hospital_list, vendor_list, deny_list, allow_list, batch_size, age_threshold, model, threshold
        )
        mask: dict[str, Any] = {"mode": mode.value} if mode is not Mode.surrogate else {}
        if mask_char is not None:
            mask["char"] = mask_char
        if mask_length is not None:
            mask["fixed_length"] = mask_length
        overrides["mask"] = mask
        cfg = _load_config(config, overrides, no_model)
        key = None
        if mode is Mode.surrogate or vault is not None:
            key, note = resolve_key(key_file, key_dir_for(output, input_path) if key_file is None else output.parent)
            if note:
                err.print(escape(note), highlight=False)
        surrogate_options = None
        if mode is Mode.surrogate:
            surrogate_options = SurrogateOptions(
                scope=scope.value,
                date_shift=date_shift,
                max_shift_days=max_shift_days,
                length_preserving=length_preserving,
                typo_rate=typos,
                locale=locale,
                age_mode=age_mode.value,
                day_first=day_first,
                keep_state=keep_state,
            )
        spec = PipelineSpec(cfg, mode.value, key, surrogate_options)
        if (workers or default_workers()) > 1:
            spec.build()  # fail fast here, with a clear error, rather than in every worker
        options = ReadOptions(
            id_col=id_col, text_col=text_col, patient_col=patient_col, keep_columns=tuple(keep_column or ())
        )
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    summary = _run(
        lambda on_batch: deidentify_path_parallel(
            spec,
            input_path,
            output,
            workers=workers or default_workers(),
            resume=resume,
            input_format=input_format,
            output_format=output_format,
            options=options,
            audit_path=audit,
            vault_path=vault,
            vault_key=key,
            on_error=on_error.value,
            on_batch=on_batch,
        ),
        quiet,
        "de-identifying",
        output,
    )
    _report(summary, quiet, "de-identified")
    stats = summary.replacer_stats
    if stats and stats.get("date_unparseable"):
        err.print(
            f"[yellow]warning[/]: {stats['date_unparseable']} date(s) could not be parsed and got a same-shape "
            "random stand-in instead of a shifted date"
        )
    if not quiet:
        err.print(
            f"output: {escape(str(output))}\naudit:  {escape(str(audit or default_audit_path(output)))}",
            highlight=False,
        )
        if vault is not None:
            err.print(f"vault:  {escape(str(vault))}", highlight=False)


@app.command()
def detect(
    input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="A file or folder, as for deid.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Spans JSONL: one line per document, no text.")],
    input_format: FormatOpt = None,
    config: ConfigOpt = None,
    hospital_list: HospitalOpt = None,
    vendor_list: VendorOpt = None,
    deny_list: DenyOpt = None,
    allow_list: AllowOpt = None,
    id_col: IdColOpt = "id",
    text_col: TextColOpt = "text",
    patient_col: PatientColOpt = None,
    on_error: OnErrorOpt = OnErrorChoice.fail,
    batch_size: BatchOpt = None,
    age_threshold: AgeOpt = None,
    model: ModelOpt = None,
    no_model: NoModelOpt = False,
    threshold: ThresholdOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Detect PHI without changing anything: write every resolved span (offsets, category, source, score).

    Example:

      radeid detect examples/ -o spans.jsonl

      radeid detect reports.jsonl -o spans.jsonl --model models/stanford-onnx --threshold 0.3
    """
    _check_input(input_path)
    lists = {"--hospital-list": hospital_list, "--vendor-list": vendor_list, "--deny-list": deny_list}
    lists["--allow-list"] = allow_list
    _check_paths(_read_paths(input_path, config, lists), {"--output": output})
    try:
        overrides = _overrides(
            hospital_list, vendor_list, deny_list, allow_list, batch_size, age_threshold, model, threshold
        )
        deidentifier = Deidentifier(_load_config(config, overrides, no_model))
        options = ReadOptions(id_col=id_col, text_col=text_col, patient_col=patient_col)
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    summary = _run(
        lambda on_batch: detect_path(
            deidentifier,
            input_path,
            output,
            input_format=input_format,
            options=options,
            on_error=on_error.value,
            on_batch=on_batch,
        ),
        quiet,
        "detecting",
    )
    _report(summary, quiet, "detected")


@app.command()
def reidentify(
    input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="De-identified output of `radeid deid`.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where the restored originals go.")],
    vault: Annotated[Path, typer.Option("--vault", help="The vault written by `radeid deid --vault`.")],
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="The key used for the run (else $RADEID_KEY).")
    ] = None,
    input_format: FormatOpt = None,
    id_col: IdColOpt = "id",
    text_col: TextColOpt = "text",
    quiet: QuietOpt = False,
) -> None:
    """Restore the original text of de-identified documents from an encrypted vault.

    A wrong key fails before anything is written. Example:

      radeid reidentify deid.jsonl --vault vault.parquet --key-file site.key -o restored.jsonl
    """
    _check_input(input_path)
    _check_paths(_read_paths(input_path, None, {}, **{"--vault": vault, "--key-file": key_file}), {"--output": output})
    if key_file is None and not os.environ.get(ENV_VAR):
        raise _fail(f"reidentify needs the run's key: pass --key-file or set {ENV_VAR}", EXIT_USAGE)
    try:
        key, note = resolve_key(key_file, output.resolve().parent)
        if note:
            err.print(escape(note), highlight=False)
        rows = read_vault(vault, key)
        options = ReadOptions(id_col=id_col, text_col=text_col)
    except WrongKeyError as exc:
        raise _fail(str(exc), EXIT_WRONG_KEY) from None
    except (VaultError, RadeidIOError, OSError, ValueError) as exc:
        raise _fail(str(exc), EXIT_USAGE) from None

    def job(on_batch: Any) -> RunSummary:
        return reidentify_path(rows, input_path, output, input_format=input_format, options=options, on_batch=on_batch)

    try:
        summary = _run(job, quiet, "re-identifying")
    except VaultError as exc:
        raise _fail(str(exc), EXIT_INPUT_ERROR) from None
    if not quiet:
        err.print(
            f"restored {summary.documents} documents ({summary.spans} values) into {escape(str(output))}",
            highlight=False,
        )


@app.command("default-config")
def default_config() -> None:
    """Print the bundled default configuration (a starting point for --config files).

    Example:

      radeid default-config > my-config.toml
    """
    sys.stdout.write(bundled_data_path("config.toml").read_text(encoding="utf-8"))


register_evaluate(app)
register_model(app)
register_spark(app)
register_synth(app)
register_train(app)


if __name__ == "__main__":  # pragma: no cover
    app()
