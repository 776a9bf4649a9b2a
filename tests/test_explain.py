"""`radeid.evaluate.explain`, the pure part: lineage of a proposal through the decisions, verdicts, the JSON
object and the tables, on hand-made explanations (no resolver behaviour assumed) and on the
resolver with an injected detector (only steps whose behaviour is settled: score, protected
vitals, credentials)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from radeid.config.config import Config
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.evaluate.explain import (
    ExplainError,
    describe,
    explanation_json,
    input_format,
    lineage,
    pick_document,
    render,
    span_dict,
    verdicts,
)
from radeid.io.formats import InputFormat
from radeid.io.readers import ReadOptions
from radeid.pipeline.deidentifier import Deidentifier, Explanation
from radeid.resolve.trace import Decision

TEXT = "Temp 98.6 F. Seen by Reuben Castellanos, MD on Friday."
#         0    5    10   15   20   25   30   35   40   45   50


class FakeDetector:
    """Proposes fixed spans: the resolver's input, without any real detector's behaviour."""

    name = "fake"

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = list(spans)

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        return [list(self.spans) for _ in docs]


def _span(start: int, end: int, category: Category, source: str = "fake", score: float = 0.9) -> Span:
    return Span(start, end, category, score=score, source=source)


NAME = _span(21, 39, Category.HCW)  # "Reuben Castellanos"
MD = _span(41, 43, Category.LOCATION)  # "MD"
VITAL = _span(5, 9, Category.ID)  # "98.6" of "Temp 98.6"
WEAK = _span(47, 53, Category.DATE, score=0.1)  # "Friday", below min_score


@pytest.fixture(scope="module")
def explained() -> Explanation:
    config = Config.load(overrides={"pipeline": {"detectors": ["rules", "lexicon"]}, "resolver": {"min_score": 0.5}})
    deid = Deidentifier(config, detectors=[FakeDetector([NAME, MD, VITAL, WEAK])])
    return deid.explain(Document("d1", TEXT))


def test_offsets_of_the_test_text() -> None:
    assert [TEXT[s.start : s.end] for s in (NAME, MD, VITAL, WEAK)] == ["Reuben Castellanos", "MD", "98.6", "Friday"]


def test_the_resolver_with_an_injected_detector(explained: Explanation) -> None:
    found: dict[str, Any] = explanation_json(explained)
    assert found["id"] == "d1" and found["version"] == 1
    assert [(p["detector"], p["start"], p["end"], p["text"]) for p in found["proposals"]] == [
        ("fake", 21, 39, "Reuben Castellanos"), ("fake", 41, 43, "MD"), ("fake", 5, 9, "98.6"),
        ("fake", 47, 53, "Friday"),
    ]  # fmt: skip
    assert [(s["start"], s["end"], s["category"]) for s in found["spans"]] == [(21, 39, "HCW")]
    by_text = {v["text"]: v for v in found["verdicts"]}
    assert set(by_text) == {"MD", "98.6", "Friday"}
    assert by_text["Friday"]["checks"] == ["score"]
    assert by_text["Friday"]["verdict"] == "dropped for its score 0.10 (below resolver.min_score)"
    assert by_text["MD"]["checks"] == ["credential"]
    vital = by_text["98.6"]["checks"]
    assert len(vital) == 1 and vital[0].startswith("protected:")
    assert all(name.startswith("vitals/") for name in vital[0].removeprefix("protected:").split(","))
    assert by_text["98.6"]["verdict"].startswith("vetoed by protected content vitals/")
    decisions = found["decisions"]
    for verdict in found["verdicts"]:
        last = decisions[verdict["decisions"][-1]]
        before = last["before"]
        assert last["after"] == [] and (before["start"], before["end"]) == (verdict["start"], verdict["end"])
    json.dumps(found)  # JSON-ready


# ------------------------------------------------------------------ hand-made decisions


def _explanation(proposals: dict[str, list[Span]], decisions: list[Decision], spans: list[Span]) -> Explanation:
    return Explanation(Document("h", TEXT), proposals, tuple(decisions), tuple(spans))


def test_lineage_follows_pieces_and_merges() -> None:
    start = _span(21, 30, Category.HCW, "model")
    grown = _span(21, 39, Category.HCW, "model")
    other = _span(21, 39, Category.HCW, "rules/x")  # same offsets, another source: not in the lineage
    decisions = [
        Decision("extend", "extended", start, (grown,)),
        Decision("merge", "merged", other, (other,)),
        Decision("form", "dropped", grown, (), "common_word"),
    ]
    assert lineage(start, decisions) == [0, 2]
    assert lineage(other, decisions) == [1]


def test_verdict_names_each_step_on_the_way() -> None:
    span = _span(21, 39, Category.HCW, "model")
    pieces = (_span(21, 27, Category.HCW, "model"), _span(28, 39, Category.HCW, "model"))
    decisions = [
        Decision("edges", "split", span, pieces),
        Decision("form", "dropped", pieces[0], (), "common_word"),
        Decision("form", "dropped", pieces[1], (), "common_word"),
    ]
    (verdict,) = verdicts(_explanation({"model": [span]}, decisions, []))
    assert verdict.proposal == 0 and verdict.decisions == (0, 1, 2)
    assert verdict.checks == ("form:common_word",)
    assert verdict.text == "split at a field separator, then dropped by the form check common_word"


def test_a_proposal_whose_characters_survive_gets_no_verdict() -> None:
    span = _span(21, 39, Category.HCW, "model")
    piece = _span(28, 39, Category.HCW, "model")
    decisions = [Decision("protected", "trimmed", span, (piece,), "clinical_words/x")]
    assert verdicts(_explanation({"model": [span]}, decisions, [piece])) == []


def test_a_proposal_no_decision_names() -> None:
    (verdict,) = verdicts(_explanation({"model": [NAME]}, [], []))
    assert verdict.decisions == () and "no decision" in verdict.text


@pytest.mark.parametrize(
    ("decision", "words"),
    [
        (Decision("allow_list", "dropped", NAME, (), "reuben castellanos"), 'allow list (term "reuben castellanos")'),
        (Decision("protected", "dropped", VITAL, (), "vitals/a,vitals/b"), "protected content vitals/a, vitals/b"),
        (Decision("edges", "dropped", MD, ()), "dropped by edge cleaning"),
        (Decision("form", "relabelled", NAME, (NAME.with_(category=Category.PATIENT),), "x"), "relabelled by the form"),
        (Decision("propagate", "added", None, (NAME,)), "added by step propagate"),
        (Decision("complete", "extended", NAME, (NAME,), "surname"), "extended by step complete (surname)"),
    ],
)
def test_describe(decision: Decision, words: str) -> None:
    assert words in describe(decision, TEXT)


def test_spans_have_the_keys_of_the_decisions() -> None:
    decision = Decision("credential", "dropped", MD, ())
    assert span_dict(MD, TEXT) == decision.as_dict(TEXT)["before"]


# ------------------------------------------------------------------------------ tables


@pytest.mark.parametrize("width", [40, 80, 160])
def test_tables_fit_any_width(explained: Explanation, width: int) -> None:
    console = Console(width=width, record=True, file=io.StringIO(), highlight=False)
    render(explained, console)
    out = console.export_text()
    assert max(len(line.rstrip()) for line in out.splitlines()) <= width
    for title in ("Proposals (4)", "Resolver decisions", "Final spans (1)", "Not removed (3 of 4"):
        assert title in out
    assert "credential" in out and "41-43" in out


def test_a_span_text_is_never_markup() -> None:
    text = "[bold]Smith[/bold] here"
    span = _span(0, 18, Category.PATIENT)
    console = Console(width=100, record=True, file=io.StringIO())
    render(Explanation(Document("m", text), {"fake": [span]}, (), (span,)), console)
    assert "[bold]Smith[/bold]" in console.export_text()


# ---------------------------------------------------------------------------- the document


def test_input_format(tmp_path: Path) -> None:
    assert input_format(tmp_path / "a.jsonl", None) is InputFormat.JSONL
    assert input_format(tmp_path / "note", None) is InputFormat.TXT  # no known suffix: one plain text
    assert input_format(tmp_path / "a.jsonl", InputFormat.TXT) is InputFormat.TXT


def test_pick_document(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"id": "a", "text": "Alpha Secret"}\n{"id": "b", "text": oops}\n{"id": 7, "text": "Gamma"}\n',
        encoding="utf-8",
    )
    options = ReadOptions(warn_duplicates=False)
    assert pick_document(rows, InputFormat.JSONL, options, None).id == "a"
    assert pick_document(rows, InputFormat.JSONL, options, "7").text == "Gamma"
    with pytest.raises(ExplainError) as caught:
        pick_document(rows, InputFormat.JSONL, options, "zz")
    message = str(caught.value)
    assert "'zz'" in message and "rows.jsonl" in message and "line 2" in message
    assert "Alpha" not in message and "Secret" not in message and "Gamma" not in message
    whole = pick_document(rows, InputFormat.TXT, options, None)
    assert whole.id == "rows" and whole.text == rows.read_text(encoding="utf-8")
