"""Error analysis: kinds worked out by hand, and no text unless asked for."""

from __future__ import annotations

import json

from radeid import Document, Span
from radeid.evaluate.errors_analysis import analyse_errors, shape

# "Dr Ann Lee saw Bob Ray on 3/4/2019 at Mercy ."
#  0123456789...
TEXT = "Dr Ann Lee saw Bob Ray on 3/4/2019 at Mercy ."
GOLD = Document(
    "d",
    TEXT,
    spans=(
        Span(3, 10, "HCW"),  # Ann Lee   -> partial: only "Ann" predicted HCW
        Span(15, 22, "PATIENT"),  # Bob Ray -> confused: predicted HCW
        Span(26, 34, "DATE"),  # 3/4/2019 -> found
        Span(38, 43, "HOSPITAL"),  # Mercy -> missed
    ),
)
PRED = {
    "d": [
        Span(0, 2, "ID"),  # Dr -> spurious
        Span(3, 6, "HCW"),
        Span(15, 22, "HCW"),
        Span(26, 34, "DATE"),
    ]
}


def test_offsets() -> None:
    assert [TEXT[s.start : s.end] for s in GOLD.spans] == ["Ann Lee", "Bob Ray", "3/4/2019", "Mercy"]


def test_shape() -> None:
    assert shape("John Smith") == "Aa Aa"
    assert shape("03/04/2019") == "9/9/9"
    assert shape("McDonald-Ross") == "AaAa-Aa"
    assert shape("ABC 12") == "A 9"


def test_kinds_worked_out_by_hand() -> None:
    errors = analyse_errors([GOLD], PRED)
    assert dict(errors.totals) == {
        ("partial", "HCW"): 1,
        ("confused", "PATIENT"): 1,
        ("missed", "HOSPITAL"): 1,
        ("spurious", "ID"): 1,
    }
    confused = errors.entries[("confused", "PATIENT")][0]
    assert confused.string == "Aa Aa" and confused.examples[0].other == "HCW"
    assert errors.entries[("missed", "HOSPITAL")][0].examples[0].start == 38


def test_no_text_by_default() -> None:
    errors = analyse_errors([GOLD], PRED)
    dumped = json.dumps(errors.to_dict())
    for secret in ("Ann", "Lee", "Bob", "Mercy", "Dr", "2019"):
        assert secret not in dumped
    assert errors.to_dict()["grouped_by"] == "shape"


def test_show_text_groups_by_string_with_context() -> None:
    errors = analyse_errors([GOLD], PRED, show_text=True, context=4)
    missed = errors.entries[("missed", "HOSPITAL")][0]
    assert missed.string == "mercy"  # normalised: case-folded
    example = missed.examples[0]
    assert (example.left, example.text, example.right) == (" at ", "Mercy", " .")


def test_most_frequent_first_and_top_limit() -> None:
    docs = [
        Document(f"d{i}", "Call Eve or Ann", spans=(Span(5, 8, "PATIENT"), Span(12, 15, "PATIENT"))) for i in range(3)
    ]
    docs.append(Document("x", "Zoe", spans=(Span(0, 3, "PATIENT"),)))
    errors = analyse_errors(docs, {}, show_text=True, top=1, examples=2)
    (entry,) = errors.entries[("missed", "PATIENT")]
    assert entry.string in ("eve", "ann") and entry.count == 3
    assert len(entry.examples) == 2
    assert errors.totals[("missed", "PATIENT")] == 7


def test_predictions_on_ignored_gold_are_not_spurious() -> None:
    doc = Document("d", "The CEO Ann", spans=(Span(8, 11, "PATIENT"),), metadata={"ignored_spans": [(4, 7)]})
    errors = analyse_errors([doc], {"d": [Span(4, 7, "HCW"), Span(8, 11, "PATIENT")]})
    assert dict(errors.totals) == {}
