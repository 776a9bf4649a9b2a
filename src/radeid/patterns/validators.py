"""Named validators for `RuleDetector` rules.

A regular expression finds text of the right *shape*; a validator decides whether the shape is
*plausible* (a real calendar date, an SSN the SSA could issue, a Luhn-valid NPI, octets <= 255, an
age over the threshold). Rules name validators in their TOML file, so the data stays declarative
and the checks stay testable Python.

Every validator has the signature ``(value, match, options) -> bool``: `value` is the text of the
span being emitted, `match` the whole regular-expression match (named groups such as `y`, `m`,
`d`, `mon` carry the parts), and `options` the rule's `validator_args` plus detector settings
(`age_threshold`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from radeid.patterns.numbers import number_from_words

Validator = Callable[[str, "re.Match[str]", Mapping[str, Any]], bool]

VALIDATORS: dict[str, Validator] = {}


def register_validator(name: str) -> Callable[[Validator], Validator]:
    """Register a validator under `name` so rule files can refer to it."""

    def decorate(func: Validator) -> Validator:
        VALIDATORS[name] = func
        return func

    return decorate


def get_validator(name: str) -> Validator:
    try:
        return VALIDATORS[name]
    except KeyError:
        known = ", ".join(sorted(VALIDATORS))
        raise ValueError(f"unknown validator {name!r}; known: {known}") from None


_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DIGITS = re.compile(r"\d+")


def _group(match: re.Match[str], name: str, groups: Mapping[str, str | None] | None = None) -> str | None:
    """Group `name`, else `name2`, `name3` (alternatives of one pattern cannot reuse a name)."""
    if groups is None:
        groups = match.groupdict()
    value = groups.get(name)
    if value is None:
        value = groups.get(name + "2")
        if value is None:
            value = groups.get(name + "3")
    return value


def _int_of(text: str | None) -> int | None:
    if not text:
        return None
    if text.isdigit():
        return int(text)
    found = _DIGITS.search(text)
    return int(found.group()) if found else None


def _year_ok(year_text: str | None, options: Mapping[str, Any]) -> bool:
    if year_text is None:
        return True
    digits = year_text if year_text.isdigit() else "".join(ch for ch in year_text if ch.isdigit())
    if len(digits) == 2:
        return True  # two-digit years are always plausible: '19, 3/4/87
    if len(digits) != 4:
        return False
    return int(options.get("min_year", 1900)) <= int(digits) <= int(options.get("max_year", 2100))


def _day_fits(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]


@register_validator("date")
def valid_date(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """Plausible calendar date from the named groups `y`, `m`, `d` and/or `mon` (month name);
    `y2`, `m2`, ... stand in for them in a second alternative of the pattern.

    Numeric day/month order is ambiguous across locales, so `m`/`d` may be swapped when only the
    swapped reading is valid (25/12/2019); `swap = false` forbids that (ISO dates). Years must
    fall in [min_year, max_year] (1900-2100).
    """
    groups = match.groupdict()
    if not _year_ok(_group(match, "y", groups), options):
        return False
    mon = _group(match, "mon", groups)
    month = _MONTHS.get(mon[:3].lower()) if mon else _int_of(_group(match, "m", groups))
    day = _int_of(_group(match, "d", groups))
    if month is None:
        return day is None or 1 <= day <= 31
    if day is None:
        return 1 <= month <= 12
    if _day_fits(month, day):
        return True
    return mon is None and bool(options.get("swap", True)) and _day_fits(day, month)


@register_validator("year")
def valid_year(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A four-digit year in [min_year, max_year] (defaults 1900-2100)."""
    year = _group(match, "y") or value
    return len(year) == 4 and year.isdigit() and _year_ok(year, options)


@register_validator("ssn")
def valid_ssn(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """US SSN structure: area not 000/666, group not 00, serial not 0000.

    Area 9xx is never an SSN but is an ITIN (also identifying): rejected only when the rule's
    `validator_args` say `allow_9xx = false`.
    """
    digits = "".join(ch for ch in value if ch.isdigit())
    if len(digits) != 9:
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    if area[0] == "9" and not options.get("allow_9xx", True):
        return False
    return not (area in ("000", "666") or group == "00" or serial == "0000")


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) checksum used by NPIs and payment cards."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        number = ord(char) - 48
        if index % 2 == 1:
            number *= 2
            if number > 9:
                number -= 9
        total += number
    return total % 10 == 0


@register_validator("luhn")
def valid_luhn(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """Digits (separators ignored) pass the Luhn check; length within [min_len, max_len]."""
    digits = "".join(ch for ch in value if ch.isdigit())
    low, high = int(options.get("min_len", 12)), int(options.get("max_len", 19))
    return low <= len(digits) <= high and luhn_ok(digits)


@register_validator("npi")
def valid_npi(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A US National Provider Identifier: 10 digits, Luhn-valid behind the 80840 prefix."""
    digits = "".join(ch for ch in value if ch.isdigit())
    return len(digits) == 10 and digits[0] in "12" and luhn_ok("80840" + digits)


@register_validator("ipv4")
def valid_ipv4(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """Four octets 0-255 without leading zeros (leading zeros suggest a version or a code)."""
    parts = value.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part.isdigit() or int(part) > 255 or (len(part) > 1 and part[0] == "0"):
            return False
    return True


@register_validator("ipv6")
def valid_ipv6(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A valid IPv6 address with at least three non-empty groups (not a time, not `::1`)."""
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return sum(1 for group in value.split(":") if group) >= 3


@register_validator("age")
def valid_age(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """Only ages above the threshold (HIPAA: over 89) are PHI; anything above `max_age` is noise."""
    age = _int_of(value)
    if age is None:
        return False
    return int(options.get("age_threshold", 89)) < age <= int(options.get("max_age", 125))


@register_validator("age_words")
def valid_age_words(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """An age written in words ("ninety-one", "one hundred and two") above the threshold."""
    age = number_from_words(value)
    if age is None:
        return False
    return int(options.get("age_threshold", 89)) < age <= int(options.get("max_age", 125))


_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def load_name_tables() -> None:
    """Read the tables of the `person_name` validator (the fork server's warm-up)."""
    from radeid.patterns.forms import surnames

    _word_ranks()
    surnames()


@lru_cache(maxsize=1)
def _word_ranks() -> dict[str, int]:
    """Rank of each of the 20,000 most frequent English words (0 = most frequent), from the bundled
    list that `radeid.patterns.forms` also reads."""
    from radeid.patterns.forms import word_ranks

    return word_ranks()


def _in_name_table(key: str, names: frozenset[str]) -> bool:
    """A word (case-folded) is a person name: itself, each part of a hyphenated name (mary-kate),
    or the part after an apostrophe (o'brien, d'angelo)."""
    if key in names:
        return True
    if "-" in key:
        return all(part in names for part in key.split("-") if part)
    if "'" in key:
        return key.rsplit("'", 1)[1] in names
    return False


@register_validator("person_name")
def valid_person_name(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A name after a cue, word by word, for names written in lower case ("dr. o'brien", "Patient:
    jane doe") and answers to a name question.

    A lower-case word must be a person name of the name table (`radeid.patterns.forms.person_names`:
    Faker's names of many locales) that is not among the `common_rank` (default 1,000) most
    frequent English words ("will", "may", "said" are names too); with `unknown_words = true` a
    word missing from both the name table and the frequency list also counts ("kowalski" after
    "Mrs."), and with `unknown_with_name = true` only when another word of the span is a name
    ("dunmore, gerald"). A capitalised word must not be a frequent English word that is no name
    ("Declined", "Unknown"). At most `max_words` (default 3) words.
    """
    from radeid.patterns.forms import common_words, person_names, surnames

    words = _NAME_WORD.findall(value)
    if not words or len(words) > int(options.get("max_words", 3)):
        return False
    if options.get("surname", False):
        # a family name of the surname tables that is no English word at all and has four letters
        # or more ("kowalski" after a bare "mr"; never "severe", "jet" or "ar")
        family = surnames()
        return all(
            len(key) >= 4 and key in family and key not in _word_ranks()
            for key in (word.casefold().replace("’", "'") for word in words)
        )
    names = person_names()
    ranks = _word_ranks()
    common_rank = int(options.get("common_rank", 1000))
    unknown_ok = bool(options.get("unknown_words", False))
    unknown_with_name = bool(options.get("unknown_with_name", False))
    keys = [word.casefold().replace("’", "'") for word in words]
    has_name = any(_in_name_table(key, names) for key in keys)
    for word, key in zip(words, keys, strict=True):
        if not word.islower():
            if key in common_words():
                return False
            continue
        rank = ranks.get(key)
        if _in_name_table(key, names):
            if rank is not None and rank < common_rank:
                return False
            continue
        if rank is None and len(key) >= 3 and (unknown_ok or (unknown_with_name and has_name)):
            continue
        return False
    return True


@register_validator("digits")
def valid_digit_count(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """The number of digits lies in [min, max] (phone numbers written with any separators).

    With `group`, digits are counted in that named group only (e.g. the number without its
    extension).
    """
    group = options.get("group")
    text = (_group(match, str(group)) or "") if group else value
    count = sum(ch.isdigit() for ch in text)
    return int(options.get("min", 1)) <= count <= int(options.get("max", 1_000))


@register_validator("identifier")
def valid_identifier(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """An ID value: at least `min_digits` digits and not a lone English word or unit."""
    digits = sum(ch.isdigit() for ch in value)
    if digits < int(options.get("min_digits", 1)):
        return False
    return len(value) >= int(options.get("min_len", 3))


_WORD = re.compile(r"[^\W\d_][\w'’.&-]*")
_WORD_SETS: dict[int, tuple[object, frozenset[str]]] = {}


def _word_set(words: Any) -> frozenset[str]:
    """The lower-cased words of a list (phrases split), cached per list object: built once, not per call."""
    cached = _WORD_SETS.get(id(words))
    if cached is not None and cached[0] is words:
        return cached[1]
    result = frozenset(word for phrase in words for word in str(phrase).lower().replace("’", "'").split())
    _WORD_SETS[id(words)] = (words, result)
    return result


@register_validator("not_generic")
def valid_not_generic(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """At least one word of the name is not generic (rejects "Outside Hospital", "Breast Clinic").

    `options["generic"]` holds the generic words (compared case-insensitively); words in
    `options["ignore"]` (facility words, connectors) are skipped.
    """
    generic = _word_set(options.get("generic", ()))
    ignore = _word_set(options.get("ignore", ()))
    for word in _WORD.findall(value):
        key = word.lower().rstrip(".")
        key_plain = key.replace("’", "'")
        if key_plain in ignore or key_plain in generic:
            continue
        if key_plain.endswith("'s") and key_plain[:-2] in generic:
            continue
        return True
    return False


@register_validator("uid")
def valid_uid(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A DICOM UID: dot-separated numbers without leading zeros, at most 64 characters long."""
    if len(value) > 64 or len(value) < 10:
        return False
    return all(part.isdigit() and (part == "0" or part[0] != "0") for part in value.split("."))


#: Street words that make the words before a facility word a street the facility is named after
#: ("third street wellness", "oak avenue urgent care").
_STREET_NAME_WORDS = frozenset("street st avenue ave road rd lane ln drive boulevard blvd way".split())


@register_validator("facility_lower")
def valid_facility_lower(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A facility name written in lower case ("bayside urgent care", "third street wellness",
    "county general"): the words before the facility word (group `name`) hold no frequent function
    word and are a place rare as an English word (a gazetteer name absent from the frequency list or
    in its tail: "bayside"), a street ("third street"), or end with "county" before "general" (group
    `head`: the facility word)
    ("county general"). Generic phrases stay: "local urgent care", "an urgent care", "overall
    wellness", "general" after anything but a county."""
    from radeid.patterns.forms import function_words
    from radeid.patterns.gazetteer import LOWER_PLACE_RANK, gazetteer_places

    words = (_group(match, "name") or "").split()
    head = _group(match, "head") or ""
    if not words or any(w in function_words() for w in words):
        return False
    if head.startswith("general"):
        return words[-1] == "county"
    if len(words) >= 2 and words[-1] in _STREET_NAME_WORDS:
        return True
    place = " ".join(words)
    if place not in gazetteer_places():
        return False
    rank = _word_ranks().get(place)
    return rank is None or rank >= LOWER_PLACE_RANK


@register_validator("lower_place")
def valid_lower_place(value: str, match: re.Match[str], options: Mapping[str, Any]) -> bool:
    """A gazetteer place written in lower case ("vegas", "las vegas", "austin") that is rare as an
    English word: absent from the frequency list or in its tail (`LOWER_PLACE_RANK`), so "mobile",
    "normal" and "home" are never read as places."""
    from radeid.patterns.gazetteer import LOWER_PLACE_RANK, gazetteer_places

    if value not in gazetteer_places():
        return False
    rank = _word_ranks().get(value)
    return rank is None or rank >= LOWER_PLACE_RANK
