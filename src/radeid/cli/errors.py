"""Errors and exit codes of every `radeid` command, in one place.

Exit codes: 0 done, 1 the input or the data failed (a bad record with `--on-error fail`, a vault
that does not match), 2 a usage error (a bad option, path or configuration), 3 a wrong key.
Messages go to stderr, escaped (never read as markup), and never hold document text.
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True, soft_wrap=True)  # messages are never hard-wrapped (logs, tests at any width)


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_WRONG_KEY = 0, 1, 2, 3


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print an error (escaped: never parsed as markup) and return the exit to raise."""
    err.print(f"[red]error[/]: {escape(message)}", highlight=False)
    return typer.Exit(code)


def note(message: str) -> None:
    if message:
        err.print(escape(message), highlight=False)
