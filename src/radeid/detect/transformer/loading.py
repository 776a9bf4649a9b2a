"""`load_model`: a model folder or hub name becomes a tokenizer, a scorer, labels and a length limit.

The ONNX path needs only onnxruntime and tokenizers; the PyTorch path (a Hugging Face folder or a
hub name) imports torch and transformers, and `radeid.detect.transformer.torch_model` for models with word shapes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.detect.chunking import WindowScorer
from radeid.detect.shapes import CONFIG_KEY as SHAPE_CONFIG_KEY
from radeid.detect.shapes import shape_spec
from radeid.detect.transformer.errors import ModelLoadError
from radeid.detect.transformer.folder import (
    METADATA_FILE,
    ONNX_FILE,
    TOKENIZER_FILE,
    choose_backend,
    labels_from_folder,
    labels_from_id2label,
    model_max_length,
    read_json,
    resolve_model,
)
from radeid.detect.transformer.scorers import OnnxScorer, TorchScorer
from radeid.detect.transformer.tokenizer import PieceTokenizer

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["LoadedModel", "load_model"]

_OFFLINE_HINT = (
    "radeid can run offline from a local folder: where there is internet, download the model "
    "(e.g. `hf download NAME --local-dir DIR`) or export it with `radeid model export NAME DIR "
    "--quantize int8`, then pass DIR as the model"
)


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
            from radeid.detect.transformer.torch_model import ShapeTokenClassifier

            hf_model = ShapeTokenClassifier.from_pretrained(folder)
        else:
            hf_model = transformers.AutoModelForTokenClassification.from_pretrained(str(folder) if local else model)
        if local and (folder / TOKENIZER_FILE).exists():
            backend_tokenizer = _load_tokenizer_file(folder / TOKENIZER_FILE)
        else:
            auto = transformers.AutoTokenizer.from_pretrained(str(folder) if local else model)
            limit = getattr(auto, "model_max_length", None)
            tokenizer_limit = int(limit) if isinstance(limit, int) and 0 < limit < 1_000_000 else None
            fast_tokenizer = getattr(auto, "backend_tokenizer", None)
            if fast_tokenizer is None:
                raise ModelLoadError(f"{model!r} has no fast tokenizer (tokenizer.json); radeid needs one for offsets")
            backend_tokenizer = fast_tokenizer
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


def _looks_like_path(model: str) -> bool:
    """Hub names are `name` or `org/name`; anything else that does not exist is a missing folder."""
    return model.startswith(("/", ".", "~")) or "\\" in model or model.count("/") > 1 or Path(model).suffix == ".onnx"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
