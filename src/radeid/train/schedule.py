"""ULMFiT-style schedules (Howard & Ruder 2018), as plain functions that tests can pin exactly.

- Slanted triangular learning rates: a short linear warm-up to the peak (`cut_frac` of the steps)
  then a long linear decay to `1/ratio` of the peak, the final decay that settles the weights.
- Momentum (Adam's beta1) cycles the other way: high while the rate is low, lowest at the peak
  (as in the one-cycle policy), so large steps are not amplified by large momentum.
- Discriminative rates: each layer lower in the encoder learns `decay` times slower than the one
  above it; general features near the embeddings move least.
"""

from __future__ import annotations

import math

__all__ = ["discriminative_lrs", "momentum", "slanted_fraction", "stlr"]


def slanted_fraction(step: int, total: int, cut_frac: float = 0.1) -> float:
    """Position on the triangle at `step` of `total` (0 at both ends, 1 at the peak)."""
    if total < 1:
        raise ValueError("total must be at least 1")
    if not 0.0 < cut_frac < 1.0:
        raise ValueError("cut_frac must be between 0 and 1")
    cut = max(1, math.floor(total * cut_frac))
    if step < cut:
        return step / cut
    return max(0.0, 1.0 - (step - cut) / max(1, total - cut))


def stlr(step: int, total: int, peak: float, cut_frac: float = 0.1, ratio: float = 32.0) -> float:
    """Learning rate at `step`: `peak * (1 + p * (ratio - 1)) / ratio`, p from `slanted_fraction`."""
    p = slanted_fraction(step, total, cut_frac)
    return peak * (1.0 + p * (ratio - 1.0)) / ratio


def momentum(step: int, total: int, high: float = 0.95, low: float = 0.85, cut_frac: float = 0.1) -> float:
    """Adam beta1 at `step`: `high` at the ends, `low` at the learning-rate peak, linear between."""
    return high - (high - low) * slanted_fraction(step, total, cut_frac)


def discriminative_lrs(peak: float, groups: int, decay: float) -> list[float]:
    """Peak rates for `groups` parameter groups listed top (head) first: `peak / decay**depth`."""
    if groups < 1:
        raise ValueError("groups must be at least 1")
    if decay < 1.0:
        raise ValueError("decay must be at least 1 (1 = the same rate everywhere)")
    return [peak / decay**depth for depth in range(groups)]
