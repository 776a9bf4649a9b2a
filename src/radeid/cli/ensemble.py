"""`radeid ensemble fit`: fit a learned combiner for `[detectors.ensemble] strategy = "learned"`.

Registered on the main CLI with `register(app)`; heavy modules (scikit-learn, the members) are
imported only when the command runs. Nothing here prints document text: only counts, labels,
file names and the gold fingerprint. Exit codes: 0 ok, 2 usage or input errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import fail
from radeid.cli.options import QuietOpt

if TYPE_CHECKING:
    from radeid.core.document import Document
    from radeid.detect.ensemble.combiner import Combiner

__all__ = ["ensemble_app", "fit", "register"]


ensemble_app = typer.Typer(
    name="ensemble",
    help="Ensembles of detectors: fit learned combiners on gold data.",
    no_args_is_help=True,
    add_completion=False,
)


@ensemble_app.command("fit")
def fit(
    gold: Annotated[
        list[Path],
        typer.Argument(metavar="GOLD", help="Annotated documents in any gold format `radeid evaluate` reads."),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="The combiner file to write (JSON).")],
    members: Annotated[
        str, typer.Option("--members", help="Comma-separated registered detectors, in the ensemble's order.")
    ] = "rules,lexicon,transformer",
    model: Annotated[str, typer.Option("--model", help="tree (decision tree), nb (Gaussian naive Bayes), boost.")] = (
        "tree"
    ),
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Config whose [detectors.<name>] sections build the members.")
    ] = None,
    fmt: Annotated[str | None, typer.Option("--format", help="Gold format (default: from the suffix).")] = None,
    label_map: Annotated[
        str | None, typer.Option("--label-map", help="Gold labels -> radeid categories (bundled name or TOML).")
    ] = None,
    id_col: Annotated[str, typer.Option("--id-col", help="Id field of row formats.")] = "id",
    text_col: Annotated[str, typer.Option("--text-col", help="Text field of row formats.")] = "text",
    quiet: QuietOpt = False,
) -> None:
    """Fit a combiner over the members' token decisions on GOLD and write it as JSON (no pickle).

    The file records the members, the features, the model kind, the scikit-learn version and a
    SHA-256 of the gold files; name it as `combiner` in the detectors.ensemble section of a config,
    with `strategy = "learned"` and the same members.

    Example:

      radeid ensemble fit gold.jsonl -o combiner.json --members rules,lexicon,transformer --model tree
    """
    err = Console(stderr=True, highlight=False, soft_wrap=True, quiet=quiet)
    names = _check_options(members, model, gold)
    _check_paths(gold, output, config, label_map)
    combiner, documents = _fit(gold, config, names, model, fmt, label_map, id_col, text_col)
    try:
        combiner.save(output)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror}") from None
    units = sum(sum(c) for c in combiner.counts)
    err.print(
        f"fitted a {model} combiner of {', '.join(names)} on {len(documents)} documents ({units} tokens, "
        f"{len(combiner.rows)} distinct feature rows, labels {', '.join(combiner.labels)}); wrote {escape(str(output))}"
    )


def _check_options(members: str, model: str, gold: list[Path]) -> list[str]:
    """--members (distinct names), --model and the gold paths checked before any detector is built; the names."""
    from radeid.detect.ensemble.combiner import MODELS

    names = [m.strip() for m in members.split(",") if m.strip()]
    if not names or len(set(names)) != len(names):
        raise fail("--members must name one or more distinct detectors, e.g. rules,lexicon,transformer")
    if model not in MODELS:
        raise fail(f"--model must be one of {', '.join(MODELS)}, not {model!r}")
    for path in gold:
        if not path.exists():
            raise fail(f"gold not found: {path}")
    return names


def _check_paths(gold: list[Path], output: Path, config: Path | None, label_map: str | None) -> None:
    """The combiner may replace no gold file, config or label map (`radeid.io.paths`, exit 2)."""
    from radeid.cli.jobs import check_job_paths

    reads: dict[str, Path | None] = {f"GOLD #{n}" if len(gold) > 1 else "GOLD": p for n, p in enumerate(gold, 1)}
    label_file = Path(label_map) if label_map is not None and Path(label_map).exists() else None
    check_job_paths({**reads, "--config": config, "--label-map": label_file}, {"--output": output})


def _fit(
    gold: list[Path],
    config: Path | None,
    names: list[str],
    model: str,
    fmt: str | None,
    label_map: str | None,
    id_col: str,
    text_col: str,
) -> tuple[Combiner, list[Document]]:
    """Load the config and every gold file, then fit the combiner; any of their errors is one line (exit 2)."""
    from radeid.config.config import Config, ConfigError
    from radeid.detect.ensemble.combiner import gold_fingerprint
    from radeid.detect.ensemble.training import fit_combiner
    from radeid.evaluate.metrics import EvaluationInputError
    from radeid.io.errors import RadeidIOError

    try:
        cfg = Config.load(config)
        documents, ignored = _read_gold(gold, fmt, label_map, id_col, text_col)
        combiner = fit_combiner(
            cfg,
            documents,
            names,
            model,
            ignored=ignored,
            training={"gold_sha256": gold_fingerprint(gold), "gold_files": [p.name for p in gold]},
        )
    except (ConfigError, RadeidIOError, EvaluationInputError, ValueError) as exc:
        raise fail(str(exc)) from None
    return combiner, documents


def _read_gold(
    gold: list[Path], fmt: str | None, label_map: str | None, id_col: str, text_col: str
) -> tuple[list[Document], dict[str, list[tuple[int, int]]]]:
    """Every gold file's documents and ignored ranges; an unreadable record or no documents at all stops the fit."""
    from radeid.evaluate.loading import load_gold

    documents = []
    ignored: dict[str, list[tuple[int, int]]] = {}
    for path in gold:
        found = load_gold(path, fmt, label_map=label_map, id_col=id_col, text_col=text_col)
        if found.errors:
            raise fail(f"{len(found.errors)} record(s) of {path} could not be read; fix them first")
        documents.extend(found.documents)
        ignored.update(found.ignored)
    if not documents:
        raise fail("no gold documents in " + ", ".join(str(p) for p in gold))
    return documents, ignored


def register(app: typer.Typer) -> None:
    """Add the `ensemble` command group to the main `radeid` app."""
    app.add_typer(ensemble_app, name="ensemble")
