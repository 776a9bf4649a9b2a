"""`radeid report`: print a run report (`OUTPUT.report.json`) for people."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from radeid.cli.errors import EXIT_USAGE, fail
from radeid.cli.reporting import print_report
from radeid.run.report import ReportError, load_report


def report(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A run report (OUTPUT.report.json of radeid deid).")],
) -> None:
    """Print a run report: version, config, model, key fingerprint, input, outputs, counts per category,
    documents with no replacement and skipped records, for every run it holds. Exit 2 when FILE is not
    a run report.

    Example:

      radeid report deid.jsonl.report.json
    """
    try:
        data = load_report(file)
    except ReportError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    print_report(data, Console(soft_wrap=True))


def register(app: typer.Typer) -> None:
    """Add `radeid report` to the command line."""
    app.command()(report)
