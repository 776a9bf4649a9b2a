"""Place names as positive evidence: "lives in Chicago" is a city, though "chicago" is a common word.

The form checks drop a model's single common English word ("rounds", "Society"); many cities are
such words too (Chicago, Miami, Buffalo, Mobile, Reading), and dropping them left one PHI span in a
hundred visible on unseen clinical questions. A name from the bundled GeoNames gazetteer
(`data/lexicons/gazetteer_places.txt`, built by scripts/build_gazetteer.py) in a place context
(after "in", "from", "lives in", ...; before ", NY" or a state or country) is evidence for a place
that no common-word rank outweighs. The gazetteer alone proposes nothing: the model, a rule or a
word list must have called the text PHI first, so "Buffalo hump" and "Rome IV criteria" stay.
"""

from __future__ import annotations

import re
from functools import lru_cache

from radeid.wordlists import bundled_data_path, read_word_list

__all__ = ["gazetteer_places", "is_place_name", "place_context"]

#: Words before a place: prepositions of place and movement, and verbs of living and travel.
_BEFORE = re.compile(
    r"(?i)(?:^|[^\w'’])(?:in|from|to|at|near|outside|around|visiting|visited|via|toward|towards|into|"
    r"lives|living|lived|resides|residing|resident|moved|born|native[ \t]+of|relocated|returned|"
    r"travel(?:l)?ed|traveling|travelling|flew|drove|trip|vacation(?:ed)?|city[ \t]+of|town[ \t]+of|"
    r"downtown|suburbs?[ \t]+of|area[ \t]+of|back)[ \t]+(?:the[ \t]+city[ \t]+of[ \t]+)?\Z"
)
#: After a place: ", NY", ", New York", ", USA", " area", " suburbs", a ZIP code.
_AFTER = re.compile(
    r"(?:[ \t]*,[ \t]*(?:[A-Z]{2}\b|[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?\b)|[ \t]+(?i:area|suburbs|metro|region)\b|"
    r"[ \t]+\d{5}\b)"
)
#: A place name is not followed by these (Rome IV criteria, Buffalo hump, Reading room).
_NOT_AFTER = re.compile(r"[ \t]+(?:[IVX]+\b|\d|(?i:criteria|hump|room|sign|unit|catheter|scale)\b)")


@lru_cache(maxsize=1)
def gazetteer_places() -> frozenset[str]:
    """The bundled place names, case-folded."""
    path = bundled_data_path("lexicons", "gazetteer_places.txt")
    return frozenset(name.casefold() for name in read_word_list(path))


def is_place_name(piece: str) -> bool:
    """A capitalised (or all-caps) name the gazetteer holds: "Chicago", "BUFFALO", not "buffalo"."""
    stripped = piece.strip()
    if not stripped or not stripped[0].isupper():
        return False
    for suffix in ("'s", "’s"):
        stripped = stripped.removesuffix(suffix)
    return stripped.casefold() in gazetteer_places()


def place_context(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` stands where a place stands: after "in"/"from"/"lives in"/..., or
    before ", ST" / ", State" / " area", on the same line, and not before "IV", "hump", "room"."""
    if _NOT_AFTER.match(text, end):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - 40) : start]
    return _BEFORE.search(before) is not None or _AFTER.match(text, end) is not None
