"""Unit features for learned combiners: each member's category, and cheap token features.

Every feature is 0/1, so a training set is a small table of distinct rows with label counts
(`radeid.detect.ensemble.combiner`), and no row says anything about the text beyond its shape.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from radeid.core.categories import Category
from radeid.detect.ensemble.projection import Projection
from radeid.patterns.forms import common_words, person_names
from radeid.resolve.protected import ProtectedContent, merge_intervals

__all__ = ["UnitFeatures", "feature_names", "shape_of"]

SHAPES = ("title", "upper", "lower", "digits", "alnum", "punct")
LENGTHS = ("1", "2-3", "4-6", "7+")
WORD_FEATURES = ("name_word", "common_word", "protected")


def feature_names(members: Sequence[str]) -> list[str]:
    """Names of the feature columns, in order (stored in the combiner file and checked on load)."""
    return [
        *(f"{m}={c.value}" for m in members for c in Category),
        *(f"shape={s}" for s in SHAPES),
        *(f"length={n}" for n in LENGTHS),
        *WORD_FEATURES,
    ]


def shape_of(piece: str) -> str:
    """A coarse shape class: Title, UPPER, lower, digits, mixed letters/digits, punctuation."""
    if piece.isdigit():
        return "digits"
    if not any(ch.isalnum() for ch in piece):
        return "punct"
    if piece.isalpha():
        if piece.isupper():
            return "upper"
        if piece.islower():
            return "lower"
        return "title" if piece[0].isupper() else "lower"
    return "alnum"


def _length_bucket(n: int) -> str:
    return "1" if n == 1 else "2-3" if n <= 3 else "4-6" if n <= 6 else "7+"


class UnitFeatures:
    """Feature rows for the units of a projection (one tuple of 0/1 per unit)."""

    def __init__(self, members: Sequence[str], protected: ProtectedContent | None = None) -> None:
        self.members = tuple(members)
        self.protected = protected
        self.names = feature_names(self.members)
        self._categories = {c: i for i, c in enumerate(Category)}
        self._width = len(Category)
        base = len(self.members) * self._width
        self._shape_at = {s: base + i for i, s in enumerate(SHAPES)}
        self._length_at = {n: base + len(SHAPES) + i for i, n in enumerate(LENGTHS)}
        self._word_at = base + len(SHAPES) + len(LENGTHS)
        self._person_names = person_names()
        self._common = common_words()

    def rows(self, text: str, projection: Projection) -> list[tuple[int, ...]]:
        if len(projection.best) != len(self.members):
            raise ValueError(f"{len(projection.best)} member outputs for {len(self.members)} members")
        protected = self._protected_intervals(text)
        starts = [a for a, _ in protected]
        rows: list[tuple[int, ...]] = []
        for u, (start, end) in enumerate(projection.units):
            row = [0] * len(self.names)
            for m, best in enumerate(projection.best):
                span = best[u]
                if span is not None:
                    row[m * self._width + self._categories[span.category]] = 1
            piece = text[start:end]
            row[self._shape_at[shape_of(piece)]] = 1
            row[self._length_at[_length_bucket(end - start)]] = 1
            folded = piece.casefold()
            row[self._word_at] = int(folded in self._person_names)
            row[self._word_at + 1] = int(folded in self._common)
            i = bisect_left(starts, end)  # protected intervals starting before the unit's end
            row[self._word_at + 2] = int(i > 0 and protected[i - 1][1] > start)
            rows.append(tuple(row))
        return rows

    def _protected_intervals(self, text: str) -> list[tuple[int, int]]:
        if self.protected is None:
            return []
        return merge_intervals((p.start, p.end) for p in self.protected.find(text))
