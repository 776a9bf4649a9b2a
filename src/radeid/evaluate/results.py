"""The numbers of an evaluation: counts and scores per level and key, per document and summed.

Pure bookkeeping, no text: `radeid.evaluate.metrics` counts documents into `DocumentCounts` (its
docstring defines every metric); here they are summed, averaged (micro, macro) and written out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "LEVELS",
    "LEVEL_METRICS",
    "MACRO",
    "MICRO",
    "PHI",
    "ZERO",
    "Counts",
    "DocumentCounts",
    "EvaluationResult",
    "Level",
    "Scores",
    "macro_scores",
]

Level = Literal["token", "exact", "overlap", "core"]
#: The levels in report order.
LEVELS: tuple[Level, ...] = ("token", "exact", "overlap", "core")
#: The metrics defined at each level (core-of-span is a recall only).
LEVEL_METRICS: dict[str, tuple[str, ...]] = {
    "token": ("precision", "recall", "f1"),
    "exact": ("precision", "recall", "f1"),
    "overlap": ("precision", "recall", "f1"),
    "core": ("recall",),
}
#: Key of the category-agnostic (PHI vs non-PHI) counts.
PHI = "PHI"
MICRO = "micro"
MACRO = "macro"


@dataclass(frozen=True, slots=True)
class Counts:
    """True positives, false positives and false negatives of one level, key and document (or sum).

    `tp` counts matched *gold* units and `tp_pred` matched *predicted* units; they differ only at
    the overlap level, where one prediction may cover two gold spans. Left out, `tp_pred` is `tp`.
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tp_pred: int | None = None

    def __post_init__(self) -> None:
        if self.tp_pred is None:
            object.__setattr__(self, "tp_pred", self.tp)

    @property
    def matched_pred(self) -> int:
        return self.tp if self.tp_pred is None else self.tp_pred

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.matched_pred + other.matched_pred
        )

    @property
    def empty(self) -> bool:
        """Nothing to find and nothing found."""
        return self.tp == 0 and self.fp == 0 and self.fn == 0 and self.matched_pred == 0

    @property
    def gold(self) -> int:
        return self.tp + self.fn

    @property
    def predicted(self) -> int:
        return self.matched_pred + self.fp

    @property
    def precision(self) -> float:
        if self.empty:
            return 1.0
        denominator = self.matched_pred + self.fp
        return self.matched_pred / denominator if denominator else 0.0

    @property
    def recall(self) -> float:
        if self.empty:
            return 1.0
        denominator = self.tp + self.fn
        return self.tp / denominator if denominator else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tp_pred": self.matched_pred}


ZERO = Counts()


@dataclass(frozen=True, slots=True)
class Scores:
    """Precision, recall and F1 with the gold and predicted unit counts behind them."""

    precision: float
    recall: float
    f1: float
    gold: int
    predicted: int

    @classmethod
    def of(cls, counts: Counts) -> Scores:
        return cls(counts.precision, counts.recall, counts.f1, counts.gold, counts.predicted)

    def get(self, metric: str) -> float:
        return float(getattr(self, metric))

    def to_dict(self) -> dict[str, float | int]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "gold": self.gold,
            "predicted": self.predicted,
        }


@dataclass(frozen=True)
class DocumentCounts:
    """Every count of one document, kept so that the bootstrap can resample and tests can pair."""

    doc_id: str
    counts: Mapping[tuple[str, str], Counts]
    tokens: int = 0
    ignored_tokens: int = 0

    def get(self, level: str, key: str) -> Counts:
        """Counts for `(level, key)`; `key` is `"PHI"`, a category name, or `"micro"` (categories summed)."""
        if key == MICRO:
            total = ZERO
            for (lvl, k), c in self.counts.items():
                if lvl == level and k != PHI:
                    total = total + c
            return total
        return self.counts.get((level, key), ZERO)


@dataclass(frozen=True)
class EvaluationResult:
    """Per-document counts plus the categories scored; every aggregate is derived from them."""

    documents: tuple[DocumentCounts, ...]
    categories: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    tokenizer: str = "words"
    _totals: dict[tuple[str, str], Counts] = field(default_factory=dict, init=False, repr=False, compare=False)

    def total(self, level: str, key: str) -> Counts:
        """Counts summed over documents; `key="micro"` also sums over the scored categories."""
        if key == MICRO:
            total = ZERO
            for category in self.categories:
                total = total + self.total(level, category)
            return total
        cached = self._totals.get((level, key))
        if cached is None:
            cached = ZERO
            for doc in self.documents:
                c = doc.counts.get((level, key))
                if c is not None:
                    cached = cached + c
            self._totals[(level, key)] = cached
        return cached

    def present_categories(self, level: str = "token") -> tuple[str, ...]:
        """Scored categories with gold or predicted units at `level` (those the macro average is over)."""
        return tuple(c for c in self.categories if not self.total(level, c).empty)

    def scores(self, level: str) -> dict[str, Scores]:
        """`PHI` (binary), each category present, `micro` and `macro`, in report order."""
        out: dict[str, Scores] = {PHI: Scores.of(self.total(level, PHI))}
        present = self.present_categories(level)
        for category in present:
            out[category] = Scores.of(self.total(level, category))
        out[MICRO] = Scores.of(self.total(level, MICRO))
        out[MACRO] = macro_scores([out[c] for c in present])
        return out

    def document_f1(self, level: str, key: str) -> dict[str, float]:
        """Per-document F1 (recall at the core level) by document id, for paired tests."""
        metric = "recall" if level == "core" else "f1"
        return {d.doc_id: getattr(d.get(level, key), metric) for d in self.documents}

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(d.doc_id for d in self.documents)

    def to_dict(self) -> dict[str, Any]:
        """Aggregates per level (JSON-ready); per-document counts are left to `documents_to_dict`."""
        levels: dict[str, Any] = {}
        for level in LEVELS:
            levels[level] = {
                key: {**{m: s.get(m) for m in LEVEL_METRICS[level]}, "gold": s.gold, "predicted": s.predicted}
                for key, s in self.scores(level).items()
            }
        return {
            "documents": len(self.documents),
            "tokens": sum(d.tokens for d in self.documents),
            "ignored_tokens": sum(d.ignored_tokens for d in self.documents),
            "tokenizer": self.tokenizer,
            "categories": list(self.categories),
            "levels": levels,
            "warnings": list(self.warnings),
        }

    def documents_to_dict(self) -> list[dict[str, Any]]:
        """Per-document counts (no text), e.g. to pair runs later in another tool."""
        return [
            {
                "id": d.doc_id,
                "tokens": d.tokens,
                "ignored_tokens": d.ignored_tokens,
                "counts": {f"{lvl}/{key}": c.to_dict() for (lvl, key), c in sorted(d.counts.items())},
            }
            for d in self.documents
        ]


def macro_scores(per_category: Sequence[Scores]) -> Scores:
    """Unweighted means over categories; with no category at all, nothing was missed (1.0)."""
    if not per_category:
        return Scores(1.0, 1.0, 1.0, 0, 0)
    n = len(per_category)
    return Scores(
        sum(s.precision for s in per_category) / n,
        sum(s.recall for s in per_category) / n,
        sum(s.f1 for s in per_category) / n,
        sum(s.gold for s in per_category),
        sum(s.predicted for s in per_category),
    )
