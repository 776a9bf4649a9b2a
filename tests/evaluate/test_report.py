"""Reports: the same numbers in Markdown, JSON and the chart; no text."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from radeid import Document, Span
from radeid.evaluate.bootstrap import bootstrap
from radeid.evaluate.compare import compare
from radeid.evaluate.errors_analysis import analyse_errors
from radeid.evaluate.metrics import MACRO, MICRO, PHI, evaluate_documents
from radeid.evaluate.report import (
    comparison_markdown,
    evaluation_json,
    evaluation_markdown,
    evaluation_rows,
    metrics_markdown,
    print_comparison,
    print_errors,
    print_evaluation,
    write_chart,
)

TEXT = "Dr Smith saw John on 3/4/2019 ."
GOLD = Document("d1", TEXT, spans=(Span(3, 8, "HCW"), Span(13, 17, "PATIENT"), Span(21, 29, "DATE")))
PRED = {"d1": [Span(3, 8, "PATIENT"), Span(21, 25, "DATE"), Span(0, 2, "ID")]}


def result():
    return evaluate_documents([GOLD], PRED)


def test_markdown_rows_hold_the_hand_computed_values() -> None:
    md = metrics_markdown(evaluation_rows(result()))
    # token level binary: P 5/6, R 5/7, F1 10/13 (see test_metrics)
    assert "| PHI (binary) | 7 | 6 | 0.833 | 0.714 | 0.769 |" in md
    assert "| DATE | 5 | 4 | 1.000 | 0.800 | 0.889 |" in md
    # nothing predicted as HCW: precision is shown as n/a (scored 0)
    assert "| HCW | 1 | 0 | n/a | 0.000 | 0.000 |" in md
    # core level: recall only, "found" instead of "predicted"
    assert "| category | gold | found | recall |" in md
    assert "| PHI (binary) | 3 | 2 | 0.667 |" in md


def test_intervals_appear_in_brackets() -> None:
    r = evaluate_documents([GOLD, Document("d2", "x")], {**PRED, "d2": []})
    rows = evaluation_rows(r, bootstrap(r, n_resamples=30, seed=0))
    phi = rows["token"][0]
    assert phi.key == PHI and set(phi.intervals) == {"precision", "recall", "f1"}
    assert [row.key for row in rows["token"]][-2:] == [MICRO, MACRO]
    assert "(" in metrics_markdown(rows) and "–" in metrics_markdown(rows)


def test_full_markdown_and_json_have_no_text() -> None:
    r = result()
    boot = bootstrap(r, n_resamples=20, seed=0)
    errors = analyse_errors([GOLD], PRED)
    md = evaluation_markdown(r, boot, errors)
    data = evaluation_json(r, boot, errors)
    dumped = json.dumps(data, allow_nan=False)
    for secret in ("Smith", "John", "2019"):
        assert secret not in md and secret not in dumped
    assert data["evaluation"]["levels"]["token"][PHI]["f1"] == r.scores("token")[PHI].f1
    assert data["documents"][0]["counts"]["token/PHI"] == {"tp": 5, "fp": 1, "fn": 2, "tp_pred": 5}


def test_terminal_output(tmp_path: Path) -> None:
    console = Console(record=True, width=160)
    r = result()
    print_evaluation(console, r)
    print_errors(console, analyse_errors([GOLD], PRED))
    print_comparison(console, compare(r, r))
    text = console.export_text()
    assert "PHI (binary)" in text and "Token level" in text and "Wilcoxon" in text
    assert "Smith" not in text


def test_comparison_markdown() -> None:
    md = comparison_markdown(compare(result(), result(), names=("rules", "hybrid")))
    assert "hybrid vs rules" in md and "Bonferroni over 5 tests" in md


def test_chart_is_a_png(tmp_path: Path) -> None:
    path = tmp_path / "chart.png"
    r = result()
    write_chart(path, evaluation_rows(r, bootstrap(r, n_resamples=10, seed=0))["token"])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_brackets_in_text_are_not_rich_markup() -> None:
    doc = Document("[d]", "Seen [bold]Ann[/] here", spans=(Span(5, 18, "PATIENT"),))
    console = Console(record=True, width=200)
    print_errors(console, analyse_errors([doc], {}, show_text=True))
    text = console.export_text()
    assert "[bold]ann[/]" in text and "Seen [bold]Ann[/] here" in text
