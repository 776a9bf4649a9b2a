"""The run report of `radeid deid` on the command line: where it goes, writing it when a run ends
(completed, failed or interrupted), the dry run, and printing a report for people.

The report itself (its content, schema and file) is `radeid.run.report`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from radeid.cli.errors import EXIT_USAGE, err, fail
from radeid.cli.jobs import check_job_paths, config_reads, key_paths, report, run_job
from radeid.cli.options import input_format, read_options
from radeid.cli.progress import ProgressSettings
from radeid.config.config import Config, ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.readers import ReadOptions, estimate_total
from radeid.pipeline.multilingual import build_deidentifier
from radeid.run.batch import RunSummary, count_path
from radeid.run.report import RunFacts, default_report_path, run_entry, write_report
from radeid.secure.keys import load_key

__all__ = ["dry_run_deid", "print_report", "print_written_report", "report_path", "run_reported", "trial_total"]

#: Ids listed on the console (the report lists them all).
_SHOWN = 10


def report_path(config: Config, output: Path) -> Path | None:
    """Where the run report goes: `io.report`, else beside the output; None with `--no-report`."""
    if not config.io.write_report:
        return None
    return Path(config.io.report) if config.io.report else default_report_path(output)


def trial_total(total: int | None, options: ReadOptions) -> int | None:
    """The progress bar's total for a trial run (`--limit`, `--sample`): at most N documents."""
    wanted = options.limit or options.sample
    if not wanted:
        return total
    return wanted if total is None else min(total, wanted)


def _status(exc: BaseException) -> str:
    code = getattr(exc, "exit_code", None)
    return "interrupted" if isinstance(exc, KeyboardInterrupt) or code in (130, 143) else "failed"


def run_reported(
    facts: RunFacts,
    job: Callable[[Callable[[int], None]], Any],
    progress: ProgressSettings,
    total: int | None,
    *,
    resume: bool = False,
    label: str = "de-identifying",
) -> Any:
    """`run_job`, then the report: replaced by a completed run (appended to on `--resume`); a run
    that fails or is interrupted appends its entry (documents finished so far) and exits as before."""
    done = 0

    def counted(on_batch: Callable[[int], None]) -> Any:
        def each(n: int) -> None:
            nonlocal done
            done += n
            on_batch(n)

        return job(each)

    try:
        summary = run_job(counted, progress, label, facts.output, total=total)
    except (typer.Exit, KeyboardInterrupt) as exc:
        status = _status(exc)
        # A run refused before its first batch (another run holds the output, a bad path) did
        # nothing to record, and must not touch the report of the run it was refused for.
        if facts.report is not None and (done or status == "interrupted"):
            with contextlib.suppress(Exception):  # the run's own error is what the user must see
                write_report(facts.report, run_entry(facts, None, status, done), append=True)
        raise
    if facts.report is not None:
        try:
            write_report(facts.report, run_entry(facts, summary, "completed"), append=resume)
        except OSError as exc:
            raise fail(f"the outputs are written, but not the run report: {exc.strerror}: {facts.report}", 1) from None
    return summary


def dry_run_deid(
    cfg: Config, input_path: Path, output: Path, *, config_path: Path | None, quiet: bool, progress: ProgressSettings
) -> None:
    """`radeid deid --dry-run`: detect and count what a run would replace, print it and write the
    run report; no output, audit, vault or key is written (a key given is read, for its
    fingerprint and for id pseudonyms)."""
    io = cfg.io
    target = report_path(cfg, output)
    check_job_paths(
        {"the input": input_path, "--config": config_path, **config_reads(cfg)},
        {"--report": target},
        key_paths(io.key_file or None) if io.key_file else None,
    )
    try:
        found = load_key(Path(io.key_file) if io.key_file else None)
        deidentifier = build_deidentifier(cfg)
        options = read_options(cfg)
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    key = found[0] if found else None
    fmt = input_format(io.format)
    facts = RunFacts(cfg, config_path, input_path, io.format or None, output, None, None, key, 1, dry_run=True,
                     report=target)  # fmt: skip
    total = None if progress.mode == "none" else trial_total(estimate_total(input_path, fmt), options)
    id_key = key if io.pseudonymize_ids else None
    summary = run_reported(
        facts,
        lambda on_batch: count_path(
            deidentifier, input_path, input_format=fmt, options=options,
            on_error=io.on_error, on_batch=on_batch, unique_ids=True, id_key=id_key,  # type: ignore[arg-type]
        ),
        progress,
        total,
        label="detecting (dry run)",
    )  # fmt: skip
    report(summary, quiet, "dry run: would de-identify")
    print_written_report(facts, summary, quiet)


def print_written_report(facts: RunFacts, summary: RunSummary, quiet: bool) -> None:
    """The lines the console summary adds for the report: documents with no replacement, the file."""
    if quiet:
        return
    if summary.empty_ids:
        shown = ", ".join(summary.empty_ids[:_SHOWN]) + (", ..." if len(summary.empty_ids) > _SHOWN else "")
        err.print(f"{len(summary.empty_ids)} document(s) with no replacement: {escape(shown)}", highlight=False)
    if facts.report is not None:
        err.print(f"report: {escape(str(facts.report))}", highlight=False)


def print_report(data: dict[str, Any], console: Console) -> None:
    """A run report for people: one block per run (`radeid report FILE`)."""
    runs = data["runs"]
    for n, run in enumerate(runs, 1):
        if len(runs) > 1:
            console.print(f"[bold]run {n} of {len(runs)}[/]")
        _print_run(run, console)


def _print_run(run: dict[str, Any], console: Console) -> None:
    dry = " (dry run)" if run["dry_run"] else ""
    resumed = " (resumed)" if run["resumed"] else ""
    model = run["model"]
    key = run["key"]
    inp = run["input"]
    records = "?" if inp["records"] is None else f"{inp['records']:,}" + ("" if inp["records_exact"] else " (estimate)")
    lines = [
        f"status:    {run['status']}{dry}{resumed}",
        f"radeid:    {run['radeid_version']}",
        f"started:   {run['started_at']}   finished: {run['finished_at']}   ({run['duration_seconds']:.1f} s)",
        f"config:    sha256 {run['config']['sha256']}"
        + (f" ({run['config']['file']})" if run["config"]["file"] else ""),
        f"model:     {model['name']} sha256 {model['sha256'] or '-'}" if model else "model:     none (rules and lists)",
        f"key:       {key['fingerprint']}" if key else "key:       none",
        f"input:     {inp['path']} ({inp['format'] or 'guessed'}, {records} records, sha256 {inp['sha256']})",
    ]
    if run["selection"]:
        sel = run["selection"]
        lines.append(f"selection: first {sel['limit']}" if sel["limit"] else f"selection: sample of {sel['sample']}, "
                     f"seed {sel['seed']}")  # fmt: skip
    lines += [f"{name + ':':<10} {run[name]}" for name in ("output", "audit", "vault") if run[name]]
    lines.append(f"documents: {run['documents']:,}, replacements: {run['replacements']:,}")
    for line in lines:
        console.print(escape(line), highlight=False)
    _print_counts(run, console)


def _print_counts(run: dict[str, Any], console: Console) -> None:
    if run["replacements_by_category"]:
        table = Table(show_edge=False)
        table.add_column("category")
        table.add_column("replacements", justify="right")
        for category, count in sorted(run["replacements_by_category"].items(), key=lambda kv: -kv[1]):
            table.add_row(escape(category), f"{count:,}")
        console.print(table)
    ids = run["zero_replacement_ids"]
    if run["zero_replacement_count"]:
        shown = ", ".join(ids[:_SHOWN]) + (", ..." if run["zero_replacement_count"] > _SHOWN else "")
        console.print(
            f"no replacement: {run['zero_replacement_count']:,} document(s): {escape(shown)}", highlight=False
        )
    for issue in run["skipped"]:
        where = issue["source"] + (f":{issue['line']}" if issue["line"] else "")
        console.print(
            f"skipped: {escape(where)} id {escape(str(issue['id']))} ({escape(issue['code'])})", highlight=False
        )
    console.print("")
