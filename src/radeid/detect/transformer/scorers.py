"""Scoring backends: windows of word-piece ids in, label probabilities out (ONNX Runtime or PyTorch).

Both share the batching (windows sorted by length, memory-bounded batches, padding, special
tokens added and removed); each imports its runtime only when built.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from radeid.detect.transformer.errors import ModelLoadError
from radeid.detect.transformer.tokenizer import PieceTokenizer

__all__ = ["ATTENTION_CELLS", "DISABLED_OPTIMIZERS", "OnnxScorer", "TorchScorer"]


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=-1, keepdims=True)
    return shifted


#: Upper bound on windows x length^2 per inference call. Attention matrices dominate memory (about
#: 1.3 GiB for 16 windows of 512 pieces with MiniLM in ONNX Runtime), so long windows go in smaller
#: batches: 4 windows of 512, 16 of 256. Speed barely changes; peak memory stays well under 1 GiB.
ATTENTION_CELLS = 4 * 512 * 512

#: ONNX Runtime graph rewrites left out. SkipLayerNormFusion merges each residual Add with its
#: LayerNormalization; on the bundled MiniLM the fused CPU kernel took a fifth of a 256-piece
#: window's time, and without it a window runs about 17% faster (one thread, interleaved A/B,
#: benchmarks/windows.py). Outputs move only by float rounding (label probabilities within 1e-5).
DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


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
            self.session = ort.InferenceSession(
                str(path), options, providers=providers, disabled_optimizers=list(DISABLED_OPTIMIZERS)
            )
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
