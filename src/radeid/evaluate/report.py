"""Reports: a rich table in the terminal, Markdown, JSON, and a PNG chart of per-category scores.

Every renderer reads the same `Row`s, so the terminal, the Markdown file and the chart can never
disagree. Nothing here sees document text except error analysis made with `show_text=True`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from radeid.evaluate.bootstrap import BootstrapResult, Interval
from radeid.evaluate.compare import Comparison
from radeid.evaluate.errors_analysis import ERROR_KINDS, ErrorAnalysis
from radeid.evaluate.metrics import LEVEL_METRICS, LEVELS, MACRO, MICRO, PHI, EvaluationResult
from radeid.evaluate.resynth import ResynthesisResult

__all__ = [
    "LEVEL_TITLES",
    "Row",
    "clean_json",
    "comparison_markdown",
    "errors_markdown",
    "evaluation_json",
    "evaluation_markdown",
    "evaluation_rows",
    "metrics_markdown",
    "print_comparison",
    "print_errors",
    "print_evaluation",
    "print_resynthesis",
    "resynthesis_markdown",
    "resynthesis_rows",
    "summary_markdown",
    "write_chart",
]

LEVEL_TITLES: dict[str, str] = {
    "token": "Token level (units: tokens)",
    "exact": "Span level, exact match (units: spans)",
    "overlap": "Span level, overlap match (units: spans)",
    "core": "Span level, at least one token of the gold span found (core-of-span recall)",
}
_KEY_NAMES = {PHI: "PHI (binary)", MICRO: "micro (categories)", MACRO: "macro (categories)"}


@dataclass(frozen=True)
class Row:
    """One line of a table: a key's metrics, optional intervals, and the unit counts behind them."""

    key: str
    gold: float
    predicted: float
    values: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return _KEY_NAMES.get(self.key, self.key)


def _bounds(interval: Interval | None) -> tuple[float, float] | None:
    if interval is None or math.isnan(interval.low) or math.isnan(interval.high):
        return None
    return interval.low, interval.high


def evaluation_rows(result: EvaluationResult, boot: BootstrapResult | None = None) -> dict[str, list[Row]]:
    """Rows per level: PHI, each category present, micro, macro (intervals when bootstrapped)."""
    out: dict[str, list[Row]] = {}
    for level in LEVELS:
        rows = []
        for key, scores in result.scores(level).items():
            metrics = LEVEL_METRICS[level]
            intervals = {}
            if boot is not None:
                for m in metrics:
                    if (b := _bounds(boot.get(level, key, m))) is not None:
                        intervals[m] = b
            rows.append(Row(key, scores.gold, scores.predicted, {m: scores.get(m) for m in metrics}, intervals))
        out[level] = rows
    return out


def resynthesis_rows(res: ResynthesisResult) -> dict[str, list[Row]]:
    """Rows per level with the mean over rounds and the 2.5-97.5% range of the rounds."""
    out: dict[str, list[Row]] = {}
    for level in LEVELS:
        keys: list[str] = []
        for lvl, key, _ in res.intervals:
            if lvl == level and key not in keys:
                keys.append(key)
        ordered = [PHI, *[k for k in keys if k not in (PHI, MICRO, MACRO)], MICRO, MACRO]
        rows = []
        for key in ordered:
            if key not in keys:
                continue
            metrics = LEVEL_METRICS[level]
            values = {m: iv.point for m in metrics if (iv := res.get(level, key, m)) is not None}
            intervals = {m: b for m in metrics if (b := _bounds(res.get(level, key, m))) is not None}
            gold, pred = res.mean_counts(level, key)
            rows.append(Row(key, gold, pred, values, intervals))
        out[level] = rows
    return out


def _cell(row: Row, metric: str, digits: int = 3) -> str:
    value = row.values.get(metric)
    if value is None:
        return ""
    if (metric == "precision" and row.predicted == 0) or (metric == "recall" and row.gold == 0):
        return "n/a"  # scored 0 (see metrics), but there was nothing to divide
    text = f"{value:.{digits}f}"
    if metric in row.intervals:
        low, high = row.intervals[metric]
        text += f" ({low:.{digits}f}–{high:.{digits}f})"
    return text


def _count(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


# ----------------------------------------------------------------------------------- Markdown


def metrics_markdown(rows_by_level: Mapping[str, Sequence[Row]], levels: Sequence[str] = LEVELS) -> str:
    """One Markdown table per level."""
    parts: list[str] = []
    for level in levels:
        rows = rows_by_level.get(level, [])
        if not rows:
            continue
        metrics = LEVEL_METRICS[level]
        header = ["category", "gold", "found" if level == "core" else "predicted", *metrics]
        lines = [f"**{LEVEL_TITLES[level]}**", "", "| " + " | ".join(header) + " |"]
        lines.append("|" + "|".join(["---", "---:", "---:", *(["---:"] * len(metrics))]) + "|")
        for row in rows:
            cells = [row.name, _count(row.gold), _count(row.predicted), *(_cell(row, m) for m in metrics)]
            lines.append("| " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def summary_markdown(result: EvaluationResult, boot: BootstrapResult | None = None) -> str:
    """One compact table for a README: token P/R/F1, span F1 (exact, overlap) and core-of-span recall."""
    rows = evaluation_rows(result, boot)
    by_key = {level: {r.key: r for r in rows[level]} for level in LEVELS}
    header = "| category | gold tokens | token precision | token recall | token F1 | span F1 exact | span F1 overlap | "
    header += "gold spans | span recall (≥1 token) |"
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows["token"]:
        exact, overlap, core = (by_key[lvl].get(row.key) for lvl in ("exact", "overlap", "core"))
        cells = [
            row.name,
            _count(row.gold),
            _cell(row, "precision"),
            _cell(row, "recall"),
            _cell(row, "f1"),
            f"{exact.values['f1']:.3f}" if exact else "",
            f"{overlap.values['f1']:.3f}" if overlap else "",
            _count(core.gold) if core else "",
            _cell(core, "recall") if core else "",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _summary_lines(result: EvaluationResult, boot: BootstrapResult | None) -> list[str]:
    n_tokens = sum(d.tokens for d in result.documents)
    ignored = sum(d.ignored_tokens for d in result.documents)
    lines = [
        f"- documents: {len(result.documents):,}; scored tokens: {n_tokens:,} (tokenizer: {result.tokenizer}); "
        f"tokens under non-PHI gold labels, not scored: {ignored:,}",
    ]
    if boot is not None:
        lines.append(
            f"- in brackets: {boot.confidence:.0%} bootstrap percentile intervals over documents "
            f"({boot.n_resamples:,} resamples, seed {boot.seed})"
        )
    lines.append(
        "- n/a: nothing predicted (precision) or nothing to find (recall); such a category counts as 0 in macro"
    )
    return lines


def errors_markdown(errors: ErrorAnalysis, top: int = 5) -> str:
    """Totals per kind and category, then the most frequent strings (or shapes) of each."""
    grouping = "string" if errors.show_text else "shape (text hidden; --show-text to see strings)"
    lines = ["**Errors** (grouped by " + grouping + ")", ""]
    lines.append("| category | " + " | ".join(ERROR_KINDS) + " |")
    lines.append("|---|" + "---:|" * len(ERROR_KINDS))
    for category in errors.categories():
        cells = [str(errors.totals.get((k, category), 0)) for k in ERROR_KINDS]
        lines.append(f"| {category} | " + " | ".join(cells) + " |")
    for (kind, category), entries in sorted(
        errors.entries.items(), key=lambda kv: (ERROR_KINDS.index(kv[0][0]), kv[0][1])
    ):
        lines.append("")
        lines.append(f"*{kind} {category}*")
        lines.append("")
        for entry in entries[:top]:
            text = entry.string.replace("|", "\\|").replace("`", "'")
            where = ", ".join(f"{x.doc_id}@{x.start}" for x in entry.examples)
            lines.append(f"- `{text}` ×{entry.count} ({where})")
            if errors.show_text:
                for x in entry.examples:
                    other = f" [predicted {x.other}]" if x.other else ""
                    lines.append(f"  - …{x.left}**{x.text}**{x.right}…{other}".replace("`", "'"))
    return "\n".join(lines) + "\n"


def evaluation_markdown(
    result: EvaluationResult,
    boot: BootstrapResult | None = None,
    errors: ErrorAnalysis | None = None,
    resynthesis: ResynthesisResult | None = None,
    title: str = "radeid evaluation",
) -> str:
    """The whole report: what was scored, one table per level, the resynthesis and the errors."""
    parts = [f"# {title}", "", *_summary_lines(result, boot), ""]
    for warning in result.warnings:
        parts.append(f"- warning: {warning}")
    parts.append("## Summary\n")
    parts.append(summary_markdown(result, boot))
    parts.append("## By level\n")
    parts.append(metrics_markdown(evaluation_rows(result, boot)))
    if resynthesis is not None:
        parts.append(resynthesis_markdown(resynthesis))
    if errors is not None:
        parts.append(errors_markdown(errors))
    return "\n".join(parts)


def resynthesis_markdown(res: ResynthesisResult) -> str:
    keys = "from a key file" if res.keyed_from_file else (f"seed {res.seed}" if res.seed is not None else "random")
    head = (
        f"## Surrogate stability: {len(res.rounds)} rounds (keys {keys})\n\n"
        "Gold PHI replaced by new surrogates in every round; mean over rounds, in brackets the "
        "2.5–97.5% range of the rounds.\n\n"
    )
    return head + metrics_markdown(resynthesis_rows(res))


def comparison_markdown(cmp: Comparison) -> str:
    a, b = cmp.names
    lines = [
        f"# {b} vs {a}: paired Wilcoxon signed-rank tests",
        "",
        f"- per-document {cmp.metric} at the {cmp.level} level; difference = {b} − {a}; "
        f"{cmp.alternative}; Bonferroni over {cmp.family_size} tests; α = {cmp.alpha}",
        "",
        f"| key | documents | mean {a} | mean {b} | median diff | {a} better | {b} better | W | p | p (Bonferroni) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in cmp.tests:
        star = " *" if t.significant(cmp.alpha) else ""
        lines.append(
            f"| {_KEY_NAMES.get(t.key, t.key)} | {t.documents} | {t.mean_a:.3f} | {t.mean_b:.3f} | "
            f"{t.median_difference:+.3f} | {t.wins_a} | {t.wins_b} | {t.statistic:g} | {t.p_value:.3g} | "
            f"{t.p_adjusted:.3g}{star} |"
        )
    lines.append("")
    lines.append("`*`: significant after correction.")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------- terminal


def _rich_table(title: str, level: str, rows: Sequence[Row]) -> Table:
    table = Table(title=title, show_edge=False, title_justify="left")
    table.add_column("category")
    table.add_column("gold", justify="right")
    table.add_column("found" if level == "core" else "pred", justify="right")
    for m in LEVEL_METRICS[level]:
        table.add_column(m, justify="right")
    for row in rows:
        style = "bold" if row.key == PHI else ("dim" if row.key in (MICRO, MACRO) else None)
        cells = [row.name, _count(row.gold), _count(row.predicted), *(_cell(row, m) for m in LEVEL_METRICS[level])]
        table.add_row(*cells, style=style)
    return table


def print_evaluation(
    console: Console,
    result: EvaluationResult,
    boot: BootstrapResult | None = None,
    levels: Sequence[str] = LEVELS,
) -> None:
    for line in _summary_lines(result, boot):
        console.print(line[2:], highlight=False, markup=False)
    rows = evaluation_rows(result, boot)
    for level in levels:
        console.print()
        console.print(_rich_table(LEVEL_TITLES[level], level, rows[level]))


def print_resynthesis(console: Console, res: ResynthesisResult, levels: Sequence[str] = LEVELS) -> None:
    console.print()
    console.print(
        f"[bold]Surrogate stability[/]: {len(res.rounds)} rounds; mean over rounds (2.5–97.5% range)",
        highlight=False,
    )
    rows = resynthesis_rows(res)
    for level in levels:
        console.print()
        console.print(_rich_table(LEVEL_TITLES[level], level, rows[level]))


def print_errors(console: Console, errors: ErrorAnalysis, top: int = 5) -> None:
    console.print()
    grouping = "string" if errors.show_text else "shape; text hidden, --show-text to see strings"
    table = Table(title=f"Errors (grouped by {grouping})", show_edge=False, title_justify="left")
    table.add_column("kind")
    table.add_column("category")
    table.add_column("total", justify="right")
    table.add_column("most frequent")
    for (kind, category), entries in sorted(
        errors.entries.items(), key=lambda kv: (ERROR_KINDS.index(kv[0][0]), kv[0][1])
    ):
        frequent = "; ".join(f"{e.string!r} ×{e.count}" for e in entries[:top])
        table.add_row(kind, category, str(errors.totals.get((kind, category), 0)), escape(frequent))
    console.print(table, highlight=False)
    if errors.show_text:
        for (kind, category), entries in errors.entries.items():
            for entry in entries[:top]:
                for x in entry.examples[:1]:
                    console.print(
                        f"[dim]{kind} {category} {escape(x.doc_id)}@{x.start}:[/] "
                        f"…{escape(x.left or '')}[reverse]{escape(x.text or '')}[/]{escape(x.right or '')}…",
                        highlight=False,
                        markup=True,
                    )


def print_comparison(console: Console, cmp: Comparison) -> None:
    a, b = cmp.names
    table = Table(
        title=f"{b} vs {a}: Wilcoxon signed-rank on per-document {cmp.metric} ({cmp.level} level), "
        f"Bonferroni over {cmp.family_size}",
        show_edge=False,
        title_justify="left",
    )
    for name, justify in [
        ("key", "left"),
        ("docs", "right"),
        (f"mean {a}", "right"),
        (f"mean {b}", "right"),
        ("median diff", "right"),
        (f"{a} better", "right"),
        (f"{b} better", "right"),
        ("p", "right"),
        ("p adj.", "right"),
    ]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for t in cmp.tests:
        table.add_row(
            _KEY_NAMES.get(t.key, t.key),
            str(t.documents),
            f"{t.mean_a:.3f}",
            f"{t.mean_b:.3f}",
            f"{t.median_difference:+.3f}",
            str(t.wins_a),
            str(t.wins_b),
            f"{t.p_value:.3g}",
            f"{t.p_adjusted:.3g}",
            style="bold" if t.significant(cmp.alpha) else None,
        )
    console.print(table)


# ----------------------------------------------------------------------------------- JSON


def clean_json(value: Any) -> Any:
    """NaN is not JSON: write null instead."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v) for v in value]
    return value


def evaluation_json(
    result: EvaluationResult,
    boot: BootstrapResult | None = None,
    errors: ErrorAnalysis | None = None,
    resynthesis: ResynthesisResult | None = None,
    *,
    per_document: bool = True,
) -> dict[str, Any]:
    """Everything in one JSON-ready dict (no text unless the error analysis was made with it)."""
    data: dict[str, Any] = {"evaluation": result.to_dict()}
    if boot is not None:
        data["bootstrap"] = boot.to_dict()
    if resynthesis is not None:
        data["resynthesis"] = resynthesis.to_dict()
    if errors is not None:
        data["errors"] = errors.to_dict()
    if per_document:
        data["documents"] = result.documents_to_dict()
    cleaned: dict[str, Any] = clean_json(data)
    return cleaned


# ----------------------------------------------------------------------------------- chart


def write_chart(path: str | Path, rows: Sequence[Row], title: str = "radeid: token precision and recall") -> None:
    """Horizontal bars of precision and recall per row, with the intervals as error bars (PNG).

    Uses the Agg canvas directly, never pyplot, so it changes no global matplotlib state.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    shown = [r for r in rows if r.key != MICRO]
    n = len(shown)
    fig = Figure(figsize=(7.5, 1.2 + 0.45 * n))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    height = 0.38
    for offset, metric, color in [(-height / 2, "precision", "#4C72B0"), (height / 2, "recall", "#DD8452")]:
        ys = [i + offset for i in range(n)]
        xs = [r.values.get(metric, float("nan")) for r in shown]
        err_low = [
            max(0.0, x - r.intervals[metric][0]) if metric in r.intervals else 0.0
            for x, r in zip(xs, shown, strict=True)
        ]
        err_high = [
            max(0.0, r.intervals[metric][1] - x) if metric in r.intervals else 0.0
            for x, r in zip(xs, shown, strict=True)
        ]
        ax.barh(ys, xs, height=height, color=color, label=metric, xerr=[err_low, err_high], capsize=2, ecolor="#333")
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{r.name} (n={_count(r.gold)})" for r in shown])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("score (bars: 95% interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(str(path), dpi=120)
