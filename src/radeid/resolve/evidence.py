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

__all__ = ["address_number", "id_suffix", "place_evidence", "short_number", "street_name_word"]


#: Categories a model gives a city it has read as a name ("Chicago" as HOSPITAL): a place in a place
#: context becomes LOCATION.
_PLACE_CATEGORIES = frozenset({Category.LOCATION, Category.HOSPITAL, Category.VENDOR, Category.PATIENT, Category.HCW})


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


#: One part of an address after its street name: a house number, floor or door ("23", "4º", "1ºE",
#: "5o", "12B", "6.º"), a floor written "P1", or a road's kilometre ("km. 9,100").
_HOUSE_PART = (
    r"(?:\d{1,5}(?:[ \t]?\.?[º°ª]|o\b)?(?:[ \t]?-?[ \t]?[A-Za-z](?![A-Za-z]))?"
    r"|[Pp]\d{1,2}|[Kk]m\.?[ \t]?\d{1,4}(?:[.,]\d{1,3})?)"
)
#: One or more of them, as an address line writes them ("62, 3C", "35 7o", "1 - 4º L").
_HOUSE_PARTS = re.compile(rf"{_HOUSE_PART}(?:[ \t]*[,-]?[ \t]*{_HOUSE_PART}){{0,3}}")
#: What an address line writes around its numbers, when the model cut it off from them: the floor
#: mark of "2.º A", "s/n" (or its halves), "km", sides and parts of a building ("izq", "Principal").
_ADDRESS_WORD = re.compile(
    r"(?i)[º°ª]|s|/n|s/n|km\.?|izq(?:da|uierda)?\.?|dcha\.?|derecha|principal|bajo|portal|puerta|piso|esc(?:alera)?\.?"
)
#: A door letter or "n" after a floor mark or "s/" ("4º L", "6o A", "s/n"), cut off from its number.
_DOOR = re.compile(r"[A-Za-z]{1,4}")
_DOOR_BEFORE = re.compile(r"(?:\d[ \t]?\.?[º°ª]|\do|[Ss]/)[ \t]?$")
#: A street word before it on the line. Narrower than `radeid.resolve.completion`'s street words on
#: purpose: "Dr", "Ct", "Pl" and a bare "C" before a number are as often a title or an abbreviation,
#: and a wrongly relabelled number would be a false positive in clinical text.
_STREET_BEFORE = re.compile(
    r"(?i)(?:(?:^|[^\w])(?:street|st|avenue|ave|road|rd|lane|ln|drive|boulevard|blvd|way|court|place|"
    r"calle|c/|avda|avenida|av|paseo|plaza|pza|ronda|carrer|rua|rúa|travesía|travesia|camino|ctra|carr|"
    r"carretera|glorieta|callejón|callejon|pasaje|urbanización|urb|rambla|plaça|praza|bulevar|cuesta|"
    r"via|vía|rue|strasse|straße|str|weg|gasse|platz)\.?[ \t]|^[ \t]*(?:domicilio|dirección|direccion|address)[ \t]*:"
    r"|(?:^|[^\w])c/(?=\w))"
)
#: A house number right after a word of a street's name ("almagro 12", "Benitez 90,").
_NUMBER_AFTER = re.compile(r"[ \t]\d{1,4}[A-Za-z]?\b")


def _after_street_word(text: str, start: int) -> bool:
    """A street word comes before `start` on its line, at most 60 characters back."""
    line_start = text.rfind("\n", 0, start) + 1
    return _STREET_BEFORE.search(text, max(line_start, start - 60), start) is not None


def address_number(text: str, span: Span) -> bool:
    """A part of an address after a street word on its line: house number, floor, door or kilometre
    ("Calle Electra, 1 - 4º L", "Calle gran vía 62, 3C", "Avda. de Córdoba s/n")."""
    piece = text[span.start : span.end]
    if (
        _HOUSE_PARTS.fullmatch(piece) is None
        and _ADDRESS_WORD.fullmatch(piece) is None
        and not (_DOOR.fullmatch(piece) is not None and _DOOR_BEFORE.search(text, max(0, span.start - 4), span.start))
    ):
        return False
    return _after_street_word(text, span.start)


def street_name_word(text: str, span: Span) -> bool:
    """Letters only, after a street word on its line and right before a house number: a word of the
    street's name ("Av. melchor fernandez almagro 12")."""
    piece = text[span.start : span.end]
    if not piece.replace(" ", "").isalpha() or _NUMBER_AFTER.match(text, span.end) is None:
        return False
    return _after_street_word(text, span.start)


#: The end of an identifier's first part: five digits or more and a slash or dash ("287256/" of
#: "NHC: 287256/75"; a blood pressure's "120/" is too short).
_ID_HEAD = re.compile(r"\d{5,}[/-]$")


def id_suffix(text: str, span: Span) -> bool:
    """Digits right after another run of digits and a slash or dash: the end of one identifier, which
    a model cut off as a (too short) phone number ("75" of "287256/75")."""
    return (
        text[span.start : span.end].isdigit() and _ID_HEAD.search(text, max(0, span.start - 20), span.start) is not None
    )


def short_number(text: str, span: Span) -> bool:
    """Digits only (spaces, dashes and dots between them), at least three: "35739", "6400 12"."""
    piece = text[span.start : span.end]
    return sum(ch.isdigit() for ch in piece) >= 3 and all(ch.isdigit() or ch in " -." for ch in piece)
