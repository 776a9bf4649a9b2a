"""`radeid evaluate` and `radeid compare`, as functions the main CLI registers with `register(app)`.

Exit codes follow the main CLI: 0 ok, 1 bad input (unreadable records, predictions for unknown
documents, offsets past the text), 2 usage errors (missing paths, unknown formats or options).
Document text never reaches the terminal or a report unless `--show-text` is given.

Kept as one module (about 510 lines): both commands share loading the gold, building the pipeline
and printing the tables; the seam, if it grows, is a `compare` module importing those helpers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail
from radeid.config.config import ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.core.tokens import get_tokenizer
from radeid.evaluate.errors_analysis import ErrorAnalysis, analyse_errors
from radeid.evaluate.loading import GoldSet, load_gold, load_predictions, strip_gold
from radeid.evaluate.metrics import EvaluationInputError, EvaluationResult, evaluate_documents
from radeid.io.errors import RadeidIOError
from radeid.io.formats import InputFormat

if TYPE_CHECKING:
    from radeid.evaluate.bootstrap import BootstrapResult
    from radeid.evaluate.compare import Comparison
    from radeid.evaluate.resynth import ResynthesisResult

# Only the light modules are imported here: `register` runs whenever the main CLI starts, and the
# statistics and plotting stack (numpy, scipy, matplotlib: the `radeid[eval]` extra) may be absent.

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "compare", "evaluate", "register"]

from radeid.cli.evaluate_options import (  # noqa: E402
    Alternative,
    CategoriesOpt,
    FormatOpt,
    IdColOpt,
    JsonOpt,
    LabelMapOpt,
    Level,
    MarkdownOpt,
    PredFormatOpt,
    QuietOpt,
    TextColOpt,
    TokenizerOpt,
    _check_clashes,
    _check_path,
    _consoles,
    _parse_categories,
    _report_issues,
    _require,
)


def _read_gold(
    err: Console, gold_path: Path, fmt: InputFormat | None, label_map: str | None, id_col: str, text_col: str
) -> GoldSet:
    _check_path(gold_path, "gold", err)
    try:
        gold = load_gold(gold_path, fmt, label_map=label_map, id_col=id_col, text_col=text_col)
    except (RadeidIOError, EvaluationInputError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    _report_issues(err, gold.warnings, "warning")
    if gold.errors:
        _report_issues(err, gold.errors, "unreadable gold record")
        raise fail(f"{len(gold.errors)} gold record(s) could not be read; fix them first", EXIT_FAILED)
    if not gold.documents:
        raise fail(f"no gold documents in {gold_path}", EXIT_FAILED)
    return gold


def _read_predictions(
    err: Console, path: Path, fmt: InputFormat | None, label_map: str | None, id_col: str, text_col: str
) -> dict[str, list[Span]]:
    _check_path(path, "predictions", err)
    try:
        predicted, errors = load_predictions(path, fmt, label_map=label_map, id_col=id_col, text_col=text_col)
    except RadeidIOError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except EvaluationInputError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    if errors:
        _report_issues(err, errors, "unreadable prediction record")
        raise fail(f"{len(errors)} prediction record(s) in {path} could not be read", EXIT_FAILED)
    return predicted


def _load_pipeline(err: Console, config: Path | None, choice: dict[str, Any], no_model: bool = False) -> Any:
    """The pipeline of `config` with the command's choices (`model`, `lang`) over it."""
    from radeid.cli.options import job_overrides, load_job_config
    from radeid.pipeline.multilingual import build_deidentifier

    try:
        return build_deidentifier(load_job_config(config, job_overrides(**choice), no_model=no_model))
    except (ConfigError, FileNotFoundError, ValueError) as exc:
        raise fail(f"cannot build the pipeline: {exc}", EXIT_USAGE) from None


def _run_pipeline(deid: Any, documents: Sequence[Document]) -> dict[str, list[Span]]:
    docs = strip_gold(documents)
    size = deid.config.pipeline.batch_size
    predicted: dict[str, list[Span]] = {}
    for i in range(0, len(docs), size):
        batch = docs[i : i + size]
        for doc, spans in zip(batch, deid.detect(batch), strict=True):
            predicted[doc.id] = list(spans)
    return predicted


def _evaluate(
    err: Console,
    gold: GoldSet,
    predicted: dict[str, list[Span]],
    tokenizer: Any,
    categories: list[Category] | None,
    allow_unknown_ids: bool,
    tokenizer_name: str,
) -> EvaluationResult:
    try:
        result = evaluate_documents(
            gold.documents,
            predicted,
            ignored=gold.ignored,
            tokenizer=tokenizer,
            categories=categories,
            unknown_ids="warn" if allow_unknown_ids else "error",
            tokenizer_name=tokenizer_name,
        )
    except EvaluationInputError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    for warning in result.warnings:
        err.print(f"[yellow]warning[/]: {escape(warning)}", highlight=False, markup=True)
    return result


def evaluate(
    gold_path: Annotated[
        Path,
        typer.Argument(
            metavar="GOLD", help="Annotated documents: JSONL/CSV/Parquet with spans, i2b2 XML or BRAT (file/folder)."
        ),
    ],
    pred_path: Annotated[
        Path | None,
        typer.Argument(
            metavar="PRED",
            help="Predictions: `radeid detect` spans JSONL or any annotated format. Left out: run the "
            "pipeline (--config, else the defaults) on the gold texts.",
        ),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Pipeline config (TOML) used when PRED is left out.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Run the transformer detector with this model (when PRED is left out)."),
    ] = None,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Rules and word lists only (when PRED is left out).")
    ] = False,
    lang: Annotated[
        str | None, typer.Option("--lang", help="Language pack of the pipeline (when PRED is left out): en, es.")
    ] = None,
    gold_format: FormatOpt = None,
    pred_format: PredFormatOpt = None,
    label_map: LabelMapOpt = None,
    categories: CategoriesOpt = None,
    tokenizer: TokenizerOpt = "words",
    n_bootstrap: Annotated[
        int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples over documents for the intervals; 0: none.")
    ] = 1000,
    confidence: Annotated[float, typer.Option("--confidence", min=0.5, max=0.999, help="Interval coverage.")] = 0.95,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and of the resynthesis keys.")] = 0,
    resynthesize_rounds: Annotated[
        int,
        typer.Option(
            "--resynthesize",
            min=0,
            help="Stability experiment: replace the gold PHI with new surrogates N times, run the pipeline on "
            "each version, report mean and 2.5-97.5% range of the rounds. Needs the pipeline (no PRED).",
        ),
    ] = 0,
    key_file: Annotated[
        Path | None,
        typer.Option(
            "--key-file",
            help="Secret bytes from which the resynthesis round keys are derived (default: derived from --seed).",
        ),
    ] = None,
    show_text: Annotated[
        bool,
        typer.Option(
            "--show-text",
            help="Show missed/spurious strings with context. Off by default: real gold holds real PHI; "
            "without it errors are grouped by shape (Aa Aa, 9/9/9) and located by id and offset only.",
        ),
    ] = False,
    top: Annotated[int, typer.Option("--top", min=0, help="Most frequent errors shown per kind and category.")] = 5,
    markdown: MarkdownOpt = None,
    json_path: JsonOpt = None,
    chart: Annotated[
        Path | None, typer.Option("--chart", help="Write a PNG chart of per-category token precision/recall.")
    ] = None,
    id_col: IdColOpt = "id",
    text_col: TextColOpt = "text",
    allow_unknown_ids: Annotated[
        bool,
        typer.Option("--allow-unknown-ids", help="Only warn (not fail) on predictions for documents not in GOLD."),
    ] = False,
    quiet: QuietOpt = False,
) -> None:
    """Score predictions against gold annotations: token and span metrics per category with intervals.

    Token level: precision/recall/F1, binary (PHI vs not) and per category. Span level: exact match,
    overlap match, and core-of-span recall (a gold span counts as found when at least one of its
    tokens is predicted as PHI). Micro and macro averages; 95% bootstrap intervals over documents.

    Examples:

      radeid evaluate gold.jsonl spans.jsonl

      radeid evaluate gold.jsonl --config my.toml --markdown report.md --chart recall.png

      radeid evaluate i2b2/test/ preds/ --label-map i2b2_2014 --categories PATIENT,HCW,DATE

      radeid evaluate synth.jsonl --resynthesize 50 --bootstrap 0 --json stability.json
    """
    out, err = _consoles()
    cats, tokenize, master_key = _check_evaluate(
        err, gold_path, pred_path, config, key_file, markdown, json_path, chart, categories, tokenizer,
        resynthesize_rounds,
    )  # fmt: skip
    gold = _read_gold(err, gold_path, gold_format, label_map, id_col, text_col)
    started = time.perf_counter()
    predicted, deid = _predict(err, gold, pred_path, pred_format, label_map, id_col, text_col, config,
                               {"model": model, "lang": lang}, no_model, quiet)  # fmt: skip
    result = _evaluate(err, gold, predicted, tokenize, cats, allow_unknown_ids, tokenizer)
    boot = _bootstrap(result, n_bootstrap, seed, confidence)
    resynthesis = _resynthesis(err, gold, deid, resynthesize_rounds, seed, master_key, tokenize, cats, quiet)
    errors = analyse_errors(
        gold.documents, predicted, ignored=gold.ignored, show_text=show_text, top=max(top, 1), tokenizer=tokenize
    )
    if not quiet:
        _print_report(out, err, result, boot, resynthesis, errors, top, started)
    _write_report(result, boot, errors, resynthesis, markdown, json_path, chart)


def _check_evaluate(
    err: Console,
    gold_path: Path,
    pred_path: Path | None,
    config: Path | None,
    key_file: Path | None,
    markdown: Path | None,
    json_path: Path | None,
    chart: Path | None,
    categories: str | None,
    tokenizer: str,
    resynthesize_rounds: int,
) -> tuple[list[Category] | None, Any, bytes | None]:
    """evaluate's usage checks (paths, extras, options), in order; the categories, tokenizer and resynthesis key."""
    _check_clashes(
        err,
        {"GOLD": gold_path, "PRED": pred_path, "--config": config},
        {"--markdown": markdown, "--json": json_path, "--chart": chart},
        {"--key-file": key_file},
    )
    _require(err, "numpy", *(["matplotlib"] if chart is not None else []))
    cats, tokenize = _categories_and_tokenizer(categories, tokenizer)
    if resynthesize_rounds and pred_path is not None:
        raise fail("--resynthesize runs the pipeline itself: leave PRED out (use --config)", EXIT_USAGE)
    return cats, tokenize, _read_master_key(err, key_file)


def _categories_and_tokenizer(categories: str | None, tokenizer: str) -> tuple[list[Category] | None, Any]:
    """--categories parsed and --tokenizer looked up; an unknown tokenizer is a usage error."""
    cats = _parse_categories(categories)
    try:
        return cats, get_tokenizer(tokenizer)
    except ValueError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _read_master_key(err: Console, key_file: Path | None) -> bytes | None:
    """The resynthesis master key from --key-file (at least 16 bytes); None derives the keys from --seed."""
    if key_file is None:
        return None
    _check_path(key_file, "key file", err)
    from radeid.secure.keys import load_key

    try:
        found = load_key(key_file)  # read as every command reads a key (hex, base64:, passphrase, bytes)
    except ValueError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    assert found is not None  # a key file was given
    master_key = found[0]
    if len(master_key) < 16:
        raise fail("the key file must hold at least 16 bytes", EXIT_USAGE)
    return master_key


def _predict(
    err: Console,
    gold: GoldSet,
    pred_path: Path | None,
    pred_format: InputFormat | None,
    label_map: str | None,
    id_col: str,
    text_col: str,
    config: Path | None,
    choice: dict[str, Any],
    no_model: bool,
    quiet: bool,
) -> tuple[dict[str, list[Span]], Any]:
    """The predictions: read from PRED, else the pipeline run on the gold texts (also returned, for resynthesis)."""
    if pred_path is not None:
        return _read_predictions(err, pred_path, pred_format, label_map, id_col, text_col), None
    deid = _load_pipeline(err, config, choice, no_model)
    if not quiet:
        err.print(f"running the pipeline on {len(gold.documents):,} documents ...")
    return _run_pipeline(deid, gold.documents), deid


def _bootstrap(result: EvaluationResult, n_bootstrap: int, seed: int, confidence: float) -> BootstrapResult | None:
    """The bootstrap intervals over documents; None with --bootstrap 0."""
    from radeid.evaluate.bootstrap import bootstrap

    if not n_bootstrap:
        return None
    return bootstrap(result, n_resamples=n_bootstrap, seed=seed, confidence=confidence)


def _resynthesis(
    err: Console,
    gold: GoldSet,
    deid: Any,
    rounds: int,
    seed: int,
    master_key: bytes | None,
    tokenize: Any,
    cats: list[Category] | None,
    quiet: bool,
) -> ResynthesisResult | None:
    """The --resynthesize stability experiment (the pipeline re-run on new surrogates); None without it."""
    from radeid.evaluate.resynth import ResynthesisUnavailable, resynthesize

    if not rounds:
        return None
    assert deid is not None

    def progress(r: int, _: EvaluationResult) -> None:
        if not quiet:
            err.print(f"resynthesis round {r + 1}/{rounds} done", highlight=False)

    try:
        return resynthesize(
            gold.documents,
            deid.detect,
            rounds,
            seed=seed,
            master_key=master_key,
            ignored=gold.ignored,
            tokenizer=tokenize,
            categories=cats,
            batch_size=deid.config.pipeline.batch_size,
            on_round=progress,
        )
    except ResynthesisUnavailable as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _print_report(
    out: Console,
    err: Console,
    result: EvaluationResult,
    boot: BootstrapResult | None,
    resynthesis: ResynthesisResult | None,
    errors: ErrorAnalysis,
    top: int,
    started: float,
) -> None:
    """The metrics, the resynthesis rounds and the top errors on stdout; the time taken on stderr."""
    from radeid.evaluate.report import print_errors, print_evaluation, print_resynthesis

    print_evaluation(out, result, boot)
    if resynthesis is not None:
        print_resynthesis(out, resynthesis)
    if top:
        print_errors(out, errors, top)
    err.print(f"[dim]done in {time.perf_counter() - started:.1f} s[/]", markup=True)


def _write_report(
    result: EvaluationResult,
    boot: BootstrapResult | None,
    errors: ErrorAnalysis,
    resynthesis: ResynthesisResult | None,
    markdown: Path | None,
    json_path: Path | None,
    chart: Path | None,
) -> None:
    """--markdown, --json and --chart; a file that cannot be written is a usage error."""
    from radeid.evaluate.report import evaluation_json, evaluation_markdown, evaluation_rows, write_chart

    try:
        if markdown is not None:
            markdown.write_text(evaluation_markdown(result, boot, errors, resynthesis), encoding="utf-8")
        if json_path is not None:
            import json

            data = evaluation_json(result, boot, errors, resynthesis)
            json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if chart is not None:
            write_chart(chart, evaluation_rows(result, boot)["token"])
    except OSError as exc:
        raise fail(f"cannot write the report: {exc}", EXIT_USAGE) from None


def compare(
    gold_path: Annotated[Path, typer.Argument(metavar="GOLD", help="Annotated documents, as for evaluate.")],
    pred_a: Annotated[Path, typer.Argument(metavar="PRED_A", help="Predictions of the baseline system A.")],
    pred_b: Annotated[Path, typer.Argument(metavar="PRED_B", help="Predictions of system B, compared with A.")],
    gold_format: FormatOpt = None,
    pred_format: PredFormatOpt = None,
    label_map: LabelMapOpt = None,
    categories: CategoriesOpt = None,
    tokenizer: TokenizerOpt = "words",
    level: Annotated[
        Level, typer.Option("--level", help="Which per-document score is paired (F1; recall at core).")
    ] = Level.token,
    alternative: Annotated[
        Alternative, typer.Option("--alternative", help="two-sided, or greater/less: B better/worse than A.")
    ] = Alternative.two_sided,
    alpha: Annotated[float, typer.Option("--alpha", min=0.0, max=1.0, help="Significance level.")] = 0.05,
    names: Annotated[str | None, typer.Option("--names", help="Display names 'A,B' (default: the file names).")] = None,
    markdown: MarkdownOpt = None,
    json_path: JsonOpt = None,
    id_col: IdColOpt = "id",
    text_col: TextColOpt = "text",
    quiet: QuietOpt = False,
) -> None:
    """Compare two systems on the same gold: paired Wilcoxon signed-rank tests over per-document F1.

    One test for binary PHI and one per category (documents where the category has gold or a
    prediction from either system), Bonferroni-corrected over all of them.

    Examples:

      radeid compare gold.jsonl rules.spans.jsonl hybrid.spans.jsonl

      radeid compare gold.jsonl a.jsonl b.jsonl --level overlap --names rules,hybrid --markdown cmp.md
    """
    out, err = _consoles()
    _check_clashes(
        err, {"GOLD": gold_path, "PRED_A": pred_a, "PRED_B": pred_b}, {"--markdown": markdown, "--json": json_path}
    )
    _require(err, "numpy", "scipy")
    from radeid.evaluate.compare import compare as compare_results
    from radeid.evaluate.report import print_comparison

    cats, tokenize = _categories_and_tokenizer(categories, tokenizer)
    display = _display_names(names, pred_a, pred_b)
    gold = _read_gold(err, gold_path, gold_format, label_map, id_col, text_col)
    results = []
    for path in (pred_a, pred_b):
        predicted = _read_predictions(err, path, pred_format, label_map, id_col, text_col)
        results.append(_evaluate(err, gold, predicted, tokenize, cats, False, tokenizer))
    keys = None
    if cats is not None:
        keys = ["PHI", *(c.value for c in cats)]
    comparison = compare_results(
        results[0], results[1], level=level.value, keys=keys, alternative=alternative.value, alpha=alpha, names=display
    )
    if not quiet:
        print_comparison(out, comparison)
    _write_comparison(comparison, results, markdown, json_path)


def _display_names(names: str | None, pred_a: Path, pred_b: Path) -> tuple[str, str]:
    """The two systems' names: --names 'A,B', else the file names (the full paths when those are the same)."""
    if names:
        parts = [p.strip() for p in names.split(",")]
        if len(parts) != 2 or not all(parts):
            raise typer.BadParameter("give two names separated by a comma, e.g. rules,hybrid", param_hint="--names")
        return (parts[0], parts[1])
    return (pred_a.name, pred_b.name) if pred_a.name != pred_b.name else (str(pred_a), str(pred_b))


def _write_comparison(
    comparison: Comparison, results: list[EvaluationResult], markdown: Path | None, json_path: Path | None
) -> None:
    """--markdown and --json; a file that cannot be written is a usage error."""
    from radeid.evaluate.report import clean_json, comparison_markdown

    try:
        if markdown is not None:
            markdown.write_text(comparison_markdown(comparison), encoding="utf-8")
        if json_path is not None:
            import json

            data = clean_json(
                {"comparison": comparison.to_dict(), "a": results[0].to_dict(), "b": results[1].to_dict()}
            )
            json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write the report: {exc}", EXIT_USAGE) from None


def register(app: typer.Typer) -> None:
    """Add `evaluate` and `compare` to the main `radeid` app (called by `radeid.cli.main`)."""
    app.command("evaluate")(evaluate)
    app.command("compare")(compare)
