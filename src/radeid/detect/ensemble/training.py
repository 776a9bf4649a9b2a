"""Training tables for learned combiners: unit feature rows and gold unit labels."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from radeid.config.config import Config
from radeid.core.document import Document, Span
from radeid.detect.base import Detector
from radeid.detect.ensemble.combiner import OUTSIDE, Combiner
from radeid.detect.ensemble.features import UnitFeatures
from radeid.detect.ensemble.projection import Rank, project
from radeid.resolve.resolver import DENY_SOURCE

__all__ = ["build_members", "fit_combiner", "run_members", "training_rows", "unit_labels"]


def unit_labels(
    units: Sequence[tuple[int, int]], gold: Sequence[Span], ignored: Sequence[tuple[int, int]] = ()
) -> list[str | None]:
    """Per unit: the category of a gold span it overlaps (as token metrics count it), "O", or
    None inside an ignored region (neither PHI nor not PHI: left out of training)."""
    ordered = sorted(gold)
    starts = [s.start for s in ordered]
    skip = sorted(ignored)
    out: list[str | None] = []
    for start, end in units:
        if any(a < end and start < b for a, b in skip):
            out.append(None)
            continue
        i = bisect_left(starts, end)
        label = OUTSIDE
        for span in reversed(ordered[max(0, i - 8) : i]):  # gold spans starting before the unit's end
            if span.end > start:
                label = span.category.value
                break
        out.append(label)
    return out


def training_rows(
    documents: Sequence[Document],
    member_spans: Sequence[Sequence[Sequence[Span]]],
    features: UnitFeatures,
    rank: Rank,
    ignored: dict[str, list[tuple[int, int]]] | None = None,
) -> tuple[list[tuple[int, ...]], list[str]]:
    """Feature rows and gold labels of every unit of `documents` (gold spans in `doc.spans`)."""
    rows: list[tuple[int, ...]] = []
    labels: list[str] = []
    for doc, spans in zip(documents, member_spans, strict=True):
        voted = [[s for s in found if not s.source.startswith(DENY_SOURCE)] for found in spans]
        projection = project(doc.text, voted, rank)
        doc_labels = unit_labels(projection.units, doc.spans, (ignored or {}).get(doc.id, ()))
        for row, label in zip(features.rows(doc.text, projection), doc_labels, strict=True):
            if label is not None:
                rows.append(row)
                labels.append(label)
    return rows, labels


def build_members(config: Config, names: Sequence[str]) -> list[Detector]:
    from radeid.config.config import ConfigError
    from radeid.detect.base import DETECTORS

    for name in names:
        if name == "ensemble" or name not in DETECTORS:
            known = ", ".join(n for n in DETECTORS.names() if n != "ensemble")
            raise ConfigError(f"unknown member {name!r}; known detectors: {known}")
    return [DETECTORS.get(name)(config) for name in names]


def run_members(members: Sequence[Detector], documents: Sequence[Document], batch_size: int) -> list[list[list[Span]]]:
    """Each document's spans from every member: `out[doc][member]`."""
    out: list[list[list[Span]]] = []
    for i in range(0, len(documents), batch_size):
        batch = documents[i : i + batch_size]
        per_member = [m.detect(batch) for m in members]
        out.extend([list(found[j]) for found in per_member] for j in range(len(batch)))
    return out


def fit_combiner(
    config: Config,
    documents: Sequence[Document],
    members: Sequence[str],
    model: str,
    *,
    ignored: dict[str, list[tuple[int, int]]] | None = None,
    training: dict[str, object] | None = None,
) -> Combiner:
    """Run `members` (built from `config`) on the gold documents and fit a `model` combiner."""
    from radeid.detect.ensemble.detector import protected_content, resolver_rank

    detectors = build_members(config, members)
    stripped = [Document(d.id, d.text, d.patient_id) for d in documents]
    spans = run_members(detectors, stripped, config.pipeline.batch_size)
    features = UnitFeatures(members, protected_content(config))
    rows, labels = training_rows(documents, spans, features, resolver_rank(config.resolver), ignored)
    info = {"documents": len(documents), "units": len(rows), **(training or {})}
    return Combiner.fit(members, model, features.names, rows, labels, info)
