"""Paired comparison of two systems on the same gold: Wilcoxon signed-rank over per-document F1.

Two systems run on the same documents are paired data: a hard report is hard for both. The test
is on per-document F1 (recall at the core level), which weighs every report equally whatever its
length — the question is "does B do better on a typical report". For each key (`PHI` and every
category) only documents where that key has gold or a prediction from either system are paired;
the others say nothing about it. Zero differences are dropped (Wilcoxon's own treatment), and
with several keys the p-values are Bonferroni-corrected: multiplied by the number of keys tested
(binary PHI included) and capped at 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from radeid.evaluate.metrics import PHI, EvaluationInputError, EvaluationResult, category_order

__all__ = ["Comparison", "PairedTest", "compare", "paired_values", "wilcoxon_test"]

Alternative = Literal["two-sided", "greater", "less"]


@dataclass(frozen=True)
class PairedTest:
    """One key's paired test; differences are B minus A, so a positive median means B is better."""

    key: str
    documents: int
    nonzero: int
    mean_a: float
    mean_b: float
    median_difference: float
    wins_a: int
    wins_b: int
    statistic: float
    p_value: float
    p_adjusted: float

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_adjusted < alpha


@dataclass(frozen=True)
class Comparison:
    """The family of paired tests of one comparison, with what was compared and how."""

    names: tuple[str, str]
    level: str
    metric: str
    alternative: str
    alpha: float
    tests: tuple[PairedTest, ...]

    @property
    def family_size(self) -> int:
        return len(self.tests)

    def get(self, key: str) -> PairedTest | None:
        return next((t for t in self.tests if t.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "names": list(self.names),
            "level": self.level,
            "metric": self.metric,
            "alternative": self.alternative,
            "alpha": self.alpha,
            "correction": "bonferroni",
            "family_size": self.family_size,
            "tests": [{**asdict(t), "significant": t.significant(self.alpha)} for t in self.tests],
        }


def wilcoxon_test(
    a: Sequence[float], b: Sequence[float], alternative: Alternative = "two-sided"
) -> tuple[float, float]:
    """`(statistic, p)` of scipy's Wilcoxon signed-rank test on `b - a`; (0, 1) when no pair differs."""
    from scipy.stats import wilcoxon

    diff = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if not np.any(diff != 0):
        return 0.0, 1.0
    res = wilcoxon(diff, zero_method="wilcox", alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def paired_values(
    a: EvaluationResult, b: EvaluationResult, level: str, key: str
) -> tuple[list[str], list[float], list[float]]:
    """Document ids and per-document F1 of each system, for documents where `key` has anything to score."""
    metric = "recall" if level == "core" else "f1"
    b_docs = {d.doc_id: d for d in b.documents}
    ids: list[str] = []
    xs: list[float] = []
    ys: list[float] = []
    for doc_a in a.documents:
        doc_b = b_docs[doc_a.doc_id]
        ca, cb = doc_a.get(level, key), doc_b.get(level, key)
        if ca.empty and cb.empty:
            continue
        ids.append(doc_a.doc_id)
        xs.append(getattr(ca, metric))
        ys.append(getattr(cb, metric))
    return ids, xs, ys


def compare(
    a: EvaluationResult,
    b: EvaluationResult,
    *,
    level: str = "token",
    keys: Sequence[str] | None = None,
    alternative: Alternative = "two-sided",
    alpha: float = 0.05,
    names: tuple[str, str] = ("A", "B"),
) -> Comparison:
    """Paired Wilcoxon tests of B against A for `PHI` and each category (or the given `keys`)."""
    if set(a.doc_ids) != set(b.doc_ids):
        only_a = sorted(set(a.doc_ids) - set(b.doc_ids))[:5]
        only_b = sorted(set(b.doc_ids) - set(a.doc_ids))[:5]
        raise EvaluationInputError(
            f"the two evaluations cover different documents (only in A: {only_a}, only in B: {only_b}); "
            "score both against the same gold"
        )
    if keys is None:
        present = set(a.present_categories(level)) | set(b.present_categories(level))
        keys = [PHI, *category_order(present)]
    tests: list[PairedTest] = []
    for key in keys:
        _, xs, ys = paired_values(a, b, level, key)
        diff = np.asarray(ys) - np.asarray(xs)
        statistic, p = wilcoxon_test(xs, ys, alternative) if xs else (0.0, 1.0)
        tests.append(
            PairedTest(
                key=key,
                documents=len(xs),
                nonzero=int(np.count_nonzero(diff)),
                mean_a=float(np.mean(xs)) if xs else float("nan"),
                mean_b=float(np.mean(ys)) if ys else float("nan"),
                median_difference=float(np.median(diff)) if xs else 0.0,
                wins_a=int(np.sum(diff < 0)),
                wins_b=int(np.sum(diff > 0)),
                statistic=statistic,
                p_value=p,
                p_adjusted=p,
            )
        )
    m = len(tests)
    tests = [
        PairedTest(**{**asdict(t), "p_adjusted": min(1.0, t.p_value * m)})  # Bonferroni
        for t in tests
    ]
    metric = "recall" if level == "core" else "f1"
    return Comparison(names, level, metric, alternative, alpha, tuple(tests))
