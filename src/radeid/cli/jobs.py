"""Running a command's job: path checks, its progress (`radeid.cli.progress`), Ctrl-C and SIGTERM,
and the summary table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.markup import escape
from rich.table import Table

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, err, fail
from radeid.cli.progress import JobProgress, ProgressSettings
from radeid.config.config import Config, ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.paths import check_paths
from radeid.run.batch import RunAborted, RunSummary
from radeid.run.parallel import ParallelRunError, work_folder_for
from radeid.secure.keys import key_path_for

#: What a job returns: `run_job` hands back the job's own summary type (`ParallelRunSummary`...).
SummaryT = TypeVar("SummaryT", bound=RunSummary)


def check_input(path: Path) -> None:
    if not path.exists():
        raise fail(f"input not found: {path}", EXIT_USAGE)


def config_reads(config: Config) -> dict[str, Path | None]:
    """Every file a config makes a command read (lists, rule files), by config key; the key file is
    a secret (`key_paths`)."""
    named: dict[str, list[str] | tuple[str, ...]] = {
        "--hospital-list": config.lexicon.hospital_lists,
        "--vendor-list": config.lexicon.vendor_lists,
        "--deny-list": config.lexicon.deny_lists,
        "--allow-list": config.resolver.allow_lists,
        "detectors.rules.extra_files": config.rules.extra_files,
        "protected.extra_files": config.protected.extra_files,
    }
    reads: dict[str, Path | None] = {}
    for option, paths in named.items():
        for n, path in enumerate(paths, 1):
            reads[f"{option} #{n}" if len(paths) > 1 else option] = Path(path)
    singles = (
        ("--patients", config.io.patients),
        ("--replacements", config.surrogate.replacements),
        ("io.hl7_fields", config.io.hl7_fields),
    )
    for option, single in singles:
        if single:
            reads[option] = Path(single)
    if config.surrogate.date_shifts:
        reads["--date-shifts"] = Path(config.surrogate.date_shifts)
    return reads


def key_paths(key_file: str | Path | None, output: Path | None = None) -> dict[str, Path | None]:
    """The key file a command reads, by how the user named it: `--key-file`, else (a command that
    would generate or reuse a key beside `output`) that `radeid.key`; nothing with RADEID_KEY."""
    if key_file is not None and str(key_file) != "":
        return {"--key-file": Path(key_file)}
    path = key_path_for(None, output) if output is not None else None
    return {"the key file beside the output": path}


def check_job_paths(
    reads: dict[str, Path | None], writes: dict[str, Path | None], secrets: dict[str, Path | None] | None = None
) -> None:
    """`radeid.io.paths.check_paths` (the one check of every command's paths); a clash is exit 2."""
    try:
        check_paths(reads, writes, secrets=secrets)
    except RadeidIOError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def refuse_existing(
    writes: dict[str, Path | None], *, overwrite: bool, resume: bool = False, empty_folder_ok: bool = True
) -> None:
    """Exit 2 when a path the job writes exists (an empty folder aside, unless not `empty_folder_ok`),
    unless `--overwrite` (replace it) or `--resume` (continue the run that made it) was given: nothing
    is replaced without a word."""
    if overwrite or resume:
        return
    existing(
        [
            f"{name} {str(path)!r}"
            for name, path in writes.items()
            if path is not None
            and (path.is_symlink() or path.exists())
            and not (empty_folder_ok and path.is_dir() and not any(path.iterdir()))
        ]
    )


def existing(found: list[str]) -> None:
    """The usage error for outputs that exist (`found`: "OPTION 'path'" each), naming --overwrite."""
    if found:
        them = "them" if len(found) > 1 else "it"
        listed = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
        raise fail(
            f"{listed} already exist{'' if len(found) > 1 else 's'}; pass --overwrite to replace {them}, "
            "or choose another output",
            EXIT_USAGE,
        )


def make_parents(*paths: Path | None) -> None:
    """Create the missing folders the job's outputs go in, each with a note on stderr (never silently)."""
    for path in paths:
        if path is None or path.parent.exists():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise fail(_os_message(exc, None), EXIT_USAGE) from None
        err.print(f"created folder {escape(str(path.parent))}", highlight=False)


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
    progress: ProgressSettings,
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
        return _run_job(job, progress, label, output, total)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run_job(
    job: Callable[[Callable[[int], None]], SummaryT],
    progress: ProgressSettings,
    label: str,
    output: Path | None,
    total: int | None,
) -> SummaryT:
    with JobProgress(progress, label, total) as shown:
        try:
            return job(shown.advance)
        except RunAborted as exc:
            raise fail(
                f"{exc.issue.describe()}\nStopped at this record ({exc.summary.read} valid document(s) read); no "
                "output was written. Fix the record or rerun with --on-error skip.",
                EXIT_FAILED,
            ) from None
        except ParallelRunError as exc:
            raise fail(str(exc), EXIT_FAILED) from None
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
