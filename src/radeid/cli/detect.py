"""`radeid detect`: write the resolved spans of every document, changing nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from radeid.cli.errors import EXIT_USAGE, fail
from radeid.cli.jobs import check_input, check_job_paths, config_reads, report, run_job
from radeid.cli.options import input_format, job_overrides, load_job_config, read_options, with_shared_options
from radeid.config.config import ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.readers import estimate_total
from radeid.pipeline.multilingual import build_deidentifier
from radeid.run.batch import detect_path


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
    """
    check_input(input_path)
    config, no_model, quiet = shared.pop("config"), shared.pop("no_model"), shared.pop("quiet")
    try:
        cfg = load_job_config(config, job_overrides(**shared), no_model=no_model)
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    reads = {"the input": input_path, "--config": config, **config_reads(cfg)}
    check_job_paths(reads, {"--output": output})
    try:
        deidentifier = build_deidentifier(cfg)
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    fmt = input_format(cfg.io.format)
    summary = run_job(
        lambda on_batch: detect_path(
            deidentifier,
            input_path,
            output,
            input_format=fmt,
            options=read_options(cfg),
            on_error=cfg.io.on_error,  # type: ignore[arg-type]
            on_batch=on_batch,
        ),
        quiet,
        "detecting",
        total=None if quiet else estimate_total(input_path, fmt),  # the progress bar only
    )
    report(summary, quiet, "detected")


def register(app: typer.Typer) -> None:
    """Add `radeid detect` to the command line."""
    app.command()(detect)
