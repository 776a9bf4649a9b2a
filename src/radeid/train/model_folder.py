"""The files of a trained model folder besides its weights: the base model's tokenizer and window limit.

A saved folder is what `radeid model export` and the detector read: weights, the tokenizer files
copied from the base model, and the training window length as the tokenizer's `model_max_length`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.detect.transformer.tokenizer import PieceTokenizer

if TYPE_CHECKING:
    from radeid.detect.transformer.torch_model import ShapeTokenClassifier

__all__ = ["base_tokenizer", "save_model_folder"]

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def save_model_folder(
    model: ShapeTokenClassifier, tokenizer: PieceTokenizer, base: str, folder: Path, max_length: int
) -> Path:
    """`model`'s weights in `folder`, with the tokenizer files of `base` and the window limit."""
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    base_folder = Path(base)
    for name in _TOKENIZER_FILES:
        if (base_folder / name).exists():
            shutil.copyfile(base_folder / name, folder / name)
    if not (folder / "tokenizer.json").exists():
        tokenizer.tokenizer.save(str(folder / "tokenizer.json"))
    _set_window_limit(folder, max_length)
    return folder


def _set_window_limit(folder: Path, max_length: int) -> None:
    """Record the training window length as the tokenizer's `model_max_length`: the detector (and
    `radeid model export`) read it, so inference windows are no longer than the ones trained on."""
    path = folder / "tokenizer_config.json"
    data: dict[str, Any] = {}
    if path.exists():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            data = loaded if isinstance(loaded, dict) else {}
        except (OSError, json.JSONDecodeError):
            data = {}
    data["model_max_length"] = int(max_length)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def base_tokenizer(base: str) -> PieceTokenizer:
    """The base model's fast tokenizer, set up exactly as the detector sets it up."""
    from tokenizers import Tokenizer

    folder = Path(base)
    if (folder / "tokenizer.json").exists():
        return PieceTokenizer(Tokenizer.from_file(str(folder / "tokenizer.json")))
    from transformers import AutoTokenizer

    auto = AutoTokenizer.from_pretrained(base)
    backend = getattr(auto, "backend_tokenizer", None)
    if backend is None:
        raise ValueError(f"{base!r} has no fast tokenizer (tokenizer.json); radeid needs offsets")
    return PieceTokenizer(backend)
