"""What every category generator shares: the options, the per-document context, the protocol.

A generator is small on purpose: `parse` reads the original (and may note facts in the
document memory), `generate` writes a surrogate from the parse. Constraints that hold for every
category (never the original, never another original PHI string of the document, length
preservation, typos) are applied once, by the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from radeid.config.sections import SurrogateOptions
from radeid.core.document import Document, Span
from radeid.replace.surrogate.keyed import Keyed
from radeid.replace.surrogate.memory import DocumentMemory

#: `Generator.generate` attempts from this one on are `--length-preserving` redraws (those below
#: are realism retries): a generator may aim them at the original's length.
LENGTH_DRAWS_FROM = 100

#: Bound of the caches of a scope's values per original (shifted dates, rendered vendors).
VALUE_CACHE_LIMIT = 16384


@dataclass(slots=True)
class SurrogateContext:
    """Everything a generator may read while one document is replaced."""

    keyed: Keyed
    options: SurrogateOptions
    document: Document
    scope: str  # entity scope: "patient:<id>" / "document:<id>", or "corpus" in corpus scope
    patient_scope: str  # always the patient (or document): dates and ages shift per patient
    date_offset: int
    age_shift: int
    letters: Mapping[str, str]
    memory: DocumentMemory
    stats: Counter[str]


class Generator(Protocol):
    """One category's surrogate maker."""

    #: whether the "not another original of this document" check applies (not for dates and
    #: ages: moving every date by one offset may land on another original date, by design)
    realism_check: bool

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> Any:
        """Read the original; may record facts in `ctx.memory` for other spans."""
        ...

    def generate(self, parsed: Any, ctx: SurrogateContext, attempt: int) -> str:
        """A surrogate; `attempt` > 0 asks for a different one (the previous was rejected)."""
        ...
