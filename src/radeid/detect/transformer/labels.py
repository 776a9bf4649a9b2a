"""Label schemes and decoding: per-token label probabilities of one model become radeid spans.

Knows the BIO / IO prefixes (`B-`, `I-`, `S-`, ...), maps each model label to a radeid category
(directly or through a label map), and joins neighbouring word pieces of one category into spans
grown to whole words. Pure numpy: no tokenizer and no runtime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from radeid.core.categories import Category, split_label
from radeid.core.document import Span
from radeid.core.edges import extend_to_word_boundaries
from radeid.core.labelmaps import IGNORE, load_label_map
from radeid.detect.transformer.errors import ModelLoadError

__all__ = ["OUTSIDE_LABELS", "LabelDecoder", "detect_scheme"]

#: Labels that mean "not PHI" in any scheme.
OUTSIDE_LABELS = frozenset({"O", "OTHER", IGNORE})
_BEGIN_PREFIXES = ("B-", "S-", "U-")
_INSIDE_PREFIXES = ("I-", "E-", "L-")


def _strip_prefix(label: str) -> tuple[str, str]:
    """`"B-DATE"` -> `("B-", "DATE")`; `"DATE"` -> `("", "DATE")`."""
    key = label.strip()
    for prefix in (*_BEGIN_PREFIXES, *_INSIDE_PREFIXES):
        if len(key) > 2 and key.upper().startswith(prefix):
            return prefix, key[2:]
    return "", key


def detect_scheme(labels: Sequence[str]) -> str:
    """`bio` when any label carries a B-/I- style prefix, else `io`."""
    return "bio" if any(_strip_prefix(label)[0] for label in labels) else "io"


class LabelDecoder:
    """Turns per-token label probabilities into spans, for one model's label set.

    Each label maps to a radeid `(category, subtype)` key or to "outside". Unknown labels are an
    error rather than silently "not PHI": a de-identifier must not drop a class it does not know.
    """

    def __init__(
        self,
        labels: Sequence[str],
        label_map: str | Mapping[str, str] | None = None,
        scheme: str = "auto",
    ) -> None:
        if not labels:
            raise ModelLoadError("the model has no labels (id2label is empty)")
        self.labels = tuple(labels)
        self.scheme = detect_scheme(labels) if scheme == "auto" else scheme
        if self.scheme not in ("bio", "io"):
            raise ModelLoadError(f"label scheme must be auto, bio or io, not {scheme!r}")
        mapping = _label_mapping(label_map)
        keys: list[tuple[Category, str | None]] = []
        label_keys: list[int | None] = []
        unknown: list[str] = []
        for label in self.labels:
            target = self._map(label, mapping)
            if target is _UNKNOWN:
                unknown.append(label)
                label_keys.append(None)
            elif target is None:
                label_keys.append(None)
            else:
                if target not in keys:
                    keys.append(target)
                label_keys.append(keys.index(target))
        if unknown:
            raise ModelLoadError(
                f"model label(s) {', '.join(sorted(set(unknown)))} map to no radeid category; pass a label map "
                "(transformer.label_map / label_map=: a bundled name such as 'stanford' or 'i2b2_2014', or a TOML "
                "file with a [labels] table mapping each label to a category or IGNORE)"
            )
        if not keys:
            raise ModelLoadError("none of the model's labels is a PHI category")
        self.keys = tuple(keys)
        #: Per-category thresholds on `1 - P(O)` (from the model's `radeid.json`); a category not
        #: listed uses the `threshold` given to `decode`. A word piece is judged by the threshold of
        #: its most likely PHI category.
        self.category_thresholds: dict[Category, float] = {}
        #: Per label: its `(category, subtype)`, or `None` for "not PHI".
        self.targets = tuple(None if key is None else keys[key] for key in label_keys)
        n, k = len(self.labels), len(keys)
        self.outside = np.array([key is None for key in label_keys], dtype=bool)
        self.key_matrix = np.zeros((n, k), dtype=np.float32)
        self.begin_matrix = np.zeros((n, k), dtype=np.float32)
        for i, (label, key) in enumerate(zip(self.labels, label_keys, strict=True)):
            if key is None:
                continue
            self.key_matrix[i, key] = 1.0
            if self.scheme == "bio" and _strip_prefix(label)[0] in _BEGIN_PREFIXES:
                self.begin_matrix[i, key] = 1.0

    @staticmethod
    def _map(label: str, mapping: Mapping[str, str] | None) -> Any:
        """`(category, subtype)`, `None` for outside, or `_UNKNOWN`."""
        _, bare = _strip_prefix(label)
        if mapping is not None:
            for candidate in (label.strip().upper(), bare.upper()):
                if candidate in mapping:
                    target = mapping[candidate]
                    return None if target.upper() == IGNORE else split_label(target)
        if bare.upper() in OUTSIDE_LABELS:
            return None
        try:
            return split_label(bare)
        except ValueError:
            return _UNKNOWN

    def token_predictions(self, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per token: PHI probability, best PHI key index, and whether a B- label starts it."""
        phi = 1.0 - probs[:, self.outside].sum(axis=1)
        key_probs = probs @ self.key_matrix
        key = key_probs.argmax(axis=1)
        rows = np.arange(len(probs))
        begin_probs = (probs @ self.begin_matrix)[rows, key]
        begins = begin_probs > (key_probs[rows, key] - begin_probs)
        return phi, key, begins

    def decode(
        self,
        text: str,
        offsets: Sequence[tuple[int, int]],
        probs: np.ndarray,
        threshold: float = 0.5,
        source: str = "transformer",
    ) -> list[Span]:
        """Spans from token probabilities (rows aligned with `offsets`), exact offsets into `text`."""
        if len(probs) == 0:
            return []
        phi, key, begins = self.token_predictions(probs)
        limits = self.key_thresholds(threshold)[key] if self.category_thresholds else threshold
        spans: list[Span] = []
        run: list[int] = []

        def flush() -> None:
            if run:
                span = self._span(text, offsets, run, key[run[0]], phi, source)
                if span is not None:
                    spans.append(span)
                run.clear()

        for t in np.nonzero(phi >= limits)[0].tolist():
            start, end = offsets[t]
            if end <= start:
                continue
            if run and not self._continues(text, offsets, run[-1], t, key, begins):
                flush()
            run.append(t)
        flush()
        return _merge_same_key(spans)

    def key_thresholds(self, default: float) -> np.ndarray:
        """Per PHI key (`self.keys`), the threshold that applies: its category's, else `default`."""
        return np.array([self.category_thresholds.get(cat, default) for cat, _ in self.keys], dtype=np.float64)

    def _continues(
        self,
        text: str,
        offsets: Sequence[tuple[int, int]],
        prev: int,
        t: int,
        key: np.ndarray,
        begins: np.ndarray,
    ) -> bool:
        if key[prev] != key[t] or any(offsets[i][1] > offsets[i][0] for i in range(prev + 1, t)):
            return False
        gap_start, start = offsets[prev][1], offsets[t][0]
        if "\n" in text[gap_start:start] or "\r" in text[gap_start:start]:
            return False
        if begins[t]:
            glued = gap_start == start and start > 0 and text[start - 1].isalnum() and text[start].isalnum()
            return glued
        return True

    def _span(
        self,
        text: str,
        offsets: Sequence[tuple[int, int]],
        run: list[int],
        key_index: int,
        phi: np.ndarray,
        source: str,
    ) -> Span | None:
        start, end = offsets[run[0]][0], offsets[run[-1]][1]
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start:
            return None
        category, subtype = self.keys[int(key_index)]
        score = float(np.mean(phi[run]))
        span = Span(start, end, category, subtype=subtype, score=min(1.0, max(0.0, score)), source=source)
        return extend_to_word_boundaries(text, span)


_UNKNOWN = object()


def _label_mapping(label_map: str | Mapping[str, str] | None) -> dict[str, str] | None:
    if label_map is None or label_map == "":
        return None
    if isinstance(label_map, Mapping):
        return {str(k).strip().upper(): str(v) for k, v in label_map.items()}
    try:
        return load_label_map(str(label_map))
    except (ValueError, OSError) as exc:
        raise ModelLoadError(str(exc)) from None


def _merge_same_key(spans: list[Span]) -> list[Span]:
    """Word extension can make neighbouring pieces' spans overlap; same-category overlaps become one."""
    spans.sort(key=lambda s: (s.start, s.end))
    merged: list[Span] = []
    for span in spans:
        prev = merged[-1] if merged else None
        same = prev is not None and (prev.category, prev.subtype) == (span.category, span.subtype)
        if prev is not None and same and span.start < prev.end:
            merged[-1] = prev.with_(end=max(prev.end, span.end), score=max(prev.score, span.score))
        else:
            merged.append(span)
    return merged
