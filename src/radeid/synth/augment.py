"""Augmentation: re-render labelled documents with new surrogates, labels kept aligned.

Each copy runs the keyed `SurrogateReplacer` under its own key (derived from the user's key and
the copy number), so copies differ from each other and from the original while one copy stays
consistent within a patient. New offsets come from `Result.output_offsets()`, not from searching,
and each is checked against the new text.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from radeid.core import metakeys as mk
from radeid.core.document import Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer

__all__ = ["AugmentOptions", "augment", "augment_document"]

AUGMENT_SOURCE = "radeid-augment"


@dataclass(frozen=True)
class AugmentOptions:
    """`copies` re-renderings per document; `typo_rate` puts keyboard slips in name and place
    surrogates; `keep_original` writes the input document first."""

    copies: int = 3
    typo_rate: float = 0.0
    keep_original: bool = True
    surrogate: SurrogateOptions = field(default_factory=SurrogateOptions)

    def __post_init__(self) -> None:
        if self.copies < 0:
            raise ValueError("copies must be at least 0")
        if not 0.0 <= self.typo_rate <= 1.0:
            raise ValueError("typo_rate must be within [0, 1]")


def _copy_key(key: bytes, copy: int) -> bytes:
    return hmac.new(key, f"radeid-augment:{copy}".encode(), hashlib.sha256).digest()


def augment_document(doc: Document, replacer: SurrogateReplacer, copy: int, stats: Counter[str]) -> Document:
    """One re-rendering of `doc`: same categories, new surrogate text, exact new offsets.

    The copy keeps the original patient id (or the document id when there is none) so that a
    split by patient keeps every copy of a document on one side.
    """
    result = replacer.replace(doc, doc.spans)
    spans: list[Span] = []
    for rep, (start, end) in zip(result.replacements, result.output_offsets(), strict=True):
        if end <= start:
            stats["empty_surrogates"] += 1
            continue
        if result.text[start:end] != rep.new_text:  # cannot happen unless offsets drift
            raise AssertionError(f"augment: offsets drifted in document {doc.id!r}")
        spans.append(rep.span.with_(start=start, end=end, source=AUGMENT_SOURCE))
    stats["spans"] += len(spans)
    stats["changed"] += sum(rep.new_text != doc.text[rep.span.start : rep.span.end] for rep in result.replacements)
    metadata = {k: v for k, v in doc.metadata.items() if k in (mk.KIND, mk.COLUMNS)}
    metadata[mk.SOURCE] = AUGMENT_SOURCE
    metadata[mk.AUGMENTED_FROM] = doc.id
    return Document(
        id=f"{doc.id}~aug{copy}",
        text=result.text,
        patient_id=doc.patient_id or doc.id,
        metadata=metadata,
        spans=tuple(spans),
    )


def augment(
    docs: Iterable[Document], key: bytes, options: AugmentOptions | None = None, stats: Counter[str] | None = None
) -> Iterator[Document]:
    """For each document: the original (if kept), then `copies` re-renderings, in input order."""
    options = options or AugmentOptions()
    stats = stats if stats is not None else Counter()
    sur = options.surrogate
    if options.typo_rate != sur.typo_rate:
        from dataclasses import replace

        sur = replace(sur, typo_rate=options.typo_rate)
    replacers = [SurrogateReplacer(_copy_key(key, c), sur) for c in range(1, options.copies + 1)]
    for doc in docs:
        stats["documents"] += 1
        if options.keep_original:
            yield doc
        for copy, replacer in enumerate(replacers, 1):
            yield augment_document(doc, replacer, copy, stats)
