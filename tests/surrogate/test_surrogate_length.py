"""`--length-preserving` (issue 13): surrogates of the original's length chosen from the
generators' own draws; whole words dropped or a plausible ending added only as a last resort,
never a cut word ("New Cour Regi Medi Cent, 16 Lawre Stre")."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category, Document, Span
from radeid.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.surrogate.engine import _drop_words, _fit
from radeid.surrogate.keyed import Keyed
from radeid.surrogate.name_pools import name_pools
from radeid.surrogate.places import place_pools

H, L = Category.HOSPITAL, Category.LOCATION
WORD = re.compile(r"[^\W\d_]+")

HOSPITALS = [
    "Lakeside Medical Center", "Parkview General Hospital", "Mercy Hospital", "St. Jude Clinic",
    "Riverside Imaging Center", "Northwest Radiology Associates", "County General", "Hope Cancer Institute",
    "Boston Children's Hospital", "Valley Regional Medical Center", "Oakwood Clinic", "Summit Health",
]  # fmt: skip
LOCATIONS = [
    "12 Elm Street", "Boston", "4411 Maple Avenue", "Springfield", "Dallas, TX", "77 Harbor Road",
    "Portland", "9 Oak Lane", "1500 Lincoln Boulevard", "Denver", "Cleveland, Ohio", "301 Pine Drive",
]  # fmt: skip


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict) or hasattr(value, "items"):
        for k, v in value.items():  # type: ignore[union-attr]
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, Iterable):
        for v in value:
            yield from _strings(v)


def _vocabulary() -> set[str]:
    places, names = place_pools("en_US"), name_pools("en_US")
    words: set[str] = set()
    for obj in (places, names):
        for f in dataclasses.fields(obj):
            for s in _strings(getattr(obj, f.name)):
                words.update(w.casefold() for w in WORD.findall(s))
    return words


def _replace(original: str, category: Category, patient: str) -> tuple[str, SurrogateReplacer]:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(length_preserving=True))
    doc = Document("d", f"at {original}.", patient_id=patient)
    return replacer.replace(doc, [Span(3, 3 + len(original), category)]).replacements[0].new_text, replacer


def test_issue_13_regression_lakeside_and_elm_street() -> None:
    text = "Lakeside Medical Center, 12 Elm Street"
    doc, spans = doc_with(text, [("Lakeside Medical Center", H), ("12 Elm Street", L)])
    replacer = SurrogateReplacer(KEY, SurrogateOptions(length_preserving=True))
    result = replacer.replace(doc, spans)
    assert len(result.text) == len(text)
    vocabulary = _vocabulary() | {w.casefold() for w in WORD.findall(text)}
    for rep in result.replacements:
        assert all(w.casefold() in vocabulary for w in WORD.findall(rep.new_text)), rep.new_text


@pytest.mark.parametrize(("originals", "category"), [(HOSPITALS, H), (LOCATIONS, L)])
def test_lengths_are_equal_and_no_word_is_cut(originals: list[str], category: Category) -> None:
    vocabulary = _vocabulary()
    padded = total = 0
    for original in originals:
        own = {w.casefold() for w in WORD.findall(original)}
        for patient in (f"p{i}" for i in range(15)):
            new, replacer = _replace(original, category, patient)
            total += 1
            assert len(new) == len(original), (original, new)
            assert replacer.stats["length_cut"] == 0, (original, new)
            if replacer.stats["length_padded"]:
                padded += 1
                continue
            bad = [w for w in WORD.findall(new) if w.casefold() not in vocabulary | own]
            assert not bad, (original, new)
    assert padded <= total * 0.1, f"{padded} of {total} padded"


def test_fit_drops_whole_words_then_pads_never_cuts_when_it_can_help_it() -> None:
    stream = Keyed(KEY).stream("s", "fit")
    assert _drop_words("New Court Regional Medical Center", 24) == "New Court Medical Center"
    assert _fit("New Court Regional Medical Center", 24, stream) == ("New Court Medical Center", "")
    new, how = _fit("Oak Street", 12, stream)
    assert len(new) == 12 and how == "padded" and new.startswith("Oak") and new.endswith(" Street"), new
    new, how = _fit("Mississippi", 6, stream)  # one word alone longer than the original: the last resort
    assert len(new) == 6 and how == "cut"
