"""Cut long token sequences into overlapping model windows and merge the windows' predictions.

A token-classification model sees at most a few hundred word pieces at a time, but a report can be
much longer and nothing may be dropped. The plan here:

- windows of at most `max_tokens` word pieces (special tokens excluded) cover every token;
- consecutive windows overlap by at least `stride` tokens, so a token near one window's edge sits
  well inside a neighbour;
- the windows of a document are balanced (similar lengths, cheaper attention than one full window
  and a stub) and their cuts prefer paragraph, line and sentence boundaries near the ideal cut;
- a token seen by several windows keeps the prediction of the window where it is farthest from an
  edge; the document's own start and end are not edges (no window can add context there).

Everything works on token indices; character offsets stay with the caller. The model is hidden
behind `WindowScorer`, so the machinery can be tested with a fake scorer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: Strength of a cut before a token: paragraph break > line break > sentence end > none.
PARAGRAPH, LINE, SENTENCE, NONE = 3, 2, 1, 0

_SENTENCE_END = ".!?;:"


@dataclass(frozen=True, slots=True)
class Window:
    """Token indices `[start, end)` of one model window within a document's word pieces."""

    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


class WindowScorer(Protocol):
    """Scores windows of word-piece ids; the model backends and test fakes implement this.

    `score_windows` gets the content ids of each window (no special tokens) and returns, for each,
    an array of shape `(len(window), n_labels)` (probabilities for real models). It may reorder and
    batch internally but must answer in input order. Scorers of models that read word shapes
    (`radeid.detect.shapes`) take the windows' shape ids as a second argument; `score_documents`
    passes it only when given shape ids, so one-argument scorers keep working.
    """

    def score_windows(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]: ...


def boundary_strengths(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """How good a cut before each token is, judged from the text between it and the previous token."""
    strengths = [PARAGRAPH] * len(offsets)
    for i in range(1, len(offsets)):
        prev_end, start = offsets[i - 1][1], offsets[i][0]
        gap = text[prev_end:start]
        newlines = gap.count("\n")
        if newlines >= 2:
            strengths[i] = PARAGRAPH
        elif newlines == 1:
            strengths[i] = LINE
        elif gap and prev_end > 0 and text[prev_end - 1] in _SENTENCE_END and gap.isspace():
            strengths[i] = SENTENCE
        else:
            strengths[i] = NONE
    return strengths


def plan_windows(
    n_tokens: int,
    max_tokens: int,
    stride: int,
    strengths: Sequence[int] | None = None,
) -> list[Window]:
    """Windows covering `range(n_tokens)`, each at most `max_tokens` long, overlapping by >= `stride`.

    `stride` is clamped to `max_tokens // 2` so that every window makes progress. `strengths[i]`
    (see `boundary_strengths`) rates a cut before token `i`; cuts move by at most an eighth of a
    window to land on the strongest boundary nearby.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if stride < 0:
        raise ValueError("stride must not be negative")
    if strengths is not None and len(strengths) != n_tokens:
        raise ValueError("strengths must have one entry per token")
    if n_tokens <= 0:
        return []
    if n_tokens <= max_tokens:
        return [Window(0, n_tokens)]
    stride = min(stride, max_tokens // 2)
    step = max_tokens - stride
    slack = max(0, step // 8)
    windows: list[Window] = []
    start = 0
    while n_tokens - start > max_tokens:
        remaining = n_tokens - start
        count = math.ceil((remaining - stride) / step)  # windows still needed, at least 2
        target = start + math.ceil((remaining + (count - 1) * stride) / count)
        end = _best_cut(
            strengths,
            lo=max(start + stride + 1, target - slack),
            hi=min(start + max_tokens, target + slack),
            prefer=target,
        )
        windows.append(Window(start, end))
        start = _best_cut(strengths, lo=max(start + 1, end - stride - slack), hi=end - stride, prefer=end - stride)
    windows.append(Window(start, n_tokens))
    return windows


def _best_cut(strengths: Sequence[int] | None, lo: int, hi: int, prefer: int) -> int:
    """The strongest boundary in `[lo, hi]`, the one nearest `prefer` among equals."""
    prefer = min(max(prefer, lo), hi)
    if strengths is None:
        return prefer
    best, best_key = prefer, (strengths[prefer], 0)
    for i in range(lo, hi + 1):
        key = (strengths[i], -abs(i - prefer))
        if key > best_key:
            best, best_key = i, key
    return best


def edge_distance(window: Window, n_tokens: int) -> np.ndarray:
    """For each token of `window`, its distance to the nearest window edge that is not a document edge."""
    positions = np.arange(window.start, window.end)
    far = n_tokens + 1
    left = positions - window.start if window.start > 0 else np.full(len(window), far)
    right = window.end - 1 - positions if window.end < n_tokens else np.full(len(window), far)
    return np.minimum(left, right)


def merge_window_scores(
    windows: Sequence[Window], scores: Sequence[np.ndarray], n_tokens: int, width: int = 0
) -> np.ndarray:
    """One row per token: from the window where the token is farthest from an edge (first on ties).

    `width` (the number of columns) is needed only when there are no windows (an empty document).
    """
    if not windows:
        if n_tokens:
            raise ValueError("windows do not cover every token")
        return np.zeros((0, width), dtype=np.float32)
    width = scores[0].shape[1]
    merged = np.zeros((n_tokens, width), dtype=scores[0].dtype)
    best = np.full(n_tokens, -1, dtype=np.int64)
    for window, rows in zip(windows, scores, strict=True):
        if rows.shape != (len(window), width):
            raise ValueError(f"scorer returned shape {rows.shape} for a window of {len(window)} tokens")
        distance = edge_distance(window, n_tokens)
        better = distance > best[window.start : window.end]
        index = np.nonzero(better)[0]
        merged[window.start + index] = rows[index]
        best[window.start + index] = distance[index]
    if (best < 0).any():
        raise ValueError("windows do not cover every token")
    return merged


def score_documents(
    token_ids: Sequence[Sequence[int]],
    plans: Sequence[Sequence[Window]],
    scorer: WindowScorer,
    shape_ids: Sequence[Sequence[int]] | None = None,
) -> list[np.ndarray]:
    """Score every window of every document in one scorer call (so it can batch across documents).

    `shape_ids` (one per token, see `radeid.detect.shapes`) are cut into the same windows and
    passed as the scorer's second argument; only models that declare word shapes get them, so
    scorers that take one argument keep working.
    """
    flat: list[Sequence[int]] = []
    for ids, plan in zip(token_ids, plans, strict=True):
        flat.extend(ids[w.start : w.end] for w in plan)
    if shape_ids is not None:
        flat_shapes: list[Sequence[int]] = []
        for shapes, plan in zip(shape_ids, plans, strict=True):
            flat_shapes.extend(shapes[w.start : w.end] for w in plan)
        flat_scores = scorer.score_windows(flat, flat_shapes) if flat else []  # type: ignore[call-arg]
    else:
        flat_scores = scorer.score_windows(flat) if flat else []
    if len(flat_scores) != len(flat):
        raise ValueError(f"scorer returned {len(flat_scores)} results for {len(flat)} windows")
    width = flat_scores[0].shape[1] if flat_scores else 0
    merged: list[np.ndarray] = []
    cursor = 0
    for ids, plan in zip(token_ids, plans, strict=True):
        parts = flat_scores[cursor : cursor + len(plan)]
        cursor += len(plan)
        merged.append(merge_window_scores(plan, parts, len(ids), width))
    return merged
