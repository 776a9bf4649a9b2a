"""Protected content: clinical values and words that must never become PHI."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from radeid.resolve.protected import ProtectedContent, ProtectedSpan, merge_intervals


@pytest.fixture(scope="module")
def protected() -> ProtectedContent:
    return ProtectedContent.from_files()


def found(protected: ProtectedContent, text: str) -> set[tuple[str, str]]:
    return {(text[p.start : p.end], p.klass) for p in protected.find(text)}


@pytest.mark.parametrize(
    ("text", "piece", "klass"),
    [
        ("Entresto (sacubitril-valsartan 24/26 mg) BID", "24/26 mg", "doses"),
        ("PA 38/20 mmHg", "PA 38/20 mmHg", "vitals"),
        ("Temp 98.6 F, HR 88", "Temp 98.6 F", "vitals"),
        ("Grade 3/6 murmur", "3/6", "fractions_grades"),
        ("20/20 vision OU", "20/20", "fractions_grades"),
        ("Hemoglobin 12/14 stable", "Hemoglobin 12/14", "labs"),
        ("INR 2.3 today", "INR 2.3", "labs"),
        ("Age 89, retired", "Age 89", "ages_not_phi"),
        ("a 45-year-old man", "45-year-old", "ages_not_phi"),
        ("31 MM OVAL MASS", "31 MM", "measurements"),
        ("measures 3.2 x 2.1 cm", "3.2 x 2.1 cm", "measurements"),
        ("disc bulge at L4/5", "L4/5", "spinal_levels"),
        ("C5-C6 and L5-S1", "C5-C6", "spinal_levels"),
        ("Gleason 3+4=7 tumor", "Gleason 3+4=7", "scores_scales"),
        ("BI-RADS 4: suspicious", "BI-RADS 4", "scores_scales"),
        ("120 kVp and 250 mAs", "120 kVp", "imaging_params"),
        ("series 3 image 45", "series 3 image 45", "imaging_params"),
        ("ICD-9 786.2 cough", "ICD-9 786.2", "codes"),
        ("dx 786.2", "786.2", "codes"),
        ("R91.1 nodule", "R91.1", "codes"),
        ("called at 14:32", "14:32", "times"),
        ("0830 hours", "0830 hours", "times"),
        ("Exam 2019-07-04T10:15:00", "T10:15:00", "times"),  # the date stays PHI, the time is not
        ("CHEST PA AND LATERAL", "CHEST PA AND LATERAL", "headings"),
        ("AP projection of the chest", "AP projection of the chest", "headings"),
        ("(Emergency Medicine)", "Emergency Medicine", "departments_specialties"),
        ("Hematology/Oncology follow-up", "Hematology/Oncology", "departments_specialties"),
        ("on rounds.", "rounds", "departments_specialties"),
        ("per Fleischner Society", "Fleischner Society", "eponyms"),
        ("Jackson-Pratt drain in place", "Jackson-Pratt drain", "eponyms"),
        ("Sister Mary Joseph nodule", "Sister Mary Joseph nodule", "eponyms"),
        ("in the ED. Glasgow Coma Scale 15", "Glasgow Coma Scale", "eponyms"),
        ("home for Christmas", "Christmas", "holidays"),
        ("Workstation: PACS", "Workstation", "misc_words"),
    ],
)
def test_clinical_content_is_protected(protected: ProtectedContent, text: str, piece: str, klass: str) -> None:
    assert (piece, klass) in found(protected, text)


@pytest.mark.parametrize(
    "text",
    [
        "seen on 3/4 in clinic",  # a date without a year is not a fraction
        "Los Angeles, CA 90210",  # CA is the state here, not calcium
        "Room C12",  # a room, not a vertebra
        "a 93-year-old woman",  # ages over 89 are PHI
        "Age 93",
        "phone 217.555.0147",  # a phone, not an ICD-9 code
        "IP 192.168.10.21",
        "Exam 2019-07-04",
        "Dr. Smith drain output",  # a title makes a name, not an eponym
    ],
)
def test_phi_is_not_protected(protected: ProtectedContent, text: str) -> None:
    digits_or_names = {p for p, _ in found(protected, text) if any(ch.isdigit() for ch in p) or "Smith" in p}
    assert digits_or_names == set()


def test_find_near_scans_only_lines_with_spans(protected: ProtectedContent) -> None:
    from radeid.core.categories import Category
    from radeid.core.document import Span

    text = "Temp 98.6\nname here\nINR 2.3"
    near = protected.find_near(text, [Span(10, 14, Category.PATIENT)])
    assert near == []
    near = protected.find_near(text, [Span(0, 4, Category.PATIENT), Span(20, 23, Category.PATIENT)])
    assert {text[p.start : p.end] for p in near} >= {"Temp 98.6", "INR 2.3"}


def test_user_files_extend_and_classes_can_be_disabled(tmp_path: Path) -> None:
    extra = tmp_path / "site.toml"
    extra.write_text(
        '[[protect]]\nname = "site_scanner"\nclass = "site"\npattern = \'Scanner[ ]\\d+\'\n', encoding="utf-8"
    )
    content = ProtectedContent.from_files([extra], disabled_classes=["holidays"])
    assert ("Scanner 7", "site") in found(content, "on Scanner 7")
    assert found(content, "at Christmas") == set()
    with pytest.raises(ValueError, match="unknown keys"):
        bad = tmp_path / "bad.toml"
        bad.write_text('[[protect]]\nname = "x"\nclass = "c"\npattern = \'x\'\ncolour = 1\n', encoding="utf-8")
        ProtectedContent.from_files([bad])


def test_merge_intervals() -> None:
    assert merge_intervals([(5, 8), (0, 2), (2, 3), (7, 9)]) == [(0, 3), (5, 9)]


def test_requires_skips_a_pattern_where_its_precondition_is_absent(tmp_path: Path) -> None:
    extra = tmp_path / "site.toml"
    extra.write_text(
        "[[protect]]\nname = 'site_code'\nclass = 'site'\npattern = '[A-Z]{3}'\nrequires = '[#]'\n", encoding="utf-8"
    )
    content = ProtectedContent.from_files([extra], include_bundled=False)
    assert found(content, "code ABC here") == set()
    assert found(content, "code ABC here #") == {("ABC", "site")}  # anywhere in the scanned text
    # the window scanned is what counts: `#` outside it does not let the pattern run
    assert content.find("code ABC here #", 0, 13) == []
    bad = tmp_path / "bad.toml"
    bad.write_text("[[protect]]\nname = 'x'\nclass = 'c'\npattern = 'x'\nrequires = '(['\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad requires"):
        ProtectedContent.from_files([bad])


def test_bundled_requires_hold_inside_every_match(protected: ProtectedContent) -> None:
    """`requires` is speed only: on fuzzed eponym- and device-like text, every match of a bundled
    pattern that has one contains a match of it (so skipping a window loses nothing)."""
    import random

    patterns = [p for p in protected.patterns if p.requires is not None]
    assert {p.name for p in patterns} >= {"eponym", "eponym_device"}
    pieces = [
        *("Fleischner", "Kerley", "B", "Swan", "Ganz", "Jackson", "Pratt", "O'Brien", "Baker", "Parkers", "NASCET"),
        *(" ", "  ", "\t", "-", "'s", "'", "s'", "’", ".", "Dr. ", "\n", "x"),
        *("Society", "sign", "lines", "cyst", "nodule", "catheter", "drain", "tube", "filter", "coma ", "scale"),
    ]
    rng = random.Random(8)
    matched = 0
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))) + rng.choice([" sign", " drain", ""])
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        for pattern in patterns:
            for low, high in ((0, len(text)), (start, end)):
                for match in pattern.regex.finditer(text, low, high):
                    matched += 1
                    assert pattern.requires.search(text, low, high), (pattern.name, text)  # type: ignore[union-attr]
                    assert pattern.requires.search(text, match.start(), match.end()), (pattern.name, text)  # type: ignore[union-attr]
    assert matched > 200


def _find_spelled_out(protected: ProtectedContent, text: str, start: int, end: int) -> list[ProtectedSpan]:
    """`ProtectedContent.find` as first written: every pattern, its conditions checked in turn."""
    found: list[ProtectedSpan] = []
    has_digit = re.search(r"\d", text[start:end]) is not None
    for pattern in protected.patterns:
        if pattern.needs_digit and not has_digit:
            continue
        if pattern.requires is not None and pattern.requires.search(text, start, end) is None:
            continue
        for match in pattern.regex.finditer(text, start, end):
            s, e = match.span(pattern.group)
            if e > s and any(ch.isalnum() for ch in text[s:e]):
                found.append(ProtectedSpan(s, e, pattern.klass, pattern.name, pattern.soft))
    found.sort(key=lambda p: (p.start, -p.end))
    return found


_FRAGMENTS = (
    "Temp 98.6 F", "Grade 3/6 murmur", "L4/5", "BI-RADS 4", "120 kVp", "Baker cyst", "Foley catheter",
    "Dr. Jane Smith", "CT CHEST WITH CONTRAST", "Department of Radiology", "Christmas", "PACS",
    "INR 2.3", "a 45-year-old man", "Gleason 3+4=7", "at 14:30", "MRN 4471235", "Mercy Hospital",
    "Cardiology", "Findings:", "x", "7", " ", "  ", "\n", ", ", ".", "(", ")", "-", "é",
)  # fmt: skip


def test_find_equals_the_spelled_out_loop(protected: ProtectedContent, tmp_path: Path) -> None:
    """The precomputed plans (and the digit-free subset) find exactly what every pattern finds."""
    extra = tmp_path / "extra.toml"
    extra.write_text(
        '[[protect]]\nname = "kept_code"\nclass = "codes"\npattern = "code (?P<keep>[A-Z]\\\\d+)"\n'
        'needs_digit = true\n\n[[protect]]\nname = "plain_word"\nclass = "misc_words"\n'
        'pattern = "(?i)smith"\nedge = "soft"\n',
        encoding="utf-8",
    )
    with_extra = ProtectedContent.from_files([extra])
    rng = random.Random(11)
    for _ in range(1500):
        text = "".join(rng.choice(_FRAGMENTS + ("code B12", "code x")) for _ in range(rng.randint(1, 12)))
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        for content in (protected, with_extra):
            assert content.find(text, start, end) == _find_spelled_out(content, text, start, end)
        assert protected.find(text) == _find_spelled_out(protected, text, 0, len(text))
