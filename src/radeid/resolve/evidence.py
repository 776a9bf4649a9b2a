"""Evidence the resolver weighs before a form check drops a model's span.

A model that tags true PHI with the wrong category ("Chicago" as a hospital, "Madrid" as a URL, a
postcode as a phone, a house number as an IP) would lose it to the category's form check. These
functions say what the span is instead: a gazetteer place in a place context, a number on an
address line, a number too short for a phone. The resolver relabels such a span rather than
dropping it, and records the decision.
"""

from __future__ import annotations

import re

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.patterns.gazetteer import is_place_name, place_context

__all__ = ["address_number", "place_evidence", "short_number"]


#: Categories a model gives a city it has read as a name ("Chicago" as HOSPITAL): a place in a place
#: context becomes LOCATION.
_PLACE_CATEGORIES = frozenset(
    {Category.LOCATION, Category.HOSPITAL, Category.VENDOR, Category.PATIENT, Category.HCW}
)


_SHAPE_CATEGORIES = frozenset({Category.EMAIL, Category.URL, Category.IP, Category.PHONE, Category.ID})


def place_evidence(text: str, span: Span) -> Span | None:
    """`span` as a LOCATION when its whole text is a gazetteer place in a place context (positive
    evidence that outweighs the common-word form check), else None. A place the model gave a
    category with a shape ("Madrid" as a URL, "Sevilla" as an e-mail) is a place too: its text has
    no digit, so the shape check would only drop it."""
    piece = text[span.start : span.end]
    if span.category in _SHAPE_CATEGORIES:
        if any(ch.isdigit() for ch in piece) or not is_place_name(piece):
            return None
        return span.with_(category=Category.LOCATION, subtype="CITY")
    if span.category not in _PLACE_CATEGORIES:
        return None
    if not is_place_name(piece) or not place_context(text, span.start, span.end):
        return None
    if span.category is Category.LOCATION:
        return span
    return span.with_(category=Category.LOCATION, subtype="CITY")


#: A house number, floor or door: "23", "4º", "1ºE", "5o", "12B".
_HOUSE_PART = re.compile(r"\d{1,5}(?:[ \t]?[º°ª]|o\b)?(?:[ \t]?-?[ \t]?[A-Za-z])?")
#: A street word before it on the line. Narrower than `radeid.resolve.completion`'s street words on
#: purpose: "Dr", "Ct", "Pl" and a bare "C" before a number are as often a title or an abbreviation,
#: and a wrongly relabelled number would be a false positive in clinical text.
_STREET_BEFORE = re.compile(
    r"(?i)(?:^|[^\w])(?:street|st|avenue|ave|road|rd|lane|ln|drive|boulevard|blvd|way|court|place|"
    r"calle|c/|avda|avenida|av|paseo|plaza|pza|ronda|carrer|rua|travesía|travesia|camino|ctra|carretera|"
    r"via|rue|strasse|straße|str|weg|gasse|platz)\.?[ \t]"
)


def address_number(text: str, span: Span) -> bool:
    """A house number, floor or door (digits, maybe `º` and a letter) after a street word on its line."""
    if _HOUSE_PART.fullmatch(text[span.start : span.end]) is None:
        return False
    line_start = text.rfind("\n", 0, span.start) + 1
    return _STREET_BEFORE.search(text, max(line_start, span.start - 60), span.start) is not None


def short_number(text: str, span: Span) -> bool:
    """Digits only (spaces, dashes and dots between them), at least three: "35739", "6400 12"."""
    piece = text[span.start : span.end]
    return sum(ch.isdigit() for ch in piece) >= 3 and all(ch.isdigit() or ch in " -." for ch in piece)
