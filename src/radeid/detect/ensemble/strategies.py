"""Vote and weighted strategies: one `UnitDecision` per unit from the members' unit spans.

Only whether a unit is PHI matters downstream (`to_spans` gives back the members' own spans and
categories); the category and score recorded here say which member span would name the unit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from radeid.core.categories import Category
from radeid.detect.ensemble.projection import Projection, Rank, UnitDecision

__all__ = ["vote", "weighted"]

NOT_PHI = UnitDecision(None, 0.0)


def vote(projection: Projection, k: int, rank: Rank) -> list[UnitDecision]:
    """PHI where at least `k` members say so; the best-ranked voting span names the category.

    The score is the share of members that voted.
    """
    n = len(projection.best)
    decisions: list[UnitDecision] = []
    for u in range(len(projection)):
        voters = [b[u] for b in projection.best if b[u] is not None]
        if len(voters) < k:
            decisions.append(NOT_PHI)
            continue
        winner = max(voters, key=rank)  # type: ignore[arg-type]
        assert winner is not None
        decisions.append(UnitDecision(winner.category, len(voters) / n))
    return decisions


def weighted(
    projection: Projection, weight: Callable[[int, Category], float], threshold: float, rank: Rank
) -> list[UnitDecision]:
    """PHI where the weights of the voting members (`weight(member index, category)`) reach
    `threshold`; among members with a positive weight, the best-ranked span names the category.

    The score is the weight sum over the threshold, capped at 1.
    """
    decisions: list[UnitDecision] = []
    for u in range(len(projection)):
        total = 0.0
        voters = []
        for m, best in enumerate(projection.best):
            span = best[u]
            if span is None:
                continue
            w = weight(m, span.category)
            total += w
            if w > 0:
                voters.append(span)
        # a small tolerance: 0.1 + 0.2 must reach a threshold of 0.3
        if not voters or total < threshold - 1e-9:
            decisions.append(NOT_PHI)
            continue
        decisions.append(UnitDecision(max(voters, key=rank).category, min(1.0, total / threshold)))
    return decisions


def decisions_from_labels(labels: Sequence[Category | None], scores: Sequence[float]) -> list[UnitDecision]:
    return [UnitDecision(c, s) for c, s in zip(labels, scores, strict=True)]
