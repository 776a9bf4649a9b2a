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

Modules: `labels` (label schemes, decoding to spans), `tokenizer` (`PieceTokenizer`), `scorers`
(ONNX Runtime and PyTorch backends), `folder` (what a model folder holds: files, labels, metadata,
limits, the bundled model), `loading` (`load_model`), `detector` (`TransformerDetector`) and
`errors` (`ModelLoadError`). The names below are re-exported here; those of modules that import
numpy (the detector, labels, loading, scorers, tokenizer) on first use, so that a run without a
model (`--no-model`), which still names the bundled model's folder, never pays for numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from radeid.detect.transformer.errors import ModelLoadError
from radeid.detect.transformer.folder import (
    BUNDLED_MODEL,
    DEFAULT_MAX_LENGTH,
    METADATA_FILE,
    ONNX_FILE,
    TOKENIZER_FILE,
    WEIGHT_FILES,
    bundled_model_path,
    choose_backend,
    labels_from_folder,
    labels_from_id2label,
    model_max_length,
    parse_thresholds,
    read_json,
    resolve_model,
)

if TYPE_CHECKING:
    from radeid.detect.transformer.detector import TransformerDetector, plausible
    from radeid.detect.transformer.labels import OUTSIDE_LABELS, LabelDecoder, detect_scheme
    from radeid.detect.transformer.loading import LoadedModel, load_model
    from radeid.detect.transformer.scorers import ATTENTION_CELLS, OnnxScorer, TorchScorer
    from radeid.detect.transformer.tokenizer import PieceTokenizer

#: Names imported on first use, and the submodule of each.
_LAZY = {
    "TransformerDetector": "detector",
    "plausible": "detector",
    "OUTSIDE_LABELS": "labels",
    "LabelDecoder": "labels",
    "detect_scheme": "labels",
    "LoadedModel": "loading",
    "load_model": "loading",
    "ATTENTION_CELLS": "scorers",
    "OnnxScorer": "scorers",
    "TorchScorer": "scorers",
    "PieceTokenizer": "tokenizer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    loaded = importlib.import_module(f"{__name__}.{module}")
    # Bind every name of that module now, so the next name from it is a plain attribute lookup.
    globals().update({other: getattr(loaded, other) for other, home in _LAZY.items() if home == module})
    return globals()[name]


__all__ = [
    "ATTENTION_CELLS",
    "BUNDLED_MODEL",
    "DEFAULT_MAX_LENGTH",
    "METADATA_FILE",
    "ONNX_FILE",
    "OUTSIDE_LABELS",
    "TOKENIZER_FILE",
    "WEIGHT_FILES",
    "LabelDecoder",
    "LoadedModel",
    "ModelLoadError",
    "OnnxScorer",
    "PieceTokenizer",
    "TorchScorer",
    "TransformerDetector",
    "bundled_model_path",
    "choose_backend",
    "detect_scheme",
    "labels_from_folder",
    "labels_from_id2label",
    "load_model",
    "model_max_length",
    "parse_thresholds",
    "plausible",
    "read_json",
    "resolve_model",
]
