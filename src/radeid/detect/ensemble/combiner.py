"""Learned combiners (scikit-learn) stored as data, never as pickles.

A combiner file holds the training set itself, compactly: the distinct feature rows (0/1 unit
features, `radeid.detect.ensemble.features`) with a count per label. Loading refits the model on
those rows with `sample_weight` = counts and a fixed `random_state`, which takes well under a
second and is deterministic: no pickle, nothing executable is read from the file, the file stays
small (a few hundred rows), and it says which members, features and gold data (a SHA-256 of the
gold files) it was made from. `fit` goes through the same compact form, so a combiner predicts
exactly the same before saving and after loading.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radeid.config.config import ConfigError

__all__ = ["FORMAT", "MODELS", "Combiner", "CombinerError", "gold_fingerprint"]

FORMAT = "radeid-ensemble-combiner"
VERSION = 1
#: `--model` names and what they fit (every one with a fixed random_state where it has one).
MODELS = ("tree", "nb", "boost")
OUTSIDE = "O"
RANDOM_STATE = 0

_log = logging.getLogger(__name__)


class CombinerError(ConfigError):
    """A combiner file that cannot be used; the message names the file."""


def _estimator(model: str) -> Any:
    try:
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.naive_bayes import GaussianNB
        from sklearn.tree import DecisionTreeClassifier
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ConfigError("a learned ensemble needs scikit-learn (pip install 'radeid[ensemble]')") from exc
    if model == "tree":
        # samples are distinct rows weighted by their counts, so a leaf's size is a weight: at least
        # 1 unit in 10,000 (a leaf for one odd token of a large set would not generalise)
        return DecisionTreeClassifier(random_state=RANDOM_STATE, min_weight_fraction_leaf=1e-4)
    if model == "nb":
        return GaussianNB()
    if model == "boost":
        # stumps cannot tell 13 classes apart in few rounds; shallow trees can
        base = DecisionTreeClassifier(max_depth=3, random_state=RANDOM_STATE)
        return AdaBoostClassifier(estimator=base, n_estimators=50, random_state=RANDOM_STATE)
    raise ConfigError(f"unknown combiner model {model!r}; known: {', '.join(MODELS)}")


def sklearn_version() -> str:
    try:
        import sklearn
    except ImportError:  # pragma: no cover - depends on the extra
        return ""
    return str(sklearn.__version__)


def gold_fingerprint(paths: Iterable[str | os.PathLike[str]]) -> str:
    """SHA-256 of the gold files' contents, one after the other (a folder: its files sorted by
    relative path); for one file, what `sha256sum FILE` prints."""
    digest = hashlib.sha256()
    for path in paths:
        root = Path(path)
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in files:
            with open(file, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    return digest.hexdigest()


@dataclass
class Combiner:
    """A fitted combiner: members, features, labels and the compact training table."""

    members: tuple[str, ...]
    model: str
    features: tuple[str, ...]
    labels: tuple[str, ...]
    rows: list[tuple[int, ...]]
    counts: list[list[int]]
    training: Mapping[str, Any] = field(default_factory=dict)
    sklearn: str = field(default_factory=sklearn_version)
    _estimator: Any = field(default=None, repr=False, compare=False)
    _cache: dict[tuple[int, ...], tuple[str, float]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def fit(
        cls,
        members: Sequence[str],
        model: str,
        features: Sequence[str],
        rows: Iterable[Sequence[int]],
        labels: Iterable[str],
        training: Mapping[str, Any] | None = None,
    ) -> Combiner:
        """Fit on one feature row and one label ("O" or a category) per unit."""
        table: dict[tuple[int, ...], Counter[str]] = {}
        for row, label in zip(rows, labels, strict=True):
            table.setdefault(tuple(int(v) for v in row), Counter())[label] += 1
        if not table:
            raise ValueError("no training units: the gold documents are empty")
        names = sorted({label for counts in table.values() for label in counts} - {OUTSIDE})
        label_names = (OUTSIDE, *names)
        ordered = sorted(table)
        combiner = cls(
            members=tuple(members),
            model=model,
            features=tuple(features),
            labels=label_names,
            rows=ordered,
            counts=[[table[row][label] for label in label_names] for row in ordered],
            training=dict(training or {}),
        )
        combiner._refit()
        return combiner

    def _refit(self) -> None:
        """Fit the estimator on the compact table (each row once per label it has, weighted by count)."""
        import numpy as np

        if any(len(row) != len(self.features) for row in self.rows):
            raise ValueError("a training row does not have one value per feature")
        xs: list[tuple[int, ...]] = []
        ys: list[int] = []
        weights: list[int] = []
        for row, counts in zip(self.rows, self.counts, strict=True):
            for label, count in enumerate(counts):
                if count:
                    xs.append(row)
                    ys.append(label)
                    weights.append(count)
        estimator = _estimator(self.model)
        if len(set(ys)) < 2:
            raise ValueError("the gold data has a single label; a combiner needs PHI and non-PHI units")
        estimator.fit(np.asarray(xs, dtype=np.float64), np.asarray(ys), sample_weight=np.asarray(weights, float))
        self._estimator = estimator
        self._cache = {}

    def predict(self, rows: Sequence[tuple[int, ...]]) -> list[tuple[str, float]]:
        """`(label, probability)` per row; distinct rows are few, so each is predicted once."""
        import numpy as np

        todo = sorted({row for row in rows if row not in self._cache})
        if todo:
            if any(len(row) != len(self.features) for row in todo):
                raise ValueError(f"feature rows must have {len(self.features)} values")
            proba = self._estimator.predict_proba(np.asarray(todo, dtype=np.float64))
            classes = [int(c) for c in self._estimator.classes_]
            for row, p in zip(todo, proba, strict=True):
                best = int(np.argmax(p))  # ties: the first class, "O"
                self._cache[row] = (self.labels[classes[best]], float(p[best]))
        return [self._cache[row] for row in rows]

    # -- files ------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "members": list(self.members),
            "model": self.model,
            "features": list(self.features),
            "labels": list(self.labels),
            "training": dict(self.training),
            "sklearn": self.sklearn,
            "rows": [list(row) for row in self.rows],
            "counts": self.counts,
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), separators=(",", ":")) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Combiner:
        """Read a combiner file and refit; errors name the file (never print its rows)."""
        where = os.fspath(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CombinerError(f"combiner file not found: {where}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CombinerError(f"combiner file {where} is not readable JSON: {exc.__class__.__name__}") from None
        try:
            combiner = cls._from_dict(data)
            combiner._refit()
            if combiner.sklearn and combiner.sklearn != sklearn_version():
                # the refit is deterministic for one scikit-learn version, not across versions
                _log.warning(
                    "combiner file %s was fitted with scikit-learn %s and is refitted with %s: "
                    "predictions may differ; run `radeid ensemble fit` again to pin them",
                    where,
                    combiner.sklearn,
                    sklearn_version(),
                )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CombinerError):
                raise
            raise CombinerError(f"combiner file {where} is malformed: {exc}") from None
        return combiner

    @classmethod
    def _from_dict(cls, data: Any) -> Combiner:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        if data.get("version") != VERSION:
            raise ValueError(f"format version {data.get('version')!r}; this radeid reads version {VERSION}")
        model = str(data["model"])
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r}")
        labels = tuple(str(v) for v in data["labels"])
        rows = [tuple(_bit(v) for v in row) for row in data["rows"]]
        counts = [[_count(v) for v in row] for row in data["counts"]]
        if len(rows) != len(counts) or any(len(c) != len(labels) for c in counts):
            raise ValueError("rows and counts do not match the labels")
        return cls(
            members=tuple(str(m) for m in data["members"]),
            model=model,
            features=tuple(str(f) for f in data["features"]),
            labels=labels,
            rows=rows,
            counts=counts,
            training=dict(data.get("training") or {}),
            sklearn=str(data.get("sklearn", "")),
        )


def _bit(value: Any) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise ValueError("feature values must be 0 or 1")
    return int(value)


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError("label counts must be non-negative integers")
    return value
