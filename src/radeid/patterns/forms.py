"""Form checks: can this text be this category at all?

A model trained on synthetic data fires on look-alikes in real prose: "786.2" as a phone, "3/6" as
a date, "Christmas" as an e-mail, "Workstation" as a URL, "rounds" as a name. Categories with a
shape are checked against it (a phone has 7+ digits, an e-mail an `@`, an IP parses, a date is a
real calendar date, an age is a number over the threshold next to an age word); names, places,
hospitals and vendors have no shape, but a single common English word on its own is not one of
them on a model's word alone ("rounds", "Society", "Workstation"), and neither are several common
words all in lower case ("bone marrow"), nor, in a text that capitalises its words, a name, hospital
or vendor written all in lower case ("afebrile", "umbilicus": medical words no common-word list has).

The common-word list comes from a maintained package (pyspellchecker's English frequency list,
MIT; its first 20,000 entries are bundled, see scripts/build_common_words.py) rather than a hand
list; words that are also given names or surnames in Faker's name lists
(many locales) or places in radeid's place lexicon are taken out, so "Rose", "Hunter" or "Mobile"
stay possible names and places.
"""

from __future__ import annotations

import calendar
import importlib
import ipaddress
import re
from collections.abc import Callable
from functools import lru_cache

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.resources import bundled_data_path, read_word_list
from radeid.patterns.numbers import number_from_words

__all__ = [
    "MONTHS",
    "FormChecker",
    "common_words",
    "function_words",
    "looks_like_date",
    "only_function_words",
    "ranked_words",
    "surnames",
    "word_ranks",
]

#: How many of the most frequent English words count as "common". pyspellchecker's list is ranked
#: by frequency in film subtitles, so below ~20,000 it is full of first names and places
#: ("Dexter", "Roxanne", "Miami"); 20,000 keeps "Society", "rounds", "projection", "oval".
COMMON_WORD_RANK = 20_000
#: Faker locales whose person names are taken out of the common words.
_NAME_LOCALES = (
    "en_US", "en_GB", "en_IN", "en_NZ", "en_IE", "ga_IE", "de_DE", "fr_FR", "es_ES", "es_MX", "it_IT", "nl_NL",
    "pt_BR", "pt_PT", "pl_PL", "sv_SE", "fi_FI", "da_DK", "no_NO", "cs_CZ", "hu_HU", "ro_RO", "el_GR", "tr_TR",
    "ru_RU", "uk_UA", "he_IL", "ar_AA", "fa_IR", "hi_IN", "zh_CN", "ja_JP", "ko_KR", "vi_VN", "id_ID", "yo_NG",
    "zu_ZA", "sw", "fr_CA",
)  # fmt: skip
_NAME_CATEGORIES = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.VENDOR, Category.LOCATION})
_PROPER_NAMES = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.VENDOR})

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_MONTHS = {
    name.lower(): index
    for index in range(1, 13)
    for name in (calendar.month_name[index], calendar.month_abbr[index], calendar.month_name[index][:4])
}
_MONTHS["sept"] = 9
#: Month names of the languages reports arrive in beside English (es, de, fr, it, pt): a date the
#: model finds in "12 de marzo de 2019" or "12. März 2019" is a date, not a failed English form.
_FOREIGN_MONTHS = (
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "januar februar märz april mai juni juli august september oktober november dezember",
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
)
for _language_months in _FOREIGN_MONTHS:
    for _number, _month in enumerate(_language_months.split(), 1):
        _MONTHS.setdefault(_month, _number)
_MONTHS.update({"setiembre": 9, "maerz": 3, "jänner": 1})
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: Month names (lower case) to their number: English and the foreign names above.
MONTHS: dict[str, int] = _MONTHS
_WEEKDAY = re.compile(
    r"(?i)\b(?:mon|tues?|wed|thu|thurs|fri|sat|sun)(?:day|nesday|rsday|urday)?\.?\b|\b(?:today|yesterday|tomorrow)\b"
)
_TIME = r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_NUMERIC = re.compile(r"(\d{1,4})([/.-])(\d{1,2})(?:\2(\d{2}|\d{4}))?" + _TIME)
_COMPACT = re.compile(r"((?:19|20)\d\d)(\d\d)(\d\d)")
_MONTH_YEAR = re.compile(r"(\d{1,2})[/.-]((?:18|19|20)\d\d)")
_COMPACT_MONTH = re.compile(rf"(?i)(\d{{1,2}})[ -]?({_MONTH_RE})\.?[ -]?(\d{{2}}|\d{{4}})")
_MONTH_WORDS = re.compile(rf"(?i)\b({_MONTH_RE})\b\.?(?:[ \t]+(\d{{1,2}})(?:st|nd|rd|th)?\b)?")
_DAY_MONTH = re.compile(rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th|\.)?(?:[ \t]+(?:of|de|del))?[ \t]+({_MONTH_RE})\b")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d|2100)(?!\d)")
#: A year named as one: "año 1978", "the year 2003", "im Jahr 2015".
_YEAR_NAMED = re.compile(r"(?i)(?:(?:the|el|en el|del|im|in the)\s+)?(?:year|año|ano|jahr|anno)\s+(?:1[89]\d\d|20\d\d)")
#: A numeric date with a full year whose day or month is mistyped ("14/14/2014", "23/010/1990"): still
#: a date of the patient's, and PHI; the surrogate writes a valid date of the same shape.
_MISTYPED_FULL_YEAR = re.compile(r"\d{1,2}([/.-])\d{1,3}\1(?:18|19|20)\d\d")
_AGE_CUE = re.compile(r"(?i)\b(?:years?|yrs?|yo|y/o|y\.o|old|age[sd]?|aged|year-old|yr-old|yr\.?|y)\b")
_NUMBER = re.compile(r"\d+")
_URL = re.compile(r"(?i)^(?:[a-z][a-z0-9+.-]*://|www\.)\S+$|^(?:[a-z0-9-]+\.)+[a-z]{2,}(?:[/:?#]\S*)?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _valid_day(month: int, day: int, year: int | None = None) -> bool:
    if not 1 <= month <= 12 or day < 1:
        return False
    return day <= calendar.monthrange(year if year is not None else 2000, month)[1]


def _year(text: str) -> int:
    value = int(text)
    return value + (2000 if value < 50 else 1900) if len(text) == 2 else value


def looks_like_date(piece: str) -> bool:
    """True when `piece` holds a real calendar date (or a year, month or weekday) in a known form.

    Numeric dates need a valid month and day either way round (3/4/2019, 25/12/2019, 2019-07-04,
    2019-07-04T10:15:00, "3/4" without a year), or a month and a year (04/2020); compact forms
    20190305 and 05MAR2019; month names with a valid day; a year 1800-2100 alone, or with a month
    or season ("Fall 2019"); weekday names.
    """
    text = piece.strip()
    if _MISTYPED_FULL_YEAR.fullmatch(text) or _YEAR_NAMED.fullmatch(text):
        return True
    match = _NUMERIC.fullmatch(text)
    if match:
        first, _, second, third = match.groups()
        a, b = int(first), int(second)
        if len(first) == 4:  # year first
            return third is not None and 1800 <= a <= 2100 and _valid_day(b, int(third), a)
        year = _year(third) if third else None
        if year is not None and not 1800 <= year <= 2100:
            return False
        return _valid_day(a, b, year) or _valid_day(b, a, year)
    match = _MONTH_YEAR.fullmatch(text)
    if match:  # 04/2020, 3-2019: a month and a year
        return 1 <= int(match.group(1)) <= 12
    match = _COMPACT.fullmatch(text)
    if match:
        return _valid_day(int(match.group(2)), int(match.group(3)), int(match.group(1)))
    match = _COMPACT_MONTH.fullmatch(text)
    if match:
        return _valid_day(_MONTHS[match.group(2).lower()], int(match.group(1)), _year(match.group(3)))
    for found in _MONTH_WORDS.finditer(text):
        day = found.group(2)
        if day is None or _valid_day(_MONTHS[found.group(1).lower()], int(day)):
            return True
    for found in _DAY_MONTH.finditer(text):
        if _valid_day(_MONTHS[found.group(2).lower()], int(found.group(1))):
            return True
    if _YEAR.fullmatch(text) or _WEEKDAY.search(text):
        return True
    # A longer written date ("the 4th of March, 2019", "March 2019", "Fall 2019"): a month or season and a year.
    return bool(_YEAR.search(text) and re.search(rf"(?i)\b(?:{_MONTH_RE}|spring|summer|fall|autumn|winter)\b", text))


@lru_cache(maxsize=1)
def common_words(rank: int = COMMON_WORD_RANK) -> frozenset[str]:
    """Frequent English words (lower case) that are not also a person's name or a place."""
    return frozenset(w for w in _ranked_words()[:rank] if w.isalpha()) - _names() - _places()


#: The most frequent English words ("the", "for", "on", "with", ...) count as function words.
FUNCTION_WORD_RANK = 150


@lru_cache(maxsize=1)
def _ranked_words() -> tuple[str, ...]:
    """pyspellchecker's English words, most frequent first: its first `COMMON_WORD_RANK` entries,
    bundled (scripts/build_common_words.py; reading the package's whole dictionary cost every
    worker about 0.2 CPU-seconds)."""
    path = bundled_data_path("lang", "en", "lexicons", "common_words_en.txt")
    with open(path, encoding="utf-8") as handle:
        return tuple(line.rstrip("\n") for line in handle if not line.startswith("# "))


def ranked_words() -> tuple[str, ...]:
    """The bundled English words, most frequent first (read once per process)."""
    return _ranked_words()


@lru_cache(maxsize=1)
def word_ranks() -> dict[str, int]:
    """Rank of each bundled English word (0 = most frequent; a word listed twice keeps its first)."""
    ranks: dict[str, int] = {}
    for rank, word in enumerate(_ranked_words()):
        ranks.setdefault(word, rank)
    return ranks


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    return frozenset(w for w in _ranked_words()[:FUNCTION_WORD_RANK] if w.isalpha())


def only_function_words(piece: str) -> bool:
    """True when `piece` has no word but the most frequent English ones ("for", "the", "on")."""
    words = function_words()
    return all(w.casefold() in words for w in _WORD.findall(piece)) and not any(ch.isdigit() for ch in piece)


def person_names() -> frozenset[str]:
    """First and last names (case-folded) of Faker's locales and the bundled first-name table."""
    return _names()


@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    names: set[str] = set()
    for locale in _NAME_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary", "last_names"):
            values = getattr(provider, attr, None) or ()
            names.update(str(v).casefold() for v in values)
    gender_table = bundled_data_path("lang", "en", "surrogates", "first_names_gender.tsv")
    if gender_table.exists():
        names.update(line.split("\t", 1)[0].strip().casefold() for line in read_word_list(gender_table))
    return frozenset(names)


@lru_cache(maxsize=1)
def surnames() -> frozenset[str]:
    """Family names (case-folded) of Faker's locales, every list of them ("kowalski" is only among
    pl_PL's `male_last_names`): what a lower-case word after a bare "mr" must be to be read as a
    name (`radeid.patterns.validators.valid_person_name` with `surname = true`)."""
    names: set[str] = set()
    for locale in _NAME_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in dir(provider):
            values = getattr(provider, attr, None) if "last_name" in attr and not attr.startswith("_") else None
            if isinstance(values, (list, tuple, dict)):
                names.update(str(v).casefold() for v in values)
    return frozenset(names)


@lru_cache(maxsize=1)
def _places() -> frozenset[str]:
    places = bundled_data_path("lexicons", "places.txt")
    if not places.exists():
        return frozenset()
    return frozenset(word.casefold() for term in read_word_list(places) for word in term.lstrip("=").split())


class FormChecker:
    """`plausible(text, span)`: whether a span's text has the form its category needs."""

    def __init__(self, age_threshold: int = 89, check_common_words: bool = True) -> None:
        self.age_threshold = age_threshold
        self._check_common_words = check_common_words
        self._common: frozenset[str] | None = None
        self._checks: dict[Category, Callable[[str, Span, str], bool]] = {
            Category.PHONE: lambda _t, _s, piece: sum(ch.isdigit() for ch in piece) >= 7,
            Category.ID: lambda _t, _s, piece: any(ch.isdigit() for ch in piece),
            Category.IP: lambda _t, _s, piece: _parses_as_ip(piece),
            Category.EMAIL: lambda _t, _s, piece: _EMAIL.match(piece) is not None,
            Category.URL: lambda _t, _s, piece: _URL.match(piece) is not None,
            Category.DATE: lambda _t, _s, piece: looks_like_date(piece),
            Category.AGE: self._age,
        }

    @property
    def common(self) -> frozenset[str]:
        """The common-word list, built on first use (~0.15 CPU s, mostly Faker's names): `radeid
        deid` builds a pipeline in the coordinating process only to check the configuration, and
        that one never checks a span's form."""
        if self._common is None:
            self._common = common_words() if self._check_common_words else frozenset()
        return self._common

    def plausible(self, text: str, span: Span) -> bool:
        return self.failure(text, span) is None

    def failure(self, text: str, span: Span) -> str | None:
        """The name of the check `span` fails (`common_word`, `date`, ...), or None when it passes."""
        piece = text[span.start : span.end]
        if not any(ch.isalnum() for ch in piece):
            return "no_alnum"
        check = self._checks.get(span.category)
        if check is not None:
            return None if check(text, span, piece) else span.category.value.lower()
        if span.category in _NAME_CATEGORIES:
            if span.category is not Category.LOCATION and not any(ch.isalpha() for ch in piece):
                return "no_letters"  # a name, hospital or vendor has letters ("3" of "reading room 3")
            if self.is_common_word(piece):
                return "common_word"
            if self.is_lower_case_prose(piece):
                return "lower_case_prose"
            if span.category in _PROPER_NAMES and _lower_case_in_cased_text(text, piece):
                return "lower_case_in_cased_text"
        return None

    def is_lower_case_prose(self, piece: str) -> bool:
        """Several words, all lower case and common ("bone marrow"): prose, not a proper name."""
        words = _WORD.findall(piece)
        return (
            len(words) > 1
            and not any(ch.isdigit() for ch in piece)
            and all(w.islower() and w in self.common for w in words)
        )

    def is_common_word(self, piece: str) -> bool:
        """One word (no digits) found in the common-word list: "Society", "rounds", "Workstation"."""
        words = _WORD.findall(piece)
        if len(words) != 1 or any(ch.isdigit() for ch in piece):
            return False
        if len(words[0]) <= 3 and words[0].isupper():
            return False  # an abbreviation or code (CO, PA, VIC), not the word "co" or "pa"
        word = words[0].casefold()
        for suffix in ("'s", "’s"):
            word = word.removesuffix(suffix)
        return word in self.common

    def _age(self, text: str, span: Span, piece: str) -> bool:
        numbers = [int(n) for n in _NUMBER.findall(piece)]
        if not numbers:  # "ninety-one years old"
            value = number_from_words(piece)
            numbers = [value] if value is not None else []
        if not any(self.age_threshold < n <= 130 for n in numbers):
            return False
        around = text[max(0, span.start - 20) : span.end + 20]
        return _AGE_CUE.search(around) is not None


@lru_cache(maxsize=16)
def _has_capitals(text: str) -> bool:
    return any(ch.isupper() for ch in text)


def _lower_case_in_cased_text(text: str, piece: str) -> bool:
    """A name written all in lower case ("afebrile", "umbilicus") in a text that capitalises words.

    Texts written all in lower case (chat messages, some exports) keep their lower-case names.
    """
    return piece.islower() and _has_capitals(text)


def _parses_as_ip(piece: str) -> bool:
    try:
        ipaddress.ip_address(piece.strip("[]"))
    except ValueError:
        return False
    return True
