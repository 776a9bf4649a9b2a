"""`DocBuilder`: assemble a document piece by piece, recording PHI offsets as the text grows.

Labels are never found by searching the finished text (a name that also occurs as a plain word
would be mislabelled); every PHI piece is appended with its category, so its offsets are known
exactly. Case changes and typos are applied per piece *before* the offset is taken, and line
wrapping only turns spaces outside PHI into newlines, so no transformation can shift a span.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from radeid.core.categories import Category
from radeid.core.document import Span

__all__ = ["DocBuilder", "typo", "wrap_lines"]

SYNTH_SOURCE = "radeid-synth"
_NEIGHBOURS = "qwertyuiopasdfghjklzxcvbnm"


def typo(word: str, rng: random.Random) -> str:
    """One realistic keyboard slip (swap, drop, double or replace a letter) in a word of 4+ letters."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    letter = rng.choice(_NEIGHBOURS)
    return word[:i] + (letter.upper() if word[i].isupper() else letter) + word[i + 1 :]


#: One piece of a generated line: plain text, or (text, category[, subtype]) for a PHI span.
Piece = str | tuple[str, Category] | tuple[str, Category, str | None]


@dataclass
class DocBuilder:
    """Text pieces plus the spans of the PHI pieces, in one pass.

    `upper` writes the whole document in capitals (some RIS exports do); `typo_rate` is the
    chance that a plain word of a `text()` piece gets a keyboard slip (PHI keeps its own form).
    """

    rng: random.Random
    upper: bool = False
    typo_rate: float = 0.0
    _parts: list[str] = field(default_factory=list)
    _length: int = 0
    spans: list[Span] = field(default_factory=list)
    #: (start, end) of hard-negative text: never labelled, kept for tests and analysis.
    negatives: list[tuple[int, int]] = field(default_factory=list)

    def _push(self, piece: str) -> tuple[int, int]:
        if self.upper:
            piece = piece.upper()
        start = self._length
        self._parts.append(piece)
        self._length += len(piece)
        return start, self._length

    def text(self, piece: str) -> DocBuilder:
        """Plain (non-PHI) text, possibly with typos."""
        if self.typo_rate > 0 and piece:
            words = piece.split(" ")
            piece = " ".join(typo(w, self.rng) if self.rng.random() < self.typo_rate else w for w in words)
        self._push(piece)
        return self

    def negative(self, piece: str) -> DocBuilder:
        """Plain text that looks like PHI (eponym, score, level, time): recorded as a hard negative."""
        start, end = self._push(piece)
        self.negatives.append((start, end))
        return self

    def phi(self, piece: str, category: Category, subtype: str | None = None) -> DocBuilder:
        """A PHI mention, labelled with its exact offsets (surrounding whitespace stays outside)."""
        stripped = piece.strip()
        if not stripped:
            raise ValueError("a PHI piece must not be blank")
        lead = piece[: len(piece) - len(piece.lstrip())]
        if lead:
            self._push(lead)
        start, end = self._push(stripped)
        self.spans.append(Span(start, end, category, subtype, source=SYNTH_SOURCE))
        trail = piece[len(piece.rstrip()) :]
        if trail:
            self._push(trail)
        return self

    def line(self, *pieces: Piece) -> DocBuilder:
        """One line mixing plain strings and `(text, category[, subtype])` PHI tuples, then a newline."""
        for piece in pieces:
            if isinstance(piece, str):
                self.text(piece)
            else:
                self.phi(piece[0], piece[1], piece[2] if len(piece) > 2 else None)
        self._push("\n")
        return self

    def newline(self, count: int = 1) -> DocBuilder:
        self._push("\n" * count)
        return self

    def build(self) -> tuple[str, tuple[Span, ...]]:
        """The text and its sorted spans; every span is checked against the text."""
        text = "".join(self._parts)
        spans = tuple(sorted(self.spans))
        for span in spans:
            if not span.text_in(text).strip():
                raise AssertionError("synth produced a blank span")  # a bug in a template
        return text, spans


def wrap_lines(text: str, spans: tuple[Span, ...], width: int) -> str:
    """Hard-wrap long lines at `width` by turning spaces *outside* spans into newlines.

    Same length as the input, so every span keeps its offsets (dictation systems and old RIS
    exports wrap at a fixed column; a model must not learn that PHI never straddles a wrap).
    """
    inside = bytearray(len(text))
    for span in spans:
        inside[span.start : span.end] = b"\x01" * len(span)
    chars = list(text)
    col = 0
    last_space = -1
    for i, ch in enumerate(chars):
        if ch == "\n":
            col, last_space = 0, -1
            continue
        if ch == " " and not inside[i]:
            last_space = i
        col += 1
        if col > width and last_space >= 0:
            chars[last_space] = "\n"
            col = i - last_space
            last_space = -1
    return "".join(chars)
