"""The `radeid` command line: a thin layer over `Deidentifier` and the batch runner."""

from __future__ import annotations

from typing import Annotated

import typer

from radeid import __version__
from radeid.cli.default_config import register as register_default_config
from radeid.cli.deid import register as register_deid
from radeid.cli.detect import register as register_detect
from radeid.cli.ensemble import register as register_ensemble
from radeid.cli.evaluate import register as register_evaluate
from radeid.cli.explain import register as register_explain
from radeid.cli.help import words_in_help
from radeid.cli.keygen import register as register_keygen
from radeid.cli.model import register as register_model
from radeid.cli.reidentify import register as register_reidentify
from radeid.cli.report import register as register_report
from radeid.cli.review import register as register_review
from radeid.cli.serve import register as register_server
from radeid.cli.spark import register as register_spark
from radeid.cli.synth import register as register_synth
from radeid.cli.train import register as register_train

app = typer.Typer(
    name="radeid",
    help=(
        "De-identify radiology reports and clinical notes.\n\n"
        "radeid finds protected health information (names, dates, IDs, phones, places, vendors, ...) "
        "with rules, word lists and (optionally) a transformer model, then masks it or replaces it.\n\n"
        "Quick start:  radeid deid examples/ -o out/"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    # A traceback must never print local variables: they hold document text. Plain tracebacks
    # only (and the CLI maps every known failure to a message without one).
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"radeid {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """De-identify radiology reports and clinical notes."""


register_deid(app)
register_detect(app)
register_reidentify(app)
register_report(app)
register_keygen(app)
register_default_config(app)
register_ensemble(app)
register_evaluate(app)
register_explain(app)
register_model(app)
register_review(app)
register_server(app)
register_spark(app)
register_synth(app)
register_train(app)
words_in_help(app)  # value placeholders in help read as words (PATH, TEXT, N), for every command


if __name__ == "__main__":  # pragma: no cover
    app()
