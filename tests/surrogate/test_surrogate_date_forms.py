"""Dates outside the common forms (issue 13): compact, ISO date-times, DICOM date-times, and
impossible dates, which get a valid date of the same format instead of random digits."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from surrogate_helpers import KEY

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer, date_template
from radeid.replace.surrogate.date_repair import impossible_clock
from radeid.replace.surrogate.date_template import Field
from radeid.replace.surrogate.dates import parse_date

D = Category.DATE
MON = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]


def _replace(replacer: SurrogateReplacer, text: str, patient: str = "p1") -> str:
    doc = Document("doc", f"on {text}.", patient_id=patient)
    return replacer.replace(doc, [Span(3, 3 + len(text), D)]).replacements[0].new_text


@pytest.mark.parametrize(
    ("original", "writer"),
    [
        ("05MAR2019", lambda d: f"{d.day:02d}{MON[d.month - 1]}{d.year}"),
        ("20190305", lambda d: f"{d.year}{d.month:02d}{d.day:02d}"),
        ("5-Mar-19", lambda d: f"{d.day}-{MON[d.month - 1].title()}-{d.year % 100:02d}"),
        ("2019-03-05", lambda d: d.isoformat()),
        ("2019-03-05T14:30:00Z", lambda d: f"{d.isoformat()}T14:30:00Z"),
        ("2019-03-05T14:30:00.250+01:00", lambda d: f"{d.isoformat()}T14:30:00.250+01:00"),
        ("2019-03-05 14:30", lambda d: f"{d.isoformat()} 14:30"),
        ("20190305143000", lambda d: f"{d.year}{d.month:02d}{d.day:02d}143000"),
        ("05-MAR-2019 14:30", lambda d: f"{d.day:02d}-{MON[d.month - 1]}-{d.year} 14:30"),
        ("3/5/2019 2:30:00 PM", lambda d: f"{d.month}/{d.day}/{d.year} 2:30:00 PM"),
    ],
)
def test_compact_and_iso_forms_shift_by_the_patient_offset_and_keep_the_time(original: str, writer) -> None:  # noqa: ANN001
    replacer = SurrogateReplacer(KEY, SurrogateOptions())
    new = _replace(replacer, original)
    expected = writer(date(2019, 3, 5) + timedelta(days=replacer.date_offset("p1")))
    assert new == expected
    assert replacer.stats["date_unparseable"] == 0


def test_one_patient_gets_one_shift_across_forms() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions())
    forms = ["05MAR2019", "20190305", "2019-03-05T14:30:00Z", "03/05/2019", "March 5, 2019"]
    moved = [parse_date(_replace(replacer, f)) for f in forms]
    assert all(m is not None for m in moved)
    assert len({(m.year, m.month, m.day) for m in moved if m is not None}) == 1


@pytest.mark.parametrize(
    ("original", "shape"),
    [
        ("2/30/2020", r"\d{1,2}/\d{2}/\d{4}"),
        ("02/30/20", r"\d{2}/\d{2}/\d{2}"),
        ("2019-02-30", r"\d{4}-\d{2}-\d{2}"),
        ("31APR2019", r"\d{2}[A-Z]{3}\d{4}"),
        ("Feb 30, 2020", r"[A-Z][a-z]{2} \d{1,2}, \d{4}"),
        ("2019-13-05T48:30:00Z", r"\d{4}-\d{2}-\d{2}T\d{2}:30:00Z"),
        ("2019-03-05T14:75:00Z", r"\d{4}-\d{2}-\d{2}T14:\d{2}:00Z"),
        ("99/99/9999", r"\d{2}/\d{2}/\d{4}"),
        ("20191332", r"\d{8}"),
        ("12/31/9999", r"\d{1,2}/\d{2}/\d{4}"),
    ],
)
def test_an_impossible_date_gets_a_valid_date_of_the_same_format_and_is_counted(original: str, shape: str) -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions())
    new = _replace(replacer, original)
    assert re.fullmatch(shape, new), new
    parsed = parse_date(new)
    assert parsed is not None and parsed.kind == "ymd", new
    assert 1900 <= parsed.year <= 2100
    assert replacer.stats["date_unparseable"] == 1
    assert _replace(SurrogateReplacer(KEY, SurrogateOptions()), original) == new  # keyed, stable


def test_regression_cases_of_issue_13() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions())
    for original in ("05MAR2019", "20190305", "2019-03-05T14:30:00Z", "2/30/2020"):
        new = _replace(replacer, original)
        value = parse_date(new)
        assert value is not None and value.kind == "ymd" and 1900 <= value.year <= 2100, (original, new)
    assert _replace(replacer, "2019-03-05T14:30:00Z").endswith("T14:30:00Z")


def _form(style: int, y: int, m: int, d: int) -> str:
    """Many formats, fed with any numbers (valid or not)."""
    mon = MON[(m - 1) % 12]
    return [
        f"{m}/{d}/{y:04d}",
        f"{m:02d}/{d:02d}/{y % 100:02d}",
        f"{d:02d}.{m:02d}.{y:04d}",
        f"{y:04d}-{m:02d}-{d:02d}",
        f"{y:04d}-{m:02d}-{d:02d}T{d % 30:02d}:{m * 7 % 99:02d}:00Z",
        f"{y:04d}{m:02d}{d:02d}",
        f"{d:02d}{mon}{y:04d}",
        f"{d}-{mon.title()}-{y % 100:02d}",
        f"{mon.title()} {d}, {y:04d}",
        f"{m:02d}/{d:02d}/{y:04d} {d % 30:02d}:{m:02d}",
    ][style]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    style=st.integers(0, 9),
    year=st.one_of(st.integers(1900, 2100), st.integers(0, 9999)),
    month=st.integers(0, 99),
    day=st.integers(0, 99),
    patient=st.text(min_size=1, max_size=6),
    day_first=st.booleans(),
)
def test_every_generated_date_is_a_valid_calendar_date_with_a_plausible_year(
    style: int, year: int, month: int, day: int, patient: str, day_first: bool
) -> None:
    original = _form(style, year, month, day)
    replacer = SurrogateReplacer(KEY, SurrogateOptions(day_first=day_first))
    new = _replace(replacer, original, patient)
    parsed = parse_date(new, day_first)
    assert parsed is not None and parsed.kind == "ymd", (original, new)
    assert 1899 <= parsed.year <= 2101, (original, new)
    if style == 4:
        hh, mm = new.split("T")[1][:5].split(":")
        assert int(hh) < 24 and int(mm) < 60
    value = parse_date(original, day_first)
    valid = value is not None and 1900 <= value.year <= 2100 and not impossible_clock(original)
    assert replacer.stats["date_unparseable"] == (0 if valid else 1)


def test_year_zero_in_a_compact_date_is_repaired_and_counted() -> None:
    """Found by the property test above: "01DEC0000" parsed as a month and day (year 0 reads as
    no year) and was shifted without being counted; it is a placeholder, repaired like 12/31/9999."""
    replacer = SurrogateReplacer(KEY, SurrogateOptions())
    new = _replace(replacer, "01DEC0000", "0")
    parsed = parse_date(new, False)
    assert parsed is not None and parsed.kind == "ymd" and 1899 <= parsed.year <= 2101, new
    assert re.fullmatch(r"\d{2}[A-Z]{3}\d{4}", new) and replacer.stats["date_unparseable"] == 1


def test_shared_fields_parse_like_fields_built_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path's cached `_field` instances give the same parses as building each field."""
    rng = random.Random(4)
    texts = []
    for _ in range(3000):
        a, b = (str(rng.randint(0, 32)).zfill(rng.choice((1, 2))) for _ in range(2))
        year = str(rng.randint(1800, 2199)) if rng.random() < 0.7 else str(rng.randint(0, 99)).zfill(2)
        sep = rng.choice("/.-")
        month = rng.choice(["March", "MAR", "mar", "Sept", "JANUARY", "may", "Foo"])
        texts += [
            f"{a}{sep}{b}{sep}{year}",
            f"{rng.randint(1800, 2199)}-{a}-{b}",
            f"{month}{rng.choice(['. ', ' '])}{a}, 2019",
        ]
    cached = [date_template._parse_numeric(t, day_first) for t in texts for day_first in (False, True)]
    monkeypatch.setattr(
        date_template, "_field", lambda kind, pad=False, form="", case="": Field(kind, pad=pad, form=form, case=case)
    )
    fresh = [date_template._parse_numeric(t, day_first) for t in texts for day_first in (False, True)]
    assert cached == fresh
    assert sum(p is not None for p in cached) > 1000


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("03/05/2019", "2019-04-14"),
        ("March 5th, 2019", "2019-04-14"),
        ("Tuesday, 5 March 2019", "2019-04-14"),
        ("05MAR2019", "2019-04-14"),
        ("20190305", "2019-04-14"),
        ("2019-03-05T14:30:00Z", "2019-04-14T14:30:00Z"),  # the time of day stays beside it
        ("03/2019", "04/2019"),  # only full dates take the format
        ("2019", "2020"),
    ],
)
def test_date_format_writes_every_full_date_in_one_format(original: str, expected: str) -> None:
    """Issue 28: `[surrogate] date_format` (one output format for full dates)."""
    replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:40", date_format="%Y-%m-%d"))
    assert _replace(replacer, original) == expected


def test_date_format_applies_to_kept_dates_too() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="none", date_format="%d.%m.%Y"))
    assert _replace(replacer, "March 5, 2019") == "05.03.2019"
    assert _replace(replacer, "2019") == "2019"


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ("%Y-%m", "must contain a day (%d or %e)"),
        ("%d.%m.", "must contain a year (%Y or %y)"),
        ("date", "must contain a year (%Y or %y), a month (%m, %b or %B), a day (%d or %e)"),
    ],
)
def test_date_format_without_year_month_and_day_is_refused(fmt: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        SurrogateOptions(date_format=fmt)


def test_a_year_first_month_word_date_reads_back_after_its_shift() -> None:
    """A date like "32-Jan-01" is year-month-day (no day 32); shifted to 1931-06-07 it is "31-Jun-07",
    which must read back as that date, not be refused as 31 June (found by the property test)."""
    back = parse_date("31-Jun-07")
    assert back is not None and (back.kind, back.year, back.month, back.day) == ("ymd", 1931, 6, 7)
    assert parse_date("31-Jun-2007") is None  # a four-digit year: the day really is 31 June
    replacer = SurrogateReplacer(KEY)
    for patient in ("p1", "p2", "p3", "p4", "p5", "p6"):
        new = _replace(replacer, "32-Jan-01", patient)
        parsed = parse_date(new)
        assert parsed is not None and parsed.kind == "ymd", new
