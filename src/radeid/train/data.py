"""Training data: gold documents -> word-piece windows with BIO labels and word shapes.

Everything here is plain Python + numpy (no torch), so it is cheap to test. Train and inference
see the same inputs: the tokenizer is the detector's `PieceTokenizer` (no truncation, exact
offsets), windows come from `radeid.detect.chunking.plan_windows` with the same boundary
preferences, and shape ids from `radeid.detect.shapes.word_shapes`.
"""

from __future__ import annotations

import bisect
import logging
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.detect.chunking import boundary_strengths, plan_windows
from radeid.detect.shapes import word_shapes
from radeid.detect.transformer import PieceTokenizer
from radeid.io.gold import IGNORED_SPANS_KEY

__all__ = [
    "DEFAULT_LABELS",
    "IGNORE_INDEX",
    "Example",
    "bio_labels",
    "encode_documents",
    "load_documents",
    "stratified_split",
    "token_scores",
]

log = logging.getLogger(__name__)

#: O plus B-/I- for every radeid category, in a fixed order (the label ids of radeid's models).
DEFAULT_LABELS: tuple[str, ...] = ("O", *(f"{p}-{c.value}" for c in Category for p in ("B", "I")))

#: Label of pieces the loss skips: inside regions the gold marks as "not PHI but not plain text".
IGNORE_INDEX = -100


@dataclass(frozen=True)
class Example:
    """One model window: content piece ids, shape ids and label ids (no special tokens)."""

    ids: tuple[int, ...]
    shapes: tuple[int, ...]
    labels: tuple[int, ...]
    doc: int

    def __len__(self) -> int:
        return len(self.ids)


def load_documents(path: str | Path, label_map: str | None = None) -> list[Document]:
    """Annotated documents from any gold format radeid reads; read problems are counted, not shown."""
    from radeid.io.readers import ReadOptions, read_documents

    docs: list[Document] = []
    issues = 0
    for item in read_documents(path, options=ReadOptions(label_map=label_map, warn_duplicates=False)):
        if isinstance(item, Document):
            docs.append(item)
        else:
            issues += 1
    if issues:
        log.warning("%s: %d read issue(s) skipped", path, issues)
    return docs


def bio_labels(doc: Document, offsets: Sequence[tuple[int, int]], labels: Sequence[str] = DEFAULT_LABELS) -> list[int]:
    """Gold label id per word piece: B- on a span's first piece, I- on the rest, O elsewhere.

    A piece belongs to a span when their characters overlap. Pieces inside the document's
    ignored regions (gold labels that are deliberately not PHI) get `IGNORE_INDEX`.
    """
    index = {label: i for i, label in enumerate(labels)}
    outside = index.get("O", 0)
    out = [outside] * len(offsets)
    ends = [end for _, end in offsets]
    for region in doc.metadata.get(IGNORED_SPANS_KEY, ()) or ():
        start, end = int(region[0]), int(region[1])
        for t in range(bisect.bisect_right(ends, start), len(offsets)):
            if offsets[t][0] >= end:
                break
            if offsets[t][1] > offsets[t][0]:
                out[t] = IGNORE_INDEX
    for span in sorted(doc.spans, key=lambda s: (s.start, s.end)):
        first = True
        for t in range(bisect.bisect_right(ends, span.start), len(offsets)):
            start, end = offsets[t]
            if start >= span.end:
                break
            if end <= start:
                continue
            name = f"{'B' if first else 'I'}-{span.category.value}"
            if name in index:
                out[t] = index[name]
            first = False
    return out


def encode_documents(
    docs: Sequence[Document],
    tokenizer: PieceTokenizer,
    max_tokens: int,
    stride: int,
    labels: Sequence[str] = DEFAULT_LABELS,
    batch: int = 256,
) -> list[Example]:
    """Windows of at most `max_tokens` content pieces over every document, as the detector cuts them."""
    examples: list[Example] = []
    for first in range(0, len(docs), batch):
        chunk = docs[first : first + batch]
        for k, (doc, (ids, offsets)) in enumerate(zip(chunk, tokenizer.encode([d.text for d in chunk]), strict=True)):
            if not ids:
                continue
            gold = bio_labels(doc, offsets, labels)
            shapes = word_shapes(doc.text, offsets)
            for w in plan_windows(len(ids), max_tokens, stride, boundary_strengths(doc.text, offsets)):
                examples.append(
                    Example(
                        tuple(ids[w.start : w.end]),
                        tuple(shapes[w.start : w.end]),
                        tuple(gold[w.start : w.end]),
                        first + k,
                    )
                )
    return examples


def _categories(doc: Document) -> set[Category]:
    return {span.category for span in doc.spans}


def stratified_split(docs: Sequence[Document], fraction: float, seed: int = 0) -> tuple[list[int], list[int]]:
    """Indices `(train, validation)`: about `fraction` of the documents held out, every category in both.

    Documents are grouped by their rarest category (documents without PHI form their own group)
    and each group is split in proportion; a repair pass then moves one document for any category
    (seen in at least two documents) that ended up on one side only, taking one whose move does
    not empty another category there.
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError("fraction must be between 0 and 1")
    rng = random.Random(seed)
    freq: Counter[Category] = Counter(c for d in docs for c in _categories(d))
    groups: dict[Category | None, list[int]] = {}
    for i, doc in enumerate(docs):
        cats = _categories(doc)
        key = min(cats, key=lambda c: (freq[c], c.value)) if cats else None
        groups.setdefault(key, []).append(i)
    val: set[int] = set()
    for key in sorted(groups, key=lambda k: "" if k is None else k.value):
        members = groups[key]
        rng.shuffle(members)
        take = round(len(members) * fraction)
        if len(members) >= 2:
            take = min(max(take, 1), len(members) - 1)
        val.update(members[:take])
    train = set(range(len(docs))) - val

    def counts(side: set[int]) -> Counter[Category]:
        return Counter(c for i in side for c in _categories(docs[i]))

    for cat in sorted(freq, key=lambda c: (freq[c], c.value)):
        if freq[cat] < 2:
            continue
        for src, dst in ((train, val), (val, train)):
            have = counts(dst)
            if have[cat]:
                continue
            left = counts(src)
            candidates = [
                i for i in sorted(src) if cat in _categories(docs[i]) and all(left[c] > 1 for c in _categories(docs[i]))
            ]
            if candidates:
                move = rng.choice(candidates)
                src.remove(move)
                dst.add(move)
    return sorted(train), sorted(val)


def token_scores(pred: Sequence[np.ndarray], gold: Sequence[np.ndarray], labels: Sequence[str]) -> dict[str, float]:
    """Token-level micro precision/recall/F1 over PHI pieces: `f1` needs the right category, `binary_f1` not.

    B- and I- count as the same category; pieces with `IGNORE_INDEX` gold are skipped.
    """
    category = np.array([label.split("-", 1)[-1] if label != "O" else "" for label in labels])
    p = np.concatenate([np.asarray(x) for x in pred]) if pred else np.zeros(0, dtype=np.int64)
    g = np.concatenate([np.asarray(x) for x in gold]) if gold else np.zeros(0, dtype=np.int64)
    keep = g != IGNORE_INDEX
    p, g = p[keep], g[keep]
    pc, gc = category[p], category[g]
    pred_phi, gold_phi = pc != "", gc != ""
    tp = float(np.sum(pred_phi & gold_phi & (pc == gc)))
    tp_bin = float(np.sum(pred_phi & gold_phi))
    n_pred, n_gold = float(pred_phi.sum()), float(gold_phi.sum())

    def f1(tp: float) -> tuple[float, float, float]:
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else 0.0
        return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)

    precision, recall, f = f1(tp)
    bp, br, bf = f1(tp_bin)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f,
        "binary_precision": bp,
        "binary_recall": br,
        "binary_f1": bf,
        "tokens": float(len(g)),
    }
