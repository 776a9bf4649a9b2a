"""What `radeid evaluate` and `radeid compare` share: option types, consoles, errors and checks."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import EXIT_USAGE, fail
from radeid.core.categories import Category
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat


class Level(str, Enum):
    token = "token"
    exact = "exact"
    overlap = "overlap"
    core = "core"


class Alternative(str, Enum):
    two_sided = "two-sided"
    greater = "greater"
    less = "less"


def _consoles() -> tuple[Console, Console]:
    # Built per call so that test runners capturing stdout/stderr see the output; tables written to a
    # file or a pipe get the room they need whatever COLUMNS says (at 40, every number read "1.0…").
    out = Console(highlight=False)
    out = out if out.is_terminal else Console(highlight=False, width=max(out.width, 200))
    return out, Console(stderr=True, highlight=False, soft_wrap=True)


# Options shared by both commands.
FormatOpt = Annotated[
    InputFormat | None,
    typer.Option("--format", "-f", help="Gold format; guessed from the suffix or folder content when left out."),
]
PredFormatOpt = Annotated[
    InputFormat | None,
    typer.Option(
        "--pred-format",
        help="Prediction format (default: guessed; JSONL without text is read as `radeid detect` spans).",
    ),
]
LabelMapOpt = Annotated[
    str | None,
    typer.Option(
        "--label-map",
        "-l",
        help="Label map applied to gold and predictions: a bundled name (i2b2_2014, presidio, stanford, "
        "meddocan) or a TOML file. Labels mapped to IGNORE are not PHI and are not scored.",
    ),
]
CategoriesOpt = Annotated[
    str | None,
    typer.Option(
        "--categories",
        help="Comma-separated categories to report and average over (e.g. DATE,ID,PATIENT); binary PHI "
        "scores always cover every category.",
    ),
]
TokenizerOpt = Annotated[
    str,
    typer.Option(
        "--tokenizer",
        help="Units of the token-level scores: 'words' (word-character runs and single symbols), "
        "'whitespace', or 'hf:MODEL' (a Hugging Face tokenizer; needs transformers).",
    ),
]
IdColOpt = Annotated[str, typer.Option("--id-col", help="Field with the document id (row formats).")]
TextColOpt = Annotated[str, typer.Option("--text-col", help="Field with the text (row formats).")]
MarkdownOpt = Annotated[Path | None, typer.Option("--markdown", help="Write a Markdown report here.")]
JsonOpt = Annotated[
    Path | None, typer.Option("--json", help="Write a JSON report here (per-document counts included).")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print no tables, only warnings and errors.")]


def _require(err: Console, *modules: str) -> None:
    """Fail with an install hint (exit 2) when a module of the `radeid[eval]` extra is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise fail(f"this command needs {', '.join(missing)}: pip install 'radeid[eval]'", EXIT_USAGE)


def _parse_categories(value: str | None) -> list[Category] | None:
    if not value:
        return None
    try:
        return [Category.parse(c) for c in value.split(",") if c.strip()]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--categories") from None


def _check_clashes(
    err: Console,
    reads: dict[str, Path | None],
    writes: dict[str, Path | None],
    secrets: dict[str, Path | None] | None = None,
) -> None:
    """No report may replace an input (or another report): `radeid.io.paths.check_paths`, exit 2."""
    from radeid.io.paths import PathConflictError, check_paths

    try:
        check_paths(reads, writes, secrets=secrets)
    except PathConflictError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _check_path(path: Path, what: str, err: Console) -> None:
    if not path.exists():
        raise fail(f"{what} not found: {path}", EXIT_USAGE)


def _report_issues(err: Console, issues: Sequence[ReadIssue], label: str, limit: int = 10) -> None:
    for issue in issues[:limit]:
        err.print(f"[yellow]{label}[/]: {escape(issue.describe())}", highlight=False, markup=True)
    if len(issues) > limit:
        err.print(f"[yellow]... and {len(issues) - limit} more[/]", markup=True)
