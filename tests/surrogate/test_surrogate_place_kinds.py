"""Issue 13: a place stays the same kind of place; generated institutions are never real ones."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category
from radeid.replace.surrogate import SurrogateReplacer
from radeid.replace.surrogate.institutions import is_real_institution, normalize_institution
from radeid.replace.surrogate.keyed import Keyed
from radeid.replace.surrogate.place_kinds import classify_place
from radeid.replace.surrogate.places import HospitalGenerator, _Facility, place_pools

HOSP, LOC = Category.HOSPITAL, Category.LOCATION


def replace(text: str, marks, subtypes=None, patient: str = "p1") -> list[str]:  # noqa: ANN001
    doc, spans = doc_with(text, marks, patient_id=patient, subtypes=subtypes)
    return [r.new_text for r in SurrogateReplacer(KEY).replace(doc, spans).replacements]


@pytest.mark.parametrize(
    ("value", "subtype", "kind"),
    [
        ("Boston", None, "city"),
        ("Boston", "CITY", "city"),
        ("Texas", None, "state"),
        ("TX", None, "state_code"),
        ("TX", "STATE", "state_code"),
        ("France", None, "country"),
        ("France", "COUNTRY", "country"),
        ("12 Elm Street", None, "street"),
        ("Elm Street", "STREET", "street"),
        ("4B-312", None, "room"),
        ("4B", None, "room"),
        ("4B", "ROOM", "room"),
        ("Room 4B-312", None, "unit"),
        ("02114", None, "zip"),
    ],
)
def test_every_place_becomes_a_place_of_its_kind(value: str, subtype: str | None, kind: str) -> None:
    pools = place_pools()
    assert classify_place(value, pools, subtype) == kind
    for patient in ("p1", "p2", "p3", "p4"):
        (new,) = replace(f"lives in {value} now", [(value, LOC)], {value: subtype} if subtype else None, patient)
        assert new != value
        assert classify_place(new, pools, subtype) == kind, (value, new)
        if kind in ("room", "unit", "zip"):  # the same shape: letters for letters, digits for digits
            assert (
                re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", new)) == re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", value))
                or kind == "unit"
            )


def test_room_keeps_its_cue_and_shape() -> None:  # issue 13: Room 4B-312 -> Room Port Jessicaview-312
    (new,) = replace("Patient in Room 4B-312.", [("Room 4B-312", LOC)])
    assert re.fullmatch(r"Room \d[A-Z]-[1-9]\d\d", new) and new != "Room 4B-312"
    (new,) = replace("Patient in Room 4B-312.", [("4B", LOC)])
    assert re.fullmatch(r"\d[A-Z]", new)


def test_a_city_tagged_as_a_facility_stays_a_city() -> None:  # issue 13: lives in Boston -> ... County Hospital
    for patient in ("p1", "p2", "p3", "p4", "p5"):
        (new,) = replace("lives in Boston.", [("Boston", HOSP)], patient=patient)
        assert classify_place(new, place_pools()) == "city", new
        assert not re.search(r"hospital|clinic|center|health", new, re.I)


def test_facility_keeps_its_city_and_state() -> None:  # issue 13: Parkview General Hospital, Dallas, TX
    for patient in ("p1", "p2", "p3"):
        name = "Parkview General Hospital, Dallas, TX"
        (new,) = replace(f"from {name}.", [(name, HOSP)], patient=patient)
        facility, city, state = new.split(", ")
        assert "Hospital" in facility and facility != "Parkview General Hospital"
        assert classify_place(city, place_pools()) == "city" and city != "Dallas"
        assert re.fullmatch(r"[A-Z]{2}", state) and state != "TX"


@pytest.mark.parametrize(
    "name",
    ["University of Arizona Medical Center", "University of Michigan", "Ohio State University Wexner Medical Center",
     "St. Mary's Hospital", "Saint Joseph Medical Center", "Mayo Clinic", "Mayo Clinic Health System",
     "Massachusetts General Hospital", "Fairview Hospital", "Washington University Medical Center"],
)  # fmt: skip
def test_real_institutions_are_recognised(name: str) -> None:
    assert is_real_institution(name)


@pytest.mark.parametrize(
    ("name", "real"),
    [
        ("North Dakota Imaging Center", True),  # a state of two words, anywhere in the name
        ("Harbor View District of Columbia Clinic", True),  # of three words
        ("Pine Ridge Texas Clinic", True),
        ("St Aaron Hospital", True),  # "St <name>": real by construction
        ("The University of Pine Ridge", True),
        ("New Yorkshire Medical Center", False),  # a state is whole words only
        ("Pine Ridge Clinic Texas5", False),
        ("St Aaron5 Clinic", False),  # "St" and a word of letters only
        ("Aaron St Clinic", False),
        ("Aaronville University Clinic of Pine Ridge", False),  # "university of" as two words in a row
        ("North Harrington Medical Center", False),
        ("O\u2019Brien Family Medicine", False),
    ],
)
def test_real_by_construction_reads_whole_words(name: str, real: bool) -> None:
    assert is_real_institution(name) is real


def test_no_generated_institution_is_real() -> None:
    """10,000 draws here (about a second); benchmarks/institutions.py runs 100,000."""
    from radeid.config.sections import SurrogateOptions
    from radeid.replace.surrogate.memory import DocumentMemory

    gen = HospitalGenerator("en_US")
    (new,) = replace("at University of Arizona Medical Center.", [("University of Arizona Medical Center", HOSP)])
    assert not is_real_institution(new)
    ctx = _context(Keyed(KEY), SurrogateOptions(), DocumentMemory.build("", []))
    kinds = sorted(gen.pools.patterns)
    for i in range(10_000):
        parsed = _Facility(f"x{i}", f"x{i}", kinds[i % len(kinds)])
        new = gen.generate(parsed, ctx, 0)
        assert not is_real_institution(new), new


def _context(keyed, options, memory):  # noqa: ANN001, ANN202
    from collections import Counter

    from radeid import Document
    from radeid.replace.surrogate.base import SurrogateContext

    return SurrogateContext(keyed, options, Document("d", ""), "corpus", "corpus", 0, 0, {}, memory, Counter())


def _normalize_spelled_out(name: str) -> str:
    """`normalize_institution` as first written: every substitution, whether it can match or not."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()
    text = re.sub(r"['’`]", "", text)
    for rx, repl in (
        (re.compile(r"\bsaint\b"), "st"),
        (re.compile(r"\bmount\b"), "mt"),
        (re.compile(r"\bcenter\b"), "centre"),
        (re.compile(r"&"), " and "),
    ):
        text = rx.sub(repl, text)
    text = re.sub(r"[^a-z0-9]+", " ", text).strip()
    return text[4:] if text.startswith("the ") else text


def test_normalize_institution_equals_the_spelled_out_code() -> None:
    """Skipping a substitution whose literal is absent changes no key."""
    rng = random.Random(8)
    words = "Saint saint St. Mount MOUNT Center centre Centers & and The the Mary's O’Brien `x Sainte".split()
    words += ["Mountain", "Médical", "Ærø", "-", ",", "  ", "Hospital", "s"]
    for _ in range(5000):
        name = "".join(rng.choice(words) + rng.choice(("", " ", " ", "&", "-")) for _ in range(rng.randint(1, 6)))
        assert normalize_institution(name) == _normalize_spelled_out(name), name
