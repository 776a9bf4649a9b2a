"""`radeid train` without the rest of the CLI: `python3 -m radeid` imports the vault
(cryptography) and the synthetic generator (faker), which the GPU machine lacks; the train
command itself needs neither. Same options as `python3 -m radeid train`."""

import sys

import typer

from radeid.cli.train import register

app = typer.Typer(add_completion=False)
register(app)


@app.callback()
def _main() -> None:
    """radeid (train only)."""


if __name__ == "__main__":
    sys.exit(app())
