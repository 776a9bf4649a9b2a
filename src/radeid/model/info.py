"""What a model folder holds: format, labels and their radeid categories, limits, sizes.

Reads only JSON files and file sizes, so it works without torch or onnxruntime and never loads
weights: `radeid model info` is safe to run on any folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radeid.detect.shapes import CONFIG_KEY as SHAPE_CONFIG_KEY
from radeid.detect.transformer import (
    METADATA_FILE,
    ONNX_FILE,
    TOKENIZER_FILE,
    WEIGHT_FILES,
    LabelDecoder,
    ModelLoadError,
    detect_scheme,
    labels_from_folder,
    model_max_length,
    read_json,
)

__all__ = ["ModelInfo", "model_info"]


@dataclass
class ModelInfo:
    """A summary of one model folder."""

    path: Path
    format: str
    labels: tuple[str, ...]
    scheme: str
    categories: dict[str, str]
    max_length: int
    model_type: str | None
    layers: int | None
    hidden_size: int | None
    vocab_size: int | None
    quantization: str | None
    files: dict[str, int] = field(default_factory=dict)
    verification: Mapping[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    shape_features: Mapping[str, Any] | None = None

    @property
    def size_bytes(self) -> int:
        return sum(self.files.values())

    def lines(self) -> list[str]:
        out = [
            f"path: {self.path}",
            f"format: {self.format}" + (f" ({self.quantization})" if self.quantization else ""),
            f"architecture: {self.model_type or 'unknown'}, {self.layers or '?'} layers, "
            f"hidden {self.hidden_size or '?'}, vocabulary {self.vocab_size or '?'}",
            f"max length: {self.max_length} word pieces per window (special tokens included)",
            f"labels ({len(self.labels)}, {self.scheme.upper()}): {', '.join(self.labels)}",
        ]
        if self.shape_features:
            out.append(
                f"inputs: word pieces + word shapes (casing; version {self.shape_features.get('version')}, "
                f"embedding size {self.shape_features.get('dim')})"
            )
        if self.categories:
            mapped = ", ".join(f"{label} -> {cat}" for label, cat in self.categories.items())
            out.append(f"radeid categories: {mapped}")
        out.append(f"size: {self.size_bytes / 1e6:.1f} MB in {len(self.files)} files")
        for name, size in sorted(self.files.items()):
            out.append(f"  {name}: {_human(size)}")
        if self.verification:
            for name, stats in self.verification.items():
                if isinstance(stats, Mapping):
                    out.append(
                        f"verified {name}: max |logit diff| {stats.get('max_logit_diff', float('nan')):.3g}, "
                        f"label agreement {stats.get('agreement', float('nan')):.2%} over {stats.get('tokens')} pieces"
                    )
        out.extend(f"problem: {p}" for p in self.problems)
        return out


def _human(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"


def model_info(path: str | os.PathLike[str], label_map: str | None = None) -> ModelInfo:
    """Summarise a model folder; problems (no tokenizer, unmapped labels) are listed, not raised."""
    folder = Path(path)
    if not folder.is_dir():
        raise ModelLoadError(f"{folder} is not a folder")
    problems: list[str] = []
    has_onnx = (folder / ONNX_FILE).exists() or any(folder.glob("*.onnx"))
    has_weights = any((folder / name).exists() for name in WEIGHT_FILES)
    fmt = "onnx" if has_onnx else "pytorch" if has_weights else "unknown"
    if fmt == "unknown":
        problems.append(f"no {ONNX_FILE} and no PyTorch weights")
    if not (folder / TOKENIZER_FILE).exists():
        problems.append(f"no {TOKENIZER_FILE} (the ONNX path needs it)")
    config = read_json(folder / "config.json")
    meta = read_json(folder / METADATA_FILE)
    labels = labels_from_folder(folder) or ()
    if not labels:
        problems.append("no labels (radeid.json labels or config.json id2label)")
    categories: dict[str, str] = {}
    if labels:
        try:
            decoder = LabelDecoder(labels, label_map)
            for label, target in zip(labels, decoder.targets, strict=True):
                categories[label] = "O" if target is None else _key_name(target)
        except ModelLoadError as exc:
            problems.append(str(exc))
    files = {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file()}
    return ModelInfo(
        path=folder,
        format=fmt,
        labels=tuple(labels),
        scheme=detect_scheme(labels) if labels else "io",
        categories=categories,
        max_length=model_max_length(folder, config),
        model_type=config.get("model_type"),
        layers=config.get("num_hidden_layers"),
        hidden_size=config.get("hidden_size"),
        vocab_size=config.get("vocab_size"),
        quantization=meta.get("quantization"),
        files=files,
        verification=meta.get("verification"),
        problems=problems,
        shape_features=meta.get(SHAPE_CONFIG_KEY) or config.get(SHAPE_CONFIG_KEY),
    )


def _key_name(target: Any) -> str:
    category, subtype = target
    return f"{category.value}/{subtype}" if subtype else category.value
