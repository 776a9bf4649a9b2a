"""What the `radeid` commands share: options, the config they build, progress, messages, exit codes.

Every option that changes what a run does is a config key (`radeid default-config` lists them);
`job_overrides` turns the options the user gave into a config overlay, so a command line and a
TOML file describe a job the same way and an option left out never hides the file's value.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from radeid.config.config import Config, ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.formats import InputFormat
from radeid.io.paths import check_paths
from radeid.run.batch import RunAborted, RunSummary
from radeid.run.parallel import ParallelRunError, work_folder_for

err = Console(stderr=True, soft_wrap=True)  # messages are never hard-wrapped (logs, tests at any width)

EXIT_OK, EXIT_INPUT_ERROR, EXIT_USAGE, EXIT_WRONG_KEY = 0, 1, 2, 3
#: Seconds between plain progress lines when stderr is not a terminal (a log file, a pipe).
PLAIN_PROGRESS_EVERY = 30.0

#: What a job returns: `run_job` hands back the job's own summary type (`ParallelRunSummary`...).
SummaryT = TypeVar("SummaryT", bound=RunSummary)


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


# Options shared by `deid` and `detect`. Defaults are None: the config decides (see module doc).
FormatOpt = Annotated[
    InputFormat | None,
    typer.Option("--format", "-f", help="Input format (io.format); guessed from the suffix or folder content."),
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
IdColOpt = Annotated[str | None, typer.Option("--id-col", help="Field with the document id (io.id_col, 'id').")]
TextColOpt = Annotated[str | None, typer.Option("--text-col", help="Field with the text (io.text_col, 'text').")]
PatientColOpt = Annotated[
    str | None,
    typer.Option("--patient-col", help="Field with the patient id (default: 'patient_id' when present)."),
]
OnErrorOpt = Annotated[
    OnErrorChoice | None,
    typer.Option("--on-error", help="fail: stop at the first bad record, write nothing; skip: leave it out, go on."),
]
BatchOpt = Annotated[int | None, typer.Option("--batch-size", min=1, help="Documents per detection batch.")]
AgeOpt = Annotated[int | None, typer.Option("--age-threshold", min=0, help="Ages above this are PHI (default 89).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary table.")]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="Run the transformer detector with this model instead of the bundled one (ONNX or Hugging Face "
        "folder, or hub name).",
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
        help="Model score from which a word piece is PHI (default: detectors.transformer.threshold, 0.3 for the "
        "bundled model).",
    ),
]


#: Options `deid` and `detect` share, declared once: (annotation, default).
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "input_format": (FormatOpt, None),
    "config": (ConfigOpt, None),
    "hospital_list": (HospitalOpt, None),
    "vendor_list": (VendorOpt, None),
    "deny_list": (DenyOpt, None),
    "allow_list": (AllowOpt, None),
    "id_col": (IdColOpt, None),
    "text_col": (TextColOpt, None),
    "patient_col": (PatientColOpt, None),
    "on_error": (OnErrorOpt, None),
    "batch_size": (BatchOpt, None),
    "age_threshold": (AgeOpt, None),
    "model": (ModelOpt, None),
    "no_model": (NoModelOpt, False),
    "threshold": (ThresholdOpt, None),
    "quiet": (QuietOpt, False),
}


def with_shared_options(func: Callable[..., None]) -> Callable[..., None]:
    """Give a command taking `**shared` every option of `SHARED_OPTIONS` as a keyword parameter.

    Typer reads a command's options from its signature; this writes them into the signature
    once, so `deid` and `detect` cannot drift apart (written by hand because typer has no
    option groups).
    """
    hints = inspect.get_annotations(func, eval_str=True)
    own = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(func).parameters.values()
        if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        for name, (annotation, default) in SHARED_OPTIONS.items()
    ]

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> None:
        func(*args, **kwargs)

    parameters = [*own, *shared]
    command.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    return command


def job_overrides(**options: Any) -> dict[str, Any]:
    """Options the user gave (not None) as a config overlay. Keys are `section.key` paths or, for
    list options that add to the file's lists, `+section.key`; see `load_job_config`."""
    paths = {
        "mode": "replace.mode", "mask_char": "replace.char", "mask_length": "replace.fixed_length",
        "scope": "surrogate.scope", "date_shift": "surrogate.date_shift",
        "max_shift_days": "surrogate.max_shift_days", "day_first": "surrogate.day_first",
        "length_preserving": "surrogate.length_preserving", "age_mode": "surrogate.age_mode",
        "typos": "surrogate.typo_rate", "locale": "surrogate.locale", "keep_state": "surrogate.keep_state",
        "input_format": "io.format", "output_format": "io.output_format", "id_col": "io.id_col",
        "text_col": "io.text_col", "patient_col": "io.patient_col", "on_error": "io.on_error",
        "audit": "io.audit", "vault": "io.vault", "key_file": "io.key_file",
        "pseudonymize_ids": "io.pseudonymize_ids",
        "batch_size": "pipeline.batch_size", "age_threshold": "detectors.rules.age_threshold",
        "model": "detectors.transformer.model", "threshold": "detectors.transformer.threshold",
        "keep_column": "+io.keep_columns", "hospital_list": "+detectors.lexicon.hospital_lists",
        "vendor_list": "+detectors.lexicon.vendor_lists", "deny_list": "+detectors.lexicon.deny_lists",
        "allow_list": "+resolver.allow_lists",
    }  # fmt: skip
    overlay: dict[str, Any] = {}
    for name, value in options.items():
        if value is None or (isinstance(value, list) and not value):
            continue
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, list):
            value = [str(v) for v in value]
        overlay[paths[name]] = value
    return overlay


def load_job_config(config_path: Path | None, overlay: Mapping[str, Any], *, no_model: bool = False) -> Config:
    """The bundled defaults, the user's file, then the options: list options (`+section.key`)
    add to the file's lists; `--model` adds the transformer detector; `--no-model` removes it."""
    if no_model and "detectors.transformer.model" in overlay:
        raise ConfigError("--model and --no-model contradict each other; pass one of them")
    base = Config.load(config_path)
    nested: dict[str, Any] = {}
    for path, value in overlay.items():
        extend = path.startswith("+")
        *sections, key = path.lstrip("+").split(".")
        if extend:
            current = _section_of(base, sections)
            value = list(dict.fromkeys([*getattr(current, key), *value]))  # extend, without repeats
        table = nested
        for section in sections:
            table = table.setdefault(section, {})
        table[key] = value
    detectors = list(base.pipeline.detectors)
    # with an ensemble that has the model as a member, --model only names the model, --no-model
    # takes the member out (the model is never also run on its own)
    members = list(base.ensemble.members) if "ensemble" in detectors else []
    if "detectors.transformer.model" in overlay and "transformer" not in detectors + members:
        detectors.append("transformer")
    if no_model:
        detectors = [d for d in detectors if d != "transformer"]
        if "transformer" in members:
            nested.setdefault("detectors", {}).setdefault("ensemble", {})["members"] = [
                m for m in members if m != "transformer"
            ]
    if detectors != list(base.pipeline.detectors):
        nested.setdefault("pipeline", {})["detectors"] = detectors
    return Config.load(config_path, nested)


def _section_of(config: Config, sections: list[str]) -> Any:
    if sections[0] == "detectors":
        return config.detectors[sections[1]]
    return getattr(config, sections[0])


# ------------------------------------------------------------------------------ paths and inputs


def fail(message: str, code: int) -> typer.Exit:
    """Print an error (escaped: never parsed as markup) and return the exit to raise."""
    err.print(f"[red]error[/]: {escape(message)}", highlight=False)
    return typer.Exit(code)


def note(message: str) -> None:
    if message:
        err.print(escape(message), highlight=False)


def check_input(path: Path) -> None:
    if not path.exists():
        raise fail(f"input not found: {path}", EXIT_USAGE)


def config_reads(config: Config) -> dict[str, Path | None]:
    """Every file a config makes a command read (lists, rule files, the key file), by config key."""
    named: dict[str, list[str] | tuple[str, ...]] = {
        "--hospital-list": config.lexicon.hospital_lists,
        "--vendor-list": config.lexicon.vendor_lists,
        "--deny-list": config.lexicon.deny_lists,
        "--allow-list": config.resolver.allow_lists,
        "detectors.rules.extra_files": config.rules.extra_files,
        "protected.extra_files": config.protected.extra_files,
    }
    reads: dict[str, Path | None] = {"--key-file": Path(config.io.key_file) if config.io.key_file else None}
    for option, paths in named.items():
        for n, path in enumerate(paths, 1):
            reads[f"{option} #{n}" if len(paths) > 1 else option] = Path(path)
    return reads


def check_job_paths(reads: dict[str, Path | None], writes: dict[str, Path | None]) -> None:
    try:
        check_paths(reads, writes)
    except RadeidIOError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


# ------------------------------------------------------------------------------------ running


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


def run_job(
    job: Callable[[Callable[[int], None]], SummaryT],
    quiet: bool,
    label: str,
    output: Path | None = None,
    total: int | None = None,
) -> SummaryT:
    """Run a job with progress; map known failures to exit codes and clear messages.
    SIGTERM is handled like Ctrl-C (exit 143 instead of 130); the work folder stays for --resume."""
    import signal
    import threading

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run_job(job, quiet, label, output, total)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _progress(quiet: bool) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
        disable=quiet or not err.is_terminal,
        transient=True,
    )


def _run_job(
    job: Callable[[Callable[[int], None]], SummaryT], quiet: bool, label: str, output: Path | None, total: int | None
) -> SummaryT:
    plain = not quiet and not err.is_terminal  # a log: a line now and then instead of a bar
    started = last = time.monotonic()
    with _progress(quiet) as progress:
        task = progress.add_task(label, total=total, rate="")

        def on_batch(n: int) -> None:
            nonlocal last
            progress.advance(task, n)
            elapsed = progress.tasks[0].elapsed or 0.0
            done = progress.tasks[0].completed
            progress.update(task, rate=f"{done / elapsed:,.0f} docs/s" if elapsed > 0 else "")
            now = time.monotonic()
            if plain and now - last >= PLAIN_PROGRESS_EVERY:
                last = now
                of = f" of {total:,} ({100 * done / total:.0f}%)" if total else ""
                rate = done / max(now - started, 1e-9)
                err.print(f"{label}: {int(done):,}{of} documents, {rate:,.0f} docs/s", highlight=False)

        try:
            return job(on_batch)
        except RunAborted as exc:
            raise fail(
                f"{exc.issue.describe()}\nStopped at this record ({exc.summary.read} valid document(s) read); no "
                "output was written. Fix the record or rerun with --on-error skip.",
                EXIT_INPUT_ERROR,
            ) from None
        except ParallelRunError as exc:
            raise fail(str(exc), EXIT_INPUT_ERROR) from None
        except KeyboardInterrupt as exc:
            how, code = ("terminated (SIGTERM)", 143) if isinstance(exc, _Terminated) else ("interrupted", 130)
            raise fail(how + (_resume_hint(output) or "; nothing was written"), code) from None
        except (RadeidIOError, ConfigError) as exc:
            raise fail(str(exc), EXIT_USAGE) from None
        except OSError as exc:
            raise fail(_os_message(exc, output), EXIT_USAGE) from None


def report(summary: RunSummary, quiet: bool, what: str) -> None:
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
