"""Joining neighbours into one span: pieces of one name, a name and its initials, a name across a
particle ("Centro" + " de " + "Salud"), and taking a degree back off a person's name.

The resolver's last steps, after overlaps are merged: they look only at the text between two final
spans, never at a detector.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.edges import CREDENTIALS
from radeid.resolve.trace import Decision

__all__ = ["PARTICLE_WORDS", "attach_particles", "drop_credentials", "merge_touching"]


def merge_touching(
    text: str, spans: Sequence[Span], categories: Collection[Category], trace: list[Decision] | None = None
) -> list[Span]:
    """Join same-category neighbours split by one space or nothing (`Jane` + `Smith` -> `Jane Smith`).

    Names and organisations also join across ", " (`LEE, SOO-JIN`, `Davis, Reynolds and Co`), and
    a name after an initial across ". " (`R` `.` `Vizirov`); a PATIENT and an HCW piece are one
    person (the first piece's category wins). A tab or a run of spaces separates two
    fields of a form ("Dr. Ahmed   Performing sonographer"), so it never joins.
    """
    result: list[Span] = []
    for span in spans:
        prev = result[-1] if result else None
        if (
            prev is not None
            and span.category in categories
            and (_same_family(prev.category, span.category) or _particle_between(text, prev, span))
            and _joins(text, prev, span)
        ):
            result[-1] = prev.with_(end=span.end, score=max(prev.score, span.score))
            if trace is not None:
                trace.extend(Decision("join", "joined", s, (result[-1],)) for s in (prev, span))
        else:
            result.append(span)
    return result


_COMMA_JOINS = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.VENDOR})
#: Particles inside a name or a place's name: two pieces of one category either side of one are one
#: name ("Virgen de la Salud", "Calle de Alcalá", "van der Berg"). Not "of" or "and": in English
#: prose those sit between two different things as often as inside one name.
_NAME_PARTICLES = frozenset(
    f" {p} "
    for p in (
        "de", "del", "de la", "de las", "de los", "la", "las", "los", "da", "das", "do", "dos", "di",
        "du", "van", "von", "van der", "von der", "van den", "ter", "zu", "y", "i",
    )
)  # fmt: skip
#: The particles one word long, as a form check may have dropped them on their own.
PARTICLE_WORDS = frozenset(p.strip() for p in _NAME_PARTICLES if " " not in p.strip()) - {"y", "i"}
_PARTICLE_JOINS = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.LOCATION, Category.VENDOR})
_PERSONS = frozenset({Category.PATIENT, Category.HCW})


def _same_family(a: Category, b: Category) -> bool:
    """Same category, or both persons: a model that calls "Harold" PATIENT and "Finch" HCW names one person."""
    return a == b or (a in _PERSONS and b in _PERSONS)


def attach_particles(text: str, spans: list[Span], particles: list[Span], trace: list[Decision] | None) -> list[Span]:
    """A particle the form checks dropped ("la" of "Virgen de la Salud", "van" of "van Gogh") is the
    start of the name piece right after it (one space between): alone it was no name, before one it
    is part of it."""
    starts = {p.end + 1: p for p in particles if text[p.end : p.end + 1] == " "}
    out = []
    for span in spans:
        particle = starts.get(span.start)
        if particle is not None and span.category in _PARTICLE_JOINS:
            grown = span.with_(start=particle.start)
            if trace is not None:
                trace.append(Decision("join", "extended", span, (grown,), "particle"))
            span = grown
        out.append(span)
    return out


def _particle_between(text: str, prev: Span, span: Span) -> bool:
    """Two names' pieces either side of a particle are one name even when the model gave them two
    name categories ("Ciudad" PATIENT + " de la " + "Justicia" HOSPITAL): the first piece's wins."""
    return (
        prev.category in _PARTICLE_JOINS
        and span.category in _PARTICLE_JOINS
        and text[prev.end : span.start] in _NAME_PARTICLES
    )


def _joins(text: str, prev: Span, span: Span) -> bool:
    gap = text[prev.end : span.start]
    if gap in ("", " "):
        return True
    if gap in (",", ", ") and span.category in _COMMA_JOINS:
        return not _is_credential(text, span)
    if gap in _NAME_PARTICLES and span.category in _PARTICLE_JOINS:
        return True  # "Centro" + " de " + "Salud Las Calesas", "Ludwig" + " van " + "Beethoven"
    # "R" + ". " + "Vizirov": the gap holds the period of a one-letter initial
    return (
        gap in (".", ". ")
        and prev.end - prev.start >= 1
        and text[prev.end - 1].isupper()
        and (prev.end - 1 == prev.start or not text[prev.end - 2].isalnum())
    )


#: Credentials that are also US state codes: after a person's name ("Reuben Castellanos, MD",
#: "Abernathy-Soto, PA-C") they are a degree, not Maryland or Pennsylvania.
def _is_credential(text: str, span: Span) -> bool:
    return text[span.start : span.end].replace(".", "").upper() in CREDENTIALS


def drop_credentials(text: str, spans: list[Span], trace: list[Decision] | None = None) -> list[Span]:
    """A degree after a person's name ("Reuben Castellanos, MD", "Soto, PA-C") is not PHI, even when
    a model calls it a place (MD and PA are also state codes)."""
    out: list[Span] = []
    for span in spans:
        if (
            out
            and out[-1].category in _PERSONS
            and text[out[-1].end : span.start] in (",", ", ")
            and _is_credential(text, span)
        ):
            if trace is not None:
                trace.append(Decision("credential", "dropped", span, ()))
            continue
        out.append(span)
    return out
