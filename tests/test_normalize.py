"""Issue 12 point 14: rules and word lists match text as a reader sees it, with exact offsets."""

from __future__ import annotations

import pytest

from radeid.config.config import Config
from radeid.core.document import Document
from radeid.detect.normalize import normalize_for_matching
from radeid.pipeline.deidentifier import Deidentifier


@pytest.mark.parametrize(
    ("text", "expected", "label"),
    [
        ("Seen by Dr.\u00a0Jane\u00a0Smith today.", "Jane\u00a0Smith", "HCW"),  # non-breaking spaces
        ("Dictated by Dr. Jo\u200bhn Smith.", "Jo\u200bhn Smith", "HCW"),  # zero-width space
        ("Signed by Dr. Rene\u0301 Dupont.", "Rene\u0301 Dupont", "HCW"),  # decomposed accent
        ("Signed by Dr. \u202bJohn Smith\u202c.", "John Smith", "HCW"),  # bidi embedding
        ("MRN: \u0661\u0662\u0663\u0664\u0665\u0666\u0667", "\u0661\u0662\u0663\u0664\u0665\u0666\u0667", "ID"),
        ("Exam on 03/04/\uff12\uff10\uff11\uff19.", "03/04/\uff12\uff10\uff11\uff19", "DATE"),  # full-width
        ("SSN 123\u200b-45-6789", "123\u200b-45-6789", "ID"),
        ("Call 617\u2011555\u20110199 today", "617\u2011555\u20110199", "PHONE"),  # non-breaking hyphens
    ],
)
def test_look_alike_characters_are_matched_with_original_offsets(
    rules_only: Deidentifier, text: str, expected: str, label: str
) -> None:
    spans = rules_only.detect([Document("t", text)])[0]
    assert (expected, label) in {(text[s.start : s.end], s.category.value) for s in spans}


def test_switching_it_off_restores_plain_matching() -> None:
    off = Deidentifier(Config.load(overrides={"pipeline": {"detectors": ["rules"], "normalize_unicode": False}}))
    assert off.detect([Document("t", "MRN: \u0661\u0662\u0663\u0664\u0665\u0666\u0667")])[0] == []


def test_folding_maps_every_character_back() -> None:
    text = "a\u00a0b\u200bc e\u0301 \uff11\u0662\u2011x"
    folded = normalize_for_matching(text)
    assert folded is not None
    assert folded.text == "a bc \u00e9 12-x"
    assert len(folded.starts) == len(folded.ends) == len(folded.text)
    assert [text[a:b] for a, b in zip(folded.starts, folded.ends, strict=True)] == [
        "a", "\u00a0", "b", "c", " ", "e\u0301", " ", "\uff11", "\u0662", "\u2011", "x"
    ]  # fmt: skip
    assert normalize_for_matching("plain ASCII report") is None
    assert normalize_for_matching("Temp 37 \u00b0C, caf\u00e9") is None  # nothing to fold: the fast path


def test_folding_keeps_line_breaks_so_a_label_still_starts_its_line(rules_only: Deidentifier) -> None:
    """A look-alike anywhere in a report (a Turkish dotless ı in a signature) used to fold every line
    break to a space, and the label `Patient:` at a line start was no longer at one."""
    folded = normalize_for_matching("a\nb\tc\u2028d\re\u00a0Y\u0131ld\u0131r\u0131m")
    assert folded is not None
    assert folded.text == "a\nb\tc\nd\re Yildirim"
    text = "CHEST X-RAY\nPatient: Obermeier, Juergen\nSigned by Dr. Ferhat Y\u0131ld\u0131r\u0131m"
    spans = rules_only.detect([Document("t", text)])[0]
    assert ("Obermeier, Juergen", "PATIENT") in {(text[s.start : s.end], s.category.value) for s in spans}
