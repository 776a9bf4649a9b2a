"""The detector protocol: batch-first, read-only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from radeid.document import Document, Span


@runtime_checkable
class Detector(Protocol):
    """Proposes PHI spans. Detectors never modify text and may return overlapping spans.

    `detect` takes a batch so that model-based detectors can batch across documents; it returns
    one list of spans per input document, in input order. `Span.source` starts with `name`
    (optionally `name/detail`), which the resolver uses for source priorities.
    """

    name: str

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]: ...
