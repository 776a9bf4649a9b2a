"""The data model: spans are valid and immutable; results derive text and output offsets."""

from __future__ import annotations

import dataclasses

import pytest

from radeid import Category, Document, Replacement, Result, Span
from radeid.core.categories import split_label
from radeid.core.document import apply_replacements, replacements_of


def test_span_validates_offsets_and_parses_category() -> None:
    span = Span(3, 7, "date")  # type: ignore[arg-type]
    assert span.category is Category.DATE
    assert len(span) == 4
    with pytest.raises(ValueError):
        Span(5, 5, Category.DATE)
    with pytest.raises(ValueError):
        Span(-1, 2, Category.DATE)
    with pytest.raises(ValueError, match="unknown PHI category"):
        Span(0, 1, "NAME")  # type: ignore[arg-type]


def test_span_is_frozen_and_hashable() -> None:
    span = Span(0, 4, Category.ID, subtype="MRN")
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.start = 1  # type: ignore[misc]
    assert {span, Span(0, 4, Category.ID, subtype="MRN")} == {span}
    assert span.label == "ID/MRN"


def test_span_dict_round_trip_keeps_subtype_from_label() -> None:
    span = Span.from_dict({"start": 2, "end": 9, "label": "ID/MRN", "score": 0.5, "source": "rules/mrn"})
    assert (span.category, span.subtype, span.score, span.source) == (Category.ID, "MRN", 0.5, "rules/mrn")
    assert Span.from_dict(span.to_dict()) == span


def test_split_label() -> None:
    assert split_label("PHONE/FAX") == (Category.PHONE, "FAX")
    assert split_label("hcw") == (Category.HCW, None)


def test_result_applies_replacements_and_derives_output_offsets() -> None:
    text = "Seen by Dr. Jane Roe on 03/04/2019."
    doc = Document("d1", text)
    name = Span(12, 20, Category.HCW)
    date = Span(24, 34, Category.DATE)
    assert name.text_in(text) == "Jane Roe" and date.text_in(text) == "03/04/2019"
    result = Result.build(doc, [Replacement(date, "[DATE]"), Replacement(name, "[HCW]")])
    assert result.text == "Seen by Dr. [HCW] on [DATE]."
    # replacements come back sorted, and each output offset points at the new text
    assert [r.span for r in result.replacements] == [name, date]
    for rep, (start, end) in zip(result.replacements, result.output_offsets(), strict=True):
        assert result.text[start:end] == rep.new_text
    assert doc.text == text  # the original never changes


def test_apply_replacements_rejects_overlap_and_out_of_range() -> None:
    a, b = Span(0, 4, Category.ID), Span(2, 6, Category.ID)
    with pytest.raises(ValueError, match="overlapping"):
        apply_replacements("0123456789", [Replacement(a, "x"), Replacement(b, "y")])
    with pytest.raises(ValueError, match="past the text end"):
        apply_replacements("012", [Replacement(Span(1, 5, Category.ID), "x")])
    with pytest.raises(ValueError, match="not in text order"):  # `Result.build` sorts; this does not
        apply_replacements("0123456789", [Replacement(Span(5, 6, Category.ID), "x"), Replacement(a, "y")])


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1]])
def test_result_build_rejects_overlap_in_any_order(order: list[int]) -> None:
    """`Result.build` checks the order and splices in one pass: an overlap still raises, whether
    the replacements come sorted or not (unsorted ones are sorted first, then refused)."""
    reps = [Replacement(Span(0, 4, Category.ID), "x"), Replacement(Span(2, 6, Category.ID), "y"),
            Replacement(Span(7, 9, Category.ID), "z")]  # fmt: skip
    with pytest.raises(ValueError, match="overlapping"):
        Result.build(Document("d", "0123456789"), [reps[i] for i in order])


def test_document_scope_prefers_patient() -> None:
    assert Document("d", "t", patient_id="p9").scope == "p9"
    assert Document("d", "t").scope == "d"


def test_result_build_orders_any_input_order_the_same() -> None:
    """Replacements already in text order are kept as given (no sort); any other order comes
    back sorted, so the output does not depend on the order a replacer hands them over."""
    doc = Document("d2", "AAAA BB CCC")
    spans = [Span(0, 4, Category.ID), Span(5, 7, Category.ID), Span(8, 11, Category.ID)]
    reps = [Replacement(s, f"<{i}>") for i, s in enumerate(spans)]
    expected = "<0> <1> <2>"
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]):
        result = Result.build(doc, [reps[i] for i in order])
        assert result.text == expected
        assert [r.span for r in result.replacements] == spans
    adjacent = [Replacement(Span(4, 6, Category.ID), "y"), Replacement(Span(0, 4, Category.ID), "x")]
    assert Result.build(Document("d3", "0123456789"), adjacent).text == "xy6789"


def test_replacements_of_makes_the_same_frozen_replacements() -> None:
    """The engine's fast constructor gives objects equal to `Replacement(span, text)`, hashable
    alike, still frozen, and refuses spans and texts of different counts."""
    spans = [Span(0, 4, Category.ID), Span(5, 7, Category.DATE)]
    made = replacements_of(spans, ["x", "y"])
    assert made == [Replacement(spans[0], "x"), Replacement(spans[1], "y")]
    assert all(type(r) is Replacement and r.kind is None for r in made)
    assert hash(made[0]) == hash(Replacement(spans[0], "x"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].new_text = "z"  # type: ignore[misc]
    with pytest.raises(ValueError):
        replacements_of(spans, ["x"])
