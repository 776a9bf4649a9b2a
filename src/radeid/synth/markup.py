"""Gold from inline markup: `[[CATEGORY|text]]` written where the PHI stands.

Hand-written test reports and the bundled examples mark each mention in place, so repeated strings,
Unicode and edits can never shift an offset; this strips the markup into the plain text and exact
spans, and lists what a writer most often gets wrong (a bad span, an unknown category, a second
mention of a marked name left unmarked).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from radeid.core.categories import Category

__all__ = ["MARK", "MarkedSpan", "markup_problems", "parse_markup"]

MARK = re.compile(r"\[\[([A-Z]+)\|(.+?)\]\]", re.S)
#: (category, start, end, text) of one marked mention.
MarkedSpan = tuple[str, int, int, str]
_WORD = re.compile(r"[^\W_]{3,}")
_CATEGORIES = frozenset(c.value for c in Category)


def parse_markup(markup: str) -> tuple[str, list[MarkedSpan]]:
    """The plain text and the marked spans, in text order."""
    pieces: list[str] = []
    spans: list[MarkedSpan] = []
    cursor = length = 0
    for match in MARK.finditer(markup):
        before = markup[cursor : match.start()]
        pieces.append(before)
        length += len(before)
        category, surface = match.group(1), match.group(2)
        spans.append((category, length, length + len(surface), surface))
        pieces.append(surface)
        length += len(surface)
        cursor = match.end()
    pieces.append(markup[cursor:])
    return "".join(pieces), spans


def markup_problems(name: str, text: str, spans: list[MarkedSpan], generic: Collection[str] = ()) -> list[str]:
    """What is wrong with one marked document (empty when nothing is): markup left over, an unknown
    category, a span that is not its text, and a word (3+ letters, not a date's or an age's, not in
    `generic`) of a marked mention that appears again unmarked."""
    problems: list[str] = []
    if "[[" in text or "]]" in text:
        problems.append(f"{name}: unbalanced markup")
    covered = [False] * len(text)
    for category, start, end, surface in spans:
        if category not in _CATEGORIES:
            problems.append(f"{name}: unknown category {category}")
        if text[start:end] != surface or surface != surface.strip() or "\n" in surface:
            problems.append(f"{name}: bad span {start}-{end}")
        covered[start:end] = [True] * (end - start)
    words = {
        w.casefold()
        for category, _, _, surface in spans
        if category not in {"DATE", "AGE"}
        for w in _WORD.findall(surface)
        if w.casefold() not in generic and not w.isdigit()
    }
    for match in _WORD.finditer(text):
        if match.group().casefold() in words and not covered[match.start()]:
            problems.append(f"{name}: unannotated mention of an annotated word at {match.start()}")
    return problems
