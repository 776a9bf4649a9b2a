"""One generated document's cast (`Ctx`: who, where, when) and the small writers every template
uses: a doctor's name, a date, an age, an address, a section heading, filler sentences.

Split from `generate.py` (issue 11): the report templates (`report.py`), the note templates
(`note.py`) and the Open-i carrier (`openi.py`) all write with these pieces.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from radeid.core.categories import Category as C
from radeid.synth import extras as xs
from radeid.synth.builder import DocBuilder, Piece
from radeid.synth.fakes import Fakes, Person
from radeid.synth.negatives import EPONYM_WORDS, fill

__all__ = ["Ctx", "address", "age_text", "date_phi", "dr", "person", "section", "sentences"]

_AVOID = frozenset(w.split("-")[0].casefold() for w in EPONYM_WORDS)


@dataclass
class Ctx:
    """One document's cast: who, where, when."""

    rng: random.Random
    fakes: Fakes
    patient: Person
    age: int
    exam: datetime
    referrer: Person
    reader: Person
    hospital: str
    domain: str
    upper: bool
    x: xs.Extra | None = None
    extras: float = 0.0

    def more(self, p: float) -> bool:
        """An extra's coin (from the extra generator; always False without extras)."""
        return self.x is not None and self.x.rng.random() < p * self.extras


def person(fakes: Fakes, female: bool | None = None) -> Person:
    for _ in range(20):
        p = fakes.person(female)
        if p.last.casefold() not in _AVOID and p.first.casefold() not in _AVOID:
            return p
    return p


def dr(b: DocBuilder, ctx: Ctx, who: Person, title: bool = True, cred: bool | None = None) -> DocBuilder:
    """`Dr. NAME, MD` with the title and credential outside the span (annotation-guide style)."""
    r = ctx.rng
    titled = title and r.random() < 0.7
    if titled:
        b.text(r.choice(("Dr. ", "Dr. ", "Dr ", "Doctor ")))
    b.phi(ctx.fakes.doctor_name(who, titled), C.HCW)
    if cred if cred is not None else r.random() < 0.4:
        b.text(f", {ctx.fakes.credential()}")
    return b


def date_phi(b: DocBuilder, ctx: Ctx, day: date | datetime, with_time: bool = False) -> DocBuilder:
    b.phi(ctx.fakes.date_text(day if isinstance(day, date) else day.date()), C.DATE)
    if with_time:
        b.text(" ")
        b.negative(ctx.fakes.time_text())
    return b


def age_text(b: DocBuilder, ctx: Ctx) -> DocBuilder:
    """`93-year-old`: the number is PHI only when over 89 (HIPAA)."""
    if ctx.age > 89:
        b.phi(str(ctx.age), C.AGE)
    else:
        b.text(str(ctx.age))
    return b.text(ctx.rng.choice(("-year-old ", " year old ", " y/o ", " yo ")))


def address(f: Fakes, city_state_zip: tuple[str, str, str]) -> list[Piece]:
    """Street, city, state and ZIP pieces of one address line, each its own LOCATION span."""
    city, state, zip_ = city_state_zip
    return [
        (f.street(), C.LOCATION, "STREET"),
        ", ",
        (city, C.LOCATION, "CITY"),
        ", ",
        (state, C.LOCATION, "STATE"),
        " ",
        (zip_, C.LOCATION, "ZIP"),
    ]


def section(b: DocBuilder, ctx: Ctx, name: str) -> None:
    r = ctx.rng
    style = r.randrange(3)
    b.text(name.upper() + ":" if style < 2 else name.title() + ":")
    b.text(" " if r.random() < 0.6 else "\n")


def sentences(b: DocBuilder, ctx: Ctx, pool: Sequence[str], k: int) -> None:
    r = ctx.rng
    picks = r.sample(list(pool), min(k, len(pool)))
    for i, s in enumerate(picks):
        b.negative(fill(s, r))
        b.text(" " if i < len(picks) - 1 else "")
