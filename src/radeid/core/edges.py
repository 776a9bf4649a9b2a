"""Span edges: every span starts and ends on a word and holds one field.

A span that swallows punctuation or a neighbour corrupts the text in every mode: `(tel. 217...`
became `(tel[PHONE]`, `LEE, SOO-JIN (Ms)` became `[PATIENT]Ms)`, `Dr. Ahmed   Performing
sonographer` lost a form label. The rule, for spans from every source:

- a span starts and ends on a word boundary and never begins or ends with whitespace or
  punctuation; the period of an abbreviation (`St.`) is left outside, so it survives in the
  output whatever replaces the word; a person's name that ends with an initial keeps the
  initial's period (`Mohmad R.`), so it joins the surname as one name (a documented choice);
- a span never holds two fields: it is cut at a line break, a tab, a run of two or more spaces,
  a label colon (`Name: X`) and a spaced dash or bar (`Hospital - Medicine Service`, `A | B`);
- a name, hospital or place in a text that capitalises its words neither starts nor ends
  with a lower-case word (`a service of St. Aldric Medical Center` -> `St. Aldric Medical Center`),
  name particles (`van der`, `de la`) excepted;
- a possessive `'s` stays outside a person's name, so `Dr Ahmed's` and `Dr Ahmed` are one entity
  for the document memory of the surrogates;
- in an ISO date-time (`2019-07-04T10:15:00`) the date is the span and the time stays outside:
  a time of day is not PHI, and it survives intact in every mode (the one word-boundary exception).
"""

from __future__ import annotations

import re

from radeid.core.categories import Category
from radeid.core.document import Span

__all__ = ["CREDENTIALS", "clean_edges", "extend_to_word_boundaries", "split_fields", "tighten"]

# Characters never allowed at a span edge (brackets are handled separately: kept when balanced).
_LEAD_STRIP = frozenset(" \t\r\n\f\v\u00a0.,;:!?\"'`*#-\\|_~\u2028\u2029\u0085")
_TRAIL_STRIP = frozenset(" \t\r\n\f\v\u00a0.,;:!?\"'`*#-\\|_~+\u2028\u2029\u0085")
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
#: Field separators inside a span: a line break, a tab, a run of spaces, a label colon.
_SEPARATOR = re.compile(
    r"[\r\n\t\f\v\u2028\u2029\u0085]+|[ \u00a0]{2,}|(?<=[^\W\d_]):[ \t\u00a0]+|[ \u00a0][-\u2013\u2014|][ \u00a0]"
)
#: What every `_SEPARATOR` match holds: one of these characters, or one of the pairs in
#: `_may_hold_separator`. Their absence rules a match out with a few C-level look-ups, where the
#: regex (whose lookbehind branch defeats the engine's first-character scan) tries every position.
_SEPARATOR_CHARS = frozenset("\r\n\t\f\v\u2028\u2029\u0085\u00a0:")
_PERSONS = frozenset({Category.PATIENT, Category.HCW})
_ISO_TIME = re.compile(r"T\d{1,2}:\d{2}")
# Vendors are left out: product names often have lower-case words ("Artis zee", "syngo.via").
_PROPER = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.LOCATION})
_WORD = re.compile(r"\S+")
#: Degrees after a name ("Reuben Castellanos, MD", "Soto, PA-C"): not part of the name, and never
#: a place (MD and PA are also state codes).
CREDENTIALS = frozenset(
    "MD DO PA PA-C NP RN APRN CNP DNP PHD MBBS MBCHB RDMS RVT RT ARRT RDCS CRNA FACR FRCR FRCPC MPH DDS DMD "
    "PHARMD LPN CNM MS MA BSN MSN RPA RPA-C".split()
)
# Longest first (so "PA-C" is tried before "PA"), then alphabetical: the same pattern whatever the
# hash seed (a frozenset's order is not; same-length alternatives never match at one place, so
# this changes no match).
_CREDENTIAL_ALTERNATIVES = "|".join(re.escape(c) for c in sorted(CREDENTIALS, key=lambda c: (-len(c), c)))
_TRAILING_CREDENTIALS = re.compile(
    r"(?:,[ ]?(?:" + _CREDENTIAL_ALTERNATIVES + r"|M\.D\.|D\.O\.|Ph\.D\.))+\Z", re.IGNORECASE
)
#: Lower-case words that belong to a name (van der Berg, de la Cruz, bin Laden, da Silva).
_PARTICLES = frozenset(
    "van der den de la le du des del della delle dei degli di da do dos das von zu bin ibn al el y e ter ten op".split()
)
#: Lower-case words that belong to an address at its edges (Polish `ul.`, `al.`; `3rd floor`, `suite`;
#: Spanish `calle`, `c/`, `s/n` (no number), `izq.`/`dcha.` (the door); German `str.`, `straße`).
_ADDRESS_WORDS = frozenset(
    "ul al pl os str gate gata vej floor fl level wing suite unit apt bldg "
    "c/ calle avda av avenida pza plaza paseo ctra carretera camino s/n sn izq izqda izda izdo dcha dcho drcha "
    "der esq bajo bis piso pta puerta planta portal esc escalera bloque urb "
    "straße strasse weg platz gasse allee".split()
)
#: Lower-case words a facility's name may start with (`hospital Saint John of God`, `clínica San Rafael`).
_FACILITY_WORDS = frozenset("hospital clínica clinica centro sanatorio policlínica klinikum krankenhaus".split())
_EDGE_WORDS = {Category.LOCATION: _ADDRESS_WORDS, Category.HOSPITAL: _FACILITY_WORDS}
#: An elided particle joined to a name: d'Ouchy, l'Aquila, dell'Orto.
_ELIDED = re.compile(r"[a-z]{1,4}['’][A-Z]")
_POSSESSIVE = ("'s", "\u2019s", "'S", "\u2019S")
#: The last characters of a possessive ending ("'s" and "s'" forms): any other rules one out.
_POSSESSIVE_LAST = frozenset("sS'\u2019")
#: Characters `tighten` acts on at a span's first / last character; other edges are already tight.
_LEAD_EDGE = _LEAD_STRIP | frozenset("([{<)]}>")
_TRAIL_EDGE = _TRAIL_STRIP | frozenset("([{<)]}>")


def tighten(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink `[start, end)` past edge whitespace/punctuation and unbalanced brackets.

    Every rule relies on this so that patterns may be written a little loosely while spans stay
    tight: the resolver and the surrogate generators expect the PHI itself, nothing around it.
    """
    if start < end and text[start] not in _LEAD_EDGE and text[end - 1] not in _TRAIL_EDGE:
        return start, end  # the common case: no rule below applies
    while True:
        while start < end and text[start] in _LEAD_STRIP:
            start += 1
        while end > start and text[end - 1] in _TRAIL_STRIP:
            end -= 1
        if start >= end:
            return start, end
        first, last = text[start], text[end - 1]
        if first in _PAIRS and last == _PAIRS[first] and end - start > 1:
            start, end = start + 1, end - 1
            continue
        if first in _PAIRS and _PAIRS[first] not in text[start + 1 : end]:
            start += 1
            continue
        if last in _CLOSERS and _CLOSERS[last] not in text[start : end - 1]:
            end -= 1
            continue
        if first in _CLOSERS:
            start += 1
            continue
        if last in _PAIRS:
            end -= 1
            continue
        return start, end


def extend_to_word_boundaries(text: str, span: Span) -> Span:
    """Grow a span that starts or ends inside a word (letters/digits) to cover the whole word.

    A person's name also grows over a hyphen to the rest of a hyphenated name (a model that tags
    `JIN` of `SOO-JIN` hides the whole given name).
    """
    start, end = span.start, span.end
    hyphen = span.category in _PERSONS
    if end <= len(text):
        # the common case: no letter or digit on either side (nor a hyphen, for a person's name)
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        if not before.isalnum() and not after.isalnum() and not (hyphen and "-" in (before, after)):
            return span
    on_hyphen = 0 < start < end - 1 and text[start] == "-"
    if hyphen and on_hyphen and text[start - 1].isalpha() and text[start + 1].isalpha():
        start -= 1  # "-JIN" of "SOO-JIN": the span starts on the hyphen
    if hyphen and start < end - 1 < len(text) - 1 and text[end - 1] == "-" and text[end].isalpha():
        end += 1  # "SOO-" of "SOO-JIN"
    while True:
        while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            start -= 1
        if hyphen and start > 1 and text[start - 1] == "-" and text[start - 2].isalpha() and text[start].isalpha():
            start -= 2
            continue
        break
    while True:
        if span.category is Category.DATE and _ISO_TIME.match(text, end):
            break  # 2019-07-04|T10:15:00: the time of an ISO date-time is not PHI and stays outside
        while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
            end += 1
        if hyphen and end + 1 < len(text) and text[end] == "-" and text[end + 1].isalpha() and text[end - 1].isalpha():
            end += 2
            continue
        break
    if (start, end) == (span.start, span.end):
        return span
    return span.with_(start=start, end=end)


def split_fields(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """`[start, end)` cut at field separators (line breaks, tabs, runs of spaces, label colons)."""
    if _no_separator(text, start, end):
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    cursor = start
    for sep in _SEPARATOR.finditer(text, start, end):
        pieces.append((cursor, sep.start()))
        cursor = sep.end()
    pieces.append((cursor, end))
    return pieces


def clean_edges(text: str, span: Span, *, split: bool = True, strip_lower: bool = True) -> list[Span]:
    """The pieces of `span` that obey the edge rule (none when only punctuation is left). `strip_lower`
    off keeps lower-case words at the edges of names and places: for languages whose names hold them
    (Spanish `A coruña`, `12 de octubre`), where a language pack turns it off."""
    if _already_clean(text, span):
        return [span]
    ranges = split_fields(text, span.start, span.end) if split else [(span.start, span.end)]
    out: list[Span] = []
    for start, end in ranges:
        start, end = tighten(text, start, end)
        if span.category in _PERSONS:
            # every trailing credential follows a comma: without one there is nothing to search
            cut = _TRAILING_CREDENTIALS.search(text, start, end) if text.find(",", start, end) >= 0 else None
            if cut is not None and cut.start() > start:
                start, end = tighten(text, start, cut.start())
            start, end = _drop_possessive(text, start, end)
        if strip_lower and span.category in _PROPER and end > start:
            keep = _EDGE_WORDS.get(span.category, frozenset())
            start, end = _strip_lower_words(text, start, end, keep)
        if span.category in _PERSONS and end > start:
            # after the lower-case words are stripped: that step tightens the span, which took the
            # initial's period off again ("Mary A." -> "Mary A")
            end = _keep_initial_period(text, start, end)
        if end <= start or not (text[start].isalnum() or any(ch.isalnum() for ch in text[start:end])):
            continue
        out.append(span if (start, end) == (span.start, span.end) else span.with_(start=start, end=end))
    return out


def _already_clean(text: str, span: Span) -> bool:
    """Fast path for the common case: one word-bounded field of a category with no further edge rules."""
    first, last = text[span.start], text[span.end - 1]
    return (
        first.isalnum()
        and last.isalnum()
        and span.category not in _PROPER
        and _no_separator(text, span.start, span.end)
    )


def _no_separator(text: str, start: int, end: int) -> bool:
    """Whether `[start, end)` holds no field separator (`_SEPARATOR`)."""
    return not _may_hold_separator(text[start:end]) or _SEPARATOR.search(text, start, end) is None


def _may_hold_separator(piece: str) -> bool:
    """False when `piece` cannot hold a `_SEPARATOR` match (see `_SEPARATOR_CHARS`)."""
    return (
        not _SEPARATOR_CHARS.isdisjoint(piece)
        or "  " in piece
        or " -" in piece
        or " |" in piece
        or " \u2013" in piece
        or " \u2014" in piece
    )


def _strip_lower_words(text: str, start: int, end: int, keep: frozenset[str] = frozenset()) -> tuple[int, int]:
    """Drop lower-case words at the ends of a proper-name span, when the span has a capital (not
    the words of `keep`: an address's `ul.` or `3rd floor`)."""
    piece = text[start:end]
    # str.split() splits on exactly what the regex \s matches: these are the `_WORD` matches
    split = piece.split()
    if len(split) < 2 or not any(w[0].isupper() for w in split):
        return start, end
    if not _lower_word(split[0], keep) and not _lower_word(split[-1], keep):
        # the common case, no word to drop: from the first word's start to the last word's end
        return tighten(text, start + len(piece) - len(piece.lstrip()), start + len(piece.rstrip()))
    words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(piece)]

    def lower(word: tuple[int, int]) -> bool:
        return _lower_word(text[word[0] : word[1]], keep)

    first, last = 0, len(words)
    while first < last and lower(words[first]):
        first += 1
    while last > first and lower(words[last - 1]):
        last -= 1
    if first == last:
        return start, end
    return tighten(text, words[first][0], words[last - 1][1])


def _lower_word(word: str, keep: frozenset[str] = frozenset()) -> bool:
    """A lower-case word that is not a name particle (`of`, `a`; not `van`, `de`) nor in `keep`."""
    bare = word.strip(".,;:").lower()
    return word[:1].islower() and bare not in _PARTICLES and bare not in keep and not _ELIDED.match(word)


def _keep_initial_period(text: str, start: int, end: int) -> int:
    """A name that ends with an initial keeps its period (`Mohmad R.`), so it joins the surname (not the
    last letter of a spelled-out name, `O-Y-E-N.`)."""
    if (
        end < len(text)
        and text[end] == "."
        and end > start
        and text[end - 1].isupper()
        and (end - 1 == start or not (text[end - 2].isalnum() or text[end - 2] == "-"))
    ):
        return end + 1
    return end


def _drop_possessive(text: str, start: int, end: int) -> tuple[int, int]:
    if end <= start or text[end - 1] not in _POSSESSIVE_LAST:
        return start, end  # every ending below ends with s, S or an apostrophe
    piece = text[start:end]
    for suffix in _POSSESSIVE:
        if piece.endswith(suffix) and end - start > len(suffix):
            return tighten(text, start, end - len(suffix))
    if piece.endswith(("s'", "s\u2019")) and end - start > 2:
        return start, end - 1
    return start, end
