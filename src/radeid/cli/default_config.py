"""`radeid default-config`: print the bundled default configuration."""

from __future__ import annotations

import sys

import typer

from radeid.core.resources import bundled_data_path


def default_config() -> None:
    """Print the bundled default configuration: exactly what `radeid deid INPUT -o OUTPUT` runs with
    no other options (a starting point for --config files).

    Example:

      radeid default-config > my-config.toml
    """
    sys.stdout.write(bundled_data_path("config.toml").read_text(encoding="utf-8"))


def register(app: typer.Typer) -> None:
    """Add `radeid default-config` to the command line."""
    app.command("default-config")(default_config)
