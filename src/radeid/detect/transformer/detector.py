"""`TransformerDetector`: a loaded model run over documents, its spans decoded and checked.

Ties the parts together: tokenizer, windows (`radeid.detect.chunking`), scorer and label decoder;
`plausible` is the optional form check on model spans (`check_forms`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

import numpy as np

from radeid.config.config import ConfigError
from radeid.config.sections import GATE_SCOPES, TransformerConfig
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.chunking import Window, WindowScorer, boundary_strengths, plan_windows, score_documents
from radeid.detect.shapes import word_shapes
from radeid.detect.transformer.errors import ModelLoadError
from radeid.detect.transformer.folder import parse_thresholds
from radeid.detect.transformer.gate import gate_windows, sentence_plan
from radeid.detect.transformer.labels import LabelDecoder
from radeid.detect.transformer.loading import LoadedModel, load_model

__all__ = ["TransformerDetector", "plausible"]


_MONTH_OR_DAY = re.compile(
    r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|"
    r"christmas|thanksgiving|easter|new year)"
)


def plausible(text: str, span: Span) -> bool:
    """Whether a model span has the form its category needs.

    Categories with a formal shape are checked, because models trained on synthetic data fire on
    look-alikes in real prose ("786.2" codes as phones, "/" as a date, "today" as a date): a
    phone has at least 7 digits, an ID or IP a digit, an AGE a digit or a number in words, a date a
    digit or a month or day name.
    Names, places and vendors are not checked (they have no shape).
    """
    piece = text[span.start : span.end]
    category = span.category
    if category is Category.PHONE:
        return sum(ch.isdigit() for ch in piece) >= 7
    if category is Category.AGE and not any(ch.isdigit() for ch in piece):
        from radeid.patterns.numbers import number_from_words

        return number_from_words(piece) is not None  # "ninety-one"
    if category in (Category.ID, Category.IP, Category.AGE):
        return any(ch.isdigit() for ch in piece)
    if category is Category.DATE:
        return any(ch.isdigit() for ch in piece) or _MONTH_OR_DAY.search(piece) is not None
    return any(ch.isalnum() for ch in piece)


def _check_options(threshold: float, stride: int) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError("threshold must be in (0, 1]")
    if stride < 0:
        raise ValueError("stride must not be negative")


def _check_gate(scope: str, context: int) -> None:
    if scope not in GATE_SCOPES:
        raise ValueError(f"gate_scope must be one of {', '.join(GATE_SCOPES)}, not {scope!r}")
    if context < 0:
        raise ValueError("gate_context must not be negative")


class TransformerDetector:
    """PHI spans from a token-classification model; the steps are in `radeid.detect.transformer`'s docstring.

    Options: `backend` auto/onnx/torch; `label_map` a bundled map name, a TOML path or a dict
    (default: the model's labels are radeid categories); `scheme` auto/bio/io; `threshold` on
    `1 - P(O)` per word piece; `batch_size` windows per inference call; `max_length` word pieces
    per window including special tokens (default and upper bound: the model's own limit);
    `stride` overlap between windows; `threads` CPU threads (ONNX session, or torch's global
    setting); `device` cpu/cuda; `onnx_file` to pick one of several `.onnx` files in a folder;
    `check_forms` drops spans whose text cannot be their category (see `plausible`); `gate` lets
    the model skip windows with no cheap sign of PHI (`radeid.detect.transformer.gate`);
    `gate_scope` "sentence" narrows that to the sentences with a sign, plus `gate_context` word
    pieces on each side (`sentence_plan`). `windows_scored` / `windows_skipped` and
    `pieces_scored` / `pieces_skipped` count since the detector was built (overlaps included).
    """

    check_forms: bool = False
    gate: bool = False
    gate_scope: str = "window"
    gate_context: int = 16
    windows_scored: int = 0
    windows_skipped: int = 0
    pieces_scored: int = 0
    pieces_skipped: int = 0

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        backend: str = "auto",
        label_map: str | Mapping[str, str] | None = None,
        scheme: str = "auto",
        threshold: float = 0.5,
        batch_size: int = 16,
        max_length: int | None = None,
        stride: int = 128,
        threads: int | None = None,
        device: str = "cpu",
        onnx_file: str | None = None,
        name: str = "transformer",
        check_forms: bool = False,
        gate: bool = False,
        gate_scope: str = "window",
        gate_context: int = 16,
    ) -> None:
        _check_gate(gate_scope, gate_context)
        self.check_forms = check_forms
        self.gate = gate
        self.gate_scope = gate_scope
        self.gate_context = gate_context
        if not str(model):
            raise ModelLoadError("no model given (detectors.transformer.model is empty)")
        _check_options(threshold, stride)
        loaded = load_model(
            model, backend=backend, batch_size=batch_size, threads=threads, device=device, onnx_file=onnx_file
        )
        self._setup(loaded, label_map, scheme, threshold, max_length, stride, name)

    @classmethod
    def from_loaded(
        cls,
        loaded: LoadedModel,
        *,
        label_map: str | Mapping[str, str] | None = None,
        scheme: str = "auto",
        threshold: float = 0.5,
        max_length: int | None = None,
        stride: int = 128,
        name: str = "transformer",
    ) -> TransformerDetector:
        """A detector around an already loaded model, or around any `WindowScorer` (tests, custom runtimes)."""
        _check_options(threshold, stride)
        detector = cls.__new__(cls)
        detector._setup(loaded, label_map, scheme, threshold, max_length, stride, name)
        return detector

    def _setup(
        self,
        loaded: LoadedModel,
        label_map: str | Mapping[str, str] | None,
        scheme: str,
        threshold: float,
        max_length: int | None,
        stride: int,
        name: str,
    ) -> None:
        self.name = name
        self.threshold = float(threshold)
        self.loaded = loaded
        self.decoder = LabelDecoder(loaded.labels, label_map, scheme)
        self.decoder.category_thresholds = parse_thresholds((loaded.metadata or {}).get("thresholds"))
        limit = loaded.max_length
        if max_length is not None and max_length > 0:
            if max_length > limit:
                raise ModelLoadError(f"max_length {max_length} exceeds the model's limit of {limit} word pieces")
            limit = max_length
        self.max_length = limit
        self.max_tokens = limit - loaded.tokenizer.n_special
        if self.max_tokens < 1:
            special = loaded.tokenizer.n_special
            raise ModelLoadError(f"max_length {limit} leaves no room next to {special} special tokens")
        self.stride = min(stride, self.max_tokens // 2)

    @classmethod
    def from_config(cls, config: TransformerConfig) -> TransformerDetector:
        if not config.model:
            raise ConfigError(
                "the transformer detector needs a model: set detectors.transformer.model to an ONNX export folder "
                "(`radeid model export`), a Hugging Face model folder, or a hub name"
            )
        return cls(
            config.model,
            backend=config.backend,
            label_map=config.label_map or None,
            scheme=config.scheme,
            threshold=float(config.threshold),
            batch_size=config.batch_size,
            max_length=config.max_length or None,
            stride=config.stride,
            threads=config.threads or None,
            device=config.device,
            check_forms=config.check_forms,
            gate=config.gate,
            gate_scope=config.gate_scope,
            gate_context=config.gate_context,
        )

    @property
    def labels(self) -> tuple[str, ...]:
        return self.loaded.labels

    @property
    def backend(self) -> str:
        return self.loaded.backend

    def plan(self, text: str) -> tuple[list[tuple[int, int]], list[Window]]:
        """Word-piece offsets of `text` and its windows (for inspection and tests)."""
        [(ids, offsets)] = self.loaded.tokenizer.encode([text])
        return offsets, plan_windows(len(ids), self.max_tokens, self.stride, boundary_strengths(text, offsets))

    def token_probabilities(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """Per text: word-piece offsets and the merged label probabilities, one row per piece."""
        encoded = self.loaded.tokenizer.encode(texts)
        plans, keep = self._plan(texts, encoded)
        shapes = None
        if getattr(self.loaded.scorer, "uses_shapes", False):
            shapes = [word_shapes(text, offsets) for text, (_, offsets) in zip(texts, encoded, strict=True)]
        scorer: WindowScorer = self.loaded.scorer
        if keep is not None:
            scorer = _GatedScorer(self.loaded.scorer, keep, self._outside_row())
        probs = score_documents([ids for ids, _ in encoded], plans, scorer, shapes)
        sizes = [len(w) for plan in plans for w in plan]
        flags = keep if keep is not None else [True] * len(sizes)
        scored = sum(flags)
        self.windows_scored += scored
        self.windows_skipped += len(sizes) - scored
        self.pieces_scored += sum(n for n, flag in zip(sizes, flags, strict=True) if flag)
        self.pieces_skipped += sum(n for n, flag in zip(sizes, flags, strict=True) if not flag)
        n_labels = len(self.labels)
        return [
            (offsets, p if len(ids) else np.zeros((0, n_labels), dtype=np.float32))
            for (ids, offsets), p in zip(encoded, probs, strict=True)
        ]

    def _plan(
        self, texts: Sequence[str], encoded: Sequence[tuple[Sequence[int], Sequence[tuple[int, int]]]]
    ) -> tuple[list[list[Window]], list[bool] | None]:
        """Each text's windows and, with the gate on, whether the model scores each (flat order)."""
        plans: list[list[Window]] = []
        keep: list[bool] = []
        for text, (ids, offsets) in zip(texts, encoded, strict=True):
            strengths = boundary_strengths(text, offsets)
            if self.gate and self.gate_scope == "sentence":
                windows, flags = sentence_plan(
                    text, offsets, strengths, self.max_tokens, self.stride, self.gate_context
                )
            else:
                windows = plan_windows(len(ids), self.max_tokens, self.stride, strengths)
                flags = gate_windows(text, offsets, windows) if self.gate else []
            plans.append(windows)
            keep.extend(flags)
        return plans, (keep if self.gate else None)

    def _outside_row(self) -> np.ndarray:
        """Label probabilities of a token the gate skipped: all mass on the (first) outside label."""
        row = np.zeros(len(self.labels), dtype=np.float32)
        outside = np.nonzero(self.decoder.outside)[0]
        if not len(outside):
            raise ModelLoadError("the gate needs an outside label (O) in the model's labels")
        row[outside[0]] = 1.0
        return row

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        if not docs:
            return []
        texts = [doc.text for doc in docs]
        return [
            [
                s
                for s in self.decoder.decode(text, offsets, probs, self.threshold, self.name)
                if not self.check_forms or plausible(text, s)
            ]
            for text, (offsets, probs) in zip(texts, self.token_probabilities(texts), strict=True)
        ]


class _GatedScorer:
    """Scores only the windows the gate keeps (`keep`, in `score_documents`' flat order).

    Skipped windows get `outside` on every row; kept windows go to the real scorer in one call,
    so they are scored (and batched) as without the gate.
    """

    def __init__(self, scorer: WindowScorer, keep: Sequence[bool], outside: np.ndarray) -> None:
        self.scorer = scorer
        self.keep = keep
        self.outside = outside
        self.uses_shapes = bool(getattr(scorer, "uses_shapes", False))

    def score_windows(
        self, windows: Sequence[Sequence[int]], shapes: Sequence[Sequence[int]] | None = None
    ) -> list[np.ndarray]:
        if len(windows) != len(self.keep):
            raise ValueError(f"the gate has {len(self.keep)} decisions for {len(windows)} windows")
        kept = [i for i, flag in enumerate(self.keep) if flag]
        scored: list[np.ndarray] = []
        if kept and shapes is not None:
            scored = self.scorer.score_windows([windows[i] for i in kept], [shapes[i] for i in kept])  # type: ignore[call-arg]
        elif kept:
            scored = self.scorer.score_windows([windows[i] for i in kept])
        out = [np.broadcast_to(self.outside, (len(w), len(self.outside))) for w in windows]
        for i, rows in zip(kept, scored, strict=True):
            out[i] = rows
        return out
