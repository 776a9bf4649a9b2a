"""Confidence intervals by bootstrap over documents.

Documents, not tokens, are resampled: tokens of one report are not independent (one patient's name
recurs, one template repeats), and a corpus is a sample of reports. Each resample draws as many
documents as the corpus has, with replacement, from a seeded generator, sums their kept counts and
recomputes every metric exactly as `metrics` defines it. The interval is the percentile interval
of the resampled values; the point estimate stays the full-corpus value.

A category absent from a resample (no gold, no prediction) has no value there; such resamples are
left out of that category's interval (`Interval.resamples` says how many counted) and out of that
resample's macro average.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from radeid.evaluate.metrics import LEVEL_METRICS, LEVELS, MACRO, MICRO, PHI, EvaluationResult

__all__ = ["BootstrapResult", "Interval", "bootstrap", "percentile_interval"]

#: Resample-by-document cells materialised at once (memory stays bounded on large corpora).
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its lower and upper bound (NaN bounds when never defined)."""

    point: float
    low: float
    high: float
    resamples: int = 0

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "point": self.point,
            "low": None if np.isnan(self.low) else float(self.low),
            "high": None if np.isnan(self.high) else float(self.high),
            "resamples": self.resamples,
        }


@dataclass(frozen=True)
class BootstrapResult:
    """Intervals by `(level, key, metric)`; keys are `PHI`, category names, `micro`, `macro`."""

    n_resamples: int
    seed: int | None
    confidence: float
    intervals: dict[tuple[str, str, str], Interval]

    def get(self, level: str, key: str, metric: str) -> Interval | None:
        return self.intervals.get((level, key, metric))

    def to_dict(self) -> dict[str, Any]:
        nested: dict[str, dict[str, dict[str, Any]]] = {}
        for (level, key, metric), interval in self.intervals.items():
            nested.setdefault(level, {}).setdefault(key, {})[metric] = interval.to_dict()
        return {
            "resamples": self.n_resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "intervals": nested,
        }


def percentile_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float, int]:
    """The central `confidence` percentile interval of the defined (non-NaN) values, and their number."""
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return float("nan"), float("nan"), 0
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(arr, [tail, 100 - tail])
    return float(low), float(high), int(arr.size)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0.0 where den is 0 (the metrics' zero-denominator rule)."""
    out: np.ndarray = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)
    return out


def prf(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp_pred: np.ndarray) -> dict[str, np.ndarray]:
    """Vectorised `Counts.precision/recall/f1`, NaN where nothing was to find and nothing found."""
    empty = (tp + fp + fn + tp_pred) == 0
    precision = _safe_div(tp_pred, tp_pred + fp)
    recall = _safe_div(tp, tp + fn)
    f1 = _safe_div(2 * precision * recall, precision + recall)
    return {
        "precision": np.where(empty, np.nan, precision),
        "recall": np.where(empty, np.nan, recall),
        "f1": np.where(empty, np.nan, f1),
    }


def _resampled_totals(matrix: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of `matrix` (documents x counts) for each resample of its rows."""
    n = matrix.shape[0]
    per_chunk = max(1, _CHUNK_CELLS // n)
    out = np.empty((n_resamples, matrix.shape[1]))
    done = 0
    while done < n_resamples:
        b = min(per_chunk, n_resamples - done)
        draws = rng.integers(0, n, size=(b, n))
        # how many times each document was drawn in each resample
        weights = np.bincount((np.arange(b)[:, None] * n + draws).ravel(), minlength=b * n).reshape(b, n)
        out[done : done + b] = weights @ matrix
        done += b
    return out


def _nanmean_rows(values: np.ndarray) -> np.ndarray:
    """Row means over the defined entries; NaN for a row with none (no category in that resample)."""
    defined = ~np.isnan(values)
    counts = defined.sum(axis=1)
    sums = np.where(defined, values, 0.0).sum(axis=1)
    return np.where(counts > 0, _safe_div(sums, counts.astype(float)), np.nan)


def bootstrap(
    result: EvaluationResult,
    n_resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    levels: Sequence[str] = LEVELS,
) -> BootstrapResult:
    """Percentile intervals for every metric of `result` by resampling its documents (seeded)."""
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    docs = result.documents
    if not docs:
        raise ValueError("cannot bootstrap an evaluation with no documents")
    keys = [PHI, *result.categories]
    columns = [(level, key) for level in levels for key in keys]
    matrix = np.zeros((len(docs), len(columns), 4))
    for i, doc in enumerate(docs):
        for j, (level, key) in enumerate(columns):
            c = doc.counts.get((level, key))
            if c is not None:
                matrix[i, j] = (c.tp, c.fp, c.fn, c.matched_pred)
    rng = np.random.default_rng(seed)
    flat = _resampled_totals(matrix.reshape(len(docs), -1), n_resamples, rng)
    totals = flat.reshape(n_resamples, len(columns), 4)

    intervals: dict[tuple[str, str, str], Interval] = {}
    for li, level in enumerate(levels):
        block = totals[:, li * len(keys) : (li + 1) * len(keys), :]  # resamples x keys x 4
        values = prf(block[..., 0], block[..., 1], block[..., 2], block[..., 3])
        summed = block[:, 1:, :].sum(axis=1)  # categories summed: micro
        micro = prf(summed[:, 0], summed[:, 1], summed[:, 2], summed[:, 3])
        point = result.scores(level)
        present = [keys.index(c) for c in result.present_categories(level)]
        for metric in LEVEL_METRICS.get(level, ("precision", "recall", "f1")):
            per_key = values[metric]
            for ki, key in enumerate(keys):
                if key in point:
                    low, high, used = percentile_interval(per_key[:, ki], confidence)
                    intervals[(level, key, metric)] = Interval(point[key].get(metric), low, high, used)
            low, high, used = percentile_interval(micro[metric], confidence)
            intervals[(level, MICRO, metric)] = Interval(point[MICRO].get(metric), low, high, used)
            if present:
                low, high, used = percentile_interval(_nanmean_rows(per_key[:, present]), confidence)
                intervals[(level, MACRO, metric)] = Interval(point[MACRO].get(metric), low, high, used)
    return BootstrapResult(n_resamples, seed, confidence, intervals)
