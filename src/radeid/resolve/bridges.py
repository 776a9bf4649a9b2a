"""Overlap groups that a weak span bridges between two rule spans of different categories.

Overlapping spans merge into one (union extent, best-ranked category). When a model's span
straddles two rule spans of different kinds, that union swallows one into the other: in
"Sr. Ramos el 3 de marzo de 2024" the model's "Ramos el 3 de" joined the title rule's name "Ramos"
to the date rule's "3 de marzo de 2024", and the whole became one DATE, whose surrogate kept
"Ramos el" as the date's literal words. A rule's span is exact by construction, so a group one of
whose rule spans is a date or an age is split at its rule spans instead: rule spans chained by
overlap form clusters; a weak span touching one cluster, or clusters of one category, or holding
every cluster it touches whole, merges with them as before; a weak span that joins clusters of
different categories and cuts into one of them (a bridge) keeps only its pieces outside them that
look like PHI (a name or a number between the two), each a span of its own, and loses the rest,
which the rule spans cover.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from radeid.core.categories import Category
from radeid.core.document import Span

__all__ = ["split_bridged"]

#: Categories whose surrogate keeps the span's other words as written (a date's "el", "de"): a
#: name merged into one of them would survive. Other merged groups are replaced whole, so a
#: hospital and the street after it may still merge (MEDDOCAN's signature lines: splitting those
#: lost gold tokens for nothing).
_TEMPLATED = frozenset({Category.DATE, Category.AGE})

#: (start, end) of what a bridge holds outside the rule spans -> its pieces that look like PHI
Piece = Callable[[int, int], "list[tuple[int, int]]"]


def split_bridged(
    group: Sequence[Span], anchor: Callable[[Span], bool], piece: Piece | None = None
) -> tuple[list[list[Span]], list[Span]]:
    """The sub-groups to merge one by one, and the bridges split; `[group]` and no bridge when no
    weak span joins rule clusters of different categories."""
    clusters = _chained([s for s in group if anchor(s)])
    kinds = [frozenset(s.category for s in c) for c in clusters]
    if len(clusters) < 2 or len(set(kinds)) < 2 or not any(k & _TEMPLATED for k in kinds):
        return [list(group)], []
    root = list(range(len(clusters)))
    weak = [s for s in group if not anchor(s)]
    touched = {id(s): _touched(s, clusters) for s in weak}
    bridges = [s for s in weak if _bridges(s, [(clusters[i], kinds[i]) for i in touched[id(s)]])]
    bridged = {id(s) for s in bridges}
    for span in weak:  # a weak span joining clusters of one kind joins them, as a plain merge would
        if id(span) not in bridged:
            for i in touched[id(span)][1:]:
                _union(root, touched[id(span)][0], i)
    parts: dict[int, list[Span]] = {}
    for i, cluster in enumerate(clusters):
        parts.setdefault(_find(root, i), []).extend(cluster)
    loose: list[Span] = []
    for span in weak:
        if id(span) in bridged:
            continue
        if touched[id(span)]:
            parts[_find(root, touched[id(span)][0])].append(span)
        else:
            loose.append(span)  # chained to the group through other weak spans only
    merged = _no_overlap(sorted(parts.values(), key=_start), anchor)
    extents = [(_start(p), _end(p)) for p in merged]
    pieces: list[Span] = []
    for span in [*loose, *bridges]:  # what a bridge or loose span holds outside every part, on its own
        for start, end in _outside(span.start, span.end, extents):
            for a, b in piece(start, end) if piece is not None else ():
                pieces.append(span.with_(start=a, end=b))
    return merged + _chained(pieces), bridges


def _chained(spans: list[Span]) -> list[list[Span]]:
    """Spans chained by overlap, in text order (pieces of two bridges in one gap merge)."""
    groups: list[list[Span]] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if groups and span.start < _end(groups[-1]):
            groups[-1].append(span)
        else:
            groups.append([span])
    return groups


def _bridges(span: Span, touched: list[tuple[list[Span], frozenset[Category]]]) -> bool:
    """Whether `span` joins rule clusters of different kinds and cuts into one of them: a span that
    holds them all whole is one larger name ("Hospital Universitario 12 de Octubre": a hospital
    named for a date), merged as before."""
    if len({kind for _, kind in touched}) < 2:
        return False
    return any(_start(c) < span.start or span.end < _end(c) for c, _ in touched)


def _touched(span: Span, clusters: list[list[Span]]) -> list[int]:
    return [i for i, c in enumerate(clusters) if span.start < _end(c) and _start(c) < span.end]


def _union(root: list[int], a: int, b: int) -> None:
    root[_find(root, b)] = _find(root, a)


def _find(root: list[int], i: int) -> int:
    while root[i] != i:
        i = root[i]
    return i


def _no_overlap(parts: list[list[Span]], anchor: Callable[[Span], bool]) -> list[list[Span]]:
    """Parts (in text order) whose weak spans still meet between them lose those weak spans, so
    the merged spans never overlap: a part's rule spans always stay."""
    for i in range(len(parts) - 1):
        left, right = parts[i], parts[i + 1]
        if _end(left) > _start(right):
            parts[i] = [s for s in left if s.end <= _start(right) or anchor(s)]
            parts[i + 1] = [s for s in right if s.start >= _end(parts[i]) or anchor(s)]
    return parts


def _outside(start: int, end: int, extents: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges of [start, end) that no extent covers."""
    pieces: list[tuple[int, int]] = []
    cursor = start
    for a, b in sorted(extents):
        if b <= cursor or a >= end:
            continue
        if a > cursor:
            pieces.append((cursor, a))
        cursor = max(cursor, b)
    if cursor < end:
        pieces.append((cursor, end))
    return pieces


def _start(part: Sequence[Span]) -> int:
    return min(s.start for s in part)


def _end(part: Sequence[Span]) -> int:
    return max(s.end for s in part)
