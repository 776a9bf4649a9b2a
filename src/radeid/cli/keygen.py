"""`radeid keygen`: make a new secret key file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from radeid.cli.errors import EXIT_USAGE, err, fail
from radeid.cli.options import QuietOpt
from radeid.secure.keys import KEY_FILE_NAME, generate_key_file


def keygen(
    output: Annotated[
        Path, typer.Option("--output", "-o", help=f"Where to write the key (e.g. site.key, {KEY_FILE_NAME}).")
    ],
    quiet: QuietOpt = False,
) -> None:
    """Make a new random secret key (32 bytes, hex) in a file only you can read (mode 0600).

    The key seeds every surrogate (the same key gives the same fakes for the same patient) and
    opens the vault: keep it secret, keep it safe, never beside the output you share. An
    existing file is never replaced.

    Example:

      radeid keygen -o site.key
    """
    if output.exists() or output.is_symlink():
        raise fail(f"{output} already exists; a key is never replaced (choose another path)", EXIT_USAGE)
    try:
        generate_key_file(output)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror}", EXIT_USAGE) from None
    if not quiet:
        err.print(f"wrote a new key to {escape(str(output))} (mode 0600); use it with --key-file {escape(str(output))}",
                  highlight=False)  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add `radeid keygen` to the command line."""
    app.command()(keygen)
