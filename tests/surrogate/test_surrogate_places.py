"""Hospitals, locations and vendors: same kind, same form, acronyms stay acronyms."""

from __future__ import annotations

import re

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.places import initials, place_pools

HOSP, LOC, VEND = Category.HOSPITAL, Category.LOCATION, Category.VENDOR


def run(text: str, marks, options: SurrogateOptions | None = None, patient: str = "p1") -> list[str]:  # noqa: ANN001
    doc, spans = doc_with(text, marks, patient_id=patient)
    return [r.new_text for r in SurrogateReplacer(KEY, options).replace(doc, spans).replacements]


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("Massachusetts General Hospital", "Hospital"),
        ("Mayo Clinic", "Clinic"),
        ("Stanford Health Care", "Health"),
        ("Boston Children's Hospital", "Children"),
        ("Cedars-Sinai Medical Center", "Medical Center"),
        ("Johns Hopkins University", "University"),
        ("Lakeside Imaging Center", r"Imaging|Radiology|MRI"),
    ],
)
def test_facilities_become_facilities_of_the_same_kind(name: str, word: str) -> None:
    for patient in ("p1", "p2", "p3"):
        (new,) = run(f"Seen at {name}.", [(name, HOSP)], patient=patient)
        assert re.search(word, new), (name, new)
        assert new != name


def test_acronyms_stay_acronyms_and_follow_the_spelled_out_name() -> None:
    full, acronym, other = run(
        "Massachusetts General Hospital (MGH) and UCSF.", [("Massachusetts General Hospital", HOSP), ("MGH", HOSP),
                                                          ("UCSF", HOSP)]
    )  # fmt: skip
    assert acronym == initials(full) and acronym != "MGH"
    assert re.fullmatch(r"[A-Z]{4}", other) and other != "UCSF"


def test_upper_case_facility_stays_upper_case() -> None:
    (new,) = run("AT MERCY GENERAL HOSPITAL", [("MERCY GENERAL HOSPITAL", HOSP)])
    assert new == new.upper() and "HOSPITAL" in new


def test_address_keeps_its_parts_and_shapes() -> None:
    (new,) = run("Lives at 123 Main St., Boston, MA 02114 now.", [("123 Main St., Boston, MA 02114", LOC)])
    m = re.fullmatch(r"([1-9]\d\d) ([A-Z][a-z]+) St\., ([A-Z][\w ]+), ([A-Z]{2}) (\d{5})", new)
    assert m, new
    assert m.group(2) != "Main" and m.group(3) != "Boston" and m.group(5) != "02114"


def test_keep_state_keeps_the_state_and_draws_the_zip_inside_it() -> None:
    options = SurrogateOptions(keep_state=True)
    (new,) = run("from Boston, MA 02114.", [("Boston, MA 02114", LOC)], options)
    city, rest = new.split(", ")
    assert city != "Boston" and rest.startswith("MA ")
    low, high = place_pools().zip_ranges["MA"]
    assert low <= int(rest[3:]) <= high
    (state,) = run("in Texas.", [("Texas", LOC)], options)
    assert state == "Texas"


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        ("02114", r"\d{5}"),
        ("02114-1234", r"\d{5}-\d{4}"),
        ("Texas", r"[A-Z][a-z]+( [A-Z][a-z]+)*"),
        ("TX", r"[A-Z]{2}"),
        ("Apt 4B", r"Apt \d[A-Z]"),
        ("P.O. Box 1234", r"P\.O\. Box \d{4}"),
        ("BOSTON", r"[A-Z][A-Z' -]+"),
    ],
)
def test_location_parts_alone(value: str, pattern: str) -> None:
    (new,) = run(f"[{value}]", [(value, LOC)])
    assert re.fullmatch(pattern, new), (value, new)
    assert new != value


@pytest.mark.parametrize(
    ("vendor", "kept"),
    [
        ("Siemens SOMATOM Force", []),
        ("GE Healthcare", ["Healthcare"]),
        ("Philips Ingenuity CT", ["CT"]),
        ("PowerScribe 360", []),
        ("Canon Aquilion ONE", []),
    ],
)
def test_vendors_get_invented_brands_with_generic_words_kept(vendor: str, kept: list[str]) -> None:
    (new,) = run(f"on a {vendor} unit", [(vendor, VEND)])
    assert len(new.split()) == len(vendor.split())
    for old_word, new_word in zip(vendor.split(), new.split(), strict=True):
        if old_word in kept:
            assert new_word == old_word
        else:
            assert new_word != old_word
            if old_word.isdigit():
                assert new_word.isdigit() and len(new_word) == len(old_word)
            if old_word.isupper():
                assert new_word.isupper()


def test_vendor_brand_word_is_consistent_across_mentions() -> None:
    a, b = run("Siemens Healthineers; a Siemens MAGNETOM", [("Siemens Healthineers", VEND), ("Siemens MAGNETOM", VEND)])
    assert a.split()[0] == b.split()[0]
    assert a.split()[1] != "Healthineers"  # issue 13: a vendor word is never kept as "generic"


def test_room_and_bed_numbers_stay_numbers_of_the_same_shape() -> None:
    text = "Location: Ward 808, Bed 4B; room 17"
    doc, spans = doc_with(text, [("808", LOC), ("4B", LOC), ("17", LOC)], subtypes={"808": "ROOM", "4B": "ROOM"})
    new = [r.new_text for r in SurrogateReplacer(KEY).replace(doc, spans).replacements]
    assert re.fullmatch(r"\d{3}", new[0]) and new[0] != "808"
    assert re.fullmatch(r"\d[A-Z]", new[1]) and new[1] != "4B"
    assert re.fullmatch(r"\d{2}", new[2]) and new[2] != "17"  # a bare number, even without a subtype
