"""Token and span metrics per category, with the per-document counts kept for resampling and pairing.

Definitions (every number radeid reports comes from here):

* **Tokens** are the evaluation tokens of `radeid.core.tokens` (maximal runs of word characters
  and each other non-space character alone, unless another tokenizer is asked for). A token takes
  the category of the gold (or predicted) span that overlaps it most; a token is PHI if any part of
  it is covered, so a span cutting a word in half still counts the whole word.
* **Ignored gold**: labels that are not PHI for radeid (`OTHER`, or a label map value `IGNORE`, e.g.
  i2b2 PROFESSION or Presidio TITLE) mark *ignored regions*. A token in an ignored region and in
  no PHI gold span is left out of token scores entirely (neither TP, FP nor FN), whatever was
  predicted there; a predicted span that touches an ignored region and no PHI gold span is left
  out of span scores. Tagging a job title is neither rewarded nor punished.
* **Binary** (key `"PHI"`): PHI versus non-PHI, categories ignored.
* **Per category C** (token level): TP when gold and prediction both label the token C. A token
  with the wrong category (gold DATE, predicted ID) is a binary TP, a FN for the gold category
  (DATE) and a FP for the predicted one (ID).
* **micro**: per-category counts summed, so unlike binary it is strict about categories.
  **macro**: the unweighted mean of the per-category precision, recall and F1 (F1 is averaged,
  not recomputed from the averaged P and R) over the categories present in gold or predictions.
* **Span levels** compare spans after trimming surrounding whitespace on both sides:
  - `exact`: same start, same end (and same category for per-category counts);
  - `overlap`: a gold span is found when a predicted span (of its category, for per-category
    counts) overlaps it by at least one character; a predicted span is correct when it overlaps
    such a gold span. Recall counts gold spans, precision counts predicted spans, so one long
    prediction covering two names is one correct prediction and two found names;
  - `core`: the seed paper's "at least one token of the gold span predicted as PHI" recall,
    category-agnostic on the prediction side (what matters is that the name was not left in
    clear). Only recall is defined at this level.
* **Zero denominators**: a count with nothing to find and nothing found (all zero) scores 1.0 on
  every metric, so an empty document on which a system stays quiet pairs as perfect; otherwise a
  zero denominator gives 0.0 (a system that predicts nothing has precision 0).

This module counts; the counts, scores and results it returns are `radeid.evaluate.results`
(re-exported here).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.core.tokens import Tokenizer, covered_tokens, get_tokenizer, whitespace_tokens, word_tokens
from radeid.evaluate.results import (
    LEVEL_METRICS,
    LEVELS,
    MACRO,
    MICRO,
    PHI,
    Counts,
    DocumentCounts,
    EvaluationResult,
    Scores,
)

__all__ = [
    "IGNORED_SPANS_KEY",
    "LEVELS",
    "LEVEL_METRICS",
    "MACRO",
    "MICRO",
    "PHI",
    "Counts",
    "DocumentCounts",
    "EvaluationInputError",
    "EvaluationResult",
    "Scores",
    "category_order",
    "count_document",
    "evaluate_documents",
    "ignored_regions",
]

#: `Document.metadata` key where a reader may keep gold regions that are not PHI (`OTHER`/`IGNORE`
#: labels): a list of `(start, end)` pairs or of dicts with `start` and `end`.
IGNORED_SPANS_KEY = "ignored_spans"


_TOKENIZER_NAMES: dict[Tokenizer, str] = {word_tokens: "words", whitespace_tokens: "whitespace"}


class EvaluationInputError(ValueError):
    """Gold and predictions cannot be scored together (unknown ids, offsets past the text, ...)."""


# ----------------------------------------------------------------------------------- counting


class _Tally:
    """Mutable counts while one document is scored."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: dict[tuple[str, str], list[int]] = {}

    def add(self, level: str, key: str, tp: int = 0, fp: int = 0, fn: int = 0, tp_pred: int | None = None) -> None:
        row = self.data.setdefault((level, key), [0, 0, 0, 0])
        row[0] += tp
        row[1] += fp
        row[2] += fn
        row[3] += tp if tp_pred is None else tp_pred

    def freeze(self) -> dict[tuple[str, str], Counts]:
        return {k: Counts(*v) for k, v in self.data.items() if any(v)}


def ignored_regions(document: Document) -> list[tuple[int, int]]:
    """Gold regions that are not PHI, as kept by a reader in `metadata["ignored_spans"]`."""
    raw = document.metadata.get(IGNORED_SPANS_KEY) if document.metadata else None
    regions: list[tuple[int, int]] = []
    for item in raw or ():
        if isinstance(item, Mapping):
            regions.append((int(item["start"]), int(item["end"])))
        else:
            start, end = item[0], item[1]
            regions.append((int(start), int(end)))
    return regions


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _label_tokens(
    tokens: Sequence[tuple[int, int]], ends: Sequence[int], spans: Sequence[tuple[int, int, str]]
) -> list[str | None]:
    """Each token's category: the span overlapping it most (the earlier span on a tie), or None."""
    labels: list[str | None] = [None] * len(tokens)
    best = [0] * len(tokens)
    n = len(tokens)
    for start, end, category in spans:
        i = bisect.bisect_right(ends, start)
        while i < n and tokens[i][0] < end:
            overlap = min(end, tokens[i][1]) - max(start, tokens[i][0])
            if overlap > best[i]:
                best[i] = overlap
                labels[i] = category
            i += 1
    return labels


class _Intervals:
    """Sorted intervals answering "does anything overlap [s, e)?" in O(log n)."""

    def __init__(self, intervals: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(intervals)
        self.starts = [s for s, _ in ordered]
        self.max_end: list[int] = []
        running = -1
        for _, e in ordered:
            running = max(running, e)
            self.max_end.append(running)

    def overlaps(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.starts, end)  # intervals starting before `end`
        return k > 0 and self.max_end[k - 1] > start


def _check_spans(doc_id: str, text: str, spans: Iterable[Span], side: str) -> None:
    for span in spans:
        if span.end > len(text):
            raise EvaluationInputError(
                f"{side} span [{span.start}, {span.end}) of document {doc_id!r} is past the end of its text "
                f"(length {len(text)}); were the predictions made on another version of the text?"
            )


def count_document(
    document: Document,
    predicted: Sequence[Span],
    *,
    ignored: Sequence[tuple[int, int]] = (),
    tokenizer: Tokenizer | None = None,
) -> DocumentCounts:
    """Score one document: gold in `document.spans`, predictions in `predicted` (see module docs)."""
    text = document.text
    _check_spans(document.id, text, document.spans, "gold")
    _check_spans(document.id, text, predicted, "predicted")
    tokenize = tokenizer or get_tokenizer()
    tokens = list(tokenize(text))
    ends = [e for _, e in tokens]
    tally = _Tally()

    gold_raw = sorted((s.start, s.end, s.category.value) for s in document.spans)
    pred_raw = sorted((s.start, s.end, s.category.value) for s in predicted)
    gold_labels = _label_tokens(tokens, ends, gold_raw)
    pred_labels = _label_tokens(tokens, ends, pred_raw)
    in_ignored = covered_tokens(tokens, ignored) if ignored else [False] * len(tokens)

    skipped = _count_tokens(tally, gold_labels, pred_labels, in_ignored)

    # ---- spans (whitespace-trimmed, de-duplicated)
    gold_spans = sorted({t for t in ((*_trim(text, s, e), c) for s, e, c in gold_raw) if t[0] < t[1]})
    gold_index = _Intervals((s, e) for s, e, _ in gold_spans)
    ignored_index = _Intervals(ignored)

    def scored(s: int, e: int) -> bool:
        return s < e and not (ignored and ignored_index.overlaps(s, e) and not gold_index.overlaps(s, e))

    pred_spans = sorted({t for t in ((*_trim(text, s, e), c) for s, e, c in pred_raw) if scored(t[0], t[1])})
    _count_exact(tally, gold_spans, pred_spans)
    _count_overlap(tally, gold_spans, pred_spans)

    _count_core(tally, gold_spans, tokens, ends, pred_labels)

    return DocumentCounts(document.id, tally.freeze(), tokens=len(tokens) - skipped, ignored_tokens=skipped)


def _count_tokens(
    tally: _Tally, gold_labels: Sequence[str | None], pred_labels: Sequence[str | None], in_ignored: Sequence[bool]
) -> int:
    """Token-level counts, binary (PHI) and per category; returns how many unlabelled ignored tokens were skipped."""
    skipped = 0
    for g, p, ign in zip(gold_labels, pred_labels, in_ignored, strict=True):
        if g is None and ign:
            skipped += 1
            continue
        if g is not None:
            tally.add("token", PHI, tp=int(p is not None), fn=int(p is None))
        elif p is not None:
            tally.add("token", PHI, fp=1)
        if g is not None and g == p:
            tally.add("token", g, tp=1)
            continue
        if g is not None:
            tally.add("token", g, fn=1)
        if p is not None:
            tally.add("token", p, fp=1)
    return skipped


def _count_core(
    tally: _Tally,
    gold_spans: Sequence[tuple[int, int, str]],
    tokens: Sequence[tuple[int, int]],
    ends: Sequence[int],
    pred_labels: Sequence[str | None],
) -> None:
    """Core of span: a gold span is found when any of its tokens is predicted as PHI; PHI counts a position once."""
    seen_positions: set[tuple[int, int]] = set()
    for start, end, category in gold_spans:
        i = bisect.bisect_right(ends, start)
        found = False
        while i < len(tokens) and tokens[i][0] < end:
            if pred_labels[i] is not None:
                found = True
                break
            i += 1
        tally.add("core", category, tp=int(found), fn=int(not found))
        if (start, end) not in seen_positions:
            seen_positions.add((start, end))
            tally.add("core", PHI, tp=int(found), fn=int(not found))


def _count_exact(tally: _Tally, gold: Sequence[tuple[int, int, str]], pred: Sequence[tuple[int, int, str]]) -> None:
    gold_set, pred_set = set(gold), set(pred)
    for span in gold:
        hit = span in pred_set
        tally.add("exact", span[2], tp=int(hit), fn=int(not hit))
    for span in pred:
        if span not in gold_set:
            tally.add("exact", span[2], fp=1)
    gold_pos = {(s, e) for s, e, _ in gold}
    pred_pos = {(s, e) for s, e, _ in pred}
    both = len(gold_pos & pred_pos)
    tally.add("exact", PHI, tp=both, fn=len(gold_pos) - both, fp=len(pred_pos) - both)


def _count_overlap(tally: _Tally, gold: Sequence[tuple[int, int, str]], pred: Sequence[tuple[int, int, str]]) -> None:
    categories = {c for *_, c in gold} | {c for *_, c in pred}
    by_cat_gold = {c: _Intervals((s, e) for s, e, k in gold if k == c) for c in categories}
    by_cat_pred = {c: _Intervals((s, e) for s, e, k in pred if k == c) for c in categories}
    for s, e, c in gold:
        hit = by_cat_pred[c].overlaps(s, e)
        tally.add("overlap", c, tp=int(hit), fn=int(not hit), tp_pred=0)
    for s, e, c in pred:
        hit = by_cat_gold[c].overlaps(s, e)
        tally.add("overlap", c, tp=0, tp_pred=int(hit), fp=int(not hit))
    gold_pos = sorted({(s, e) for s, e, _ in gold})
    pred_pos = sorted({(s, e) for s, e, _ in pred})
    all_gold, all_pred = _Intervals(gold_pos), _Intervals(pred_pos)
    for s, e in gold_pos:
        hit = all_pred.overlaps(s, e)
        tally.add("overlap", PHI, tp=int(hit), fn=int(not hit), tp_pred=0)
    for s, e in pred_pos:
        hit = all_gold.overlaps(s, e)
        tally.add("overlap", PHI, tp=0, tp_pred=int(hit), fp=int(not hit))


def category_order(names: Iterable[str]) -> tuple[str, ...]:
    order = {c.value: i for i, c in enumerate(Category)}
    return tuple(sorted(set(names), key=lambda n: (order.get(n, len(order)), n)))


def evaluate_documents(
    gold: Sequence[Document],
    predicted: Mapping[str, Sequence[Span]],
    *,
    ignored: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    tokenizer: Tokenizer | str | None = None,
    categories: Iterable[Category | str] | None = None,
    unknown_ids: Literal["error", "warn"] = "error",
    tokenizer_name: str | None = None,
) -> EvaluationResult:
    """Score predictions against gold (`Document.spans`), keeping every document's counts.

    A gold document without predictions is scored as predicting nothing (and named in
    `result.warnings`, which the caller shows; nothing is logged, so nothing is printed twice);
    predictions for ids that are not in the gold raise `EvaluationInputError` naming them (or only
    warn with `unknown_ids="warn"`). Ignored (non-PHI) gold regions come from `ignored` by document
    id and from `metadata["ignored_spans"]`. `categories` restricts the per-category rows and
    the micro/macro averages; the binary PHI scores always cover every category.
    """
    warnings: list[str] = []
    ids = [d.id for d in gold]
    dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
    if dupes:
        raise EvaluationInputError(f"duplicate gold document id(s): {_name_ids(dupes)}")
    unknown = sorted(set(predicted) - set(ids))
    if unknown:
        message = f"{len(unknown)} predicted document(s) not in the gold: {_name_ids(unknown)}"
        if unknown_ids == "error":
            raise EvaluationInputError(message)
        warnings.append(message + " (ignored)")
    missing = [i for i in ids if i not in predicted]
    if missing:
        warnings.append(
            f"{len(missing)} gold document(s) have no predictions and are scored as predicting nothing: "
            f"{_name_ids(missing)}"
        )
    tokenize = get_tokenizer(tokenizer)
    if tokenizer_name is None:
        tokenizer_name = tokenizer if isinstance(tokenizer, str) else _TOKENIZER_NAMES.get(tokenize, "custom")
    documents: list[DocumentCounts] = []
    for doc in gold:
        regions = list(ignored.get(doc.id, ())) if ignored else []
        regions.extend(ignored_regions(doc))
        documents.append(count_document(doc, predicted.get(doc.id, ()), ignored=regions, tokenizer=tokenize))

    if categories is not None:
        chosen = category_order(Category.parse(c).value for c in categories)
    else:
        chosen = category_order(k for d in documents for (_, k) in d.counts if k != PHI)
    return EvaluationResult(tuple(documents), chosen, tuple(warnings), tokenizer=tokenizer_name)


def _name_ids(ids: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(repr(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
