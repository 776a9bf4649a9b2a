"""Protected content: clinical values and words that must never become PHI."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.detect.protected import ProtectedContent, merge_intervals


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
    from radeid.categories import Category
    from radeid.document import Span

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


# ------------------------------------------------------------------ fast forms of the patterns

# Patterns that start with a character class instead of a lookbehind (`\d(?<![\w.]\d)` for
# `(?<![\w.])\d`) let `re` skip to candidate characters in C. Each row: pattern name and
# (fast piece, readable piece) pairs; the readable pattern is the bundled one with every fast
# piece replaced. Both must find exactly the same matches.
_NUM_FAST, _NUM_READABLE = r"\d(?<![\w./:-]\d)\d*", r"(?<![\w./:-])\d+"
_FAST_FORMS: list[tuple[str, list[tuple[str, str]]]] = [
    ("temperature", []),  # {{NUM}}
    ("percent", []),
    ("dose", []),
    ("measurement", []),
    ("fraction_context_after", [(r"\d(?<![\w/.]\d)\d{0,2}", r"(?<![\w/.])\d{1,3}")]),
    (
        "out_of",
        [
            (r"\d(?<![\w/.]\d)(?:[+-]", r"(?<![\w/.])\d[+-]"),
            (r"|(?<=[0-4])\+", r"|(?<![\w/.])[0-4]\+"),
            (r"(?![^\W_])))", r"(?![^\W_]))"),
        ],
    ),
    (
        "spinal_level",
        [
            (
                r"[CTLS](?<![\w/.-][CTLS])(?<!(?i:room)[ \t][CTLS])(?<!(?i:bed)[ \t][CTLS])(?<!(?i:rm)[ \t][CTLS])",
                r"(?<![\w/.-])(?<!(?i:room)[ \t])(?<!(?i:bed)[ \t])(?<!(?i:rm)[ \t])",
            ),
            (
                r"(?:(?<=C)[1-8]|(?<=T)(?:1[0-2]|[1-9])|(?<=L)[1-5]|(?<=S)[1-5]|(?<=C)o1)",
                r"(?:C[1-8]|T(?:1[0-2]|[1-9])|L[1-5]|S[1-5]|Co1)",
            ),
        ],
    ),
    ("gcs_components", [(r"E(?<![\w]E)", r"(?<![\w])E")]),
    ("times_count", [(r"[x×](?<![\w][x×])", r"(?<![\w])[x×]")]),
    ("gleason_sum", [(r"[1-5](?<![\w.+][1-5])", r"(?<![\w.+])[1-5]")]),
    ("code_icd9_bare", [(r"\d(?<![\w.$/:-]\d)\d{2}", r"(?<![\w.$/:-])\d{3}")]),
    ("code_icd10_bare", [(r"[A-TV-Z](?<![\w.][A-TV-Z])", r"(?<![\w.])[A-TV-Z]")]),
    ("time_clock", [(r"\d(?<![\w:.]\d)(?:(?<=[01])\d?|(?<![01])|(?<=2)[0-4])", r"(?<![\w:.])(?:[01]?\d|2[0-4])")]),
    ("time_iso", [(r"T(?<=\dT)", r"(?<=\d)T")]),
    ("time_military", [(r"[0-2](?<![\w.:][0-2])(?:(?<=[01])\d|(?<=2)[0-3])", r"(?<![\w.:])(?:[01]\d|2[0-3])")]),
    (
        "time_am_pm",
        [(r"[0-9](?<![\w.:/][0-9])(?:(?<=1)[0-2]|(?<=0)[1-9]|(?<=[1-9]))", r"(?<![\w.:/])(?:1[0-2]|0?[1-9])")],
    ),
    ("training_level", [(r"(?:P(?<![\w]P)GY|p(?<![\w]p)gy|M(?<![\w]M)S|H(?<![\w]H)O)", r"(?<![\w])(?:PGY|pgy|MS|HO)")]),
    ("ward_name", [(r"\d(?<![\w]\d)\d?", r"(?<![\w])\d{1,2}")]),
    ("age_years_old", [(r"\d(?<![\w.]\d)(?:(?<=[1-8])\d)?", r"(?<![\w.])(?:[1-8]?\d)")]),
    ("age_sex", [(r"\d(?<![\w.:/]\d)(?:(?<=[1-8])\d)?", r"(?<![\w.:/])(?:[1-8]?\d)")]),
]


def test_fast_forms_find_what_the_readable_forms_find() -> None:
    import random
    import re

    from radeid.detect.pattern_files import MacroExpander, read_pattern_file
    from radeid.detect.protected import bundled_protected_files

    macros: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    sources: dict[str, str] = {}
    for path in bundled_protected_files():
        data = read_pattern_file(path, {"macros", "lists", "protect"}, "protected-content file")
        macros.update(data.get("macros", {}))
        lists.update(data.get("lists", {}))
        sources.update({entry["name"]: entry["pattern"] for entry in data.get("protect", [])})
    assert macros["NUM"].startswith(_NUM_FAST)
    readable_num = macros["NUM"].replace(_NUM_FAST, _NUM_READABLE, 1)
    expander = MacroExpander({**macros, "NUM": readable_num}, lists)
    bundled = {p.name: p.regex for p in ProtectedContent.from_files().patterns}
    pieces = [
        *"0123456789012 .,:/-+xX×°%CFTLSEMVPGYHOAB#=()\t",
        *("\u0663", "\u00b2", "PGY", "pgy", "MS", "HO", "Co1", "C5", "T11", "L4", "S1", "room ", "ROOM "),
        *("Bed\t", "rm ", "West", "EAST", "y/o", "years old", "mm", "cm", "mg", "degrees", "am", "pm"),
        *("T12:30", "12:45", "0930h", "E4V5M6", "reflexes", "at ", "5/5 ", "12/6", "3+/5", "2+ ", "1:2", "4+3"),
    ]
    rng = random.Random(3)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    examples = [
        *("5/5 strength", "2/6 murmur", "3+/5 pulses", "2+ reflexes", "20/40 vision", "1/2 pain", "786.5", "J18.9"),
        *("PGY-3", "x3", "3 + 4 = 7", "2019-01-02T12:30", "1430 hours", "3 pm", "4 West", "65 years old", "45 M"),
        *("C5-C6", "98.6 F", "50%", "5 mg", "3.2 cm", "10:45 am", "E4V5M6"),
        *("\u0663:45", "\u0663 years old", "1\u0663 M", "\u0663.5 cm", "\u0663 West", "2\u0663:10"),  # other digits
    ]
    texts += [rng.choice(pieces) + rng.choice(examples) + rng.choice(pieces) for _ in range(300)]
    for name, pairs in _FAST_FORMS:
        source = sources[name]
        for fast, readable in pairs:
            assert source.count(fast) == 1, (name, fast)
            source = source.replace(fast, readable)
        slow, quick = re.compile(expander.expand(source)), bundled[name]
        matched = 0
        for text in texts:
            start = rng.randint(0, len(text))
            end = rng.randint(start, len(text))
            for low, high in ((0, len(text)), (start, end)):
                want = [m.span() for m in slow.finditer(text, low, high)]
                assert [m.span() for m in quick.finditer(text, low, high)] == want, (name, text, low, high)
                matched += len(want)
        assert matched > 0, name  # the texts exercise every pattern
