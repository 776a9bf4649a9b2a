"""What kind of place a location mention is: city, state, country, street, room, ZIP, ...

One classifier serves the generator (a city becomes a city, a state a state in the same form)
and the tests (the surrogate is classified the same way and must land in the same kind). A
detector's subtype wins when it names a kind; otherwise the text decides: a ZIP code, a US state
name or postal code, a known country, a P.O. box or unit, a street (a house number, or a last word
that is a street type), a room or bed number (letters and digits, no spaces), several
comma-separated parts (an address), and anything else is a city.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from radeid.replace.surrogate.addresses import place_words, word_key
from radeid.replace.surrogate.keyed import fold

if TYPE_CHECKING:
    from radeid.replace.surrogate.places import PlacePools

PlaceKind = Literal["city", "state", "state_code", "country", "street", "unit", "room", "zip", "address"]

#: detector subtypes (rules, lexicons, label maps) -> kind; ADDRESS and unknown ones read the text
SUBTYPE_KINDS: dict[str, PlaceKind] = {
    "CITY": "city",
    "TOWN": "city",
    "STATE": "state",
    "PROVINCE": "state",
    "COUNTRY": "country",
    "NATION": "country",
    "STREET": "street",
    "ZIP": "zip",
    "POSTCODE": "zip",
    "ROOM": "room",
    "BED": "room",
    "WARD": "room",
}

ZIP = re.compile(r"\d{5}(?:-\d{4})?")
UNIT = re.compile(
    r"(?P<cue>(?:apt|apartment|suite|ste|unit|room|rm|floor|fl|bldg|building|bed|ward|bay|#)\b\.?\s*#?\s*)"
    r"(?P<id>[\w\-/.]+)",
    re.I,
)
PO_BOX = re.compile(r"p\.?\s*o\.?\s*box\s+\d+", re.I)
HOUSE_NUMBER = re.compile(r"\d+[A-Za-z]?\s+\S")
#: a room, bed or ward id: letters and digits (at least one digit), dashes, slashes, dots
ROOM = re.compile(r"(?=[\w\-/.]*\d)[A-Za-z0-9][\w\-/.]{0,11}")


def state_of(text: str, pools: PlacePools) -> tuple[str, str] | None:
    """(name, postal code) when the text is a US state; two-letter codes only in capitals
    ("me", "in", "or" are words)."""
    key = fold(text).rstrip(".")
    pair = pools.state_by_key.get(key)
    if pair and len(text.rstrip(".")) == 2 and not text.isupper():
        return None
    return pair


def classify_place(text: str, pools: PlacePools, subtype: str | None = None) -> PlaceKind:
    """The kind of one location mention (see the module docstring)."""
    seg = text.strip()
    kind = SUBTYPE_KINDS.get((subtype or "").upper())
    if kind == "state":
        return "state_code" if len(seg.rstrip(".")) == 2 else "state"
    if kind == "street" and (PO_BOX.fullmatch(seg) or UNIT.fullmatch(seg)):
        return "unit"
    if kind is not None:
        return kind
    if ZIP.fullmatch(seg):
        return "zip"
    if state_of(seg, pools):
        return "state_code" if len(seg.rstrip(".")) == 2 else "state"
    if fold(seg) in pools.country_keys:
        return "country"
    if PO_BOX.fullmatch(seg) or UNIT.fullmatch(seg):
        return "unit"
    if ROOM.fullmatch(seg):
        return "room"
    if any(c in seg for c in ",;\n"):
        return "address"
    if HOUSE_NUMBER.match(seg):
        return "street"
    words = seg.split()
    if len(words) > 1 and fold(words[-1]) in pools.street_suffixes:
        return "street"
    return "city"


@lru_cache(maxsize=1 << 14)
def names_a_facility(text: str, locale: str = "en_US") -> bool:
    """Whether a span tagged as a person's name names a facility: two words or more, the last a
    facility word ("Westbury Family Medicine") or the first a facility head ("Clínica Teknon")."""
    words = text.split()
    if len(words) < 2:
        return False
    lists = place_words(locale)
    return _key(words[-1]) in lists.facility_tails or _key(words[0]) in lists.facility_heads


def _key(word: str) -> str:
    """`word_key` of one word, with the ASCII case inline (a name span's words, every span)."""
    return word.lower().strip(".,;:") if word.isascii() else word_key(word)
