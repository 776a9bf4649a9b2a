"""Per-category thresholds on `1 - P(O)`, chosen on validation documents (`radeid model calibrate`).

For each category C, the gold word pieces are those inside a gold span of C (pieces with an empty
offset range, special tokens, are skipped). C's token recall at threshold t is the share of them
whose PHI probability `1 - P(O)` (computed exactly as the detector computes it) reaches t. The
chosen threshold is the highest t with recall >= `target_recall`: with the pieces' probabilities
sorted from high to low, the k-th one, k = ceil(target_recall * n). Whether the most likely PHI
category of a piece is C does not enter (recall here is "redacted", as in binary token recall);
the detector applies the threshold of each piece's most likely PHI category.

Categories with fewer than `min_tokens` gold pieces are left out, so they keep the configured
default (`transformer.threshold`). The result goes into the model's `radeid.json` as
`"thresholds": {"DATE": 0.93, ...}`, with `"thresholds_calibration"` recording how.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.detect.transformer import METADATA_FILE, TransformerDetector

__all__ = ["Calibration", "calibrate_detector", "choose_thresholds", "gold_piece_scores", "write_thresholds"]

#: Smallest threshold written (the detector needs a value in (0, 1]).
MIN_THRESHOLD = 1e-6


@dataclass
class Calibration:
    """Chosen thresholds and, per category, the gold pieces counted and the recall reached."""

    thresholds: dict[str, float]
    target_recall: float
    tokens: dict[str, int] = field(default_factory=dict)
    recall: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def gold_piece_scores(detector: TransformerDetector, docs: Sequence[Document]) -> dict[Category, np.ndarray]:
    """Per gold category, the PHI probability of every word piece inside one of its gold spans."""
    texts = [d.text for d in docs]
    found: dict[Category, list[float]] = {}
    for doc, (offsets, probs) in zip(docs, detector.token_probabilities(texts), strict=True):
        if not doc.spans or len(probs) == 0:
            continue
        phi, _, _ = detector.decoder.token_predictions(probs)
        starts = np.array([a for a, _ in offsets], dtype=np.int64)
        ends = np.array([b for _, b in offsets], dtype=np.int64)
        real = ends > starts
        for span in doc.spans:
            inside = real & (starts < span.end) & (ends > span.start)
            if inside.any():
                found.setdefault(span.category, []).extend(phi[inside].tolist())
    return {cat: np.asarray(v, dtype=np.float32) for cat, v in found.items()}


def choose_thresholds(
    scores: Mapping[Category, np.ndarray], target_recall: float = 0.995, min_tokens: int = 1
) -> Calibration:
    """The highest threshold per category whose token recall on `scores` is at least `target_recall`."""
    if not 0.0 < target_recall <= 1.0:
        raise ValueError("target_recall must be in (0, 1]")
    out = Calibration(thresholds={}, target_recall=float(target_recall))
    for category in sorted(scores, key=lambda c: c.value):
        values = np.sort(np.asarray(scores[category], dtype=np.float32))[::-1]
        n = len(values)
        if n < max(1, min_tokens):
            out.skipped[category.value] = n
            continue
        k = min(n, max(1, math.ceil(target_recall * n - 1e-9)))
        threshold = max(MIN_THRESHOLD, float(values[k - 1]))
        out.thresholds[category.value] = threshold
        out.tokens[category.value] = n
        out.recall[category.value] = float(np.mean(values >= threshold))
    return out


def calibrate_detector(
    detector: TransformerDetector, docs: Sequence[Document], target_recall: float = 0.995, min_tokens: int = 1
) -> Calibration:
    """Thresholds for `detector`'s model from its scores on `docs` (gold spans)."""
    return choose_thresholds(gold_piece_scores(detector, docs), target_recall, min_tokens)


def write_thresholds(model_dir: str | Path, calibration: Calibration, extra: Mapping[str, Any] | None = None) -> Path:
    """Store the thresholds in `model_dir/radeid.json` (other keys kept; written atomically)."""
    path = Path(model_dir) / METADATA_FILE
    data: dict[str, Any] = {}
    if path.exists():
        loaded = json.loads(path.read_text(encoding="utf-8"))
        data = loaded if isinstance(loaded, dict) else {}
    data["thresholds"] = dict(calibration.thresholds)
    data["thresholds_calibration"] = {
        "target_token_recall": calibration.target_recall,
        "gold_pieces": calibration.tokens,
        "recall": {k: round(v, 6) for k, v in calibration.recall.items()},
        "left_at_default": calibration.skipped,
        **dict(extra or {}),
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
