"""The fast paths of `radeid.core.edges` against the code as first spelled out, on fuzzed spans.

`tighten`, `split_fields`, `clean_edges` and their helpers skip work in the common case (a
character-set check before the separator regex, no comma means no credential, no word to drop,
no possessive ending); the reference functions below are the original code without those short
cuts, and every fuzzed span must come out the same through both.
"""

from __future__ import annotations

import random
import re

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.edges import (
    _ADDRESS_WORDS,
    _CLOSERS,
    _ISO_TIME,
    _LEAD_STRIP,
    _PAIRS,
    _PARTICLES,
    _PERSONS,
    _POSSESSIVE,
    _PROPER,
    _SEPARATOR,
    _TRAIL_STRIP,
    _TRAILING_CREDENTIALS,
    _WORD,
    clean_edges,
    extend_to_word_boundaries,
    split_fields,
    tighten,
)


def ref_tighten(text: str, start: int, end: int) -> tuple[int, int]:
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


def ref_split_fields(text: str, start: int, end: int) -> list[tuple[int, int]]:
    if _SEPARATOR.search(text, start, end) is None:
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    cursor = start
    for sep in _SEPARATOR.finditer(text, start, end):
        pieces.append((cursor, sep.start()))
        cursor = sep.end()
    pieces.append((cursor, end))
    return pieces


def ref_strip_lower_words(text: str, start: int, end: int, keep: frozenset[str] = frozenset()) -> tuple[int, int]:
    words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]
    if len(words) < 2 or not any(text[a].isupper() for a, _ in words):
        return start, end

    def lower(word: tuple[int, int]) -> bool:
        piece = text[word[0] : word[1]]
        bare = piece.strip(".,;:").lower()
        elided = re.match(r"[a-z]{1,4}['’][A-Z]", piece) is not None
        return piece[:1].islower() and bare not in _PARTICLES and bare not in keep and not elided

    first, last = 0, len(words)
    while first < last and lower(words[first]):
        first += 1
    while last > first and lower(words[last - 1]):
        last -= 1
    if first == last:
        return start, end
    return ref_tighten(text, words[first][0], words[last - 1][1])


def ref_keep_initial_period(text: str, start: int, end: int) -> int:
    if (
        end < len(text)
        and text[end] == "."
        and end > start
        and text[end - 1].isupper()
        and (end - 1 == start or not (text[end - 2].isalnum() or text[end - 2] == "-"))
    ):
        return end + 1
    return end


def ref_drop_possessive(text: str, start: int, end: int) -> tuple[int, int]:
    piece = text[start:end]
    for suffix in _POSSESSIVE:
        if piece.endswith(suffix) and end - start > len(suffix):
            return ref_tighten(text, start, end - len(suffix))
    if piece.endswith(("s'", "s\u2019")) and end - start > 2:
        return start, end - 1
    return start, end


def ref_clean_edges(text: str, span: Span, *, split: bool = True) -> list[Span]:
    first, last = text[span.start], text[span.end - 1]
    if (
        first.isalnum()
        and last.isalnum()
        and span.category not in _PROPER
        and _SEPARATOR.search(text, span.start, span.end) is None
    ):
        return [span]
    ranges = ref_split_fields(text, span.start, span.end) if split else [(span.start, span.end)]
    out: list[Span] = []
    for start, end in ranges:
        start, end = ref_tighten(text, start, end)
        if span.category in _PERSONS:
            cut = _TRAILING_CREDENTIALS.search(text, start, end)
            if cut is not None and cut.start() > start:
                start, end = ref_tighten(text, start, cut.start())
            start, end = ref_drop_possessive(text, start, end)
        if span.category in _PROPER and end > start:
            keep = _ADDRESS_WORDS if span.category is Category.LOCATION else frozenset()
            start, end = ref_strip_lower_words(text, start, end, keep)
        if span.category in _PERSONS and end > start:
            end = ref_keep_initial_period(text, start, end)
        if end <= start or not any(ch.isalnum() for ch in text[start:end]):
            continue
        out.append(span if (start, end) == (span.start, span.end) else span.with_(start=start, end=end))
    return out


_PIECES = (
    "Jane", "SMITH", "van", "der", "of", "the", "a", "St.", "Dr.", "R.", "J", "Ahmed's", "Jones\u2019s",
    "Davis'", "Soto\u2019", "MD", "M.D.", "PA-C", "Mercy", "Hospital", "Ward", "217", "555-0147", "2019",
    "(", ")", "[", "]", "<", ">", "{", "}", ",", ", ", ".", ":", ": ", ";", "'", "\u2019", '"', "-",
    " - ", " \u2013 ", "\u2014", " | ", "|", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\u2028",
    "\u0085", "_", "#", "*", "+", "\u00e9", "\u00c9cole", "s", "S",
)  # fmt: skip


def _fuzzed(rng: random.Random) -> tuple[str, int, int]:
    text = "".join(rng.choice(_PIECES) + rng.choice(("", " ", "")) for _ in range(rng.randint(1, 10)))
    start = rng.randrange(len(text))
    return text, start, rng.randint(start + 1, len(text))


def test_tighten_and_split_fields_equal_the_spelled_out_code() -> None:
    rng = random.Random(5)
    for _ in range(20000):
        text, start, end = _fuzzed(rng)
        assert tighten(text, start, end) == ref_tighten(text, start, end)
        assert tighten(text, end, end) == ref_tighten(text, end, end)
        assert split_fields(text, start, end) == ref_split_fields(text, start, end)


def test_clean_edges_equals_the_spelled_out_code() -> None:
    rng = random.Random(7)
    categories = list(Category)
    for _ in range(20000):
        text, start, end = _fuzzed(rng)
        span = Span(start, end, rng.choice(categories), source="rules/x")
        split = rng.random() < 0.8
        assert clean_edges(text, span, split=split) == ref_clean_edges(text, span, split=split)


def ref_extend_to_word_boundaries(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    hyphen = span.category in _PERSONS
    on_hyphen = 0 < start < end - 1 and text[start] == "-"
    if hyphen and on_hyphen and text[start - 1].isalpha() and text[start + 1].isalpha():
        start -= 1
    if hyphen and start < end - 1 < len(text) - 1 and text[end - 1] == "-" and text[end].isalpha():
        end += 1
    while True:
        while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            start -= 1
        if hyphen and start > 1 and text[start - 1] == "-" and text[start - 2].isalpha() and text[start].isalpha():
            start -= 2
            continue
        break
    while True:
        if span.category is Category.DATE and _ISO_TIME.match(text, end):
            break
        while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
            end += 1
        if hyphen and end + 1 < len(text) and text[end] == "-" and text[end + 1].isalpha() and text[end - 1].isalpha():
            end += 2
            continue
        break
    if (start, end) == (span.start, span.end):
        return span
    return span.with_(start=start, end=end)


def test_extend_to_word_boundaries_equals_the_spelled_out_code() -> None:
    rng = random.Random(9)
    categories = list(Category)
    for _ in range(20000):
        text, start, end = _fuzzed(rng)
        if rng.random() < 0.2:
            text += rng.choice(("T10:15", "-JIN", "-", "x"))
        span = Span(start, end, rng.choice(categories), source="rules/x")
        assert extend_to_word_boundaries(text, span) == ref_extend_to_word_boundaries(text, span)
