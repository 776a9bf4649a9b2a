"""Assemble labelled synthetic radiology reports and clinical notes.

`generate(n, options)` yields `Document`s whose `spans` are gold PHI. Document `i` depends only on
(seed, i): its own `random.Random` and a re-seeded Faker, so any prefix of a run is reproducible
and documents can be generated in any order or in parallel.

The templates live in `report.py` (radiology reports), `note.py` (clinical notes) and `openi.py`
(real Open-i prose); the cast and shared writers in `parts.py`. This module holds the options
and the per-document seeding.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from radeid.core import metakeys as mk
from radeid.core.document import Document
from radeid.synth import extras as xs
from radeid.synth.builder import SYNTH_SOURCE, DocBuilder, wrap_lines
from radeid.synth.fakes import Fakes
from radeid.synth.kinds import KINDS, NOTE_KINDS, REPORT_KINDS
from radeid.synth.note import note
from radeid.synth.parts import Ctx, person
from radeid.synth.report import report

__all__ = ["SYNTH_SOURCE", "SynthOptions", "generate", "generate_one"]


@dataclass(frozen=True)
class SynthOptions:
    """What to generate. Rates are per document; `openi_path` enables the `openi_chest_xray` kind
    (research-only text: read at run time, never bundled)."""

    seed: int = 0
    kinds: tuple[str, ...] = ()
    upper_rate: float = 0.08
    wrap_rate: float = 0.15
    typo_rate: float = 0.2
    openi_path: Path | None = None
    locale: str = "en_US"
    id_prefix: str = "synth"
    #: Extra hard negatives and PHI contexts (`extras.py`), 0 = none (the first generator's output,
    #: byte for byte), 1 = the full dose. Extras draw from their own generator, so the main content
    #: of a document stays the same; department lines become plain text (not PHI) when on.
    extras: float = 0.0
    _kinds: tuple[str, ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("upper_rate", "wrap_rate", "typo_rate", "extras"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        chosen = tuple(self.kinds) or tuple(k for k in KINDS if k != "openi_chest_xray" or self.openi_path)
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
        if "openi_chest_xray" in chosen and self.openi_path is None:
            raise ValueError("kind openi_chest_xray needs the Open-i carrier file (--openi-carrier PATH)")
        object.__setattr__(self, "_kinds", chosen)

    @property
    def chosen_kinds(self) -> tuple[str, ...]:
        return self._kinds


def generate_one(
    index: int, options: SynthOptions, fakes: Fakes | None = None, extra_fakes: Fakes | None = None
) -> Document:
    """Document number `index` of the run described by `options` (a pure function of both)."""
    rng = random.Random(f"radeid-synth:{options.seed}:{index}")
    fakes = fakes or Fakes(options.locale)
    fakes.reset(rng.getrandbits(64))
    fakes.rng = rng
    kind = rng.choice(options.chosen_kinds)
    exam = fakes.now()
    roll = rng.random()
    age = rng.randrange(90, 104) if roll < 0.12 else rng.randrange(1, 18) if roll < 0.16 else rng.randrange(18, 90)
    ctx = Ctx(
        rng=rng,
        fakes=fakes,
        patient=person(fakes, True if kind == "mammography" else None),
        age=age,
        exam=exam,
        referrer=person(fakes),
        reader=person(fakes),
        hospital=fakes.hospital(),
        domain=fakes.domain(),
        upper=rng.random() < options.upper_rate,
    )
    if options.extras > 0:
        xrng = random.Random(f"radeid-synth-extra:{options.seed}:{index}")
        xfakes = extra_fakes or Fakes(options.locale)
        xfakes.reset(xrng.getrandbits(64))
        xfakes.rng = xrng
        ctx.x = xs.Extra(xrng, xfakes, exam)
        ctx.extras = options.extras
    typo_rate = rng.uniform(0.01, 0.05) if rng.random() < options.typo_rate else 0.0
    b = DocBuilder(rng, upper=ctx.upper, typo_rate=typo_rate)
    if kind in REPORT_KINDS:
        report(b, ctx, kind, REPORT_KINDS[kind])
    elif kind in NOTE_KINDS:
        note(b, ctx, kind, NOTE_KINDS[kind])
    else:
        from radeid.synth.openi import openi_report

        assert options.openi_path is not None
        openi_report(b, ctx, options.openi_path)
    text, spans = b.build()
    if rng.random() < options.wrap_rate:
        text = wrap_lines(text, spans, rng.randrange(60, 90))
    doc_id = f"{options.id_prefix}-{options.seed}-{index:06d}"
    return Document(
        id=doc_id,
        text=text,
        patient_id=f"{doc_id}-p",
        metadata={mk.KIND: kind, mk.SOURCE: SYNTH_SOURCE, mk.NEGATIVES: tuple(b.negatives), mk.UPPER: ctx.upper},
        spans=spans,
    )


def generate(n: int, options: SynthOptions | None = None, start: int = 0) -> Iterator[Document]:
    """`n` documents, numbers `start` .. `start + n - 1`."""
    options = options or SynthOptions()
    fakes = Fakes(options.locale)
    extra_fakes = Fakes(options.locale) if options.extras > 0 else None
    for i in range(start, start + n):
        yield generate_one(i, options, fakes, extra_fakes)
