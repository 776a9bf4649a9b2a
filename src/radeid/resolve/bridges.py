"""Overlap groups that a weak span bridges between two rule spans of different categories.

Overlapping spans merge into one (union extent, best-ranked category). When a model's span
straddles two rule spans of different kinds, that union swallows one into the other: in
"Sr. Ramos el 3 de marzo de 2024" the model's "Ramos el 3 de" joined the title rule's name "Ramos"
to the date rule's "3 de marzo de 2024", and the whole became one DATE, whose surrogate kept
"Ramos el" as the date's literal words. A rule's span is precise by construction, so the group is
split at its rule spans instead: each cluster of overlapping rule spans keeps the weak spans that
touch it alone, and a weak span touching clusters of different kinds (the bridge) is dropped: the
rule spans on both sides still cover the PHI it held.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from radeid.core.document import Span

__all__ = ["split_bridged"]


def split_bridged(group: Sequence[Span], anchor: Callable[[Span], bool]) -> tuple[list[list[Span]], list[Span]]:
    """The sub-groups to merge one by one, and the bridges dropped; `[group]` and no bridge when no
    two disjoint anchor clusters of different categories are joined."""
    clusters = _clusters(sorted((s for s in group if anchor(s)), key=lambda s: (s.start, -s.end)))
    if len(clusters) < 2 or len({c[0].category for c in clusters}) < 2:
        return [list(group)], []
    parts: list[list[Span]] = [list(c) for c in clusters]
    bridges: list[Span] = []
    loose: list[Span] = []
    for span in group:
        if anchor(span):
            continue
        touched = [i for i, c in enumerate(clusters) if span.start < _end(c) and _start(c) < span.end]
        if len(touched) == 1:
            parts[touched[0]].append(span)
        elif touched:
            bridges.append(span)
        else:
            loose.append(span)  # chained to the group through other weak spans only
    extents = [(min(s.start for s in p), max(s.end for s in p)) for p in parts]
    for span in loose:  # kept apart when it meets no kept part, else it would join two parts again
        if all(span.end <= start or end <= span.start for start, end in extents):
            parts.append([span])
        else:
            bridges.append(span)
    return _no_overlap(parts, clusters), bridges


def _clusters(anchors: list[Span]) -> list[list[Span]]:
    """Anchor spans chained by overlap, in text order."""
    clusters: list[list[Span]] = []
    for span in anchors:
        if clusters and span.start < _end(clusters[-1]):
            clusters[-1].append(span)
        else:
            clusters.append([span])
    return clusters


def _no_overlap(parts: list[list[Span]], clusters: list[list[Span]]) -> list[list[Span]]:
    """Two parts whose weak spans still meet in the gap between their anchors: each loses the weak
    spans that reach into the other (its anchors stay), so the merged spans never overlap."""
    n = len(clusters)
    for i in range(n - 1):
        left, right = parts[i], parts[i + 1]
        if max(s.end for s in left) > min(s.start for s in right):
            limit_left, limit_right = _end(clusters[i]), _start(clusters[i + 1])
            parts[i] = [s for s in left if s.end <= limit_right or s in clusters[i]]
            parts[i + 1] = [s for s in right if s.start >= limit_left or s in clusters[i + 1]]
            if max(s.end for s in parts[i]) > min(s.start for s in parts[i + 1]):
                parts[i] = list(clusters[i])
                parts[i + 1] = list(clusters[i + 1])
    return parts


def _start(cluster: Sequence[Span]) -> int:
    return min(s.start for s in cluster)


def _end(cluster: Sequence[Span]) -> int:
    return max(s.end for s in cluster)
