"""Form checks for every category a model can emit."""

from __future__ import annotations

import pytest

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.patterns.forms import FormChecker, looks_like_date


@pytest.fixture(scope="module")
def checker() -> FormChecker:
    return FormChecker(age_threshold=89)


def ok(checker: FormChecker, text: str, category: Category, piece: str | None = None) -> bool:
    piece = text if piece is None else piece
    start = text.index(piece)
    return checker.plausible(text, Span(start, start + len(piece), category, source="transformer"))


@pytest.mark.parametrize(
    ("text", "category", "expected"),
    [
        ("jane.doe@example.org", Category.EMAIL, True),
        ("Christmas", Category.EMAIL, False),
        ("www.example.org", Category.URL, True),
        ("https://x.example/path", Category.URL, True),
        ("example.org", Category.URL, True),
        ("Workstation", Category.URL, False),
        ("192.168.10.21", Category.IP, True),
        ("786.2", Category.IP, False),
        ("217-555-0147", Category.PHONE, True),
        ("786.2", Category.PHONE, False),
        ("MRN12345", Category.ID, True),
        ("Smith", Category.ID, False),
    ],
)
def test_shaped_categories(checker: FormChecker, text: str, category: Category, expected: bool) -> None:
    assert ok(checker, text, category) is expected


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        ("3/4/2019", True),
        ("25/12/2019", True),
        ("2019-07-04", True),
        ("2019-07-04T10:15:00", True),
        ("3/4", True),
        ("05MAR2019", True),
        ("20190305", True),
        ("March 4, 2019", True),
        ("4th of March", True),
        ("2019", True),
        ("Monday", True),
        ("20/20", False),  # no month 20
        ("2/30", False),  # no 30 February, and no year to say it is a date all the same
        # a full year makes a mistyped numeric date a date (MEDDOCAN "14/14/2014", "23/010/1990"): the
        # patient's date all the same, whose surrogate is a valid date of the same shape
        ("2/30/2020", True),
        ("14/14/2014", True),
        ("23/010/1990", True),
        ("14/14/14", False),
        ("año 1978", True),  # a named year
        ("the year 2003", True),
        ("im Jahr 2015", True),
        ("12/34", False),
        ("/", False),
        ("786.2", False),
        ("9999", False),
    ],
)
def test_dates_must_be_real(piece: str, expected: bool) -> None:
    assert looks_like_date(piece) is expected


def test_age_needs_a_number_over_the_threshold_next_to_an_age_word(checker: FormChecker) -> None:
    assert ok(checker, "a 93 year old woman", Category.AGE, "93")
    assert not ok(checker, "Temp 98.6 F", Category.AGE, "98")
    assert not ok(checker, "a 45 year old woman", Category.AGE, "45")
    # an age written in words counts as its number (issue 25): over the threshold it is PHI
    assert ok(checker, "Age: ninety", Category.AGE, "ninety")
    assert not ok(checker, "Age: seventy", Category.AGE, "seventy")
    assert not ok(checker, "Age: unknown", Category.AGE, "unknown")


def test_a_single_common_word_is_not_a_name_place_hospital_or_vendor(checker: FormChecker) -> None:
    for word, category in [
        ("rounds", Category.PATIENT),
        ("Society", Category.HOSPITAL),
        ("projection", Category.VENDOR),
        ("OVAL", Category.LOCATION),
    ]:
        assert not ok(checker, word, category), word
    # names that are also words stay possible: they are in Faker's name lists
    for word, category in [("Rose", Category.PATIENT), ("Hunter", Category.HCW), ("Smith", Category.PATIENT)]:
        assert ok(checker, word, category), word
    # two words are never "a single common word", but lower-case common words are prose
    assert ok(checker, "Grace Hospital", Category.HOSPITAL)
    assert not ok(checker, "bone marrow", Category.HOSPITAL)
    assert ok(checker, "bertram jørgensen", Category.PATIENT)


def test_common_words_are_built_on_first_use_and_honour_the_switch() -> None:
    """The list is loaded lazily (a config check builds a checker it never uses), yet every check sees it."""
    lazy, off = FormChecker(), FormChecker(check_common_words=False)
    assert lazy._common is None
    text = "Society rounds"
    span = Span(0, 7, Category.HOSPITAL)
    assert not lazy.plausible(text, span)  # "Society" is a common English word: not a hospital name
    assert lazy._common is not None and "society" in lazy.common
    assert off.plausible(text, span) and off.common == frozenset()


def test_the_bundled_word_ranks_are_pyspellcheckers_first_entries() -> None:
    """The bundled list (scripts/build_common_words.py) is the installed pyspellchecker's list,
    cut at COMMON_WORD_RANK, in its order; checked when the version it was built from is here."""
    import gzip
    import json
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    from radeid.core.resources import bundled_data_path
    from radeid.patterns.forms import COMMON_WORD_RANK, _ranked_words, function_words

    bundled = bundled_data_path("lang", "en", "lexicons", "common_words_en.txt")
    header = bundled.read_text(encoding="utf-8").splitlines()[0]
    try:
        installed = version("pyspellchecker")
    except PackageNotFoundError:
        pytest.skip("pyspellchecker is not installed")
    if f"pyspellchecker {installed}'s" not in header:
        pytest.skip(f"the list was built from another pyspellchecker than {installed}: {header}")
    import spellchecker

    with gzip.open(Path(spellchecker.__file__).parent / "resources" / "en.json.gz", "rt", encoding="utf-8") as handle:
        counts: dict[str, int] = json.load(handle)
    expected = sorted(counts, key=counts.__getitem__, reverse=True)[:COMMON_WORD_RANK]
    assert list(_ranked_words()) == expected
    assert {"the", "for", "with", "on"} <= function_words()
