"""Dates (and ages): parse into a value plus an exact format template, shift, render alike.

The template grammar (parsing and rendering) is in `date_template.py` (split in issue 11); this
module shifts parsed dates and ages and holds their generators. Shifting a parse of each kind:

- full dates move by the patient's offset in days, so every interval between two full dates of
  a patient is kept exactly, across documents;
- month/year and month-only dates move by the offset in whole months (round(days / 30.44), at
  least one month when the offset is not zero), so intervals between them are kept in months;
- month/day dates move by the offset in days, in the year of the document's first full date (or
  a leap year when there is none, so Feb 29 exists);
- year-only dates move by the patient's offset in whole years: round(days / 365.25), and one
  year in the offset's direction when that rounds to 0 (`year_shift_of`). Never by 0 for a
  non-zero offset, so an original year alone is never left visible (the former "year of July 1
  + offset" kept it for about half the patients); every year alone of a patient moves alike,
  so intervals between years are kept. With the default ±365 days the move is one year, the
  year most of the patient's shifted full dates fall in. `keep_years` keeps years alone
  unchanged (Safe Harbor allows years); full dates still shift.

`date_format` writes every shifted full date in one strftime format instead of its own form (a
time of day written beside the date follows it as written); not a date of subtype `FIXED_FORM`, a
value whose form its record fixes (a DICOM `DA`), which keeps its form.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from radeid.core.document import Span
from radeid.replace.surrogate.base import VALUE_CACHE_LIMIT, SurrogateContext
from radeid.replace.surrogate.date_repair import PLAUSIBLE_YEARS, impossible_clock, repair_date
from radeid.replace.surrogate.date_template import (
    MONTHS,
    WEEKDAYS,
    Field,
    ParsedDate,
    Template,
    localized,
    parse_date,
    render,
    scramble_date,
    valid_date,
)
from radeid.replace.surrogate.keyed import fold
from radeid.replace.surrogate.memory import DocumentMemory

__all__ = [
    "FIXED_FORM",
    "MONTHS",
    "WEEKDAYS",
    "AgeGenerator",
    "DateGenerator",
    "Field",
    "ParsedDate",
    "Template",
    "age_from_birth",
    "age_surrogate",
    "month_shift_of",
    "parse_date",
    "render",
    "scramble_date",
    "shift_date",
    "year_shift_of",
]

#: The subtype of a date whose form its record fixes (a DICOM `DA`): `date_format` never applies to it.
FIXED_FORM = "DA"


def month_shift_of(offset_days: int) -> int:
    """Whole months for partial dates: the nearest number, never 0 for a non-zero offset."""
    if offset_days == 0:
        return 0
    months = round(offset_days / 30.436875)
    return months if months else (1 if offset_days > 0 else -1)


def year_shift_of(offset_days: int) -> int:
    """Whole years for a year written alone: the nearest number, never 0 for a non-zero offset."""
    if offset_days == 0:
        return 0
    years = round(offset_days / 365.25)
    return years if years else (1 if offset_days > 0 else -1)


def shift_date(
    parsed: ParsedDate,
    offset_days: int,
    ref_year: int | None = None,
    *,
    keep_years: bool = False,
    date_format: str = "",
) -> str:
    """Render `parsed` moved by `offset_days` (see the module docstring for partial dates).

    Raises OverflowError / ValueError when the shifted date leaves the calendar.
    """
    kind = parsed.kind
    if kind == "ymd":
        moved = date(parsed.year, parsed.month, parsed.day) + timedelta(days=offset_days)
        if date_format:
            return _formatted(parsed.template, moved, date_format)
        return render(parsed.template, moved.year, moved.month, moved.day, moved.weekday())
    if kind in ("ym", "m"):
        total = parsed.year * 12 + parsed.month - 1 + month_shift_of(offset_days)
        year, month0 = divmod(total, 12)
        if kind == "ym" and not 1 <= year <= 9999:
            raise OverflowError("shifted year out of range")
        return render(parsed.template, year, month0 + 1, 0, -1)
    if kind == "md":
        year = ref_year if ref_year and valid_date(ref_year, parsed.month, parsed.day) else 2000
        moved = date(year, parsed.month, parsed.day) + timedelta(days=offset_days)
        weekday = (parsed.weekday + offset_days) % 7 if parsed.weekday >= 0 else moved.weekday()
        return render(parsed.template, moved.year, moved.month, moved.day, weekday)
    if kind == "y":
        year = parsed.year if keep_years else parsed.year + year_shift_of(offset_days)
        if not 1 <= year <= 9999:
            raise OverflowError("shifted year out of range")
        return render(parsed.template, year, 0, 0, -1)
    if kind == "w":
        return render(parsed.template, 0, 0, 0, (parsed.weekday + offset_days) % 7)
    raise ValueError(f"unknown date kind {kind!r}")


def _formatted(template: Template, moved: date, date_format: str) -> str:
    """`moved` in the user's format; a time of day the original wrote before or after the date
    ("2019-03-05T14:30:00Z", "14:30 03/05/2019") stays beside it as written."""
    fields = [i for i, part in enumerate(template) if isinstance(part, Field)]
    before = "".join(p for p in template[: fields[0]] if isinstance(p, str)) if fields else ""
    after = "".join(p for p in template[fields[-1] + 1 :] if isinstance(p, str)) if fields else ""
    text = moved.strftime(date_format)
    if any(c.isdigit() for c in before):
        text = before + text
    if any(c.isdigit() for c in after):
        text += after
    return text


# --- ages ----------------------------------------------------------------------------------------

_AGE_NUMBER = re.compile(r"\d+")


def age_surrogate(text: str, shift: int, aggregate: bool) -> str | None:
    """Move the age by the patient's shift (1-5 years): an age over 89 stays over 89, one under
    90 stays under 90, so the Safe Harbor class never changes and intervals between a patient's
    ages hold. With `aggregate`, ages over 89 become "90+". None when there is no number."""
    m = _AGE_NUMBER.search(text)
    if m is None:
        return None
    age = int(m.group())
    if age >= 90:
        new = "90+" if aggregate else str(age + shift)
    else:
        moved = age + shift if age + shift < 90 else age - shift
        new = str(moved if moved >= 0 else age + shift)
    return text[: m.start()] + new + text[m.end() :]


#: an age counted in months, weeks, days or hours (English, German, Spanish): not in years
_NOT_YEARS = re.compile(
    r"(?i)\b(?:months?|mos?|weeks?|wks?|days?|hours?|hrs?|monate?n?|wochen?|tage?n?|mes(?:es)?|semanas?|d[ií]as?)\b"
    r"|\d\s*(?:m|w|d|h)\b"
)


def _years_between(start: date, end: date) -> int:
    return end.year - start.year - ((end.month, end.day) < (start.month, start.day))


def age_from_birth(text: str, birth: date, exam: date | None, offset_days: int, aggregate: bool) -> str | None:
    """An age in a document with a date of birth, consistent with the shifted date of birth.

    With an exam date too, an age equal to the years from birth to exam becomes the years from
    the shifted birth to the shifted exam (the same, but for a leap day crossed); an age that is
    not the patient's (another number) is left to `age_surrogate` (None). Without an exam date
    the age is kept: the shifted birth plus the same age is still consistent. The Safe Harbor
    class never changes (over 89 stays over 89, "90+" with `aggregate`). None when the text has
    no number or counts months, weeks or days."""
    m = _AGE_NUMBER.search(text)
    if m is None or _NOT_YEARS.search(text):
        return None
    age = int(m.group())
    new = age
    if exam is not None:
        if _years_between(birth, exam) != age:
            return None
        try:
            delta = timedelta(days=offset_days)
            new = _years_between(birth + delta, exam + delta)
        except OverflowError:
            return None
        new = max(new, 90) if age >= 90 else min(new, 89)
    moved = "90+" if aggregate and age >= 90 else str(new)
    return text[: m.start()] + moved + text[m.end() :]


# --- generators ----------------------------------------------------------------------------------


class DateGenerator:
    """Dates shifted by the patient's offset, written in their original template."""

    realism_check = False  # one offset for all dates may land on another original date

    def __init__(self, day_first: bool) -> None:
        self.day_first = day_first
        # (original, offset, reference year) -> shifted text: a pure function, and one date is
        # written several times per report (exam date, call-back, signature)
        self._shifted: dict[tuple[str, int, int | None, bool], str] = {}

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> tuple[str, ParsedDate | None, bool]:
        parsed = parse_date(original, self.day_first)
        if parsed is not None and parsed.month and not ctx.options.locale.startswith("en"):
            parsed = localized(parsed, ctx.options.locale.partition("_")[0])
        if parsed is not None and parsed.kind == "ymd":
            ctx.memory.full_years.append(parsed.year)
            ctx.memory.full_dates.append((span.start, parsed))
        return original, parsed, span.subtype == FIXED_FORM

    def generate(self, parsed: tuple[str, ParsedDate | None, bool], ctx: SurrogateContext, attempt: int) -> str:
        original, value, fixed = parsed
        if (
            value is not None
            and (value.kind in ("ymd", "ym") or _writes_year(value.template))
            and not PLAUSIBLE_YEARS[0] <= value.year <= PLAUSIBLE_YEARS[1]
        ):
            # 01/01/0001, 12/31/9999, 01DEC0000 (year 0 reads as no year: kind "md"): placeholders,
            # not dates; a plausible one in their format
            value = None
        elif value is not None and impossible_clock(original):
            value = None  # 2019-03-05T14:75: the time is repaired with the date
        options = ctx.options
        date_format = "" if fixed else options.date_format
        if value is not None and ctx.date_offset == 0 and not (date_format and value.kind == "ymd"):
            return original  # date_shift none or fixed:0: dates are kept on purpose
        if value is not None:
            ref = ctx.memory.reference_year() if value.kind == "md" else None
            key = (original, ctx.date_offset, ref, fixed)
            found = self._shifted.get(key)
            if found is not None:
                return found
            try:
                found = shift_date(value, ctx.date_offset, ref, keep_years=options.keep_years, date_format=date_format)
            except (OverflowError, ValueError):
                pass
            else:
                if len(self._shifted) > VALUE_CACHE_LIMIT:
                    self._shifted.clear()
                self._shifted[key] = found
                return found
        if not attempt:
            ctx.stats["date_unparseable"] += 1
        stream = ctx.keyed.stream(ctx.patient_scope, "date", fold(original), str(attempt))
        # an impossible date (2/30/2020) becomes a valid one of the same format, then moves like
        # the patient's other dates; only a shape no date has gets random digits
        repaired = repair_date(original, self.day_first, stream)
        repaired_date = parse_date(repaired, self.day_first) if repaired is not None else None
        if repaired_date is not None:
            ref = ctx.memory.reference_year() if repaired_date.kind == "md" else None
            try:
                return shift_date(
                    repaired_date, ctx.date_offset, ref, keep_years=options.keep_years, date_format=date_format
                )
            except (OverflowError, ValueError):
                pass
        return scramble_date(original, stream)


#: A date of birth / an exam date: the cue right before a full date (English, German, Spanish),
#: lower case, spaces single, trailing ":#.-" left off. A suffix test, not a regex search: it
#: runs for every full date of every report.
_BIRTH_CUES = (
    "dob", "d.o.b", "born", "born on", "date of birth", "birth date", "birthdate", "birthday",
    "geburtsdatum", "geb", "geboren", "geboren am", "fecha de nacimiento", "f. nac", "f.nac",
    "fecha nac", "nacido", "nacida", "nacido el", "nacida el",
)  # fmt: skip
_EXAM_CUES = tuple(
    [f"{kind} date" for kind in ("exam", "examination", "study", "service", "procedure", "scan", "visit", "admission")]
    + [f"date of {kind}" for kind in ("exam", "examination", "study", "service", "procedure", "scan", "visit")]
    + ["date of admission", "dos", "untersuchungsdatum", "datum der untersuchung", "fecha del estudio",
       "fecha de estudio", "fecha del examen", "fecha de examen", "fecha de exploración", "fecha de exploracion"]
)  # fmt: skip


def _cue_line(before: str) -> str:
    """The text before a date as its cue would read: its own line, lower case, trailing ":#.-("
    left off, spaces single."""
    tail = before.rstrip(" \t\r\n:#.-(")
    tail = tail[tail.rfind("\n") + 1 :].lower()
    return " ".join(tail.split()) if "  " in tail or "\t" in tail else tail


def _ends_with_cue(tail: str, cues: tuple[str, ...]) -> bool:
    """Whether `tail` (`_cue_line`) ends with one of `cues`, as whole words."""
    if not tail.endswith(cues):
        return False
    cue = next(c for c in cues if tail.endswith(c))
    return len(tail) == len(cue) or not tail[-len(cue) - 1].isalnum()


def anchors(memory: DocumentMemory, text: str) -> tuple[date | None, date | None]:
    """The document's date of birth and exam date: the first full date after a cue of each. Found
    once per document, and only when it has an age (`AgeGenerator`)."""
    if memory.anchors is None:
        birth = exam = None
        for start, parsed in memory.full_dates:
            tail = _cue_line(text[max(0, start - 40) : start])
            if birth is None and _ends_with_cue(tail, _BIRTH_CUES):
                birth = date(parsed.year, parsed.month, parsed.day)
            elif exam is None and _ends_with_cue(tail, _EXAM_CUES):
                exam = date(parsed.year, parsed.month, parsed.day)
            if birth is not None and exam is not None:
                break
        memory.anchors = (birth, exam)
    return memory.anchors


def _writes_year(template: Template) -> bool:
    return any(isinstance(part, Field) and part.kind == "Y4" for part in template)


class AgeGenerator:
    """Ages moved by the patient's age shift (see `age_surrogate`)."""

    realism_check = False

    def __init__(self, aggregate: bool) -> None:
        self.aggregate = aggregate

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> str:
        return original

    def generate(self, parsed: str, ctx: SurrogateContext, attempt: int) -> str:
        birth, exam = anchors(ctx.memory, ctx.document.text)
        if birth is not None:
            found = age_from_birth(parsed, birth, exam, ctx.date_offset, self.aggregate)
            if found is not None:
                return found
        new = age_surrogate(parsed, ctx.age_shift, self.aggregate)
        if new is None:
            if not attempt:
                ctx.stats["age_unparsed"] += 1
            return "90+"
        return new
