"""The data model: spans, documents, replacements and results.

Everything here is frozen. The original text of a `Document` never changes; the de-identified
text of a `Result` is derived from it and the replacements, so an audit or a vault needs nothing
but the replacements to know where every change landed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from radeid.core.categories import Category


@dataclass(frozen=True, order=True, slots=True)
class Span:
    """A PHI mention: character offsets into the original text, end exclusive."""

    start: int
    end: int
    category: Category = field(compare=True)
    subtype: str | None = field(default=None, compare=False)
    score: float = field(default=1.0, compare=False)
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.category, Category):
            object.__setattr__(self, "category", Category.parse(self.category))
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"invalid span offsets [{self.start}, {self.end})")

    @property
    def label(self) -> str:
        """`CATEGORY` or `CATEGORY/SUBTYPE`, the form used in files."""
        return f"{self.category.value}/{self.subtype}" if self.subtype else self.category.value

    def __len__(self) -> int:
        return self.end - self.start

    def text_in(self, text: str) -> str:
        return text[self.start : self.end]

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def with_(self, **changes: Any) -> Span:
        """A copy with some fields changed (spans are immutable)."""
        values: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "category": self.category,
            "subtype": self.subtype,
            "score": self.score,
            "source": self.source,
        }
        values.update(changes)
        return Span(**values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "category": self.category.value,
            "subtype": self.subtype,
            "score": round(float(self.score), 4),
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Span:
        category = data.get("category") or data.get("label")
        if category is None:
            raise ValueError("span has neither 'category' nor 'label'")
        cat = Category.parse(str(category))
        subtype = data.get("subtype")
        if subtype is None and "/" in str(category):
            subtype = str(category).split("/", 1)[1]
        return cls(
            start=int(data["start"]),
            end=int(data["end"]),
            category=cat,
            subtype=subtype,
            score=float(data.get("score", 1.0)),
            source=str(data.get("source", "")),
        )


@dataclass(frozen=True)
class Document:
    """One text to de-identify. `spans` holds gold annotations when a reader found them."""

    id: str
    text: str
    patient_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    spans: tuple[Span, ...] = ()

    @property
    def scope(self) -> str:
        """The key under which surrogates stay consistent: the patient, else the document."""
        return self.patient_id if self.patient_id else self.id


@dataclass(frozen=True, slots=True)
class Replacement:
    """What one span of the original became in the output.

    `kind` is a replacer's own label for how it replaced the span (none of the built-in ones sets
    it); when set, the audit writes it as `replacement_kind`.
    """

    span: Span
    new_text: str
    kind: str | None = None


def replacements_of(spans: Iterable[Span], texts: Iterable[str]) -> list[Replacement]:
    """`[Replacement(span, text) ...]` for the spans of a document at once, `kind` unset.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`; a replacer
    makes one per span of every document, so here the slots are written directly (the same
    object, about half the cost)."""
    new, set_span, set_text, set_kind = object.__new__, _SET_SPAN, _SET_TEXT, _SET_KIND
    out: list[Replacement] = []
    for span, text in zip(spans, texts, strict=True):
        rep = new(Replacement)
        set_span(rep, span)
        set_text(rep, text)
        set_kind(rep, None)
        out.append(rep)
    return out


# the slots' own setters (member descriptors), which a frozen class's `__setattr__` does not guard
_SET_SPAN = vars(Replacement)["span"].__set__
_SET_TEXT = vars(Replacement)["new_text"].__set__
_SET_KIND = vars(Replacement)["kind"].__set__


@dataclass(frozen=True)
class Result:
    """A de-identified document: the original, the output text and every replacement made."""

    document: Document
    text: str
    replacements: tuple[Replacement, ...]

    @classmethod
    def build(cls, document: Document, replacements: Iterable[Replacement]) -> Result:
        ordered = tuple(replacements)
        text = _splice_if_in_order(document.text, ordered)  # replacers hand them over in order almost always
        if text is None:
            ordered = tuple(sorted(ordered, key=_span_order))
            text = apply_replacements(document.text, ordered)
        return cls(document, text, ordered)

    def output_offsets(self) -> list[tuple[int, int]]:
        """Where each replacement sits in `self.text`, in the order of `self.replacements`."""
        return output_offsets(self.replacements)


def _span_order(replacement: Replacement) -> tuple[int, int]:
    return replacement.span.start, replacement.span.end


def _splice_if_in_order(text: str, replacements: Sequence[Replacement]) -> str | None:
    """`text` with `replacements` spliced in when they are sorted by `_span_order`, else None (the
    caller sorts them): one pass both checks the order and splices. Overlaps and replacements past
    the end raise."""
    pieces: list[str] = []
    cursor = last_start = last_end = 0
    size = len(text)
    for rep in replacements:
        span = rep.span
        start, end = span.start, span.end
        if start < cursor:
            if start < last_start or (start == last_start and end < last_end):
                return None
            raise ValueError(f"overlapping replacements at offset {start}")
        if end > size:
            raise ValueError(f"replacement [{start}, {end}) is past the text end")
        pieces.append(text[cursor:start])
        pieces.append(rep.new_text)
        cursor, last_start, last_end = end, start, end
    pieces.append(text[cursor:])
    return "".join(pieces)


def apply_replacements(text: str, replacements: Sequence[Replacement]) -> str:
    """Splice sorted, non-overlapping replacements into `text`."""
    spliced = _splice_if_in_order(text, replacements)
    if spliced is None:
        raise ValueError("replacements are not in text order")
    return spliced


def output_offsets(replacements: Sequence[Replacement]) -> list[tuple[int, int]]:
    """Offsets of each (sorted) replacement in the output text, derived without the text."""
    offsets: list[tuple[int, int]] = []
    shift = 0
    for rep in replacements:
        start = rep.span.start + shift
        offsets.append((start, start + len(rep.new_text)))
        shift += len(rep.new_text) - len(rep.span)
    return offsets
