"""Matching text as a reader sees it: Unicode look-alikes folded for rules and word lists.

A name written with non-breaking spaces (`Dr.\u00a0Jane\u00a0Smith`), a zero-width space inside a
word, bidi controls, a decomposed accent (`Rene\u0301`), full-width (`２０１９`) or Arabic-Indic
(`١٢٣`) digits reads the same to a person but not to a regular expression or an Aho-Corasick
automaton. `normalize_for_matching` folds such text (NFKC per character cluster, other decimal
digits to ASCII, every dash to "-", invisible format characters dropped, every space to " ") and keeps, for every
character of the folded text, the stretch of the original it came from, so spans found on the
folded text map back to exact offsets in the original. The model path needs none of this: its
tokenizer normalises on its own and maps offsets itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from radeid.core.document import Document, Span

if TYPE_CHECKING:
    from radeid.detect.base import Detector

__all__ = ["Folded", "NormalizingDetector", "normalize_for_matching"]

# Invisible format characters: zero-width spaces and joiners, word joiner, BOM, soft hyphen, bidi
# marks, embeddings, overrides and isolates.
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff\u200e\u200f\u061c") | frozenset(
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
)
# Anything that may change under folding; texts without it (nearly every report) are left alone.
_NEEDS_FOLDING = re.compile(
    r"(?![0-9])\d"  # a decimal digit of another script
    r"|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"  # combining marks
    r"|[\u00a0\u00ad\u1680\u2000-\u200f\u2028\u2029\u202a-\u202f\u205f-\u206f\u3000\ufeff\u061c]"
    r"|[\uff01-\uff5e\u00b2\u00b3\u00b9\u2070-\u209f\ufb00-\ufb06]"  # full-width, super/subscripts, ligatures
    r"|[\u2010-\u2015\u2212\ufe58\ufe63]"  # dashes and minus signs read as "-"
)


@dataclass(frozen=True)
class Folded:
    """Folded text and, per folded character, the `[start, end)` of the original it came from."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def map_span(self, span: Span) -> Span:
        return span.with_(start=self.starts[span.start], end=self.ends[span.end - 1])


def _fold_cluster(cluster: str) -> str:
    first = cluster[0]
    if first.isspace():
        return " "
    if len(cluster) == 1 and (unicodedata.category(first) == "Pd" or first == "\u2212"):
        return "-"
    digit = unicodedata.decimal(first, None)
    if digit is not None and len(cluster) == 1:
        return str(digit)
    try:
        return unicodedata.normalize("NFKC", cluster)
    except (ValueError, UnicodeError):  # pragma: no cover - lone surrogates and the like stay
        return cluster


def _cluster_end(text: str, i: int) -> int:
    """End of the character at `i` with its combining marks (an invisible character between them too)."""
    j, n = i + 1, len(text)
    while j < n:
        if unicodedata.combining(text[j]):
            j += 1
        elif text[j] in _INVISIBLE and j + 1 < n and unicodedata.combining(text[j + 1]):
            j += 2
        else:
            break
    return j


def normalize_for_matching(text: str) -> Folded | None:
    """`text` folded for matching, or None when folding would change nothing (the fast path)."""
    if text.isascii() or _NEEDS_FOLDING.search(text) is None:
        return None
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _INVISIBLE:
            i += 1
            continue
        j = _cluster_end(text, i)
        cluster = "".join(ch for ch in text[i:j] if ch not in _INVISIBLE)
        folded = _fold_cluster(cluster) if cluster else ""
        for ch in folded:
            out.append(ch)
            starts.append(i)
            ends.append(j)
        i = j
    return Folded("".join(out), tuple(starts), tuple(ends))


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
