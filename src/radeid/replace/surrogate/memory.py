"""Document memory: what one document's spans tell about each other.

It lives for one `replace` call and is never shared between documents: cross-document
consistency comes from the key, not from memory. Within a document it answers questions a
single span cannot: which words are names here (a surrogate must never be one of them), which
year the document's full dates are in (for "March 5"), which hospital an acronym abbreviates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from radeid.core.document import Span


@dataclass(slots=True)
class DocumentMemory:
    """Facts gathered while parsing a document's spans, read while generating."""

    originals: list[str]
    forbidden: set[str]  # case-folded original span texts: no surrogate may equal one
    name_words: set[str] = field(default_factory=set)  # folded name parts of the document
    email_words: dict[str, str] = field(default_factory=dict)  # email word -> fake name part
    full_years: list[int] = field(default_factory=list)  # years of full dates, in text order
    full_dates: list[tuple[int, Any]] = field(default_factory=list)  # (start, parsed) of full dates
    # the date of birth and the exam date (ages follow them): found once, when an age asks
    anchors: tuple[date | None, date | None] | None = None
    hospitals: dict[str, Any] = field(default_factory=dict)  # initials -> parsed full name
    acronyms: set[str] = field(default_factory=set)  # facility acronyms of the document
    states: list[str] = field(default_factory=list)  # state abbreviations seen (keep_state)
    #: folded place and facility surrogates -> the folded original each stands for: two distinct
    #: originals of a document never share one
    taken_places: dict[str, str] = field(default_factory=dict)
    # (category, folded surrogate) -> the folded original that has it: distinct originals of a
    # document never share a fake (a generator draws again)
    claims: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def build(cls, text: str, spans: Sequence[Span]) -> DocumentMemory:
        originals = [text[s.start : s.end] for s in spans]
        return cls(originals=originals, forbidden={o.casefold() for o in originals})

    def reference_year(self) -> int | None:
        """The year to read "March 5" in: the document's first full date, if any."""
        return self.full_years[0] if self.full_years else None
