"""Member spans onto shared units, and voted units back to spans, with exact offsets.

Units are the evaluation tokens (`radeid.core.tokens.word_tokens`) cut at every member span's start
and end, so each member span is an exact union of units. Strategies decide per unit; `to_spans`
then gives back each member's spans clipped to the voted units: a member span whose units were
all voted comes back whole (so "John Smith" stays one span and "John, Mary" two: two voted units
are joined only where one member had a single span over both, and the gap between them), one with
units voted out comes back in pieces. The resolver then settles the overlaps of these spans exactly
as it settles the overlaps of detectors' spans (category by its priorities, union extent), judging
each by its member's source; so a member alone under `vote:1` gives back its own spans, and
`vote:1` of several members is what the pipeline does with the same detectors and no ensemble.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.tokens import word_tokens

__all__ = ["Projection", "Rank", "UnitDecision", "project", "to_spans"]

#: Orders spans like the resolver does: the better span names the category (higher is better).
Rank = Callable[[Span], tuple[Any, ...]]


@dataclass(frozen=True)
class Projection:
    """Units of one text and, per member, what it says about each unit.

    best[m][u]: member m's best-ranked span covering unit u (None: m says not PHI);
    covers[m]: member m's spans with the units each covers, `(span, first unit, last unit + 1)`.
    """

    units: list[tuple[int, int]]
    best: list[list[Span | None]]
    covers: list[list[tuple[Span, int, int]]]

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
    covers_all: list[list[tuple[Span, int, int]]] = []
    for spans in member_spans:
        best: list[Span | None] = [None] * len(units)
        covers: list[tuple[Span, int, int]] = []
        for span in spans:
            # units are cut at span.end, so a unit starting inside the span ends inside it too
            first = i = bisect_left(starts, span.start)
            while i < len(units) and units[i][0] < span.end:
                current = best[i]
                if current is None or rank(span) > rank(current):
                    best[i] = span
                i += 1
            if i > first:  # a span of whitespace alone covers no unit
                covers.append((span, first, i))
        best_all.append(best)
        covers_all.append(covers)
    return Projection(units, best_all, covers_all)


def to_spans(
    projection: Projection,
    decisions: Sequence[UnitDecision],
    tag: str,
    *,
    counts: Callable[[int, Span], bool] | None = None,
    learned: bool = False,
) -> list[Span]:
    """Each member span clipped to the voted units, as `ensemble/<tag>/<member source>` spans.

    `counts(member, span)` leaves out spans that gave no vote (a zero weight). For vote and
    weighted strategies a piece keeps its member's category, subtype and score, and the resolver's
    priorities settle disagreements. For `learned`, the combiner's categories decide: a piece
    takes the category the combiner gave most of its units (its member's on a tie), the lowest
    unit probability as its score, and voted units no member span covers come back on their own
    (source `ensemble/<tag>`).
    """
    units = projection.units
    out: list[Span] = []
    claimed = [False] * len(units)

    def emit(span: Span, first: int, last: int) -> None:  # units first..last-1
        category, subtype, score = span.category, span.subtype, span.score
        if learned:
            decided = Counter(decisions[u].category for u in range(first, last))
            top = max(decided.values())
            if decided.get(category, 0) < top:
                category = next(c for c, n in decided.most_common() if n == top and c is not None)
                subtype = None
            score = min(decisions[u].score for u in range(first, last))
        source = f"ensemble/{tag}/{span.source}" if span.source else f"ensemble/{tag}"
        out.append(Span(units[first][0], units[last - 1][1], category, subtype, score, source))
        for u in range(first, last):
            claimed[u] = True

    for m, covered in enumerate(projection.covers):
        for span, first, end in covered:
            if counts is not None and not counts(m, span):
                continue
            run = None
            for u in range(first, end + 1):
                voted = u < end and decisions[u].category is not None
                if voted and run is None:
                    run = u
                elif not voted and run is not None:
                    emit(span, run, u)
                    run = None
    if learned:
        _uncovered(units, decisions, claimed, tag, out)
    return sorted(out)


def _uncovered(
    units: Sequence[tuple[int, int]], decisions: Sequence[UnitDecision], claimed: list[bool], tag: str, out: list[Span]
) -> None:
    """Units a learned combiner calls PHI that no member span covers: touching ones of one
    category become one span (no member said anything about a gap, so none is crossed)."""
    run: list[int] = []

    def close() -> None:
        if run:
            category = decisions[run[0]].category
            assert category is not None
            score = min(decisions[u].score for u in run)
            out.append(Span(units[run[0]][0], units[run[-1]][1], category, None, score, f"ensemble/{tag}"))
            run.clear()

    for u, decision in enumerate(decisions):
        if decision.category is None or claimed[u]:
            close()
            continue
        if run and (units[run[-1]][1] != units[u][0] or decisions[run[-1]].category != decision.category):
            close()
        run.append(u)
    close()
