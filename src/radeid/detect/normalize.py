"""Matching text as a reader sees it: Unicode look-alikes folded for rules and word lists.

A name written with non-breaking spaces (`Dr.\u00a0Jane\u00a0Smith`), a zero-width space inside a
word, bidi controls, a decomposed accent (`Rene\u0301`), full-width (`２０１９`) or Arabic-Indic
(`١٢٣`) digits reads the same to a person but not to a regular expression or an Aho-Corasick
automaton; nor does a name spelt with Cyrillic or Greek look-alikes (`Jоhn` with a Cyrillic о), in
mathematical bold (`𝐉𝐨𝐡𝐧`), with a Hangul filler for the space, an MRN in circled digits (`①②③`), or a
name stored backwards inside a right-to-left override that displays it forwards. `normalize_for_matching`
builds a *skeleton* of such text for detection only: NFKC per character cluster (which folds enclosed,
mathematical, full-width and compatibility forms), other decimal digits to ASCII, every dash to "-",
invisible and format characters (Unicode category Cf and the default-ignorable code points: zero-width
characters, bidi controls, variation selectors, tag characters, the combining grapheme joiner, U+180E,
U+2062) dropped, every space and blank filler to " ", letters and digits that Unicode's confusables table
(`confusables.txt`, as shipped by the `confusable-homoglyphs` package) gives an ASCII prototype folded to
it inside words that already mix in ASCII or read wholly as Latin, and text under a directional override
put in display order. It keeps, for every character of the skeleton, the stretch of the original it came
from, so spans found on the skeleton map back to exact offsets in the original and the replacement covers
the original characters; the output keeps every other character as it was. The model path needs none of
this: its tokenizer normalises on its own and maps offsets itself.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING

from radeid.core.document import Document, Span

if TYPE_CHECKING:
    from radeid.detect.base import Detector

__all__ = ["Folded", "NormalizingDetector", "load_skeleton_tables", "normalize_for_matching"]

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt) beyond category Cf, which is
# computed: the combining grapheme joiner, Hangul and Khmer fillers, Mongolian free variation
# selectors, variation selectors, reserved specials, musical formatting and the tag/selector block.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# Fillers that render as an empty cell: read as a space, not dropped ("John\u3164Smith" is two words).
_BLANKS = frozenset("\u3164\uffa0\u2800")
# Directional overrides (displayed order differs from stored order), embeddings, isolates and their ends.
_LRO, _RLO, _PDF, _PDI = "\u202d", "\u202e", "\u202c", "\u2069"
_EMBEDDINGS = frozenset("\u202a\u202b")
_ISOLATES = frozenset("\u2066\u2067\u2068")
_PARAGRAPH_ENDS = frozenset("\n\r\x1c\x1d\x1e\x85\u2029")
_BREAKS = _PARAGRAPH_ENDS | frozenset("\x0b\x0c\u2028")
# Anything that may change under folding; texts without it (nearly every report) are left alone. Also
# (computed): decimal digits of other scripts, format and default-ignorable characters, compatibility
# forms beyond Latin-1, other digits and the look-alikes of the confusables table.
_NEEDS_FOLDING = (
    (0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F),  # combining marks
    (0x00A0, 0x00A0), (0x00AD, 0x00AD), (0x1680, 0x1680), (0x2000, 0x200F), (0x2028, 0x2029),  # spaces, invisible
    (0x202A, 0x202F), (0x205F, 0x206F), (0x3000, 0x3000), (0xFEFF, 0xFEFF), (0x061C, 0x061C),
    (0xFF01, 0xFF5E), (0x00B2, 0x00B3), (0x00B9, 0x00B9), (0x2070, 0x209F), (0xFB00, 0xFB06),  # full-width, ...
    (0x2010, 0x2015), (0x2212, 0x2212), (0xFE58, 0xFE58), (0xFE63, 0xFE63),  # dashes and minus signs read as "-"
)  # fmt: skip
_WORD = re.compile(r"\w+")
_SCAN_END = 0x20000  # category Cf and compatibility forms are looked up below here (the tag block is listed)


@dataclass(frozen=True)
class Folded:
    """Folded text and, per folded character, the `[start, end)` of the original it came from.

    `ordered` is False when a directional override was put in display order: the original stretch
    of a span is then the smallest one covering all its characters, and a span that covers all of
    an override's text takes the override and its closing PDF too (`overrides`: their offsets), so
    the replacement is not displayed reversed.
    """

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    ordered: bool = True
    overrides: tuple[tuple[int, int], ...] = ()

    def map_span(self, span: Span) -> Span:
        if self.ordered:
            return span.with_(start=self.starts[span.start], end=self.ends[span.end - 1])
        start, end = min(self.starts[span.start : span.end]), max(self.ends[span.start : span.end])
        for opener, closer in self.overrides:
            if start == opener + 1 and end == closer:
                start, end = opener, closer + 1
        return span.with_(start=start, end=end)


@dataclass(frozen=True)
class _Tables:
    """Character sets and maps built once per process, on the first text that is not ASCII."""

    invisible: frozenset[str]
    trigger: frozenset[str]  # a text with none of these is left alone
    letters: dict[str, str]  # a look-alike letter or digit -> its ASCII prototype
    digits: dict[str, str]  # ... -> the ASCII digit of the same skeleton, inside a run of digits


def _confusables_table() -> dict[str, list[dict[str, str]]]:
    """Unicode's confusables.txt, both directions, as the `confusable-homoglyphs` package ships it."""
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8")
    table: dict[str, list[dict[str, str]]] = json.loads(raw)
    return table


def _confusable_prototypes(table: dict[str, list[dict[str, str]]]) -> dict[str, str]:
    """Non-ASCII letters and digits -> the ASCII letter or digit Unicode's confusables table reads them as."""
    out: dict[str, str] = {}
    for char, glyphs in table.items():
        if len(char) != 1 or char.isascii() or unicodedata.category(char)[0] not in "LN":
            continue
        ascii_ = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        if ascii_:
            out[char] = ascii_[0]
    return out


def _keep_case(prototypes: dict[str, str]) -> dict[str, str]:
    """A capital keeps its case: Greek Ι and Cyrillic І read "I" (their small letters' "i"), not the prototype "l"."""
    out = dict(prototypes)
    for char, proto in prototypes.items():
        lower = prototypes.get(char.lower(), "")
        if char.isupper() and proto.islower() and lower.isalpha() and lower.upper().isascii():
            out[char] = lower.upper()
    return out


def _digit_alternatives(table: dict[str, list[dict[str, str]]], prototypes: dict[str, str]) -> dict[str, str]:
    """Look-alikes whose prototype is shared with an ASCII digit (О ~ O ~ 0, Ι ~ l ~ 1), read as that digit."""
    digit_of: dict[str, str] = {}
    for proto in set(prototypes.values()):
        for glyph in table.get(proto, ()):
            if glyph["c"].isascii() and glyph["c"].isdigit():
                digit_of[proto] = glyph["c"]
    return {char: digit_of[proto] for char, proto in prototypes.items() if proto in digit_of}


@functools.cache
def _tables() -> _Tables:
    invisible = {chr(c) for lo, hi in _IGNORABLE_RANGES for c in range(lo, hi + 1)}
    trigger = {chr(c) for lo, hi in _NEEDS_FOLDING for c in range(lo, hi + 1)}
    for code in range(0x80, _SCAN_END):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            invisible.add(char)
        elif unicodedata.digit(char, None) is not None or (code > 0xFF and unicodedata.normalize("NFKC", char) != char):
            trigger.add(char)  # a digit or a compatibility form: circled, mathematical ... (not Latin-1's º and ª)
    table = _confusables_table()
    prototypes = _confusable_prototypes(table)
    letters = _keep_case(prototypes)
    trigger |= invisible | set(letters) | _BLANKS
    return _Tables(frozenset(invisible - _BLANKS), frozenset(trigger), letters, _digit_alternatives(table, prototypes))


def load_skeleton_tables() -> None:
    """Build the tables now (a worker's warm-up), not on the first text that is not ASCII."""
    _tables()


def _fold_cluster(cluster: str) -> str:
    first = cluster[0]
    if first.isspace():
        # A line break stays a line break and a tab a tab: a label still starts its line ("Name:")
        # and a name never runs on into the next line, as in the unfolded text.
        return first if first in "\n\r\t" else "\n" if first in _BREAKS else " "
    if len(cluster) == 1 and (unicodedata.category(first) == "Pd" or first == "\u2212"):
        return "-"
    digit = unicodedata.decimal(first, None)
    if digit is not None and len(cluster) == 1:
        return str(digit)
    try:
        folded = unicodedata.normalize("NFKC", cluster)
    except (ValueError, UnicodeError):  # pragma: no cover - lone surrogates and the like stay
        return cluster
    if folded == cluster and len(cluster) == 1 and not first.isascii():
        digit = unicodedata.digit(first, None)  # a digit NFKC keeps: negative circled ❶, dingbat ➀
        return folded if digit is None else str(digit)
    return folded


def _cluster_end(text: str, i: int, invisible: frozenset[str]) -> int:
    """End of the character at `i` with its combining marks (an invisible character between them too)."""
    j, n = i + 1, len(text)
    while j < n:
        if unicodedata.combining(text[j]):
            j += 1
        elif text[j] in invisible and j + 1 < n and unicodedata.combining(text[j + 1]):
            j += 2
        else:
            break
    return j


class _Bidi:
    """The embedding level of directional overrides (UBA X1-X8, overrides only: an embedding or an
    isolate keeps the level, so only text whose display order an override forces is reordered)."""

    def __init__(self) -> None:
        self.level = 0
        self.stack: list[tuple[str, int, int]] = []
        self.seen = False
        self.closed: list[tuple[int, int]] = []  # (override, its PDF) offsets

    def control(self, char: str, pos: int) -> bool:
        """Track `char` (at `pos`) if it is a directional control or a paragraph end; True for a control."""
        if char in (_LRO, _RLO):
            self.stack.append((char, self.level, pos))
            odd = char == _RLO
            self.level = self.level + 1 + ((self.level + 1) % 2 != odd)
            self.seen = True
        elif char in _EMBEDDINGS or char in _ISOLATES:
            self.stack.append((char, self.level, pos))
        elif char == _PDF and self.stack and self.stack[-1][0] not in _ISOLATES:
            opener, self.level, start = self.stack.pop()
            if opener in (_LRO, _RLO):
                self.closed.append((start, pos))
        elif char == _PDI:
            while self.stack:
                opener, self.level, _ = self.stack.pop()
                if opener in _ISOLATES:
                    break
        elif char in _PARAGRAPH_ENDS:
            self.level, self.stack = 0, []
            return False
        else:
            return char == _PDF
        return True


def _display_order(levels: list[int]) -> list[int]:
    """Indices in display order (UBA rule L2: reverse every run at or above each level, highest first)."""
    order = list(range(len(levels)))
    for level in range(max(levels, default=0), 0, -1):
        i = 0
        while i < len(order):
            if levels[order[i]] < level:
                i += 1
                continue
            j = i
            while j < len(order) and levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j
    return order


def _fold_text(text: str, tables: _Tables) -> tuple[list[str], list[int], list[int], list[int], _Bidi]:
    """The folded characters with their original stretches and override levels, and the overrides seen."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    levels: list[int] = []
    bidi = _Bidi()
    i, n = 0, len(text)
    while i < n:
        if bidi.control(text[i], i) or text[i] in tables.invisible:
            i += 1
            continue
        j = _cluster_end(text, i, tables.invisible)
        cluster = "".join(ch for ch in text[i:j] if ch not in tables.invisible)
        folded = " " if cluster in _BLANKS else _fold_cluster(cluster) if cluster else ""
        for ch in folded:
            out.append(ch)
            starts.append(i)
            ends.append(j)
            levels.append(bidi.level)
        i = j
    return out, starts, ends, levels, bidi


def _fold_look_alikes(out: list[str], tables: _Tables) -> None:
    """Read look-alike letters and digits as ASCII in words that mix in ASCII or read wholly as Latin.

    A Greek or Cyrillic word with a letter that has no ASCII look-alike ("Москва") stays as written.
    """
    text = "".join(out)
    for word in _WORD.finditer(text):
        chars = word.group()
        if chars.isascii() or not any(ch in tables.letters for ch in chars):
            continue
        plain = [ch for ch in chars if ch.isascii() and ch.isalnum()]
        if not plain and not all(ch in tables.letters or not ch.isalnum() for ch in chars):
            continue
        in_number = bool(plain) and all(ch.isdigit() for ch in plain)
        for k, ch in enumerate(chars, start=word.start()):
            if ch in tables.letters:
                out[k] = tables.digits.get(ch, tables.letters[ch]) if in_number else tables.letters[ch]


def normalize_for_matching(text: str) -> Folded | None:
    """`text` folded for matching, or None when folding would change nothing (the fast path)."""
    if text.isascii():
        return None
    tables = _tables()
    if tables.trigger.isdisjoint(text):
        return None
    out, starts, ends, levels, bidi = _fold_text(text, tables)
    _fold_look_alikes(out, tables)
    if not bidi.seen:
        return Folded("".join(out), tuple(starts), tuple(ends))
    order = _display_order(levels)
    text_, starts_, ends_ = (
        "".join(out[k] for k in order),
        tuple(starts[k] for k in order),
        tuple(ends[k] for k in order),
    )
    return Folded(text_, starts_, ends_, ordered=False, overrides=tuple(bidi.closed))


class NormalizingDetector:
    """Runs a detector on folded text and maps its spans back to the original offsets."""

    def __init__(self, inner: Detector) -> None:
        self.inner = inner
        self.name = inner.name

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        folds = [normalize_for_matching(doc.text) for doc in docs]
        views = [doc if fold is None else replace(doc, text=fold.text) for doc, fold in zip(docs, folds, strict=True)]
        found = self.inner.detect(views)
        return [
            spans if fold is None else [fold.map_span(s) for s in spans if s.end > s.start]
            for spans, fold in zip(found, folds, strict=True)
        ]
