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
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.engine import _drop_words, _fit
from radeid.replace.surrogate.keyed import Keyed
from radeid.replace.surrogate.name_pools import length_pools, name_pools
from radeid.replace.surrogate.places import CITY_SUFFIXES, place_pools

H, L, P = Category.HOSPITAL, Category.LOCATION, Category.PATIENT
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


def _compound_city(word: str) -> bool:
    """A city in Faker's "{last_name}{city_suffix}" form, made from the pools ("Foxton")."""
    surnames = {n.casefold() for n in name_pools("en_US").surnames}
    return any(word.casefold() == s + suffix for suffix in CITY_SUFFIXES for s in surnames if len(s) < len(word))


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
            bad = [w for w in WORD.findall(new) if w.casefold() not in vocabulary | own and not _compound_city(w)]
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


NAMES = [
    "Patrick Todd", "Jane Smith", "Bartholomew Fitzgerald", "Al Yu", "Eva Ng", "Christopher Richardson",
    "Maximiliano Vanderbilt", "Zoe Ox", "Smith, Jane", "ROBERTSON, ANASTASIA", "Dr. Ignatius Quartermaine",
    "J. Smith", "Jo Ann Lee", "Wolfgang Oberhollenzer", "Imogen Quist", "Tobias Kowalczyk",
]  # fmt: skip


def _name_vocabulary() -> set[str]:
    words = {n.casefold() for pool in length_pools("en_US").values() for n in pool}
    return words | {n.casefold() for pool in name_pools("en_US").given.values() for n in pool}


@pytest.mark.parametrize("category", [Category.PATIENT, Category.HCW])
def test_issue_13_names_keep_their_length_with_whole_pool_names(category: Category) -> None:
    """`Patrick Todd` -> `Patr Todd` (a cut name) was the issue; now every name word is a
    whole name of the by-length pools, and the mention has the original's length."""
    vocabulary = _name_vocabulary()
    for original in NAMES:
        own = {w.casefold() for w in WORD.findall(original)} | {"dr"}
        for patient in (f"p{i}" for i in range(20)):
            new, replacer = _replace(original, category, patient)
            assert len(new) == len(original), (original, new)
            assert replacer.stats["length_cut"] == 0 and replacer.stats["length_padded"] == 0, (original, new)
            words = [w for w in WORD.findall(new) if len(w) > 1 and w.casefold() not in own]
            assert all(w.casefold() in vocabulary for w in words), (original, new)


def test_length_preserving_names_are_keyed_and_consistent_per_entity() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(length_preserving=True))
    text = "Patrick Todd seen. Todd was told. Mr. Patrick Todd left."
    doc, spans = doc_with(text, [("Patrick Todd", P), ("Todd", P, 1), ("Patrick Todd", P, 1)], patient_id="p9")
    first = replacer.replace(doc, spans)
    full, alone, again = (r.new_text for r in first.replacements)
    assert full == again and full.split()[1] == alone and len(full) == len("Patrick Todd")
    other = SurrogateReplacer(KEY, SurrogateOptions(length_preserving=True)).replace(doc, spans)
    assert other.text == first.text


def test_length_pools_borrow_only_gender_consistent_ascii_names() -> None:
    pools, own = length_pools("en_US"), name_pools("en_US")
    for (pid, letter, length), names in pools.items():
        for name in names:
            assert len(name) == length and name.isascii() and name.isalpha()
            assert not letter or name[0] == letter
            if pid in ("F", "M") and name not in own.given[pid]:
                assert own.gender_of(name.casefold()) == pid, name
    # wider than the locale's own lists: long and short lengths that en_US lacks per initial
    assert sum(len(v) for k, v in pools.items() if k[1] and k[0] == "L") > 2 * len(own.surnames)


VENDORS = ["GE Signa Premier", "Siemens MAGNETOM Vida", "Carestream DRX-Evolution", "Hologic 3Dimensions",
           "Philips IntelliSpace PACS", "Canon Aquilion ONE", "Fujifilm Synapse"]  # fmt: skip


def test_vendors_keep_their_length_word_by_word() -> None:
    for original in VENDORS:
        for patient in (f"p{i}" for i in range(15)):
            new, replacer = _replace(original, Category.VENDOR, patient)
            assert len(new) == len(original), (original, new)
            assert replacer.stats["length_padded"] == 0 and replacer.stats["length_cut"] == 0, (original, new)
            assert [len(w) for w in re.split(r"[\W_]+", new)] == [len(w) for w in re.split(r"[\W_]+", original)]


def test_hospitals_are_never_padded_nor_cut() -> None:
    for original in [*HOSPITALS, "St. Agnes Medical Center", "Summit Health System"]:
        for patient in (f"p{i}" for i in range(15)):
            new, replacer = _replace(original, H, patient)
            assert len(new) == len(original), (original, new)
            assert replacer.stats["length_padded"] == 0 and replacer.stats["length_cut"] == 0, (original, new)


def test_a_surname_after_particles_fills_their_room_and_is_never_cut() -> None:
    vocabulary = _name_vocabulary()
    for original in ("Dr. Van der Berg", "Maria de la Cruz", "Ludwig van Beethoven"):
        for patient in ("p1", "p2", "p3"):
            new, replacer = _replace(original, Category.HCW, patient)
            assert len(new) == len(original) and not replacer.stats["length_padded"], (original, new)
            assert all(w.casefold() in vocabulary | {"dr"} for w in WORD.findall(new)), (original, new)
    # the same surname alone in the document: one fake for both, the shorter length wins (the
    # particle mention is padded, the bare surname is not cut)
    replacer = SurrogateReplacer(KEY, SurrogateOptions(length_preserving=True))
    doc, spans = doc_with("Dr. Van der Berg and Berg", [("Van der Berg", Category.HCW), ("Berg", Category.HCW, 1)])
    long, short = (r.new_text for r in replacer.replace(doc, spans).replacements)
    assert len(long) == len("Van der Berg") and len(short) == 4 and long.startswith(short)
    assert replacer.stats["length_cut"] == 0


@pytest.mark.parametrize(
    ("original", "shape"),
    [("Boston, MA 02114", r"[A-Z][a-z]+, [A-Z]{2} \d{5}"), ("Dallas, TX", r"[A-Z][a-z]+, [A-Z]{2}"),
     ("Paris, France", r"[A-Z][a-z]+, [A-Z][a-z]+")],
)  # fmt: skip
def test_an_address_keeps_every_part_at_the_same_length(original: str, shape: str) -> None:
    """A state code was dropped to fit ("Boston, MA 02114" -> "East Lori, 12590"): the
    redraws now aim the city at the original's length (a Faker-style compound when needed)."""
    for patient in (f"p{i}" for i in range(15)):
        new, replacer = _replace(original, L, patient)
        assert len(new) == len(original) and re.fullmatch(shape, new), (original, new)
        assert not replacer.stats["length_padded"] and not replacer.stats["length_cut"], (original, new)
