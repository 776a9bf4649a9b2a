"""Windows over long token sequences and the merge of their predictions (no model needed)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radeid.detect.chunking import (
    LINE,
    NONE,
    PARAGRAPH,
    SENTENCE,
    Window,
    boundary_strengths,
    edge_distance,
    merge_window_scores,
    plan_windows,
    score_documents,
)


def check_plan(windows: list[Window], n: int, max_tokens: int, stride: int) -> None:
    """The contract of `plan_windows`: cover, fit, overlap, progress."""
    if n == 0:
        assert windows == []
        return
    assert windows[0].start == 0 and windows[-1].end == n
    effective = min(stride, max_tokens // 2)
    for w in windows:
        assert 0 < len(w) <= max_tokens
    for a, b in zip(windows, windows[1:], strict=False):
        assert a.start < b.start <= a.end, (a, b)  # progress, and no gap
        assert a.end - b.start >= effective, (a, b)  # overlap


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(0, 3000),
    max_tokens=st.integers(1, 600),
    stride=st.integers(0, 300),
    seed=st.integers(0, 10_000),
    with_strengths=st.booleans(),
)
def test_plan_covers_fits_overlaps_and_progresses(
    n: int, max_tokens: int, stride: int, seed: int, with_strengths: bool
) -> None:
    strengths = None
    if with_strengths:
        rng = np.random.default_rng(seed)
        strengths = rng.choice([NONE, SENTENCE, LINE, PARAGRAPH], size=n, p=[0.85, 0.08, 0.05, 0.02]).tolist()
    check_plan(plan_windows(n, max_tokens, stride, strengths), n, max_tokens, stride)


def test_short_and_empty_sequences() -> None:
    assert plan_windows(0, 510, 128) == []
    assert plan_windows(510, 510, 128) == [Window(0, 510)]
    assert len(plan_windows(511, 510, 128)) == 2


def test_windows_are_balanced_not_full_plus_stub() -> None:
    windows = plan_windows(600, 510, 128)
    assert len(windows) == 2
    lengths = [len(w) for w in windows]
    assert max(lengths) - min(lengths) <= 2, lengths  # ~364 each, not 510 + 218


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        plan_windows(10, 0, 0)
    with pytest.raises(ValueError):
        plan_windows(10, 5, -1)
    with pytest.raises(ValueError):
        plan_windows(10, 5, 1, [0] * 9)


def test_cuts_prefer_line_then_sentence_boundaries() -> None:
    n, max_tokens, stride = 1000, 200, 40
    plain = plan_windows(n, max_tokens, stride)
    strengths = [NONE] * n
    for i in range(0, n, 7):
        strengths[i] = SENTENCE
    for i in range(0, n, 30):
        strengths[i] = LINE
    windows = plan_windows(n, max_tokens, stride, strengths)
    check_plan(windows, n, max_tokens, stride)
    ends = [w.end for w in windows[:-1]]
    starts = [w.start for w in windows[1:]]
    # An end may move 20 tokens either way, so a line break (every 30) is always in reach; a start
    # may only move back (20 tokens, keeping the overlap), so a sentence end (every 7) is.
    assert all(strengths[i] == LINE for i in ends)
    assert all(strengths[i] >= SENTENCE for i in starts)
    assert [w.end for w in plain] != [w.end for w in windows]


def test_boundary_strengths_from_text() -> None:
    text = "Alpha beta. Gamma\ndelta\n\nepsilon, zeta"
    words = [(m, m + len(w)) for m, w in _word_offsets(text)]
    assert boundary_strengths(text, words) == [PARAGRAPH, NONE, SENTENCE, LINE, PARAGRAPH, NONE]


def _word_offsets(text: str) -> list[tuple[int, str]]:
    out, i = [], 0
    for raw in text.replace("\n", " ").split(" "):
        if raw:
            word = raw.rstrip(",")
            out.append((text.index(word, i), word))
            i = out[-1][0] + len(word)
    return out


def test_edge_distance_ignores_document_edges() -> None:
    assert edge_distance(Window(0, 4), 10).tolist() == [3, 2, 1, 0]
    assert edge_distance(Window(6, 10), 10).tolist() == [0, 1, 2, 3]
    assert edge_distance(Window(3, 7), 10).tolist() == [0, 1, 1, 0]
    assert (edge_distance(Window(0, 10), 10) == 11).all()


def test_merge_keeps_the_window_where_the_token_is_farthest_from_an_edge() -> None:
    windows = [Window(0, 6), Window(3, 10)]
    scores = [np.full((6, 1), 1.0), np.full((7, 1), 2.0)]
    merged = merge_window_scores(windows, scores, 10)[:, 0].tolist()
    # Tokens 3, 4, 5 are in both windows. Token 3 is 2 from window 0's right edge and 0 from window
    # 1's left edge; token 4 is 1 from both (a tie: the first window); token 5 is 0 and 2.
    assert merged == [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]


def test_merge_rejects_wrong_shapes_and_gaps() -> None:
    with pytest.raises(ValueError, match="shape"):
        merge_window_scores([Window(0, 3)], [np.zeros((2, 1))], 3)
    with pytest.raises(ValueError, match="cover"):
        merge_window_scores([Window(0, 3)], [np.zeros((3, 1))], 5)


class ContextScorer:
    """Fake model: per token, the context it had in its window (tokens to the left, to the right)."""

    def __init__(self) -> None:
        self.calls = 0

    def score_windows(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]:
        self.calls += 1
        out = []
        for ids in windows:
            n = len(ids)
            left = np.arange(n, dtype=np.float32)
            out.append(np.stack([left, n - 1 - left, np.asarray(ids, dtype=np.float32)], axis=1))
        return out


@pytest.mark.parametrize(("max_tokens", "stride"), [(510, 128), (126, 32), (64, 64), (20, 6)])
def test_every_token_keeps_context_on_both_sides(max_tokens: int, stride: int) -> None:
    lengths = [0, 5, max_tokens, max_tokens + 1, 3 * max_tokens + 7, 4000]
    docs = [list(range(1000 * k, 1000 * k + n)) for k, n in enumerate(lengths)]
    rng = np.random.default_rng(0)
    plans = []
    for ids in docs:
        strengths = rng.choice([NONE, SENTENCE, LINE], size=len(ids), p=[0.9, 0.07, 0.03]).tolist()
        plans.append(plan_windows(len(ids), max_tokens, stride, strengths))
    scorer = ContextScorer()
    merged = score_documents(docs, plans, scorer)
    assert scorer.calls == 1  # one call for the whole batch: the scorer batches across documents
    need = (min(stride, max_tokens // 2) - 1) // 2
    for ids, rows in zip(docs, merged, strict=True):
        n = len(ids)
        assert rows.shape == (n, 3)
        assert rows[:, 2].tolist() == ids  # every token once, in order: nothing dropped or shuffled
        for t in range(n):
            left, right = rows[t, 0], rows[t, 1]
            assert left >= min(need, t), (n, t)
            assert right >= min(need, n - 1 - t), (n, t)


def test_score_documents_checks_the_scorer() -> None:
    class Short:
        def score_windows(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]:
            return []

    with pytest.raises(ValueError, match="results"):
        score_documents([[1, 2, 3]], [[Window(0, 3)]], Short())
