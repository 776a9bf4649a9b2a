"""Date templates: read a date string into a value plus an exact format template, and write a
value back in that template (or a same-shape random stand-in when it cannot be read).

Template grammar: a date string is a sequence of literals (kept byte for byte: separators,
spaces, commas, times of day, connecting words) and fields:

    Y4 | Y2            year, 4 or 2 digits ('98 keeps its apostrophe as a literal)
    M(pad) | D(pad)    month / day number, zero padded or not
    MON(form, case)    month name: full | abbr (3 letters) | sept ("Sept"), in upper/lower/title
    WD(form, case)     weekday name: full | abbr; recomputed from the shifted date
    ORD(case)          ordinal suffix after a day (1st, 22ND), recomputed

A parse has a kind: ymd (full date), ym (month/year), md (month/day), y (year only), m (month
only), w (weekday only).

Numeric dates are read month-first unless `day_first`; an impossible reading (13/05/2020) flips.
Two-digit years below 30 are 20xx, others 19xx (no clock is read: the same input always gives
the same output).

Split from `dates.py` (issue 11): the template grammar is independent of how dates are shifted.

Kept as one module (about 610 lines): parsing and rendering share the field grammar and its
tables; splitting them would put one grammar in two places. The seam, if it grows, is the month and
weekday names of other languages (`LOCAL_MONTHS` and the tables beside it), which are pure data.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from radeid.replace.surrogate.keyed import KeyStream, case_style

__all__ = [
    "MONTHS",
    "WEEKDAYS",
    "Field",
    "ParsedDate",
    "Template",
    "parse_date",
    "render",
    "MONTH_WORDS",
    "date_tokens",
    "days_in",
    "full_year",
    "scramble_date",
    "valid_date",
    "valid_hms",
]

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Month words the grammar reads (folded): -> (month number, form "full" / "abbr" / "sept").
MONTH_WORDS: dict[str, tuple[int, str]] = {m.casefold(): (i + 1, "full") for i, m in enumerate(MONTHS)}
MONTH_WORDS.update({m[:3].casefold(): (i + 1, "abbr") for i, m in enumerate(MONTHS) if m != "May"})
MONTH_WORDS["sept"] = (9, "sept")
_WEEKDAY_WORDS: dict[str, tuple[int, str]] = {d.casefold(): (i, "full") for i, d in enumerate(WEEKDAYS)}
_WEEKDAY_WORDS.update({d[:3].casefold(): (i, "abbr") for i, d in enumerate(WEEKDAYS)})
_WEEKDAY_WORDS.update({"tues": (1, "abbr"), "weds": (2, "abbr"), "thur": (3, "abbr"), "thurs": (3, "abbr")})

#: Month and weekday names of the other languages radeid has packs for: a date is read in its own
#: language and its surrogate written in it ("3 de marzo de 2024" -> "19 de mayo de 2024"). The form
#: is "<language>" (the full name) or "<language>_abbr"; a spelling English shares ("April", "Feb")
#: stays English, which writes the same word. Spanish "ago" (agosto) is left out: it is English "ago".
LOCAL_MONTHS: dict[str, tuple[str, ...]] = {
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio",
           "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni",
           "Juli", "August", "September", "Oktober", "November", "Dezember"),
}  # fmt: skip
LOCAL_MONTH_ABBR: dict[str, tuple[str, ...]] = {
    "es": ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"),
    "de": ("Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"),
}
LOCAL_WEEKDAYS: dict[str, tuple[str, ...]] = {
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "de": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
}
for _lang, _names in LOCAL_MONTHS.items():
    for _i, _name in enumerate(_names):
        MONTH_WORDS.setdefault(_name.casefold(), (_i + 1, _lang))
    for _i, _name in enumerate(LOCAL_MONTH_ABBR[_lang]):
        if _name != "ago":
            MONTH_WORDS.setdefault(_name.casefold(), (_i + 1, _lang + "_abbr"))
    for _i, _name in enumerate(LOCAL_WEEKDAYS[_lang]):
        _WEEKDAY_WORDS.setdefault(_name.casefold(), (_i, _lang))
MONTH_WORDS.setdefault("setiembre", (9, "es"))
MONTH_WORDS.setdefault("maerz", (3, "de"))
MONTH_WORDS.setdefault("jänner", (1, "de"))
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_GLUE = frozenset({"t", "z", "at", "on", "of", "the", "utc", "gmt", "hrs", "h", "am", "pm", "and"})

_TOKEN = re.compile(
    r"(?P<time>\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*[AaPp]\.?[Mm]\b\.?)?)"
    r"|(?P<num>\d+)|(?P<alpha>[^\W\d_]+)|(?P<other>[\W_]+)"
)
_NUMERIC_SEP = re.compile(r"[\s/.\-]{1,3}")
_PIVOT = 30  # two-digit years below this are 20xx


@dataclass(frozen=True, slots=True)
class Field:
    """A variable part of a date template (see the module docstring for the grammar)."""

    kind: str  # Y4 Y2 M D MON WD ORD
    pad: bool = False
    form: str = ""
    case: str = ""


Template = tuple["Field | str", ...]


@dataclass(frozen=True, slots=True)
class ParsedDate:
    """A date value (only the parts its kind has) and the template it was written in."""

    template: Template
    kind: str  # ymd ym md y m w
    year: int = 0
    month: int = 0
    day: int = 0
    weekday: int = -1


def _case(word: str) -> str:
    style = case_style(word)
    return style if style in ("upper", "lower") else "title"


def _pad_of(token: str) -> bool | None:
    if len(token) == 1:
        return False
    if token.startswith("0"):
        return True
    return None  # "12": could be either


def date_tokens(text: str) -> list[tuple[str, str]]:
    """The grammar's tokens of `text` as (kind, text), kind one of time / num / alpha / other:
    "05MAR2019" -> num "05", alpha "MAR", num "2019"."""
    return [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(text)]


def full_year(token: str) -> int:
    """A year token as a four-digit year: two digits below the pivot (30) are 20xx, else 19xx."""
    value = int(token)
    if len(token) == 4:
        return value
    return value + (2000 if value < _PIVOT else 1900)


def valid_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=1 << 15)
def parse_date(text: str, day_first: bool = False) -> ParsedDate | None:
    """Parse a date span into value + template, or None when it is not a date we can keep.

    Cached: the result is immutable and date strings repeat across a corpus.
    """
    fast = _parse_numeric(text, day_first)
    if fast is not None or _FAST_SHAPES.fullmatch(text):
        return fast
    tokens = [(m.lastgroup or "", m.group()) for m in _TOKEN.finditer(text)]
    scan = _scan_words(tokens)
    if scan is None:
        return None
    nums, ordinal_of = scan.nums, scan.ordinal_of
    if scan.month_at >= 0:
        roles = _month_word_roles(tokens, nums, ordinal_of)
        if roles is None:
            return None
        year, month, day = _role_values(tokens, roles, scan.month)
        if year and day and not valid_date(year, month, day):
            roles, (year, month, day) = _year_day_swapped(tokens, roles, scan.month, (year, month, day))
        has_year, has_day = bool(year), bool(day)
        kind_out = "ymd" if has_year and has_day else "ym" if has_year else "md" if has_day else "m"
    elif len(nums) == 1:  # the numeric checks below pass any single number: a compact date (20190312, 31APR2019)
        return _parse_compact(tokens, nums[0], scan.weekday_at, scan.weekday, scan.weekday_form, day_first)
    else:
        numeric = _numeric_roles(tokens, nums, ordinal_of, scan.weekday_at, day_first)
        if numeric is None:
            return None
        roles, kind_out = numeric
        year, month, day = _role_values(tokens, roles, scan.month)
    if not _plausible(roles, ordinal_of, kind_out, year, month, day):
        return None
    return _build(tokens, roles, ordinal_of, scan.month_at, scan.month_form, scan.weekday_at, scan.weekday_form,
                  kind_out, year, month, day, scan.weekday)  # fmt: skip


class _WordScan(NamedTuple):
    """Where a date's numbers, ordinal suffixes, month word and weekday word are (-1: none)."""

    nums: list[int]  # token indexes of numbers
    ordinal_of: dict[int, int]  # number index -> ordinal token index
    month_at: int
    month: int
    month_form: str
    weekday_at: int
    weekday: int
    weekday_form: str


def _scan_words(tokens: list[tuple[str, str]]) -> _WordScan | None:
    """One pass over the tokens: numbers, ordinals, the month and weekday words; None for a second of either."""
    nums: list[int] = []
    ordinal_of: dict[int, int] = {}
    month_at = weekday_at = -1
    month = weekday = -1
    month_form = weekday_form = ""
    for i, (kind, tok) in enumerate(tokens):
        if kind == "num":
            nums.append(i)
        elif kind == "alpha":
            low = tok.casefold()
            if low in _ORDINALS and i > 0 and tokens[i - 1][0] == "num":
                ordinal_of[i - 1] = i
            elif low in MONTH_WORDS:
                if month_at >= 0:
                    return None
                month_at = i
                month, month_form = MONTH_WORDS[low]
            elif low in _WEEKDAY_WORDS:
                if weekday_at >= 0:
                    return None
                weekday_at = i
                weekday, weekday_form = _WEEKDAY_WORDS[low]
    return _WordScan(nums, ordinal_of, month_at, month, month_form, weekday_at, weekday, weekday_form)


def _month_word_roles(
    tokens: list[tuple[str, str]], nums: list[int], ordinal_of: dict[int, int]
) -> dict[int, str] | None:
    """With a month word, each number's role: year (4 digits or 'YY) or day (1-31); None when one fits neither."""
    roles: dict[int, str] = {}
    for i in nums:
        tok = tokens[i][1]
        apostrophe = i > 0 and tokens[i - 1][1].endswith(("'", "’"))
        has_year = "Y4" in roles.values() or "Y2" in roles.values()
        if len(tok) == 4 and not has_year:
            roles[i] = "Y4"
        elif len(tok) == 2 and apostrophe and not has_year:
            roles[i] = "Y2"
        elif i in ordinal_of and "D" not in roles.values() and 1 <= int(tok) <= 31:
            roles[i] = "D"
    for i in nums:
        if i in roles:
            continue
        tok = tokens[i][1]
        if len(tok) > 2:
            return None
        if "D" not in roles.values() and 1 <= int(tok) <= 31:
            roles[i] = "D"
        elif "Y4" not in roles.values() and "Y2" not in roles.values() and len(tok) == 2:
            roles[i] = "Y2"
        else:
            return None
    return roles


def _year_day_swapped(
    tokens: list[tuple[str, str]], roles: dict[int, str], month: int, values: tuple[int, int, int]
) -> tuple[dict[int, str], tuple[int, int, int]]:
    """A date like "31-Jun-07" is no 31 June: read as year 1931, day 7, as "32-Jan-01" was (a day
    of 32 being impossible, its number was the year). The swap only when it gives a real date."""
    if sorted(roles.values()) != ["D", "Y2"] or any(roles[i] == "D" and len(tokens[i][1]) != 2 for i in roles):
        return roles, values
    swapped = {i: ("Y2" if role == "D" else "D") for i, role in roles.items()}
    year, _, day = _role_values(tokens, swapped, month)
    return (swapped, (year, month, day)) if valid_date(year, month, day) else (roles, values)


def _numeric_roles(
    tokens: list[tuple[str, str]], nums: list[int], ordinal_of: dict[int, int], weekday_at: int, day_first: bool
) -> tuple[dict[int, str], str] | None:
    """Without a month word, the roles and kind of two or three numbers (or a lone weekday); None when not a date."""
    if len(nums) >= 2 and any(
        kind == "alpha" and i not in ordinal_of.values() and i != weekday_at and tok.casefold() not in _GLUE
        for i, (kind, tok) in enumerate(tokens)
    ):
        return None  # "Febuary 5, 2020": a misspelt month must not turn into "month 5"
    for a, b in zip(nums, nums[1:], strict=False):
        between = "".join(t for _, t in tokens[a + 1 : b])
        if not _NUMERIC_SEP.fullmatch(between):
            return None
    values = [tokens[i][1] for i in nums]
    lens = [len(v) for v in values]
    if len(nums) == 3:
        a, b, _ = (int(v) for v in values)
        if lens[0] == 4 and lens[1] <= 2 and lens[2] <= 2:
            order = ("Y4", "M", "D")
        elif lens[0] <= 2 and lens[1] <= 2 and lens[2] in (2, 4):
            yr = "Y4" if lens[2] == 4 else "Y2"
            order = ("D", "M", yr) if _reads_day_first(a, b, day_first) else ("M", "D", yr)
        else:
            return None
        return dict(zip(nums, order, strict=True)), "ymd"
    if len(nums) == 2:
        a, b = (int(v) for v in values)
        seps = "".join(t for _, t in tokens[nums[0] + 1 : nums[1]]).strip()
        if lens[0] == 4 and lens[1] <= 2:
            return {nums[0]: "Y4", nums[1]: "M"}, "ym"
        if lens[0] <= 2 and lens[1] == 4:
            return {nums[0]: "M", nums[1]: "Y4"}, "ym"
        if lens[0] <= 2 and lens[1] <= 2 and seps in ("/", "-"):
            first_day = _reads_day_first(a, b, day_first)
            return ({nums[0]: "D", nums[1]: "M"} if first_day else {nums[0]: "M", nums[1]: "D"}), "md"
        return None
    if len(nums) == 0 and weekday_at >= 0:
        return {}, "w"
    return None


def _reads_day_first(a: int, b: int, day_first: bool) -> bool:
    """Whether numbers `a`, `b` read day-month: `day_first`, unless only the other reading is possible."""
    first_day = day_first
    if not first_day and a > 12 and b <= 12:
        first_day = True
    elif first_day and b > 12 and a <= 12:
        first_day = False
    return first_day


def _role_values(tokens: list[tuple[str, str]], roles: dict[int, str], month: int) -> tuple[int, int, int]:
    """Year, month and day read from the numbers by role (0 for a missing year or day; `month` from a month word)."""
    year = day = 0
    for i, role in roles.items():
        tok = tokens[i][1]
        if role in ("Y4", "Y2"):
            year = full_year(tok)
        elif role == "M":
            month = int(tok)
        else:
            day = int(tok)
    return year, month, day


def _plausible(roles: dict[int, str], ordinal_of: dict[int, int], kind: str, year: int, month: int, day: int) -> bool:
    """Ordinals only on days, and the parts the kind has form a real date (a month/day one in a leap year)."""
    if ordinal_of and any(roles.get(i) != "D" for i in ordinal_of):
        return False
    if kind in ("ymd",) and not valid_date(year, month, day):
        return False
    if kind == "md" and not valid_date(2000, month, day):
        return False
    return not (kind in ("ym", "m") and not 1 <= month <= 12)


_NUMERIC_MDY = re.compile(r"(\d{1,2})([/.\-])(\d{1,2})\2(\d{4}|\d{2})")
_NUMERIC_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_MONTH_DAY_YEAR = re.compile(r"([A-Za-z]{3,9})(\.? )(\d{1,2})(, )(\d{4})")
# shapes the fast path decides alone (a None from it is final only for these)
_FAST_SHAPES = re.compile(r"\d{1,2}([/.\-])\d{1,2}\1(?:\d{4}|\d{2})|\d{4}-\d{1,2}-\d{1,2}")


@lru_cache(maxsize=256)
def _field(kind: str, pad: bool = False, form: str = "", case: str = "") -> Field:
    """`Field(kind, pad, form, case)`, one shared instance per value: fields are immutable, and
    the fast path below would otherwise build three frozen dataclasses for every new date."""
    return Field(kind, pad, form, case)


def _parse_numeric(text: str, day_first: bool) -> ParsedDate | None:
    """Fast path for the two commonest shapes (03/15/2020, 2020-03-15); same result as the
    general parser, which handles everything else (None here means "not this shape")."""
    m = _NUMERIC_MDY.fullmatch(text)
    if m is not None:
        a, sep, b, y = m.groups()
        first_day = day_first
        if not first_day and int(a) > 12 and int(b) <= 12:
            first_day = True
        elif first_day and int(b) > 12 and int(a) <= 12:
            first_day = False
        month_tok, day_tok = (b, a) if first_day else (a, b)
        year, month, day = full_year(y), int(month_tok), int(day_tok)
        if not valid_date(year, month, day):
            return None
        pa, pb = _pad_of(a), _pad_of(b)
        default = pa if pa is not None else pb if pb is not None else True
        fa = _field("D" if first_day else "M", default if pa is None else pa)
        fb = _field("M" if first_day else "D", default if pb is None else pb)
        return ParsedDate((fa, sep, fb, sep, _field("Y4" if len(y) == 4 else "Y2")), "ymd", year, month, day)
    m = _MONTH_DAY_YEAR.fullmatch(text)
    if m is not None:
        mon, sep1, d, sep2, y = m.groups()
        found = MONTH_WORDS.get(mon.casefold())
        if found is None or not valid_date(int(y), found[0], int(d)):
            return None
        pad = _pad_of(d)
        fields = (_field("MON", False, found[1], _case(mon)), sep1, _field("D", bool(pad)), sep2, _field("Y4"))
        return ParsedDate(fields, "ymd", int(y), found[0], int(d))
    m = _NUMERIC_ISO.fullmatch(text)
    if m is not None:
        y, mo, d = m.groups()
        if not valid_date(int(y), int(mo), int(d)):
            return None
        pm, pd = _pad_of(mo), _pad_of(d)
        default = pm if pm is not None else pd if pd is not None else True
        fields = (_field("Y4"), "-", _field("M", default if pm is None else pm), "-",
                  _field("D", default if pd is None else pd))  # fmt: skip
        return ParsedDate(fields, "ymd", int(y), int(mo), int(d))
    return None


def _parse_compact(
    tokens: list[tuple[str, str]],
    at: int,
    weekday_at: int,
    weekday: int,
    weekday_form: str,
    day_first: bool,
) -> ParsedDate | None:
    """One number: 20200315, 03152020, 031520, or a bare year."""
    tok = tokens[at][1]
    n = len(tok)
    candidates: list[tuple[tuple[str, int, int], ...]] = []
    rest = ""
    if n in (12, 14) and tok[:2] in ("19", "20") and valid_hms(tok[8:10], tok[10:12], tok[12:14] or "0"):
        tok, rest, n = tok[:8], tok[8:], 8  # DICOM date-time (YYYYMMDDHHMM[SS]): the time is kept as written
        candidates.append((("Y4", 0, 4), ("M", 4, 6), ("D", 6, 8)))
    elif n == 8:
        candidates.append((("Y4", 0, 4), ("M", 4, 6), ("D", 6, 8)))
        md = (("M", 0, 2), ("D", 2, 4), ("Y4", 4, 8))
        dm = (("D", 0, 2), ("M", 2, 4), ("Y4", 4, 8))
        candidates.extend((dm, md) if day_first else (md, dm))
    elif n == 6:
        md = (("M", 0, 2), ("D", 2, 4), ("Y2", 4, 6))
        dm = (("D", 0, 2), ("M", 2, 4), ("Y2", 4, 6))
        candidates.extend((dm, md) if day_first else (md, dm))
    elif n == 4 and 1800 <= int(tok) <= 2199 and weekday_at < 0:
        field = Field("Y4")
        template = tuple(field if i == at else t for i, (_, t) in enumerate(tokens))
        return ParsedDate(_merge(template), "y", year=int(tok))
    for layout in candidates:
        parts = {role: tok[s:e] for role, s, e in layout}
        year = full_year(parts.get("Y4") or parts["Y2"])
        month, day = int(parts["M"]), int(parts["D"])
        if not (1800 <= year <= 2199 and valid_date(year, month, day)):
            continue
        fields: list[Field | str] = []
        for i, (_, text) in enumerate(tokens):
            if i == at:
                fields.extend(Field(role, pad=True) for role, _, _ in layout)
                if rest:
                    fields.append(rest)
            elif i == weekday_at:
                fields.append(Field("WD", form=weekday_form, case=_case(text)))
            else:
                fields.append(text)
        return ParsedDate(_merge(tuple(fields)), "ymd", year, month, day, weekday)
    return None


def valid_hms(hour: str, minute: str, second: str) -> bool:
    return int(hour) < 24 and int(minute) < 60 and int(second) < 60


def days_in(year: int, month: int) -> int:
    return 29 if month == 2 and valid_date(year, 2, 29) else 28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31


def _build(
    tokens: list[tuple[str, str]],
    roles: dict[int, str],
    ordinal_of: dict[int, int],
    month_at: int,
    month_form: str,
    weekday_at: int,
    weekday_form: str,
    kind: str,
    year: int,
    month: int,
    day: int,
    weekday: int,
) -> ParsedDate:
    """Assemble the template; padding of "12"-like numbers follows the date's other numbers."""
    known = [_pad_of(tokens[i][1]) for i, r in roles.items() if r in ("M", "D")]
    # "12/25" says nothing about padding: numeric dates are usually padded, a day next to a
    # month name ("March 15") usually not
    default_pad = next((p for p in known if p is not None), month_at < 0)
    ordinal_tokens = set(ordinal_of.values())
    fields: list[Field | str] = []
    for i, (_, text) in enumerate(tokens):
        role = roles.get(i)
        if role in ("M", "D"):
            pad = _pad_of(text)
            fields.append(Field(role, pad=default_pad if pad is None else pad))
        elif role in ("Y4", "Y2"):
            fields.append(Field(role))
        elif i in ordinal_tokens:
            fields.append(Field("ORD", case="upper" if text.isupper() else "lower"))
        elif i == month_at:
            fields.append(Field("MON", form=month_form, case=_case(text)))
        elif i == weekday_at:
            fields.append(Field("WD", form=weekday_form, case=_case(text)))
        else:
            fields.append(text)
    return ParsedDate(_merge(tuple(fields)), kind, year, month, day, weekday)


def _merge(template: tuple[Field | str, ...]) -> Template:
    out: list[Field | str] = []
    for item in template:
        if isinstance(item, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + item
        else:
            out.append(item)
    return tuple(out)


def localized(parsed: ParsedDate, lang: str) -> ParsedDate:
    """`parsed` with its month word read as language `lang`'s where the two languages spell that
    month alike ("22. November 2024" in a German report): its surrogate is then written in `lang`
    too ("13. Juli 2024", never "13. July 2024")."""
    if lang not in LOCAL_MONTHS or not parsed.month:
        return parsed
    month = parsed.month - 1
    out: list[Field | str] = []
    for item in parsed.template:
        if isinstance(item, Field) and item.kind == "MON":
            if item.form == "full" and MONTHS[month].casefold() == LOCAL_MONTHS[lang][month].casefold():
                item = Field("MON", item.pad, lang, item.case)
            elif item.form == "abbr" and MONTHS[month][:3].casefold() == LOCAL_MONTH_ABBR[lang][month].casefold():
                item = Field("MON", item.pad, f"{lang}_abbr", item.case)
        out.append(item)
    return dataclasses.replace(parsed, template=tuple(out))


def _word(name: str, form: str, case: str, value: int, kind: str) -> str:
    """`name` (the English word for `value`) in `form` and `case`; a local form writes that language's word."""
    lang, _, abbr = form.partition("_")
    if lang in LOCAL_MONTHS:
        if kind == "MON":
            name = (LOCAL_MONTH_ABBR if abbr else LOCAL_MONTHS)[lang][value - 1]
        else:
            name = LOCAL_WEEKDAYS[lang][value]
        return name.upper() if case == "upper" else name.lower() if case == "lower" else name[:1].upper() + name[1:]
    if form == "abbr" or (form == "sept" and not (kind == "MON" and value == 9)):
        name = name[:3]
    elif form == "sept":
        name = "Sept"
    return name.upper() if case == "upper" else name.lower() if case == "lower" else name


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def render(template: Template, year: int, month: int, day: int, weekday: int) -> str:
    """Write a date in a template; fields the values lack are left as they were impossible."""
    out: list[str] = []
    for item in template:
        if isinstance(item, str):
            out.append(item)
            continue
        kind = item.kind
        if kind == "Y4":
            out.append(f"{year:04d}")
        elif kind == "M":
            out.append(f"{month:02d}" if item.pad else str(month))
        elif kind == "D":
            out.append(f"{day:02d}" if item.pad else str(day))
        elif kind == "Y2":
            out.append(f"{year % 100:02d}")
        elif kind == "ORD":
            suffix = _ordinal(day)
            out.append(suffix.upper() if item.case == "upper" else suffix)
        elif kind == "MON":
            out.append(_word(MONTHS[month - 1], item.form, item.case, month, "MON"))
        elif kind == "WD":
            out.append(_word(WEEKDAYS[weekday], item.form, item.case, weekday, "WD"))
    return "".join(out)


def scramble_date(text: str, stream: KeyStream) -> str:
    """Same-shape random stand-in for a date we could not parse: digits become random digits,
    month and weekday names random ones in the same form and case, other words stay."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind in ("num", "time"):
            out.append("".join(stream.digit() if ch.isdigit() else ch for ch in tok))
        elif kind == "alpha" and tok.casefold() in MONTH_WORDS:
            _, form = MONTH_WORDS[tok.casefold()]
            value = stream.below(12) + 1
            out.append(_word(MONTHS[value - 1], form, _case(tok), value, "MON"))
        elif kind == "alpha" and tok.casefold() in _WEEKDAY_WORDS:
            _, form = _WEEKDAY_WORDS[tok.casefold()]
            value = stream.below(7)
            out.append(_word(WEEKDAYS[value], form, _case(tok), value, "WD"))
        else:
            out.append(tok)
    result = "".join(out)
    if result == text:  # no digit and no month: a date word ("Christmas") -> a month name
        value = stream.below(12) + 1
        result = _word(MONTHS[value - 1], "full", _case(text), value, "MON")
    return result
