"""Dates: exact template kept, one offset per patient, partial dates, fallbacks, options."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from surrogate_helpers import KEY, OTHER_KEY, doc_with

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.dates import month_shift_of, parse_date, shift_date

D = Category.DATE
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _case(word: str, case: str) -> str:
    return word.upper() if case == "upper" else word.lower() if case == "lower" else word


def _ordinal(day: int) -> str:
    return "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def fmt(d: date, style: dict) -> str:
    """An independent writer of date formats (not the code under test)."""
    pad, sep, y4 = style["pad"], style["sep"], style["y4"]
    year = f"{d.year:04d}" if y4 else f"{d.year % 100:02d}"
    month = f"{d.month:02d}" if pad else str(d.month)
    day = f"{d.day:02d}" if pad else str(d.day)
    name = MONTHS[d.month - 1]
    name = name[:3] if style["abbr"] else name
    name = _case(name, style["case"])
    kind = style["kind"]
    if kind == "mdy":
        out = f"{month}{sep}{day}{sep}{year}"
    elif kind == "dmy":
        out = f"{day}{sep}{month}{sep}{year}"
    elif kind == "ymd":
        out = f"{d.year:04d}{sep}{month}{sep}{day}"
    elif kind == "name":
        suffix = _case(_ordinal(d.day), "upper" if style["case"] == "upper" else "lower") if style["ord"] else ""
        out = f"{name} {day}{suffix}, {d.year}"
    elif kind == "dname":
        out = f"{day}-{name}-{year}"
    else:  # compact
        out = f"{d.year:04d}{d.month:02d}{d.day:02d}"
    if style["weekday"]:
        out = _case(WEEKDAYS[d.weekday()], style["case"]) + ", " + out
    return out


dates = st.dates(min_value=date(1905, 1, 1), max_value=date(2095, 12, 31))
styles = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["mdy", "dmy", "ymd", "name", "dname", "compact"]),
        "pad": st.booleans(),
        "sep": st.sampled_from(["/", "-", "."]),
        "y4": st.booleans(),
        "abbr": st.booleans(),
        "case": st.sampled_from(["title", "upper", "lower"]),
        "ord": st.booleans(),
        "weekday": st.booleans(),
    }
)


def _well_defined(d: date, style: dict) -> bool:
    """Formats whose padding or reading the text cannot show are left out of the property."""
    kind = style["kind"]
    if kind in ("mdy", "dmy", "ymd") and not style["pad"] and d.month >= 10 and d.day >= 10:
        return False  # "12/25" does not say whether it is padded
    if kind in ("name", "dname") and style["pad"] and d.day >= 10:
        return False  # "March 15" does not say it either
    if kind in ("name", "dname") and style["abbr"] and d.month == 5:
        return False  # "May" is both forms
    if not style["y4"] and kind in ("mdy", "dmy", "dname"):
        return 1930 <= d.year <= 2029  # two-digit years read 1930-2029
    return True


@SETTINGS
@given(d=dates, style=styles, patient=st.text(min_size=1, max_size=8))
def test_template_is_kept_exactly_and_the_date_moves_by_the_patient_offset(d: date, style: dict, patient: str) -> None:
    assume(_well_defined(d, style))
    day_first = style["kind"] == "dmy"
    replacer = SurrogateReplacer(KEY, SurrogateOptions(day_first=day_first))
    original = fmt(d, style)
    doc = Document("doc", f"Exam on {original}.", patient_id=patient)
    result = replacer.replace(doc, [Span(8, 8 + len(original), D)])
    offset = replacer.date_offset(patient)
    assert offset != 0 and abs(offset) <= 365
    try:
        moved = d + timedelta(days=offset)
    except OverflowError:
        return
    assume(_well_defined(moved, style))
    assert result.replacements[0].new_text == fmt(moved, style)
    assert result.text == f"Exam on {fmt(moved, style)}."
    assert replacer.stats["date_unparseable"] == 0


@SETTINGS
@given(
    dates_per_doc=st.lists(st.lists(dates, min_size=1, max_size=4), min_size=2, max_size=4),
    seed=st.integers(0, 1000),
)
def test_every_interval_of_a_patient_is_kept_across_documents_in_any_order(dates_per_doc, seed) -> None:  # noqa: ANN001
    rng = random.Random(seed)
    docs = []
    for i, ds in enumerate(dates_per_doc):
        parts, spans, pos = [], [], 0
        for d in ds:
            text = rng.choice([d.strftime("%m/%d/%Y"), d.isoformat(), f"{MONTHS[d.month - 1]} {d.day}, {d.year}"])
            parts.append(text + "; ")
            spans.append(Span(pos, pos + len(text), D))
            pos += len(text) + 2
        docs.append((Document(f"doc{i}", "".join(parts), patient_id="patient-7"), spans, ds))
    rng.shuffle(docs)
    moved = []
    for doc, spans, ds in docs:
        result = SurrogateReplacer(KEY).replace(doc, spans)  # a fresh replacer per document
        for rep, d in zip(result.replacements, ds, strict=True):
            p = parse_date(rep.new_text)
            assert p is not None and p.kind == "ymd"
            moved.append((d, date(p.year, p.month, p.day)))
    shifts = {(new - old).days for old, new in moved}
    assert len(shifts) == 1 and 0 not in shifts  # one offset: every interval is unchanged


@pytest.mark.parametrize(
    ("original", "shifted"),
    [
        ("03/15/2020", "04/24/2020"),
        ("3/5/2020", "4/14/2020"),
        ("2020-03-15", "2020-04-24"),
        ("20200315", "20200424"),
        ("03/15/20", "04/24/20"),
        ("March 5th, 2020", "April 14th, 2020"),
        ("MARCH 5TH, 2020", "APRIL 14TH, 2020"),
        ("Mar 5, 2020", "Apr 14, 2020"),
        ("mar 05 2020", "apr 14 2020"),
        ("05-MAR-2020", "14-APR-2020"),
        ("5 March 2020", "14 April 2020"),
        ("the 1st of June, 2020", "the 11th of July, 2020"),
        ("Sept. 3, 2019", "Oct. 13, 2019"),
        ("Tuesday, March 5th, 2019", "Sunday, April 14th, 2019"),  # weekday recomputed
        ("Tue 03/05/2019", "Sun 04/14/2019"),
        ("03/15/2020 10:30", "04/24/2020 10:30"),  # the time of day is kept
        ("2020-03-15T10:30:00Z", "2020-04-24T10:30:00Z"),
        ("03/2020", "04/2020"),  # month/year: whole months
        ("March 2020", "April 2020"),
        ("Jan '98", "Feb '98"),
        ("March 5", "April 14"),  # month/day
        ("3/5", "4/14"),
        ("Monday", "Saturday"),  # weekday alone: moved by the offset modulo 7
        ("2019", "2020"),  # year only: whole years, never 0 (issue 28)
    ],
)
def test_date_forms_with_a_known_offset(original: str, shifted: str) -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:40"))
    doc, spans = doc_with(f"on {original} ok", [(original, D)])
    assert replacer.replace(doc, spans).replacements[0].new_text == shifted


def test_day_first_option_and_impossible_readings() -> None:
    us = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:1"))
    eu = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:1", day_first=True))
    doc, spans = doc_with("on 03/04/2020 and 13/05/2020", [("03/04/2020", D), ("13/05/2020", D)])
    assert [r.new_text for r in us.replace(doc, spans).replacements] == ["03/05/2020", "14/05/2020"]
    assert [r.new_text for r in eu.replace(doc, spans).replacements] == ["04/04/2020", "14/05/2020"]


def test_year_alone_moves_in_whole_years_never_zero() -> None:
    """Issue 28: "in 2019" stayed 2019 whenever the shift did not cross a year boundary."""

    def year_after(offset: int, keep_years: bool = False) -> str:
        replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift=f"fixed:{offset}", keep_years=keep_years))
        doc, spans = doc_with("in 2019 CT", [("2019", D)])
        return replacer.replace(doc, spans).replacements[0].new_text

    assert year_after(1) == "2020"
    assert year_after(100) == "2020"
    assert year_after(-1) == "2018"
    assert year_after(-200) == "2018"
    assert year_after(400) == "2020"  # round(400 / 365.25) = 1
    assert year_after(800) == "2021"
    assert year_after(-800) == "2017"
    assert year_after(0) == "2019"  # fixed:0 keeps dates on purpose
    assert year_after(100, keep_years=True) == "2019"


def test_years_alone_never_survive_for_many_keys_and_agree_with_full_dates() -> None:
    """50 keys: every year alone moves (by the same whole years), and "(2021)" moves with
    "since 2015"; a full date next to it keeps its exact interval."""
    text = "Diabetic since 2015; CT in 2019 (2021 follow-up) compared with 12/20/2019."
    for k in range(50):
        replacer = SurrogateReplacer(f"year-key-{k}".encode())
        doc, spans = doc_with(text, [("2015", D), ("2019", D), ("2021", D), ("12/20/2019", D)])
        news = [r.new_text for r in replacer.replace(doc, spans).replacements]
        years = [int(n) for n in news[:3]]
        moved = [y - o for y, o in zip(years, (2015, 2019, 2021), strict=True)]
        offset = replacer.date_offset("p1")
        assert len(set(moved)) == 1 and moved[0] == (1 if offset > 0 else -1), (news, offset)
        full = date(2019, 12, 20) + timedelta(days=offset)
        assert news[3] == full.strftime("%m/%d/%Y")
        assert abs(full.year - years[1]) <= 1


def test_keep_years_keeps_years_alone_and_still_shifts_full_dates() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(keep_years=True))
    doc, spans = doc_with("CT in 2019 and on 12/20/2019.", [("2019", D), ("12/20/2019", D)])
    year, full = (r.new_text for r in replacer.replace(doc, spans).replacements)
    assert year == "2019"
    assert full == (date(2019, 12, 20) + timedelta(days=replacer.date_offset("p1"))).strftime("%m/%d/%Y")


def test_partial_month_year_shift_is_whole_months_and_never_zero() -> None:
    assert month_shift_of(0) == 0
    assert month_shift_of(5) == 1 and month_shift_of(-5) == -1
    assert month_shift_of(61) == 2 and month_shift_of(-365) == -12
    p = parse_date("11/2020")
    assert p is not None and shift_date(p, 61) == "01/2021"


def test_month_day_uses_the_document_year() -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:1"))
    doc, spans = doc_with("seen 02/27/2021; follow-up 2/28", [("02/27/2021", D), ("2/28", D)])
    assert replacer.replace(doc, spans).replacements[1].new_text == "3/1"  # 2021 is no leap year
    doc, spans = doc_with("seen 02/27/2020; follow-up 2/28", [("02/27/2020", D), ("2/28", D)])
    assert replacer.replace(doc, spans).replacements[1].new_text == "2/29"


@pytest.mark.parametrize("text", ["32/45/2020", "the day before yesterday", "Q3 FY21", "12/31/9999"])
def test_unparseable_dates_get_a_same_shape_stand_in_and_a_warning_count(text: str) -> None:
    replacer = SurrogateReplacer(KEY, SurrogateOptions(max_shift_days=30))
    doc, spans = doc_with(f"[{text}]", [(text, D)])
    if text == "12/31/9999":
        replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:5"))
    new = replacer.replace(doc, spans).replacements[0].new_text
    assert replacer.stats["date_unparseable"] == 1
    assert new != text
    if any(c.isdigit() for c in text):
        assert len(new) == len(text)
        assert [c.isdigit() for c in new] == [c.isdigit() for c in text]


def test_date_shift_none_and_fixed() -> None:
    doc, spans = doc_with("on 03/15/2020", [("03/15/2020", D)])
    none = SurrogateReplacer(KEY, SurrogateOptions(date_shift="none"))
    assert none.replace(doc, spans).text == doc.text
    fixed = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:-15"))
    assert fixed.replace(doc, spans).text == "on 02/29/2020"
    with pytest.raises(ValueError, match="date_shift"):
        SurrogateOptions(date_shift="sometimes")


@settings(max_examples=40, deadline=None)
@given(patient=st.text(min_size=1, max_size=10), max_days=st.integers(1, 2000))
def test_patient_offset_range_is_configurable_and_keyed(patient: str, max_days: int) -> None:
    a = SurrogateReplacer(KEY, SurrogateOptions(max_shift_days=max_days)).date_offset(patient)
    b = SurrogateReplacer(KEY, SurrogateOptions(max_shift_days=max_days)).date_offset(patient)
    assert a == b and a != 0 and -max_days <= a <= max_days


def test_different_keys_shift_differently() -> None:
    offsets = {SurrogateReplacer(k).date_offset("p1") for k in (KEY, OTHER_KEY, b"third-key-for-tests!")}
    assert len(offsets) > 1


def test_ages_over_89_stay_over_89_or_aggregate() -> None:
    doc, spans = doc_with("a 92 year old and a 45-year-old", [("92", Category.AGE), ("45", Category.AGE)])
    kept = SurrogateReplacer(KEY).replace(doc, spans)
    old, young = (int(r.new_text) for r in kept.replacements)
    assert old > 89 and old != 92 and young < 90 and young != 45
    assert old - young == 92 - 45  # one age shift per patient
    agg = SurrogateReplacer(KEY, SurrogateOptions(age_mode="aggregate")).replace(doc, spans)
    assert agg.replacements[0].new_text == "90+"


def _years(start: date, end: date) -> int:
    return end.year - start.year - ((end.month, end.day) < (start.month, start.day))


def _us(text: str) -> date:
    month, day, year = (int(x) for x in text.split("/"))
    return date(year, month, day)


@pytest.mark.parametrize(
    ("text", "dob", "age", "exam"),
    [
        ("DOB 01/01/1930, age 90. Exam date 03/05/2020.", "01/01/1930", "90", "03/05/2020"),
        ("Patient: X. D.O.B.: 07/15/1961. STUDY DATE: 07/14/2019. 57-year-old man.", "07/15/1961", "57", "07/14/2019"),
        ("Date of birth 02/29/1952; a 67 year old seen, date of service 02/28/2020.", "02/29/1952", "67", "02/28/2020"),
    ],
)
def test_age_follows_the_shifted_date_of_birth_for_many_keys(text: str, dob: str, age: str, exam: str) -> None:
    """Issue 28: `DOB 01/01/1930, age 90` became `05/21/1930, age 94`: the age moved on its own.
    Now it is the years from the shifted birth to the shifted exam date, for every key."""
    for k in range(50):
        replacer = SurrogateReplacer(f"age-key-{k}".encode())
        doc, spans = doc_with(text, [(dob, D), (age, Category.AGE), (exam, D)])
        news = {text[r.span.start : r.span.end]: r.new_text for r in replacer.replace(doc, spans).replacements}
        born, aged, seen = news[dob], news[age], news[exam]
        assert int(aged) == _years(_us(born), _us(seen)), (k, news)
        assert (int(aged) >= 90) == (int(age) >= 90)


def test_age_with_a_date_of_birth_but_no_exam_date_is_kept() -> None:
    for k in range(50):
        replacer = SurrogateReplacer(f"age-key-{k}".encode())
        doc, spans = doc_with("DOB: 03/14/1951. A 68-year-old woman.", [("03/14/1951", D), ("68", Category.AGE)])
        assert replacer.replace(doc, spans).replacements[1].new_text == "68"


def test_other_ages_and_aggregate_with_a_date_of_birth() -> None:
    text = "DOB 01/01/1930. Exam date 03/05/2020. Age 90. Her son, 61, was present."
    marks = [("01/01/1930", D), ("03/05/2020", D), ("90", Category.AGE), ("61", Category.AGE)]
    doc, spans = doc_with(text, marks)
    replacer = SurrogateReplacer(KEY)
    news = [r.new_text for r in replacer.replace(doc, spans).replacements]
    assert news[2] == str(_years(_us(news[0]), _us(news[1])))
    assert news[3] == str(61 + replacer._patient_shifts("patient:p1")[1])  # not the patient's: the age shift
    agg = SurrogateReplacer(KEY, SurrogateOptions(age_mode="aggregate")).replace(doc, spans)
    assert agg.replacements[2].new_text == "90+"


def test_german_date_of_birth_anchors_the_age() -> None:
    text = "Geburtsdatum: 01.01.1930, Untersuchungsdatum: 05.03.2020, 90 Jahre alt."
    doc, spans = doc_with(text, [("01.01.1930", D), ("05.03.2020", D), ("90 Jahre", Category.AGE)])
    for k in range(20):
        replacer = SurrogateReplacer(f"de-key-{k}".encode(), SurrogateOptions(day_first=True))
        news = [r.new_text for r in replacer.replace(doc, spans).replacements]
        born, seen = (date(*reversed([int(x) for x in n.split(".")])) for n in news[:2])
        assert news[2] == f"{_years(born, seen)} Jahre"
