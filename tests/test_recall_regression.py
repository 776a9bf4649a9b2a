"""Recall regression set (issue 25): the default pipeline must find every hand-written PHI span.

`tests/data/recall_regression.jsonl` (built by `tests/data/make_recall_regression.py`) holds
invented note and report lines in classes that stress recall: cities that are common words,
facility names made of common words, PHI that looks like clinical content, dates, prefixed IDs,
lower-case and dialogue names, ages in words, rooms and beds, names with initials, a mix of every
category, and `hard_negatives` (look-alikes that must stay unchanged). For the default pipeline
(rules + lexicons + bundled model):

- every gold span is *found*: each of its alphanumeric characters lies inside some predicted span
  (the category need not match, since recall is what protects the patient; a mismatch is shown);
- a `hard_negatives` line gets no span at all.

A line with `known_failure` runs as a strict xfail, as in `tests/test_regression.py`: the day the
pipeline gets it right the test fails, and the `known_failure` is removed from the builder. The
lines are invented, so failure messages show them.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from radeid.core.document import Document, Span
from radeid.evaluate.integrity import edge_violations
from radeid.pipeline.deidentifier import Deidentifier

DATA = Path(__file__).resolve().parent / "data"
LINES_FILE = DATA / "recall_regression.jsonl"
RECORDS = [json.loads(line) for line in LINES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
NEGATIVE = "hard_negatives"
#: Classes 1-10 of issue 25, each with at least 40 lines.
RECALL_CLASSES = (
    "city_common_word",
    "facility_words",
    "protected_vs_cue",
    "strong_rule_dates",
    "short_dates",
    "prefixed_ids",
    "names_lower_dialogue",
    "ages_in_words",
    "rooms_beds",
    "initial_period",
)


@functools.cache
def detected() -> dict[str, list[Span]]:
    """Resolved spans by line id for the default pipeline, in one batch (the model loads once per module)."""
    deid = Deidentifier()
    found = deid.detect([Document(r["id"], r["text"]) for r in RECORDS])
    return {r["id"]: spans for r, spans in zip(RECORDS, found, strict=True)}


def _describe(text: str, span: Span) -> str:
    return f"{text[span.start : span.end]!r} {span.category.value} [{span.start}:{span.end}] from {span.source}"


def missed(record: dict, predicted: list[Span]) -> list[str]:
    """Each gold span with an alphanumeric character outside every predicted span, described."""
    text = record["text"]
    covered = {i for s in predicted for i in range(s.start, s.end)}
    problems = []
    for gold in record["spans"]:
        start, end = gold["start"], gold["end"]
        lost = [i for i in range(start, end) if text[i].isalnum() and i not in covered]
        overlapping = [s for s in predicted if s.start < end and s.end > start]
        if lost:
            got = "; ".join(_describe(text, s) for s in overlapping) or "nothing"
            problems.append(f"missed {text[start:end]!r} {gold['category']} [{start}:{end}] (got: {got})")
    return problems


def category_mismatches(record: dict, predicted: list[Span]) -> list[str]:
    """Found gold spans whose overlapping predictions carry another category (reported, not failed)."""
    text = record["text"]
    out = []
    for gold in record["spans"]:
        others = {s.category.value for s in predicted if s.start < gold["end"] and s.end > gold["start"]} - {
            gold["category"]
        }
        if others:
            out.append(f"{text[gold['start'] : gold['end']]!r} gold {gold['category']}, got {sorted(others)}")
    return out


def _params() -> list:
    params = []
    for record in RECORDS:
        marks = []
        if record.get("known_failure"):
            marks.append(pytest.mark.xfail(strict=True, reason=record["known_failure"]))
        params.append(pytest.param(record, id=record["id"], marks=marks))
    return params


# -- the data file itself ---------------------------------------------------------------------------


def test_file_is_what_the_builder_makes() -> None:
    spec = importlib.util.spec_from_file_location("make_recall_regression", DATA / "make_recall_regression.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert LINES_FILE.read_text(encoding="utf-8") == module.render(module.records())


def test_sizes_and_offsets() -> None:
    """At least 500 lines, 40 in each recall class; spans in range, non-overlapping, on clean edges."""
    assert len(RECORDS) >= 500
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    sizes = Counter(r["class"] for r in RECORDS)
    assert all(sizes[c] >= 40 for c in RECALL_CLASSES), sizes
    assert sizes[NEGATIVE] >= 60, sizes
    for record in RECORDS:
        text = record["text"]
        assert set(record) <= {"id", "class", "text", "spans", "known_failure"}, record["id"]
        assert record["id"].startswith(record["class"] + "/"), record["id"]
        assert (record["class"] == NEGATIVE) == (not record["spans"]), record["id"]
        previous_end = 0
        for span in sorted(record["spans"], key=lambda s: s["start"]):
            assert previous_end <= span["start"] < span["end"] <= len(text), record["id"]
            assert text[span["start"] : span["end"]] == span["text"], record["id"]
            previous_end = span["end"]
        assert edge_violations(text, record["spans"]) == [], record["id"]


# -- the pipeline on the lines ----------------------------------------------------------------------


@pytest.mark.parametrize("record", _params())
def test_line(record: dict) -> None:
    predicted = detected()[record["id"]]
    text = record["text"]
    if record["class"] == NEGATIVE:
        extra = [_describe(text, s) for s in predicted]
        assert not extra, f"{text!r}: span(s) on a hard negative: {extra}"
        return
    problems = missed(record, predicted)
    assert not problems, (
        f"{text!r}\n" + "\n".join(problems) + "\n(category: " + "; ".join(category_mismatches(record, predicted)) + ")"
    )


def test_category_mismatches_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    """Recall does not need the right category, but a wrong one picks the wrong surrogate: list them (`-s`)."""
    spans = detected()
    lines = [
        f"{r['id']}: {m}" for r in RECORDS if r["class"] != NEGATIVE for m in category_mismatches(r, spans[r["id"]])
    ]
    with capsys.disabled():
        print(f"\n{len(lines)} found gold span(s) with another category:\n" + "\n".join(lines))
