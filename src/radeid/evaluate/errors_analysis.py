"""Error analysis: the most frequent missed, partly missed, confused and spurious strings per category.

Kinds (span level, after trimming whitespace, ignored gold regions left out as in `metrics`):

* `missed`: a gold span no prediction overlaps at all — it stays in clear;
* `confused`: a gold span overlapped only by predictions of other categories (hidden, but a
  surrogate of the wrong kind will be generated); listed under the gold category;
* `partial`: a gold span overlapped by a prediction of its category with some of its tokens still
  not predicted as PHI — a leak of part of it;
* `spurious`: a prediction overlapping no gold span (text needlessly changed).

The strings are PHI when the gold is real, so by default nothing from the text is shown: entries
are grouped by *shape* (`John Smith` -> `Aa Aa`, `03/04/2019` -> `9/9/9`) and carry document ids and
offsets only. `show_text=True` groups by the normalised string and adds context around examples.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from radeid.core.document import Document, Span
from radeid.core.tokens import Tokenizer, get_tokenizer
from radeid.evaluate.metrics import category_order, ignored_regions

__all__ = ["ERROR_KINDS", "ErrorAnalysis", "ErrorEntry", "ErrorExample", "analyse_errors", "shape"]

ERROR_KINDS = ("missed", "partial", "confused", "spurious")

_RUNS = re.compile(r"([Aa9 ])\1+")


def _symbol(ch: str) -> str:
    if ch.isdigit():
        return "9"
    if ch.isalpha():
        return "A" if ch.isupper() else "a"
    return " " if ch.isspace() else ch


def shape(text: str) -> str:
    """A text-free outline: upper-case letters `A`, other letters `a`, digits `9`, runs collapsed."""
    return _RUNS.sub(r"\1", "".join(_symbol(ch) for ch in text))


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class ErrorExample:
    """Where one occurrence is; `text` and the context only with `show_text`."""

    doc_id: str
    start: int
    end: int
    other: str | None = None
    text: str | None = None
    left: str | None = None
    right: str | None = None


@dataclass(frozen=True)
class ErrorEntry:
    """One string (or shape) of one kind and category, how often it occurred, and a few examples."""

    kind: str
    category: str
    string: str
    count: int
    examples: tuple[ErrorExample, ...]


@dataclass(frozen=True)
class ErrorAnalysis:
    """Totals per `(kind, category)` and the top entries of each."""

    show_text: bool
    totals: Mapping[tuple[str, str], int]
    entries: Mapping[tuple[str, str], tuple[ErrorEntry, ...]] = field(default_factory=dict)

    def categories(self) -> tuple[str, ...]:
        return category_order(c for _, c in self.totals)

    def to_dict(self) -> dict[str, Any]:
        return {
            "show_text": self.show_text,
            "grouped_by": "text" if self.show_text else "shape",
            "totals": {f"{k}/{c}": n for (k, c), n in sorted(self.totals.items())},
            "entries": {
                f"{k}/{c}": [
                    {
                        "string": e.string,
                        "count": e.count,
                        "examples": [{k2: v for k2, v in vars(x).items() if v is not None} for x in e.examples],
                    }
                    for e in entries
                ]
                for (k, c), entries in sorted(self.entries.items())
            },
        }


def _clean(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ⏎ ").replace("\t", " ")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def analyse_errors(
    gold: Sequence[Document],
    predicted: Mapping[str, Sequence[Span]],
    *,
    ignored: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    show_text: bool = False,
    top: int = 10,
    examples: int = 3,
    context: int = 40,
    tokenizer: Tokenizer | str | None = None,
) -> ErrorAnalysis:
    """Group every error (see module docs) by kind, category and string (or shape), most frequent first."""
    tokenize = get_tokenizer(tokenizer)
    groups: dict[tuple[str, str, str], list[ErrorExample]] = {}
    counts: Counter[tuple[str, str, str]] = Counter()
    totals: Counter[tuple[str, str]] = Counter()

    def record(kind: str, category: str, doc: Document, start: int, end: int, other: str | None = None) -> None:
        piece = doc.text[start:end]
        key = (kind, category, _normal(piece) if show_text else shape(piece))
        counts[key] += 1
        totals[(kind, category)] += 1
        bucket = groups.setdefault(key, [])
        if len(bucket) < examples:
            if show_text:
                left = _clean(doc.text[max(0, start - context) : start])
                right = _clean(doc.text[end : end + context])
                bucket.append(ErrorExample(doc.id, start, end, other, _clean(piece), left, right))
            else:
                bucket.append(ErrorExample(doc.id, start, end, other))

    for doc in gold:
        for kind, cat, s, e, other in _document_errors(doc, predicted, ignored, tokenize):
            record(kind, cat, doc, s, e, other)
    entries = _top_entries(counts, groups, top)
    return ErrorAnalysis(show_text, dict(totals), {k: tuple(v) for k, v in entries.items()})


def _document_errors(
    doc: Document,
    predicted: Mapping[str, Sequence[Span]],
    ignored: Mapping[str, Sequence[tuple[int, int]]] | None,
    tokenize: Tokenizer,
) -> Iterator[tuple[str, str, int, int, str | None]]:
    """One document's errors as (kind, category, start, end, other categories): gold spans first, then spurious."""
    text = doc.text
    regions = [*(ignored.get(doc.id, ()) if ignored else ()), *ignored_regions(doc)]
    gold_spans = sorted({(*_trim(text, s.start, s.end), s.category.value) for s in doc.spans})
    gold_spans = [g for g in gold_spans if g[0] < g[1]]
    preds = sorted({(*_trim(text, s.start, s.end), s.category.value) for s in predicted.get(doc.id, ())})
    preds = [p for p in preds if p[0] < p[1]]
    tokens = list(tokenize(text))
    ends = [e for _, e in tokens]
    for s, e, cat in gold_spans:
        over = [p for p in preds if p[0] < e and s < p[1]]
        if not over:
            yield "missed", cat, s, e, None
            continue
        same = [p for p in over if p[2] == cat]
        if not same:
            others = "/".join(category_order({p[2] for p in over}))
            yield "confused", cat, s, e, others
            continue
        i = bisect.bisect_right(ends, s)
        while i < len(tokens) and tokens[i][0] < e:
            ts, te = tokens[i]
            if not any(p[0] < te and ts < p[1] for p in over):
                yield "partial", cat, s, e, None
                break
            i += 1
    for s, e, cat in preds:
        if any(g[0] < e and s < g[1] for g in gold_spans):
            continue
        if any(r0 < e and s < r1 for r0, r1 in regions):
            continue  # a non-PHI gold label (OTHER/IGNORE): neither right nor wrong
        yield "spurious", cat, s, e, None


def _top_entries(
    counts: Counter[tuple[str, str, str]], groups: dict[tuple[str, str, str], list[ErrorExample]], top: int
) -> dict[tuple[str, str], list[ErrorEntry]]:
    """The `top` most frequent strings (or shapes) per kind and category, ties in key order."""
    entries: dict[tuple[str, str], list[ErrorEntry]] = {}
    for (kind, category, string), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        bucket = entries.setdefault((kind, category), [])
        if len(bucket) < top:
            bucket.append(ErrorEntry(kind, category, string, n, tuple(groups[(kind, category, string)])))
    return entries
