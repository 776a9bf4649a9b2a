"""Street addresses as labelled parts: house number, street name, street type, unit, city, state, ZIP.

A surrogate address is written part by part in the original's form ("2300 Quarry Road, Suite 110"
-> "4821 Birch Road, Suite 204"), so this module only labels: `label_address` cuts the text into
pieces that concatenate back to it exactly, each with a label. US addresses are read by
`usaddress` (MIT; a conditional random field trained on US addresses), imported on first use: it
costs about 0.2 s to import and 10 ms to load its model, which a run without addresses never
pays. Other languages, and text `usaddress` reads badly ("Calle Mayor 12, 3º B"), are labelled
word by word from the language's word lists (`data/surrogates/places.toml`). Only the words
listed there as generic (a street type, a unit cue, a direction, a small connecting word) are
ever kept; every other word is labelled NAME and replaced.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from radeid.core.resources import bundled_data_path
from radeid.replace.surrogate.keyed import KeyStream, fold, shape_scramble

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# piece labels
SEP, KEEP, NUMBER, NAME, TYPE, CUE, UNIT, CITY, STATE, ZIP, COUNTRY, SEGMENT = (
    "sep", "keep", "number", "name", "type", "cue", "unit", "city", "state", "zip", "country", "segment"
)  # fmt: skip
#: labels whose text a surrogate keeps as written
KEPT = frozenset({SEP, KEEP, TYPE, CUE})

Piece = tuple[str, str]  # (text, label)


@dataclass(frozen=True)
class PlaceWords:
    """One language's generic address and facility words (folded), and its street-name pool."""

    lang: str
    street_types: frozenset[str]
    street_suffixes: tuple[str, ...]  # endings of one-word streets ("Hauptstraße"), longest first
    unit_cues: frozenset[str]
    directions: frozenset[str]
    keep_words: frozenset[str]
    street_words: tuple[str, ...]
    facility_words: frozenset[str]
    facility_tails: frozenset[str]
    facility_heads: frozenset[str]
    #: other languages' street types ("Calle" in an English note): kept, and `usaddress` skipped
    foreign_types: frozenset[str] = frozenset()

    def generic(self, word: str) -> bool:
        """Whether a word may survive in an address surrogate (its kind, not its name)."""
        key = word_key(word)
        return key in self.street_types or key in self.unit_cues or key in self.directions or key in self.keep_words


@lru_cache(maxsize=1 << 16)
def word_key(word: str) -> str:
    """A word as the lists hold it: folded, without its trailing dot or comma (cached)."""
    return fold(word).strip(".,;:")


def language_of(locale: str) -> str:
    """ "es_ES" -> "es"; the language whose word lists serve the locale."""
    return locale.replace("-", "_").split("_")[0].lower() or "en"


@lru_cache(maxsize=1)
def _place_data() -> dict[str, Any]:
    with open(bundled_data_path("surrogates", "places.toml"), "rb") as handle:
        data: dict[str, Any] = tomllib.load(handle)
    return data


@lru_cache(maxsize=8)
def place_words(locale: str = "en_US") -> PlaceWords:
    """The word lists of a locale's language (English when it has none)."""
    data = _place_data()
    lang = language_of(locale)
    section = data.get(lang) or data["en"]

    def folded(name: str) -> frozenset[str]:
        return frozenset(word_key(w) for w in section.get(name, ()))

    foreign = {word_key(w) for key, other in data.items() if key not in ("common", lang) for w in other["street_types"]}
    foreign = {w for w in foreign if len(w) > 1}  # not the "C" of "Building C"

    return PlaceWords(
        lang=lang if lang in data else "en",
        street_types=folded("street_types"),
        street_suffixes=tuple(sorted((s.lower() for s in section.get("street_suffixes", ())), key=len, reverse=True)),
        unit_cues=folded("unit_cues"),
        directions=folded("directions"),
        keep_words=folded("keep_words"),
        street_words=tuple(section.get("street_words", ())),
        facility_words=frozenset(word_key(w) for w in data["common"]["facility_words"]),
        facility_tails=frozenset(word_key(w) for w in data["common"]["facility_tails"]),
        facility_heads=frozenset(word_key(w) for w in data["common"]["facility_heads"]),
        foreign_types=frozenset(foreign - folded("street_types") - folded("unit_cues") - folded("directions")),
    )


# --- usaddress (US addresses) --------------------------------------------------------------------


@lru_cache(maxsize=1)
def _usaddress() -> ModuleType | None:
    """The parser, imported on first use; None when it is not installed (word rules then)."""
    try:
        import usaddress
    except ImportError:  # pragma: no cover - a dependency; kept working without it
        return None
    module: ModuleType = usaddress
    return module


_US_LABELS = {
    "AddressNumber": NUMBER, "AddressNumberSuffix": NUMBER, "USPSBoxID": NUMBER, "USPSBoxGroupID": NUMBER,
    "StreetNamePreType": TYPE, "StreetNamePostType": TYPE, "StreetNamePreDirectional": "direction",
    "StreetNamePostDirectional": "direction", "OccupancyType": CUE, "SubaddressType": CUE, "USPSBoxType": CUE,
    "USPSBoxGroupType": CUE, "OccupancyIdentifier": UNIT, "SubaddressIdentifier": UNIT, "PlaceName": CITY,
    "StateName": STATE, "ZipCode": ZIP, "CountryName": COUNTRY, "IntersectionSeparator": KEEP,
}  # fmt: skip
_STREETISH = frozenset({"AddressNumber", "StreetName", "StreetNamePostType", "OccupancyType", "USPSBoxType"})


def _us_pieces(text: str, words: PlaceWords) -> list[Piece] | None:
    """`usaddress`'s reading as pieces; None when it has none or reads no street or unit."""
    parser = _usaddress()
    if parser is None:
        return None
    try:
        tagged = parser.parse(text)
    except Exception:  # noqa: BLE001 - a parser failure only means: use the word rules
        return None
    if not tagged or not any(label in _STREETISH for _, label in tagged):
        return None
    pieces: list[Piece] = []
    pos = 0
    for token, tag in tagged:
        start = text.find(token, pos)
        if start < 0:
            return None
        if start > pos:
            pieces.append((text[pos:start], SEP))
        core = token.rstrip(",;")
        label = _checked(core, _US_LABELS.get(tag, NAME), words)
        if label == NAME and word_key(core) in words.unit_cues and not _type_follows(tagged, token):
            return None  # "Floor" read as a street name ("2nd Floor, East Wing"): the parser is lost
        pieces.append((core, label))
        if len(core) < len(token):
            pieces.append((token[len(core) :], SEP))
        pos = start + len(token)
    if pos < len(text):
        pieces.append((text[pos:], SEP))
    return pieces


def _type_follows(tagged: list[tuple[str, str]], token: str) -> bool:
    """Whether the parser reads a street type right after `token` ("Wing" of "4 Wing Road")."""
    tags = [t for _, t in tagged]
    at = [w for w, _ in tagged].index(token)
    return at + 1 < len(tags) and tags[at + 1] == "StreetNamePostType"


def _names_before_types(pieces: list[Piece]) -> list[Piece]:
    """A generic word right before a street type is the street's name ("Court Street", "East
    Street", "Wing Road"): it is replaced like any name."""
    out = list(pieces)
    words = [i for i, (_, label) in enumerate(out) if label != SEP]
    for a, b in zip(words, words[1:], strict=False):
        if out[a][1] in (KEEP, CUE, TYPE) and out[b][1] == TYPE and out[a][0][-1:] not in ",;":
            out[a] = (out[a][0], NAME)
    return out


def _checked(word: str, label: str, words: PlaceWords) -> str:
    """A parser's label, trusted only as far as the word lists agree: a "type" or "cue" word
    that is no generic word is a name ("Orchard" in "Orchard Lane" never survives)."""
    if label == "direction":
        return KEEP if word_key(word) in words.directions else NAME
    if label in (TYPE, CUE):
        return label if all(words.generic(w) for w in word.split()) else NAME
    if label == NAME and word_key(word) in words.keep_words:
        return KEEP
    if label in (NUMBER, UNIT) and not any(c.isdigit() for c in word):
        return UNIT if len(word) <= 2 else (KEEP if words.generic(word) else NAME)
    return label


# --- word rules (every language) -----------------------------------------------------------------

_TOKEN = re.compile(r"[^\s,;]+|[\s,;]+")
_ZIP5 = re.compile(r"\d{5}(?:-\d{4})?")
_STREETS_PREFIX = re.compile(r"(?i)(c/|cl/|avda\.|av\.|pº|p\.º)(?=\w)")


def _word_label(tok: str, prev: str, words: PlaceWords) -> str:
    key = word_key(tok)
    if _ZIP5.fullmatch(tok):
        return ZIP
    if any(c.isdigit() for c in tok):
        return UNIT if prev == CUE else NUMBER
    if key in words.street_types or key in words.foreign_types or tok.endswith("/"):
        return TYPE
    if key in words.unit_cues:
        return CUE
    if key in words.directions or key in words.keep_words:
        return KEEP
    if len(tok.rstrip(".")) == 1 and prev in (NUMBER, UNIT, CUE):
        return UNIT  # the door of "3º B"
    return NAME


def _split_compound(tok: str, words: PlaceWords) -> list[Piece]:
    """ "Hauptstraße" -> ("Haupt", NAME), ("straße", TYPE); other words whole."""
    low = tok.lower()  # not casefold: "ß" must stay one letter
    for suffix in words.street_suffixes:
        if low.endswith(suffix) and len(low) > len(suffix) + 1:
            cut = len(tok) - len(suffix)
            return [(tok[:cut], NAME), (tok[cut:], TYPE)]
    return [(tok, NAME)]


def _street_segment(seg: str, words: PlaceWords) -> list[Piece]:
    """One street-like comma segment, word by word; the name words after a ZIP are the city
    ("10115 Berlin", "28013 Madrid")."""
    pieces: list[Piece] = []
    prev = ""
    for m in _TOKEN.finditer(seg):
        tok = m.group()
        if tok.isspace() or tok[0] in ",;":
            pieces.append((tok, SEP))
            continue
        prefix = _STREETS_PREFIX.match(tok)
        if prefix:  # "C/Mayor": the type glued to the name
            pieces.append((prefix.group(), TYPE))
            tok = tok[prefix.end() :]
        label = CITY if prev in (ZIP, CITY) and _word_label(tok, prev, words) == NAME else _word_label(tok, prev, words)
        if label == NAME and words.street_suffixes:
            pieces.extend(_split_compound(tok, words))
        else:
            pieces.append((tok, label))
        prev = label
    return pieces


_ZIP_CITY = re.compile(r"\d{5}\s+[^\W\d_][^\d]*")  # "10115 Berlin", "28013 Madrid"
_SEGMENTS = re.compile(r"[^,;\n]+|[,;\n]+")


def _streetlike(seg: str, words: PlaceWords) -> bool:
    """A segment with a number other than a ZIP code, a street type or a unit cue (not a bare
    city, state or "MA 02114")."""
    toks = seg.split()
    if any(any(c.isdigit() for c in t) and not _ZIP5.fullmatch(t.strip(",;")) for t in toks):
        return True
    if any(word_key(t) in words.street_types or word_key(t) in words.unit_cues or word_key(t) in words.foreign_types
           for t in toks):  # fmt: skip
        return len(toks) > 1 or fold(seg.strip()).endswith("/")
    return any(t.lower().endswith(words.street_suffixes) for t in toks) if words.street_suffixes else False


def _word_pieces(text: str, words: PlaceWords) -> list[Piece]:
    """Every language: street-like segments word by word; the others (a city, "MA 02114") whole,
    for the caller's place rules."""
    pieces: list[Piece] = []
    for m in _SEGMENTS.finditer(text):
        seg = m.group()
        if seg[0] in ",;\n":
            pieces.append((seg, SEP))
        elif not seg.strip():
            pieces.append((seg, SEP))
        elif _streetlike(seg, words) or (words.lang != "en" and _ZIP_CITY.fullmatch(seg.strip())):
            pieces.extend(_street_segment(seg, words))
        else:
            lead = seg[: len(seg) - len(seg.lstrip())]
            trail = seg[len(seg.rstrip()) :]
            pieces.extend(p for p in ((lead, SEP), (seg.strip(), SEGMENT), (trail, SEP)) if p[0])
    return pieces


@lru_cache(maxsize=1 << 12)
def label_address(text: str, locale: str = "en_US") -> tuple[Piece, ...]:
    """The pieces of an address (concatenated, they are `text`); cached, addresses repeat."""
    words = place_words(locale)
    us = words.lang == "en" and is_streetlike(text, locale)
    if us and any(word_key(t) in words.foreign_types for t in text.split()):
        us = False  # "Calle Mayor 12": not a US address
    pieces = _us_pieces(text, words) if us else None
    pieces = pieces if pieces is not None else _word_pieces(text, words)
    return tuple(_names_before_types(_foreign_types_before_names(pieces, words)))


def _foreign_types_before_names(pieces: list[Piece], words: PlaceWords) -> list[Piece]:
    """Another language's street type between a house number and a name is a name in this one
    ("Wall" of an English "716 Wall Harbor" is no German "Wall"): it is replaced like any name.
    A type that opens the street ("Calle Mayor 12") stays a type."""
    out = list(pieces)
    at = [i for i, (_, label) in enumerate(out) if label != SEP]
    for before, a, b in zip(at, at[1:], at[2:], strict=False):
        key = word_key(out[a][0])
        if (out[before][1], out[a][1], out[b][1]) == (NUMBER, TYPE, NAME) and key in words.foreign_types:
            if key not in words.street_types:
                out[a] = (out[a][0], NAME)
    return out


def is_streetlike(text: str, locale: str = "en_US") -> bool:
    """Whether a place mention holds a street, a house number or a unit (an address to label)."""
    words = place_words(locale)
    return any(_streetlike(m.group(), words) for m in _SEGMENTS.finditer(text) if m.group()[0] not in ",;\n")


# --- numbers -------------------------------------------------------------------------------------

_ORDINAL = re.compile(r"(?i)(\d+)(st|nd|rd|th|º|ª|°|\.º|\.ª|er|e|\.)?")


def english_ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def new_number(tok: str, stream: KeyStream) -> str:
    """A house, floor or unit number of the same shape, never the original: digit for digit (no
    new leading zero), letter for letter, "3rd" -> "5th" (the suffix follows the number), "3º"
    -> "7º". A postcode's country letters stay ("D-69117" -> "D-53033")."""
    prefix = _POSTCODE_COUNTRY.match(tok)
    if prefix and any(c.isdigit() for c in tok[prefix.end() :]):
        return prefix.group() + new_number(tok[prefix.end() :], stream)
    m = _ORDINAL.fullmatch(tok)
    for _ in range(8):
        if m and m.group(2) and m.group(2).lower() in ("st", "nd", "rd", "th"):
            digits = m.group(1)
            n = int(_nonzero_lead(stream.digits(len(digits)), digits, stream))
            new = str(n) + _suffix_case(english_ordinal(n), m.group(2))
        else:
            new = _nonzero_lead(_scramble(tok, stream), tok, stream)
        if new != tok:
            return new
    return new


_POSTCODE_COUNTRY = re.compile(r"(?:D|A|CH|FL|F|I|L|B|NL|E)-(?=\d{4,5}$)")


def _scramble(tok: str, stream: KeyStream) -> str:
    """Digit for digit, ASCII letter for letter; "º", "ª" and the like kept."""
    if tok.isascii():
        return shape_scramble(tok, stream)
    return "".join(shape_scramble(c, stream) if c.isascii() else c for c in tok)


def _nonzero_lead(new: str, old: str, stream: KeyStream) -> str:
    if new[:1] == "0" and old[:1] != "0":
        return str(1 + stream.below(9)) + new[1:]
    return new


def _suffix_case(suffix: str, original: str) -> str:
    return suffix.upper() if original.isupper() else suffix
