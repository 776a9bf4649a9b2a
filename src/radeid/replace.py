"""The replacer protocol: turn resolved spans into a de-identified `Result`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from radeid.document import Document, Result, Span


@runtime_checkable
class Replacer(Protocol):
    """Replaces every span of a document; spans arrive resolved (sorted, non-overlapping).

    Implementations: `MaskReplacer` (tags, numbered tags, same-length and fixed masks) and
    `SurrogateReplacer` (hide in plain sight). A replacer sees one document at a time and keeps
    no state between documents, so any number of workers can run it in any order.
    """

    def replace(self, document: Document, spans: Sequence[Span]) -> Result: ...
