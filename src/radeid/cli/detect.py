"""`radeid detect`: write the resolved spans of every document, changing nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from radeid.cli.errors import EXIT_USAGE, fail
from radeid.cli.jobs import check_input, check_job_paths, config_reads, make_parents, refuse_existing, report, run_job
from radeid.cli.options import (
    input_format,
    job_overrides,
    load_job_config,
    pop_run_flags,
    progress_settings,
    read_options,
    with_shared_options,
)
from radeid.cli.reporting import trial_total
from radeid.config.config import ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.readers import estimate_total
from radeid.pipeline.multilingual import build_deidentifier
from radeid.run.batch import OnError, RunSummary, count_path, detect_path


@with_shared_options
def detect(
    input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="A file or folder, as for deid.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Spans JSONL: one line per document, no text.")],
    **shared: Any,
) -> None:
    """Detect PHI without changing anything: write every resolved span (offsets, category, source, score).

    Example:

      radeid detect examples/ -o spans.jsonl

      radeid detect reports.jsonl -o spans.jsonl --model models/stanford-onnx --threshold 0.3

      radeid detect reports.jsonl -o spans.jsonl --limit 50 --dry-run
    """
    check_input(input_path)
    config, no_model, quiet, overwrite, progress_given = pop_run_flags(shared)
    dry_run = shared.pop("dry_run")
    try:
        cfg = load_job_config(config, job_overrides(**shared), no_model=no_model)
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    reads = {"the input": input_path, "--config": config, **config_reads(cfg)}
    check_job_paths(reads, {"--output": None if dry_run else output})
    if not dry_run:
        refuse_existing({"--output": output}, overwrite=overwrite)
    try:
        deidentifier = build_deidentifier(cfg)
        options = read_options(cfg)
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    fmt = input_format(cfg.io.format)
    on_error: OnError = cfg.io.on_error  # type: ignore[assignment]

    def job(on_batch: Callable[[int], None]) -> RunSummary:
        args = {"input_format": fmt, "options": options, "on_error": on_error, "on_batch": on_batch}
        if dry_run:
            return count_path(deidentifier, input_path, **args)  # type: ignore[arg-type]
        return detect_path(deidentifier, input_path, output, **args)  # type: ignore[arg-type]

    if not dry_run:
        make_parents(output)
    progress = progress_settings(cfg, quiet=quiet, given=progress_given)
    total = None if progress.mode == "none" else trial_total(estimate_total(input_path, fmt), options)  # progress only
    summary = run_job(job, progress, "detecting (dry run)" if dry_run else "detecting", total=total)
    report(summary, quiet, "dry run: detected" if dry_run else "detected")


def register(app: typer.Typer) -> None:
    """Add `radeid detect` to the command line."""
    app.command()(detect)
