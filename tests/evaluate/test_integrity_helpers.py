"""`edge_violations` and `changed_tokens`, against values worked out by hand."""

from __future__ import annotations

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.evaluate.integrity import changed_token_offsets, changed_tokens, edge_violations


def reasons(text: str, start: int, end: int) -> list[str]:
    return [reason for _, reason in edge_violations(text, [{"start": start, "end": end}])]


# (text, span text, occurrence start found by str.index, expected reasons)
CASES = [
    ("Seen by Dr. Ahmed today.", "Ahmed", []),
    ("Seen by Dr. Ahmed today.", "Dr. Ahmed", []),
    ("Signed J. Park, MD", "J.", []),  # an initial keeps its dot
    ("Call (541) 555-0142 now", "(541) 555-0142", []),  # balanced bracket
    ("(tel. 217.555.0147)", ". 217.555.0147", ["starts with punctuation"]),
    ("(tel. 217.555.0147)", "217.555.0147)", ["ends with punctuation"]),
    ("in the ED. Glasgow", "ED.", ["ends with punctuation"]),  # ED is not a listed abbreviation
    ("LEE, SOO-JIN (Ms) MRN", "LEE, SOO-JIN (", ["ends with punctuation"]),
    ("LEE, SOO-JIN (Ms) MRN", "LEE, SOO-J", ["ends inside a word"]),
    ("Dr Ahmed's note", "Ahmed's", ["ends with a possessive"]),
    ("Dr Ahmed\u2019s note", "Ahmed\u2019s", ["ends with a possessive"]),
    ("Dr. Ahmed   Performing sonographer", "Ahmed   Performing", ["contains a run of spaces"]),
    ("Name: Jane Roe", "Name: Jane Roe", ["contains a label colon"]),
    ("at 10:15 today", "10:15", []),
    ("Exam 2019-07-04T10:15:00 L4/5", "2019-07-04", []),  # ISO date-time: the date part is the span
    ("Exam 2019-07-04Tx", "2019-07-0", ["ends inside a word"]),
    ("John\nMiller", "John\nMiller", ["contains a line break"]),
    ("John\tMiller", "John\tMiller", ["contains a tab"]),
    ("Mr Oduya .", "Oduya ", ["ends with whitespace"]),
    ("L4/5 stenosis", "4/5", ["starts inside a word"]),
    ("Hemoglobin 12/14 stable", "Hemoglobin 12/1", ["ends inside a word"]),
]


@pytest.mark.parametrize(("text", "surface", "expected"), CASES)
def test_edge_rule_cases(text: str, surface: str, expected: list[str]) -> None:
    start = text.index(surface)
    assert reasons(text, start, start + len(surface)) == expected


def test_several_reasons_for_one_span_and_out_of_range() -> None:
    text = "x  (Ahmed's\n"
    # " (Ahmed's" from offset 2: starts with a space, ends with the possessive; no line break inside
    assert reasons(text, 2, 11) == ["starts with whitespace", "ends with a possessive"]
    assert reasons(text, 5, 40) == ["out of range"]


def test_span_objects_are_returned_as_given() -> None:
    text = "Temp 98.6 F"
    span = Span(4, 9, Category.DATE, source="rules")  # " 98.6"
    assert edge_violations(text, [span]) == [(span, "starts with whitespace")]


def _result(text: str, *edits: tuple[int, int, str]) -> Result:
    doc = Document("d", text)
    return Result.build(doc, [Replacement(Span(s, e, Category.DATE), new) for s, e, new in edits])


def test_changed_tokens_counts_only_altered_tokens() -> None:
    text = "Temp 98.6, Dr. Ahmed seen."
    # "98.6" -> "103.6": tokens 98 . 6 -> 103 . 6, one changed
    # "Dr. Ahmed" -> "Dr. Levy": tokens Dr . Ahmed -> Dr . Levy, one changed
    result = _result(text, (5, 9, "103.6"), (11, 20, "Dr. Levy"))
    assert changed_tokens(text, result) == 2
    assert changed_token_offsets(text, result) == [(5, 7), (15, 20)]


def test_changed_tokens_span_inside_a_token_and_iso_datetime() -> None:
    text = "L4/5 and 2019-07-04T10:15:00"
    # "5" -> "4" inside L4/5: tokens L4 / 5 -> L4 / 4: one changed
    # 2019-07-04T10:15:00 -> 8829-25-31T66:15:00: 2019 07 04T10 change, - - : 15 : 00 do not
    result = _result(text, (3, 4, "4"), (9, 28, "8829-25-31T66:15:00"))
    assert changed_tokens(text, result) == 4


def test_changed_tokens_ignores_given_tokens_and_unchanged_rewrites() -> None:
    text = "XXXX XXXX, Christmas"
    result = _result(text, (0, 9, "Jane Roe"), (11, 20, "Christmas"))
    assert changed_tokens(text, result, ignore={"XXXX"}) == 0
    assert changed_tokens(text, result) == 2
    assert changed_tokens(text, list(result.replacements), ignore={"XXXX"}) == 0


def test_url_slash_and_institution_possessive_are_not_edge_breaks() -> None:
    text = "see https://x.org/ and Seattle Children's and Ahmed's"
    url, hospital, person = Span(4, 18, Category.URL), Span(23, 41, Category.HOSPITAL), Span(46, 53, Category.PATIENT)
    assert edge_violations(text, [url, hospital, person]) == [(person, "ends with a possessive")]
