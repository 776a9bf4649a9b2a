"""Token-classification models as a PHI detector: ONNX Runtime by default, PyTorch when asked.

What goes in: any Hugging Face token-classification model, as

- an ONNX folder (`model.onnx` + `tokenizer.json` + labels in `radeid.json` or `config.json`), the
  default inference path: it needs only `onnxruntime`, `tokenizers` and `numpy`, no torch;
- a Hugging Face model folder (`config.json` + safetensors/bin weights + tokenizer), run with
  PyTorch (`radeid[train]`);
- a hub name such as `StanfordAIMI/stanford-deidentifier-base`, passed to transformers (needs
  `radeid[train]` and internet; offline it fails with a message naming the offline route).

How a batch of documents is processed:

1. the tokenizer runs on each whole text (truncation and padding switched off, whatever the
   tokenizer file says), giving word pieces with character offsets into the original text (they
   stay exact when the tokenizer lower-cases or strips accents);
2. `radeid.detect.chunking` cuts long documents into overlapping windows that fit the model;
3. the windows of all documents are sorted by length and run in batches through one reused
   session, and each token keeps the prediction of the window where it had the most context;
4. token probabilities become spans: a word piece is PHI when `1 - P(O)` reaches `threshold`, its
   category is the most probable PHI category (B-/I- probabilities summed), neighbouring pieces of
   one category join (a `B-` label starts a new span unless it continues the same word), spans
   never cross a line break and are grown to whole words.

Heavy libraries (onnxruntime, torch, transformers) are imported only when a model is loaded.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from radeid.categories import Category, split_label
from radeid.config import ConfigError, TransformerConfig
from radeid.detect.chunking import Window, WindowScorer, boundary_strengths, plan_windows, score_documents
from radeid.detect.shapes import CONFIG_KEY as SHAPE_CONFIG_KEY
from radeid.detect.shapes import shape_spec, word_shapes
from radeid.document import Document, Span
from radeid.labelmaps import IGNORE, load_label_map
from radeid.resolve import extend_to_word_boundaries

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "LabelDecoder",
    "LoadedModel",
    "ModelLoadError",
    "OnnxScorer",
    "TorchScorer",
    "TransformerDetector",
    "load_model",
]

log = logging.getLogger(__name__)

#: File names looked for in a model folder.
ONNX_FILE = "model.onnx"
METADATA_FILE = "radeid.json"
TOKENIZER_FILE = "tokenizer.json"
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)

#: Labels that mean "not PHI" in any scheme.
OUTSIDE_LABELS = frozenset({"O", "OTHER", IGNORE})
_BEGIN_PREFIXES = ("B-", "S-", "U-")
_INSIDE_PREFIXES = ("I-", "E-", "L-")

#: Models whose position ids start after the padding index, so that fewer positions are usable.
_OFFSET_POSITION_MODELS = frozenset(
    {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer", "mpnet", "ibert", "data2vec-text"}
)
DEFAULT_MAX_LENGTH = 512

_OFFLINE_HINT = (
    "radeid can run offline from a local folder: where there is internet, download the model "
    "(e.g. `hf download NAME --local-dir DIR`) or export it with `radeid model export NAME DIR "
    "--quantize int8`, then pass DIR as the model"
)


class ModelLoadError(ConfigError):
    """A model that cannot be loaded or used; the message says what is missing and what to do."""


# ------------------------------------------------------------------------------------- labels


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


def parse_thresholds(raw: object) -> dict[Category, float]:
    """The `thresholds` mapping of a model's `radeid.json` (category name -> float in (0, 1])."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ModelLoadError(f"{METADATA_FILE}: thresholds must be a mapping of category to number")
    out: dict[Category, float] = {}
    for name, value in raw.items():
        try:
            category = Category(str(name).upper())
        except ValueError:
            raise ModelLoadError(f"{METADATA_FILE}: thresholds names an unknown category {name!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < float(value) <= 1.0:
            raise ModelLoadError(f"{METADATA_FILE}: threshold of {name} must be a number in (0, 1], not {value!r}")
        out[category] = float(value)
    return out


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


# ----------------------------------------------------------------------------------- tokenizer


class PieceTokenizer:
    """A `tokenizers.Tokenizer` set up never to truncate or pad, plus the model's special tokens."""

    def __init__(self, tokenizer: Tokenizer, pad_id: int | None = None) -> None:
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self.tokenizer = tokenizer
        probe = "a"
        bare = tokenizer.encode(probe, add_special_tokens=False).ids
        full = tokenizer.encode(probe, add_special_tokens=True).ids
        self.prefix, self.suffix = _split_specials(full, bare)
        self.pad_id = pad_id if pad_id is not None else _guess_pad_id(tokenizer)

    @property
    def n_special(self) -> int:
        return len(self.prefix) + len(self.suffix)

    def encode(self, texts: Sequence[str]) -> list[tuple[list[int], list[tuple[int, int]]]]:
        """Word-piece ids and character offsets into each original text (no special tokens)."""
        # A lone surrogate (valid in a Python str, not in UTF-8) makes the tokenizer raise; U+FFFD
        # is one code point too, so every offset stays an index into the original text.
        clean = [_LONE_SURROGATE.sub("\ufffd", t) for t in texts]
        encodings = self.tokenizer.encode_batch(clean, add_special_tokens=False)
        return [(list(e.ids), [tuple(o) for o in e.offsets]) for e in encodings]  # type: ignore[misc]

    def wrap(self, ids: Sequence[int]) -> list[int]:
        return [*self.prefix, *ids, *self.suffix]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _split_specials(full: Sequence[int], bare: Sequence[int]) -> tuple[list[int], list[int]]:
    for i in range(len(full) - len(bare) + 1):
        if list(full[i : i + len(bare)]) == list(bare):
            return list(full[:i]), list(full[i + len(bare) :])
    return [], []


def _guess_pad_id(tokenizer: Tokenizer) -> int:
    for token in ("[PAD]", "<pad>", "<PAD>"):
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return int(token_id)
    return 0


# ------------------------------------------------------------------------------------- scorers


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=-1, keepdims=True)
    return shifted


#: Upper bound on windows x length^2 per inference call. Attention matrices dominate memory (about
#: 1.3 GiB for 16 windows of 512 pieces with MiniLM in ONNX Runtime), so long windows go in smaller
#: batches: 4 windows of 512, 16 of 256. Speed barely changes; peak memory stays well under 1 GiB.
ATTENTION_CELLS = 4 * 512 * 512


class _BatchScorer:
    """Shared batching: windows sorted by length, padded per batch, answers in input order.

    `uses_shapes` is true for models trained with word-shape ids (`radeid.detect.shapes`): they
    get a third input, `shape_ids`, aligned with `input_ids` (0 on special tokens and padding).
    """

    uses_shapes: bool = False

    def __init__(self, tokenizer: PieceTokenizer, batch_size: int, attention_cells: int = ATTENTION_CELLS) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.attention_cells = attention_cells

    def batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Window indices grouped into batches: sorted by length (little padding), within both limits."""
        order = sorted(range(len(lengths)), key=lambda i: lengths[i])
        extra = self.tokenizer.n_special
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:
            width = lengths[i] + extra  # the longest so far, since the order is ascending
            if current and (
                len(current) >= self.batch_size or (len(current) + 1) * width * width > self.attention_cells
            ):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
        return batches

    def _run(self, input_ids: np.ndarray, attention_mask: np.ndarray, shape_ids: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def logits_windows(
        self, windows: Sequence[Sequence[int]], shapes: Sequence[Sequence[int]] | None = None
    ) -> list[np.ndarray]:
        """Raw logits per window, special-token positions removed: shape `(len(window), n_labels)`.

        `shapes` (one shape id per window token) is required by models that use word shapes and
        ignored by the others.
        """
        if self.uses_shapes and shapes is None:
            raise ValueError("this model takes word-shape ids: pass shapes (see radeid.detect.shapes)")
        out: list[np.ndarray | None] = [None] * len(windows)
        head = len(self.tokenizer.prefix)
        for batch in self.batches([len(w) for w in windows]):
            rows = [self.tokenizer.wrap(windows[i]) for i in batch]
            width = max(len(r) for r in rows)
            input_ids = np.full((len(rows), width), self.tokenizer.pad_id, dtype=np.int64)
            attention_mask = np.zeros((len(rows), width), dtype=np.int64)
            shape_ids = np.zeros((len(rows), width), dtype=np.int64) if self.uses_shapes else None
            for r, row in enumerate(rows):
                input_ids[r, : len(row)] = row
                attention_mask[r, : len(row)] = 1
                if shape_ids is not None and shapes is not None:
                    shape_ids[r, head : head + len(windows[batch[r]])] = shapes[batch[r]]
            logits = self._run(input_ids, attention_mask, shape_ids)
            for r, i in enumerate(batch):
                out[i] = np.ascontiguousarray(logits[r, head : head + len(windows[i])], dtype=np.float32)
        return out  # type: ignore[return-value]

    def score_windows(
        self, windows: Sequence[Sequence[int]], shapes: Sequence[Sequence[int]] | None = None
    ) -> list[np.ndarray]:
        return [_softmax(x) for x in self.logits_windows(windows, shapes)]


class OnnxScorer(_BatchScorer):
    """One ONNX Runtime session, reused for every batch."""

    def __init__(
        self,
        path: Path,
        tokenizer: PieceTokenizer,
        batch_size: int = 16,
        threads: int | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(tokenizer, batch_size)
        try:
            import onnxruntime as ort
        except ImportError:
            raise ModelLoadError("running an ONNX model needs onnxruntime: pip install onnxruntime") from None
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.inter_op_num_threads = 1
        if threads:
            options.intra_op_num_threads = int(threads)
        options.log_severity_level = 3
        # Idle worker threads would spin for new work; on a shared machine that burns the CPU the
        # other processes (and our own tokenizer) need, and measured slower here.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        if device.startswith("cuda"):
            if "CUDAExecutionProvider" not in ort.get_available_providers():
                raise ModelLoadError("device 'cuda' with ONNX needs onnxruntime-gpu and a GPU; use device 'cpu'")
            providers.insert(0, "CUDAExecutionProvider")
        elif device != "cpu":
            raise ModelLoadError(f"the ONNX backend runs on 'cpu' or 'cuda', not {device!r}")
        try:
            self.session = ort.InferenceSession(str(path), options, providers=providers)
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelLoadError(f"onnxruntime could not load {path}: {exc}") from None
        self.input_names = [i.name for i in self.session.get_inputs()]
        known = {"input_ids", "attention_mask", "token_type_ids", "shape_ids"}
        extra = [name for name in self.input_names if name not in known]
        if "input_ids" not in self.input_names or extra:
            raise ModelLoadError(
                f"{path} has inputs {self.input_names}; radeid feeds input_ids, attention_mask, token_type_ids "
                "and (for models trained with word shapes) shape_ids"
            )
        self.uses_shapes = "shape_ids" in self.input_names
        outputs = [o.name for o in self.session.get_outputs()]
        self.output_name = "logits" if "logits" in outputs else outputs[0]

    def _run(self, input_ids: np.ndarray, attention_mask: np.ndarray, shape_ids: np.ndarray | None) -> np.ndarray:
        feed: dict[str, np.ndarray] = {"input_ids": input_ids}
        if "attention_mask" in self.input_names:
            feed["attention_mask"] = attention_mask
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        if self.uses_shapes:
            feed["shape_ids"] = shape_ids if shape_ids is not None else np.zeros_like(input_ids)
        return self.session.run([self.output_name], feed)[0]


class TorchScorer(_BatchScorer):
    """A transformers token-classification model in eval mode, run without gradients."""

    def __init__(self, model: Any, tokenizer: PieceTokenizer, batch_size: int = 16, device: str = "cpu") -> None:
        super().__init__(tokenizer, batch_size)
        import torch

        self.torch = torch
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        parameters = _forward_parameters(model)
        self.uses_token_types = "token_type_ids" in parameters
        self.uses_shapes = bool(getattr(model, "uses_shapes", False)) and "shape_ids" in parameters

    def _run(self, input_ids: np.ndarray, attention_mask: np.ndarray, shape_ids: np.ndarray | None) -> np.ndarray:
        torch = self.torch
        inputs = {
            "input_ids": torch.from_numpy(input_ids).to(self.device),
            "attention_mask": torch.from_numpy(attention_mask).to(self.device),
        }
        if self.uses_token_types:
            inputs["token_type_ids"] = torch.zeros_like(inputs["input_ids"])
        if self.uses_shapes:
            shapes = shape_ids if shape_ids is not None else np.zeros_like(input_ids)
            inputs["shape_ids"] = torch.from_numpy(shapes).to(self.device)
        with torch.inference_mode():
            logits = self.model(**inputs).logits
        return logits.float().cpu().numpy()


def _forward_parameters(model: Any) -> set[str]:
    import inspect

    try:
        return set(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):  # pragma: no cover
        return {"input_ids", "attention_mask"}


# ------------------------------------------------------------------------------------- loading


@dataclass
class LoadedModel:
    """What a model folder or name resolved to."""

    source: str
    backend: str
    tokenizer: PieceTokenizer
    scorer: WindowScorer
    labels: tuple[str, ...]
    max_length: int
    metadata: dict[str, Any]


def read_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"cannot read {path}: {exc}") from None
    return data if isinstance(data, dict) else {}


def labels_from_folder(folder: Path) -> tuple[str, ...] | None:
    """Labels in id order from `radeid.json`, `config.json` (id2label) or `labels.txt`."""
    meta = read_json(folder / METADATA_FILE)
    if isinstance(meta.get("labels"), list) and meta["labels"]:
        return tuple(str(x) for x in meta["labels"])
    id2label = read_json(folder / "config.json").get("id2label")
    if isinstance(id2label, dict) and id2label:
        return labels_from_id2label(id2label)
    text_file = folder / "labels.txt"
    if text_file.exists():
        labels = [line.strip() for line in text_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        return tuple(labels) or None
    return None


def labels_from_id2label(id2label: Mapping[Any, str]) -> tuple[str, ...]:
    indexed = {int(k): str(v) for k, v in id2label.items()}
    if sorted(indexed) != list(range(len(indexed))):
        raise ModelLoadError(f"id2label ids are not 0..{len(indexed) - 1}")
    return tuple(indexed[i] for i in range(len(indexed)))


def model_max_length(folder: Path | None, config: Mapping[str, Any] | None = None) -> int:
    """The longest input (special tokens included) the model takes: positions and tokenizer limit."""
    limits: list[int] = []
    if folder is not None:
        meta = read_json(folder / METADATA_FILE)
        if isinstance(meta.get("max_length"), int) and meta["max_length"] > 0:
            return int(meta["max_length"])
        config = config or read_json(folder / "config.json")
        tokenizer_limit = read_json(folder / "tokenizer_config.json").get("model_max_length")
        if isinstance(tokenizer_limit, (int, float)) and 0 < tokenizer_limit < 1_000_000:
            limits.append(int(tokenizer_limit))
    config = config or {}
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        if config.get("model_type") in _OFFSET_POSITION_MODELS:
            positions -= int(config.get("pad_token_id") or 1) + 1
        limits.append(positions)
    return min(limits) if limits else DEFAULT_MAX_LENGTH


def _has_weights(folder: Path) -> bool:
    return any((folder / name).exists() for name in WEIGHT_FILES)


def choose_backend(model: str | os.PathLike[str], backend: str = "auto") -> str:
    """`onnx` or `torch` for a folder; `torch` for a hub name."""
    if backend not in ("auto", "onnx", "torch"):
        raise ModelLoadError(f"backend must be auto, onnx or torch, not {backend!r}")
    folder = Path(model)
    if not folder.is_dir():
        if backend == "onnx":
            raise ModelLoadError(f"ONNX model folder {str(model)!r} not found")
        return "torch"
    if backend != "auto":
        return backend
    if (folder / ONNX_FILE).exists() or any(folder.glob("*.onnx")):
        return "onnx"
    if _has_weights(folder):
        return "torch"
    raise ModelLoadError(
        f"{folder} holds neither {ONNX_FILE} nor PyTorch weights ({', '.join(WEIGHT_FILES[:2])}); "
        "expected an export from `radeid model export` or a Hugging Face model folder"
    )


_MONTH_OR_DAY = re.compile(
    r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|"
    r"christmas|thanksgiving|easter|new year)"
)


def plausible(text: str, span: Span) -> bool:
    """Whether a model span has the form its category needs.

    Categories with a formal shape are checked, because models trained on synthetic data fire on
    look-alikes in real prose ("786.2" codes as phones, "/" as a date, "today" as a date): a
    phone has at least 7 digits, an ID, IP or AGE a digit, a date a digit or a month or day name.
    Names, places and vendors are not checked (they have no shape).
    """
    piece = text[span.start : span.end]
    category = span.category
    if category is Category.PHONE:
        return sum(ch.isdigit() for ch in piece) >= 7
    if category in (Category.ID, Category.IP, Category.AGE):
        return any(ch.isdigit() for ch in piece)
    if category is Category.DATE:
        return any(ch.isdigit() for ch in piece) or _MONTH_OR_DAY.search(piece) is not None
    return any(ch.isalnum() for ch in piece)


#: `transformer.model` value that names the model bundled with radeid (`src/radeid/models/default`).
BUNDLED_MODEL = "bundled"


def bundled_model_path() -> Path:
    """The folder of the bundled default model (ONNX int8, shipped in the package)."""
    return Path(__file__).resolve().parent.parent / "models" / "default"


def resolve_model(model: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """`"bundled"` means the model shipped with radeid, unless a folder of that name exists here."""
    if str(model) == BUNDLED_MODEL and not Path(BUNDLED_MODEL).is_dir():
        return bundled_model_path()
    return model


def load_model(
    model: str | os.PathLike[str],
    *,
    backend: str = "auto",
    batch_size: int = 16,
    threads: int | None = None,
    device: str = "cpu",
    onnx_file: str | None = None,
) -> LoadedModel:
    """Resolve a folder or hub name to a tokenizer, a scorer, the labels and the length limit."""
    model = resolve_model(model)
    chosen = choose_backend(model, backend)
    if chosen == "onnx":
        return _load_onnx(Path(model), batch_size, threads, device, onnx_file)
    return _load_torch(str(model), batch_size, threads, device)


def _load_tokenizer_file(path: Path) -> Tokenizer:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ModelLoadError("running a model needs the tokenizers package: pip install tokenizers") from None
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a plain Exception on a bad file
        raise ModelLoadError(f"cannot read tokenizer {path}: {exc}") from None


def _load_onnx(folder: Path, batch_size: int, threads: int | None, device: str, onnx_file: str | None) -> LoadedModel:
    path = folder / (onnx_file or ONNX_FILE)
    if not path.exists():
        found = sorted(p.name for p in folder.glob("*.onnx"))
        if onnx_file is None and len(found) == 1:
            path = folder / found[0]
        else:
            raise ModelLoadError(f"{path} not found (ONNX files in the folder: {', '.join(found) or 'none'})")
    if not (folder / TOKENIZER_FILE).exists():
        raise ModelLoadError(f"{folder} has no {TOKENIZER_FILE}; `radeid model export` writes one next to the model")
    labels = labels_from_folder(folder)
    if not labels:
        raise ModelLoadError(f"{folder} names no labels: expected {METADATA_FILE} (labels) or config.json (id2label)")
    config = read_json(folder / "config.json")
    tokenizer = PieceTokenizer(_load_tokenizer_file(folder / TOKENIZER_FILE), _pad_from_config(config))
    metadata = read_json(folder / METADATA_FILE) or {}
    if str(metadata.get("quantization", "")).startswith("int8-dynamic") and onnx_file in (None, ONNX_FILE):
        # Dynamic quantization scales activations over the whole input tensor, so a window's
        # scores would depend on the windows batched (and padded) with it: the same document
        # could come out differently in a Spark partition and in a local run. One window per call
        # keeps every result a function of the window alone.
        batch_size = 1
    scorer = OnnxScorer(path, tokenizer, batch_size=batch_size, threads=threads, device=device)
    if scorer.uses_shapes:
        _check_shape_version(folder, read_json(folder / METADATA_FILE) or config)
    return LoadedModel(
        source=str(folder),
        backend="onnx",
        tokenizer=tokenizer,
        scorer=scorer,
        labels=labels,
        max_length=model_max_length(folder, config),
        metadata=read_json(folder / METADATA_FILE),
    )


def _check_shape_version(folder: Path, config: Mapping[str, Any]) -> None:
    """A model trained with another word-shape table would get wrong ids: refuse it."""
    try:
        if shape_spec(config) is None:
            raise ModelLoadError(f"{folder}: the model takes shape_ids but its config declares no {SHAPE_CONFIG_KEY}")
    except ValueError as exc:
        raise ModelLoadError(f"{folder}: {exc}") from None


def _pad_from_config(config: Mapping[str, Any]) -> int | None:
    pad = config.get("pad_token_id")
    return int(pad) if isinstance(pad, int) else None


def _import_transformers(what: str) -> Any:
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise ModelLoadError(
            f"{what} needs PyTorch and transformers (pip install 'radeid[train]'); "
            "to run without them, export the model to ONNX where they are installed "
            "(`radeid model export SRC DST --quantize int8`) and pass the ONNX folder"
        ) from None
    return transformers


def _load_torch(model: str, batch_size: int, threads: int | None, device: str) -> LoadedModel:
    folder = Path(model).expanduser()
    local = folder.is_dir()
    if not local and _looks_like_path(model):
        raise ModelLoadError(f"model folder {model!r} not found")
    what = f"loading the PyTorch model {model!r}" if local else f"loading {model!r} from the Hugging Face hub"
    transformers = _import_transformers(what)
    import torch

    if threads:
        torch.set_num_threads(int(threads))
    tokenizer_limit: int | None = None
    try:
        if local and SHAPE_CONFIG_KEY in read_json(folder / "config.json"):
            _check_shape_version(folder, read_json(folder / "config.json"))
            from radeid.train.model import ShapeTokenClassifier

            hf_model = ShapeTokenClassifier.from_pretrained(folder)
        else:
            hf_model = transformers.AutoModelForTokenClassification.from_pretrained(str(folder) if local else model)
        if local and (folder / TOKENIZER_FILE).exists():
            backend_tokenizer = _load_tokenizer_file(folder / TOKENIZER_FILE)
        else:
            auto = transformers.AutoTokenizer.from_pretrained(str(folder) if local else model)
            limit = getattr(auto, "model_max_length", None)
            tokenizer_limit = int(limit) if isinstance(limit, int) and 0 < limit < 1_000_000 else None
            backend_tokenizer = getattr(auto, "backend_tokenizer", None)
            if backend_tokenizer is None:
                raise ModelLoadError(f"{model!r} has no fast tokenizer (tokenizer.json); radeid needs one for offsets")
    except ModelLoadError:
        raise
    except (OSError, ValueError) as exc:
        if local:
            raise ModelLoadError(f"cannot load the model folder {model!r}: {exc}") from None
        raise ModelLoadError(
            f"cannot load {model!r}: it is not a local folder and the Hugging Face hub could not provide it "
            f"(offline?). {_OFFLINE_HINT}. Detail: {_first_line(exc)}"
        ) from None
    config = hf_model.config
    id2label = getattr(config, "id2label", None) or {}
    labels = labels_from_id2label(id2label)
    config_dict = config.to_dict()
    max_length = model_max_length(folder if local else None, config_dict)
    if tokenizer_limit is not None:
        max_length = min(max_length, tokenizer_limit)
    tokenizer = PieceTokenizer(backend_tokenizer, _pad_from_config(config_dict))
    scorer = TorchScorer(hf_model, tokenizer, batch_size=batch_size, device=device)
    return LoadedModel(
        source=model,
        backend="torch",
        tokenizer=tokenizer,
        scorer=scorer,
        labels=labels,
        max_length=max_length,
        metadata={},
    )


def _check_options(threshold: float, stride: int) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError("threshold must be in (0, 1]")
    if stride < 0:
        raise ValueError("stride must not be negative")


def _looks_like_path(model: str) -> bool:
    """Hub names are `name` or `org/name`; anything else that does not exist is a missing folder."""
    return model.startswith(("/", ".", "~")) or "\\" in model or model.count("/") > 1 or Path(model).suffix == ".onnx"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# ------------------------------------------------------------------------------------ detector


class TransformerDetector:
    """PHI spans from a token-classification model; see the module docstring for the steps.

    Options: `backend` auto/onnx/torch; `label_map` a bundled map name, a TOML path or a dict
    (default: the model's labels are radeid categories); `scheme` auto/bio/io; `threshold` on
    `1 - P(O)` per word piece; `batch_size` windows per inference call; `max_length` word pieces
    per window including special tokens (default and upper bound: the model's own limit);
    `stride` overlap between windows; `threads` CPU threads (ONNX session, or torch's global
    setting); `device` cpu/cuda; `onnx_file` to pick one of several `.onnx` files in a folder;
    `check_forms` drops spans whose text cannot be their category (see `plausible`).
    """

    check_forms: bool = False

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
    ) -> None:
        self.check_forms = check_forms
        if not str(model):
            raise ModelLoadError("no model given (transformer.model is empty)")
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
                "the transformer detector needs a model: set transformer.model to an ONNX export folder "
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
        plans = [
            plan_windows(len(ids), self.max_tokens, self.stride, boundary_strengths(text, offsets))
            for text, (ids, offsets) in zip(texts, encoded, strict=True)
        ]
        shapes = None
        if getattr(self.loaded.scorer, "uses_shapes", False):
            shapes = [word_shapes(text, offsets) for text, (_, offsets) in zip(texts, encoded, strict=True)]
        probs = score_documents([ids for ids, _ in encoded], plans, self.loaded.scorer, shapes)
        n_labels = len(self.labels)
        return [
            (offsets, p if len(ids) else np.zeros((0, n_labels), dtype=np.float32))
            for (ids, offsets), p in zip(encoded, probs, strict=True)
        ]

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
