"""What a model folder holds: file names, labels, `radeid.json` metadata, length limit, backend.

Reads only small JSON and text files (no runtime is imported), so `radeid model info` and the
export can use it too; the bundled model's folder and the `"bundled"` model name live here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from radeid.core.categories import Category
from radeid.detect.transformer.errors import ModelLoadError

__all__ = [
    "BUNDLED_MODEL",
    "DEFAULT_MAX_LENGTH",
    "METADATA_FILE",
    "ONNX_FILE",
    "TOKENIZER_FILE",
    "WEIGHT_FILES",
    "bundled_model_path",
    "choose_backend",
    "labels_from_folder",
    "labels_from_id2label",
    "model_max_length",
    "parse_thresholds",
    "read_json",
    "resolve_model",
]

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

#: Models whose position ids start after the padding index, so that fewer positions are usable.
_OFFSET_POSITION_MODELS = frozenset(
    {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer", "mpnet", "ibert", "data2vec-text"}
)
DEFAULT_MAX_LENGTH = 512


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


#: `detectors.transformer.model` value that names the model bundled with radeid (`src/radeid/models/default`);
#: `"bundled:<language>"` names a language pack's bundled model (`src/radeid/models/<language>`).
BUNDLED_MODEL = "bundled"


def bundled_model_path(language: str = "") -> Path:
    """The folder of a bundled model (ONNX int8, shipped in the package): English by default."""
    models = Path(__file__).resolve().parents[2] / "models"
    return models / "default" if language in ("", "en") else models / language


def resolve_model(model: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """`"bundled"` (or `"bundled:es"`) means a model shipped with radeid, unless a folder of that name
    exists here; a bundled language with no model folder is an error naming the ones shipped."""
    text = str(model)
    if Path(text).is_dir() or not (text == BUNDLED_MODEL or text.startswith(BUNDLED_MODEL + ":")):
        return model
    folder = bundled_model_path(text.partition(":")[2])
    if not folder.is_dir():
        shipped = sorted(
            f"bundled:{p.name}" for p in folder.parent.iterdir() if p.name != "default" and (p / "model.onnx").is_file()
        )
        raise ModelLoadError(f"no bundled model {text!r}; shipped: bundled, {', '.join(shipped)}")
    return folder
