"""Member spans onto shared units, and voted units back to spans, with exact offsets.

Units are the evaluation tokens (`radeid.tokens.word_tokens`) cut at every member span's start
and end, so each member span is an exact union of units: a member alone under `vote:1` gives back
its own spans. Whitespace is never a unit; whether two voted units become one span is decided by
the members (`to_spans`): only when one member had a single span over both, so "John Smith" stays
one span and "John, Mary" two.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from radeid.categories import Category
from radeid.document import Span
from radeid.tokens import word_tokens

__all__ = ["Projection", "Rank", "UnitDecision", "project", "to_spans"]

#: Orders spans like the resolver does: the better span names the category (higher is better).
Rank = Callable[[Span], tuple[Any, ...]]


@dataclass(frozen=True)
class Projection:
    """Units of one text and, per member, what it says about each unit.

    best[m][u]: member m's best-ranked span covering unit u (None: m says not PHI);
    reach[m][u]: the farthest end of m's spans covering u (0: none), for the gap rule.
    """

    units: list[tuple[int, int]]
    best: list[list[Span | None]]
    reach: list[list[int]]

    def __len__(self) -> int:
        return len(self.units)


@dataclass(frozen=True)
class UnitDecision:
    """A strategy's verdict on one unit: the category (None: not PHI) and a score in [0, 1]."""

    category: Category | None
    score: float = 1.0


def units_of(text: str, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """Evaluation tokens of `text`, each cut at the offsets of `cuts` (sorted) that fall inside it."""
    units: list[tuple[int, int]] = []
    for start, end in word_tokens(text):
        i = bisect_right(cuts, start)
        prev = start
        while i < len(cuts) and cuts[i] < end:
            units.append((prev, cuts[i]))
            prev = cuts[i]
            i += 1
        units.append((prev, end))
    return units


def project(text: str, member_spans: Sequence[Sequence[Span]], rank: Rank) -> Projection:
    """Project each member's spans (any order, may overlap) onto the shared units of `text`."""
    cuts = sorted({b for spans in member_spans for s in spans for b in (s.start, s.end)})
    units = units_of(text, cuts)
    starts = [u[0] for u in units]
    best_all: list[list[Span | None]] = []
    reach_all: list[list[int]] = []
    for spans in member_spans:
        best: list[Span | None] = [None] * len(units)
        reach = [0] * len(units)
        for span in spans:
            # units are cut at span.end, so a unit starting inside the span ends inside it too
            i = bisect_left(starts, span.start)
            while i < len(units) and units[i][0] < span.end:
                current = best[i]
                if current is None or rank(span) > rank(current):
                    best[i] = span
                reach[i] = max(reach[i], span.end)
                i += 1
        best_all.append(best)
        reach_all.append(reach)
    return Projection(units, best_all, reach_all)


def to_spans(projection: Projection, decisions: Sequence[UnitDecision], tag: str, rank: Rank) -> list[Span]:
    """Voted units back to spans.

    Consecutive voted units become one span only when a member had a single span covering both
    (and so the gap between them). Like the resolver's merge of overlapping spans, a span whose
    units were voted different categories takes the category of its best-ranked member span among
    those categories (learned: the combiner's categories; if no member named one, the most frequent).
    Subtype and source come from that member span: source `ensemble/<tag>/<member source>`,
    which the resolver reads through (`radeid.resolve.member_source`) for strong sources, form
    checks and priorities. The score is the lowest unit score of the span.
    """
    units = projection.units
    out: list[Span] = []
    run: list[int] = []

    def close() -> None:
        if not run:
            return
        decided = Counter(decisions[u].category for u in run)
        candidates = [b[u] for b in projection.best for u in run]
        named = [s for s in candidates if s is not None and s.category in decided]
        rep = max(named, key=rank) if named else None
        category = rep.category if rep is not None else decided.most_common(1)[0][0]
        assert category is not None
        source = f"ensemble/{tag}/{rep.source}" if rep is not None and rep.source else f"ensemble/{tag}"
        out.append(
            Span(
                units[run[0]][0],
                units[run[-1]][1],
                category,
                subtype=rep.subtype if rep is not None else None,
                score=min(decisions[u].score for u in run),
                source=source,
            )
        )
        run.clear()

    for u, decision in enumerate(decisions):
        if decision.category is None:
            close()
            continue
        if run:
            prev = run[-1]
            joined = prev == u - 1 and max(r[prev] for r in projection.reach) >= units[u][1]
            if not joined:
                close()
        run.append(u)
    close()
    return out
