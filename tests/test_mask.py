"""Masking modes: tags, numbered tags, same-length and fixed masks."""

from __future__ import annotations

import pytest

from radeid import Category, Document, Span
from radeid.config.sections import MaskConfig
from radeid.replace.mask import MaskReplacer

TEXT = "Pt Jane Roe seen 3/4/19.\nJane Roe called;\nDr Amy Li, Roe"
SPANS = [
    Span(3, 11, Category.PATIENT),
    Span(17, 23, Category.DATE),
    Span(25, 33, Category.PATIENT),
    Span(45, 51, Category.HCW),
    Span(53, 56, Category.PATIENT),
]


def run(mode: str, **kw: object) -> str:
    assert [TEXT[s.start : s.end] for s in SPANS] == ["Jane Roe", "3/4/19", "Jane Roe", "Amy Li", "Roe"]
    return MaskReplacer(MaskConfig(mode=mode, **kw)).replace(Document("d", TEXT), SPANS).text  # type: ignore[arg-type]


def test_tag_mode() -> None:
    assert run("tag") == "Pt [PATIENT] seen [DATE].\n[PATIENT] called;\nDr [HCW], [PATIENT]"


def test_numbered_mode_is_consistent_within_a_document() -> None:
    assert run("numbered") == "Pt [PATIENT-1] seen [DATE-1].\n[PATIENT-1] called;\nDr [HCW-1], [PATIENT-2]"


def test_numbering_restarts_for_each_document() -> None:
    replacer = MaskReplacer(MaskConfig(mode="numbered"))
    first = replacer.replace(Document("a", "Roe"), [Span(0, 3, Category.PATIENT)])
    second = replacer.replace(Document("b", "Doe"), [Span(0, 3, Category.PATIENT)])
    assert first.text == second.text == "[PATIENT-1]"


def test_same_length_mask_keeps_length_and_line_breaks() -> None:
    out = run("mask")
    assert len(out) == len(TEXT)
    assert out == "Pt ******** seen ******.\n******** called;\nDr ******, ***"
    span = Span(0, 9, Category.LOCATION)
    result = MaskReplacer(MaskConfig(mode="mask", char="#")).replace(Document("d", "1 Main\nSt"), [span])
    assert result.text == "######\n##"


def test_fixed_mask_hides_length() -> None:
    out = run("fixed", fixed_length=3, char="X")
    assert out == "Pt XXX seen XXX.\nXXX called;\nDr XXX, XXX"


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown mask mode"):
        MaskReplacer(MaskConfig(mode="blur"))
