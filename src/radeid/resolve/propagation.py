"""Document-level propagation: a name, ID, street or facility found once is found everywhere.

A detector that finds "John Carver" in a report's header but misses "Carver" three paragraphs
later leaves the patient named; a model that recognises "Atlas Van Lines" in one sentence may not
in the next. Once the resolver has settled a document's spans, every other occurrence of a detected
entity in the same document is detected too, with the same category: the same text in any case
(`CARVER`, `carver`), a person's surname alone after the full name was found, a possessive
(`Carver's`, the `'s` left outside). The surrogate memory then sees one entity.

What keeps this from spreading false positives: only entities of at least four letters (an ID: four
characters with a digit) propagate; a form that is also a common English word ("Will", "Grant")
propagates only where it is written with a capital and does not start a sentence; and every
propagated span still goes through the allow list and protected content ("Baker" found as a name
does not make "Baker cyst" a name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.patterns.forms import common_words

__all__ = ["PROPAGATE_SOURCE", "find_known", "propagate"]

#: The source of a propagated span: `propagate/<source of the span it copies>`.
PROPAGATE_SOURCE = "propagate"
_PERSONS = frozenset({Category.PATIENT, Category.HCW})
_PROPAGATED = frozenset({Category.PATIENT, Category.HCW, Category.ID, Category.HOSPITAL, Category.LOCATION})
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*)\Z")


def propagate(text: str, spans: Sequence[Span]) -> list[Span]:
    """New spans for the other occurrences of `spans`' entities in `text` (none overlapping `spans`)."""
    forms: dict[str, Span] = {}
    for span in spans:
        if span.category not in _PROPAGATED:
            continue
        for form in _forms(text, span):
            forms.setdefault(form.casefold(), span)
    if forms:
        # only a form written at least twice can have another mention: most documents name each
        # entity once, and then no pattern is compiled (a compile per document cost ~0.8 ms)
        folded = text.casefold()
        forms = {form: span for form, span in forms.items() if folded.count(form) >= 2}
    if not forms:
        return []
    taken = sorted((s.start, s.end) for s in spans)
    found: list[Span] = []
    for start, end in sorted(_occurrences(text, folded, forms)):
        if _overlaps(taken, start, end) or any(s.start < end and start < s.end for s in found):
            continue
        origin = forms[text[start:end].casefold()]
        if not _may_propagate(text, text[start:end], start, origin):
            continue
        found.append(origin.with_(start=start, end=end, source=f"{PROPAGATE_SOURCE}/{origin.source}"))
    return found


#: A redaction placeholder ("XXXX", "***"): another such mark elsewhere is not the same entity.
_PLACEHOLDER = re.compile(r"(?i)[\sx*#_-]*x{3,}[\sx*#_-]*|[\s*#_-]+")


def _occurrences(text: str, folded: str, forms: dict[str, Span]) -> list[tuple[int, int]]:
    """Where each form occurs as a whole word (not inside a word or a hyphenated one), longest forms
    first at a place. Found on the case-folded text, whose offsets are the text's when folding kept
    its length (nearly always); else with one case-insensitive pattern."""
    if len(folded) != len(text):
        alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
        pattern = re.compile(r"(?<![\w-])(?:" + alternatives + r")(?![\w-])", re.IGNORECASE)
        return [m.span() for m in pattern.finditer(text) if m.group().casefold() in forms]
    hits: list[tuple[int, int]] = []
    for form in sorted(forms, key=len, reverse=True):
        index = folded.find(form)
        while index >= 0:
            end = index + len(form)
            if not _word_char_at(text, index - 1) and not _word_char_at(text, end):
                hits.append((index, end))
            index = folded.find(form, index + 1)
    return hits


def _word_char_at(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] in "_-")


def find_known(text: str, known: Iterable[Span], values: Sequence[str]) -> list[Span]:
    """Spans for the whole-word occurrences in `text` of entities known from elsewhere (`values[i]`
    is the entity of `known[i]`, whose offsets are not into `text`), looked for under the same forms
    and with the same checks as `propagate`, none overlapping another; each a copy of its entity's span."""
    forms: dict[str, Span] = {}
    for span, value in zip(known, values, strict=True):
        for form in _forms_of(value, span.category):
            forms.setdefault(form.casefold(), span)
    folded = text.casefold()
    forms = {form: span for form, span in forms.items() if form in folded}
    found: list[Span] = []
    for start, end in sorted(_occurrences(text, folded, forms), key=lambda hit: (hit[0], -hit[1])):
        if found and start < found[-1].end:
            continue
        origin = forms[text[start:end].casefold()]
        if _may_propagate(text, text[start:end], start, origin):
            found.append(origin.with_(start=start, end=end))
    return found


def _forms(text: str, span: Span) -> Iterable[str]:
    """The surface forms one entity is looked for under."""
    return _forms_of(text[span.start : span.end], span.category)


def _forms_of(piece: str, category: Category) -> Iterable[str]:
    if _PLACEHOLDER.fullmatch(piece):
        return
    if category is Category.ID:
        if len(piece) >= 4 and any(map(str.isdigit, piece)):
            yield piece
        return
    letters = sum(map(str.isalpha, piece))
    if letters >= 4:
        yield piece
    if category in _PERSONS:
        words = _WORD.findall(piece)
        if len(words) >= 2:
            # "Carver" of "John Carver"; "Carver" of "Carver, John" (surname first after a comma)
            surname = words[0] if "," in piece else words[-1]
            if len(surname) >= 4 and not _PLACEHOLDER.fullmatch(surname):
                yield surname


def _may_propagate(text: str, found: str, start: int, origin: Span) -> bool:
    """A common-word form only capitalised and not at a sentence start; every form at least once
    written like a name (not all lower case) unless the entity itself was lower case."""
    words = _WORD.findall(found)
    if len(words) == 1 and words[0].casefold() in common_words():
        if not found[:1].isupper():
            return False
        if _SENTENCE_START.search(text[max(0, start - 3) : start]) is not None:
            return False
    return True


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in taken)
