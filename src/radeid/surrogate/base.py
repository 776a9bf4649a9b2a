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
from typing import Any, Literal, Protocol

from radeid.document import Document, Span
from radeid.surrogate.keyed import Keyed
from radeid.surrogate.memory import DocumentMemory


@dataclass(frozen=True)
class SurrogateOptions:
    """How surrogates are made. The defaults are what `radeid deid` uses.

    scope: "patient" keys every surrogate by the document's patient (else its id); "corpus"
        keys names, IDs and places by one corpus-wide scope, so equal originals get equal
        fakes across patients (dates and ages still shift per patient).
    date_shift: "patient" (a keyed offset per patient), "none", or "fixed:N" days.
    max_shift_days: the patient offset is drawn from [-max, max] without 0.
    length_preserving: pad or trim each surrogate to the original's length (names pick
        same-length fakes first, so padding is rare).
    typo_rate: probability of one typo in a name/place surrogate (training augmentation).
    locale: Faker locale for names and places.
    age_mode: "keep_over" keeps an age over 89 over 89; "aggregate" writes "90+".
    day_first: read ambiguous numeric dates day first (03/04/2020 = 3 April).
    keep_state: keep US state names and draw ZIP codes inside the state.
    """

    scope: Literal["patient", "corpus"] = "patient"
    date_shift: str = "patient"
    max_shift_days: int = 365
    length_preserving: bool = False
    typo_rate: float = 0.0
    locale: str = "en_US"
    age_mode: Literal["keep_over", "aggregate"] = "keep_over"
    day_first: bool = False
    keep_state: bool = False

    def __post_init__(self) -> None:
        if self.scope not in ("patient", "corpus"):
            raise ValueError(f"scope must be 'patient' or 'corpus', not {self.scope!r}")
        self.fixed_shift()  # validates date_shift
        if self.max_shift_days < 1:
            raise ValueError("max_shift_days must be at least 1")
        if not 0.0 <= self.typo_rate <= 1.0:
            raise ValueError("typo_rate must be within [0, 1]")
        if self.age_mode not in ("keep_over", "aggregate"):
            raise ValueError(f"age_mode must be 'keep_over' or 'aggregate', not {self.age_mode!r}")

    def fixed_shift(self) -> int | None:
        """The fixed offset for "fixed:N" and 0 for "none"; None means a keyed patient shift."""
        mode = self.date_shift.strip().lower()
        if mode == "patient":
            return None
        if mode == "none":
            return 0
        if mode.startswith("fixed:"):
            try:
                return int(mode.split(":", 1)[1])
            except ValueError:
                pass
        raise ValueError(f"date_shift must be 'none', 'patient' or 'fixed:N', not {self.date_shift!r}")


@dataclass
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
