"""Export a Hugging Face token-classification model to an ONNX folder, and prove the export right.

Why the checks: an export can be silently wrong. With this BERT, the legacy TorchScript exporter
produced a graph whose hidden states drifted far from eager PyTorch, so only the `dynamo=True`
exporter is used, and every export is compared with the PyTorch model on sample text before it
is written: the largest logit difference and the share of word pieces whose label agrees are
reported, and the export fails when labels disagree on more than `max_disagreement` (0.5%) of the
word pieces. Dynamic int8 quantization uses per-channel weights (per-tensor scales moved MiniLM's
hidden states noticeably) and is checked the same way, against PyTorch and against the fp32 graph.

The output folder is what `TransformerDetector` loads without torch:
`model.onnx`, `tokenizer.json` (+ tokenizer_config.json etc.), `config.json` and `radeid.json`
(labels, length limit, quantization, verification figures). It is written to a temporary folder
and renamed into place, so a failed export leaves nothing half-written.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from radeid import __version__
from radeid.detect.chunking import plan_windows
from radeid.detect.shapes import CONFIG_KEY as SHAPE_CONFIG_KEY
from radeid.detect.shapes import word_shapes
from radeid.detect.transformer import (
    METADATA_FILE,
    ONNX_FILE,
    TOKENIZER_FILE,
    LoadedModel,
    OnnxScorer,
    TorchScorer,
    load_model,
)
from radeid.model.graph import drop_softmax_nan_guards

__all__ = ["SAMPLE_TEXTS", "AgreementStats", "ExportError", "ExportReport", "compare_logits", "export_model"]

#: Default verification text: radiology-style sentences with names, dates, IDs, places and vendors
#: (all invented), long enough that 0.5% of the word pieces is a handful of them.
SAMPLE_TEXTS: tuple[str, ...] = (
    "PATIENT NAME: Holloway, Marcus    MRN: 40718325\nDOB: 03/14/1952    ACCESSION #: CT21-448190\n"
    "EXAM: CT CHEST WITH CONTRAST\nREFERRING PHYSICIAN: Dr. Priya Raman, MD    PHONE: (617) 555-0143\n\n"
    "FINDINGS: There is a 6 mm solid nodule in the right upper lobe, unchanged since 2019-11-02. No "
    "pleural effusion or pneumothorax. The heart is normal in size. Images were acquired on a Siemens "
    "SOMATOM Force scanner at Riverside General Hospital.\n\nIMPRESSION: Stable pulmonary nodule.",
    "Comparison is made to the outside MRI from St. Agnes Medical Center dated January 7, 2020. The "
    "ventricles are normal in size. There is no acute infarct, hemorrhage or mass effect. Findings were "
    "discussed with Dr. O'Connor by telephone at 14:32 on 02/11/2021 and read back.",
    "Electronically signed by Dr. Helena Vasquez-Ortiz on 12/30/2022 08:15. Dictated by resident Tom "
    "Nguyen. Technologist: J. Kowalski. Account 0099-118-3456. Please call 555-867-5309 with questions.",
    "Ultrasound of the abdomen (GE LOGIQ E10) at Lakeview Community Hospital, 1200 Harbor Street, "
    "Springfield, IL 62704. The liver measures 15.2 cm and is mildly echogenic, compatible with hepatic "
    "steatosis. The gallbladder is distended with multiple mobile stones; no wall thickening. The "
    "common bile duct measures 4 mm. Both kidneys are normal in size without hydronephrosis.",
    "History: 67-year-old woman, fall on 2023-04-18, left hip pain. Frontal and lateral views of the "
    "left hip. There is an acute, mildly displaced intertrochanteric fracture. Bones are osteopenic. "
    "Follow-up recommended with Dr. Schmidt at Northgate Regional Medical Center, pager 4471.",
    "Mammography screening, bilateral, performed on a Hologic Selenia Dimensions unit. Breast density: "
    "heterogeneously dense. No suspicious mass, calcification or architectural distortion. BI-RADS 1. "
    "Patient Jane Q. Doe (SSN 123-45-6789) was informed by letter on March 3rd, 2024.",
)


class ExportError(RuntimeError):
    """An export that could not be made or did not match the PyTorch model."""


@dataclass(frozen=True)
class AgreementStats:
    """How close one model's logits are to a reference's, over real word pieces (no padding)."""

    tokens: int
    max_logit_diff: float
    agreement: float

    @property
    def disagreement(self) -> float:
        return 1.0 - self.agreement


@dataclass
class ExportReport:
    """What was written and how well it matches PyTorch."""

    dst: Path
    labels: tuple[str, ...]
    max_length: int
    quantize: str | None
    fp32_vs_torch: AgreementStats
    int8_vs_torch: AgreementStats | None = None
    int8_vs_fp32: AgreementStats | None = None
    files: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    nan_guards_removed: int = 0

    def lines(self) -> list[str]:
        out = [
            f"fp32 ONNX vs PyTorch: max |logit diff| {self.fp32_vs_torch.max_logit_diff:.2e}, "
            f"label agreement {self.fp32_vs_torch.agreement:.2%} over {self.fp32_vs_torch.tokens} word pieces"
        ]
        if self.int8_vs_torch is not None and self.int8_vs_fp32 is not None:
            out.append(
                f"int8 ONNX vs PyTorch: max |logit diff| {self.int8_vs_torch.max_logit_diff:.3f}, "
                f"label agreement {self.int8_vs_torch.agreement:.2%}"
            )
            out.append(
                f"int8 vs fp32 ONNX: max |logit diff| {self.int8_vs_fp32.max_logit_diff:.3f}, "
                f"label agreement {self.int8_vs_fp32.agreement:.2%}"
            )
        if self.nan_guards_removed:
            out.append(f"removed {self.nan_guards_removed} softmax NaN guards (IsNaN + Where); logits bit-identical")
        for name, size in sorted(self.files.items()):
            out.append(f"{name}: {size / 1e6:.1f} MB" if size >= 100_000 else f"{name}: {size / 1e3:.1f} kB")
        return out


def compare_logits(reference: Sequence[np.ndarray], candidate: Sequence[np.ndarray]) -> AgreementStats:
    """Largest absolute logit difference and argmax agreement, token by token."""
    ref = np.concatenate([np.asarray(r, dtype=np.float32) for r in reference])
    cand = np.concatenate([np.asarray(c, dtype=np.float32) for c in candidate])
    if ref.shape != cand.shape:
        raise ExportError(f"logit shapes differ: {ref.shape} vs {cand.shape}")
    if ref.size == 0:
        raise ExportError("no word pieces to compare; give sample text")
    diff = float(np.abs(ref - cand).max())
    agreement = float((ref.argmax(axis=1) == cand.argmax(axis=1)).mean())
    return AgreementStats(tokens=int(ref.shape[0]), max_logit_diff=diff, agreement=agreement)


def _sample_windows(loaded: Any, texts: Sequence[str], max_tokens: int) -> tuple[list[list[int]], list[list[int]]]:
    """Word-piece windows of the sample text and, aligned with them, their word-shape ids."""
    windows: list[list[int]] = []
    shapes: list[list[int]] = []
    for text, (ids, offsets) in zip(texts, loaded.tokenizer.encode(texts), strict=True):
        text_shapes = word_shapes(text, offsets)
        for w in plan_windows(len(ids), max_tokens, max_tokens // 4):
            windows.append(list(ids[w.start : w.end]))
            shapes.append(text_shapes[w.start : w.end])
    return windows, shapes


def _export_onnx(scorer: TorchScorer, path: Path, sample: list[int], max_length: int, opset: int | None) -> None:
    """The dynamo export of the scorer's model to `path` (the exporter's progress and warnings silenced)."""
    import torch

    wrapper = _logits_wrapper(scorer)
    names, args, dynamic = _example_inputs(scorer, sample, max_length)
    param_bytes = sum(p.numel() * p.element_size() for p in scorer.model.parameters())
    for name in ("torch.onnx", "torch.onnx._internal.exporter._registration"):
        logging.getLogger(name).setLevel(logging.ERROR)
    with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        # The exporter prints progress and warns about unused axis names; neither helps the user.
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            wrapper,
            args,
            dynamo=True,
            input_names=names,
            output_names=["logits"],
            dynamic_shapes=dynamic,
            opset_version=opset,
            optimize=True,
            verbose=False,
        )
    if program is None:  # pragma: no cover - the dynamo exporter always returns a program
        raise ExportError("torch.onnx.export returned nothing")
    program.save(str(path), external_data=param_bytes > 1_800_000_000)


def _logits_wrapper(scorer: TorchScorer) -> Any:
    """The model in eval mode behind a module whose output is the logits tensor alone (what the exporter traces)."""
    import torch

    class LogitsOnly(torch.nn.Module):
        """A plain tensor in, a plain tensor out: no model-output dataclass in the graph."""

        def __init__(self, model: torch.nn.Module, token_types: bool) -> None:
            super().__init__()
            self.model = model
            self.token_types = token_types

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor | None = None
        ) -> torch.Tensor:
            kwargs: dict[str, torch.Tensor] = {"input_ids": input_ids, "attention_mask": attention_mask}
            if self.token_types and token_type_ids is not None:
                kwargs["token_type_ids"] = token_type_ids
            return self.model(**kwargs).logits

    class LogitsWithShapes(torch.nn.Module):
        """The same for models that read word shapes: `shape_ids` becomes a graph input."""

        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, shape_ids: torch.Tensor
        ) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask, shape_ids=shape_ids).logits

    wrapper: torch.nn.Module
    if scorer.uses_shapes:
        wrapper = LogitsWithShapes(scorer.model).eval()
    else:
        wrapper = LogitsOnly(scorer.model, scorer.uses_token_types).eval()
    return wrapper


def _example_inputs(
    scorer: TorchScorer, sample: list[int], max_length: int
) -> tuple[list[str], tuple[Any, ...], dict[str, dict[int, Any]]]:
    """The graph's input names, example tensors (two rows, one half padded) and dynamic batch/sequence axes."""
    import torch

    row = scorer.tokenizer.wrap(sample[: max(4, min(len(sample), max_length - scorer.tokenizer.n_special))])
    while len(row) < 8:
        row.append(scorer.tokenizer.pad_id)
    input_ids = torch.tensor([row, row], dtype=torch.long)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, len(row) // 2 :] = 0
    batch = torch.export.Dim("batch", min=1, max=4096)
    sequence = torch.export.Dim("sequence", min=1, max=max_length)
    names = ["input_ids", "attention_mask"]
    args: tuple[torch.Tensor, ...] = (input_ids, attention_mask)
    if scorer.uses_shapes:
        names.append("shape_ids")
        args = (*args, (input_ids % 5) * attention_mask)  # any ids in range; values do not shape the graph
    elif scorer.uses_token_types:
        names.append("token_type_ids")
        args = (*args, torch.zeros_like(input_ids))
    dynamic = {name: {0: batch, 1: sequence} for name in names}
    return names, args, dynamic


def _drop_nan_guards(path: Path) -> int:
    """`radeid.model.graph.drop_softmax_nan_guards` on an ONNX file, rewritten in place."""
    import onnx

    external = path.with_name(path.name + ".data").exists()
    model = onnx.load(str(path))
    removed = drop_softmax_nan_guards(model)
    if removed:
        if external:
            path.with_name(path.name + ".data").unlink()
        onnx.save(model, str(path), save_as_external_data=external, location=path.name + ".data")
    return removed


def _remove_onnx(path: Path) -> None:
    """An ONNX file and its external-data file, if it has one."""
    path.unlink()
    data = path.with_name(path.name + ".data")
    if data.exists():
        data.unlink()


def _quantize_int8(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic logs a pre-processing hint on the root logger
    try:
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)


def _write_tokenizer(model_source: str, tokenizer: Any, dst: Path) -> None:
    folder = Path(model_source)
    copied = False
    if folder.is_dir():
        for name in (TOKENIZER_FILE, "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
            if (folder / name).exists():
                shutil.copyfile(folder / name, dst / name)
                copied = copied or name == TOKENIZER_FILE
    if not copied:
        tokenizer.tokenizer.save(str(dst / TOKENIZER_FILE))


def _prepare_destination(dst: Path, overwrite: bool) -> None:
    if not dst.exists():
        return
    if not dst.is_dir():
        raise ExportError(f"{dst} exists and is not a folder")
    if any(dst.iterdir()):
        if not overwrite:
            raise ExportError(f"{dst} exists and is not empty; pass --overwrite to replace an earlier export")
        if not (dst / METADATA_FILE).exists():
            raise ExportError(f"{dst} is not an earlier radeid export (no {METADATA_FILE}); refusing to replace it")


def export_model(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    quantize: str | None = None,
    samples: Sequence[str] | None = None,
    max_disagreement: float = 0.005,
    opset: int | None = None,
    overwrite: bool = False,
    keep_fp32: bool = False,
) -> ExportReport:
    """Export `src` (a Hugging Face folder or hub name) to an ONNX folder `dst`, verified."""
    if quantize not in (None, "int8"):
        raise ExportError(f"quantize must be 'int8' or nothing, not {quantize!r}")
    started = time.perf_counter()
    dst = Path(dst)
    _prepare_destination(dst, overwrite)
    loaded = load_model(src, backend="torch", batch_size=8)
    torch_scorer = loaded.scorer
    assert isinstance(torch_scorer, TorchScorer)
    max_tokens = loaded.max_length - loaded.tokenizer.n_special
    windows, shapes = _sample_windows(loaded, list(samples) if samples else list(SAMPLE_TEXTS), max_tokens)
    if not windows:
        raise ExportError("the sample text has no word pieces")
    reference = torch_scorer.logits_windows(windows, shapes)

    dst.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dst.name}.", dir=dst.parent))
    try:
        fp32_path = work / "model_fp32.onnx"
        fp32_logits, guards = _export_fp32(loaded, torch_scorer, fp32_path, windows, shapes, opset)
        report = ExportReport(
            dst=dst,
            labels=loaded.labels,
            max_length=loaded.max_length,
            quantize=quantize,
            fp32_vs_torch=compare_logits(reference, fp32_logits),
        )
        report.nan_guards_removed = guards
        _check(report.fp32_vs_torch, "fp32 ONNX", max_disagreement)
        if quantize == "int8":
            _quantize_checked(report, loaded, fp32_path, windows, shapes, reference, fp32_logits, max_disagreement)
            (work / "model_int8.onnx").replace(work / ONNX_FILE)
            if not keep_fp32:
                _remove_onnx(fp32_path)
        else:
            fp32_path.replace(work / ONNX_FILE)
        _write_folder(work, str(src), loaded, torch_scorer, report, max_disagreement, started)
        if dst.exists():
            shutil.rmtree(dst)
        work.replace(dst)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return report


def _export_fp32(
    loaded: LoadedModel,
    torch_scorer: TorchScorer,
    fp32_path: Path,
    windows: list[list[int]],
    shapes: list[list[int]],
    opset: int | None,
) -> tuple[list[np.ndarray], int]:
    """The fp32 graph exported and scored; its softmax NaN guards dropped, proved not to change a logit."""
    _export_onnx(torch_scorer, fp32_path, max(windows, key=len), loaded.max_length, opset)
    fp32 = OnnxScorer(fp32_path, loaded.tokenizer, batch_size=8)
    if fp32.uses_shapes != torch_scorer.uses_shapes:
        raise ExportError("the ONNX graph's inputs do not match the model's (shape_ids)")
    fp32_logits = fp32.logits_windows(windows, shapes)
    del fp32
    guards = _drop_nan_guards(fp32_path)
    if guards:
        edited = OnnxScorer(fp32_path, loaded.tokenizer, batch_size=8).logits_windows(windows, shapes)
        if not all(np.array_equal(a, b) for a, b in zip(fp32_logits, edited, strict=True)):
            raise ExportError("removing the softmax NaN guards changed the logits; nothing was written")
    return fp32_logits, guards


def _quantize_checked(
    report: ExportReport,
    loaded: LoadedModel,
    fp32_path: Path,
    windows: list[list[int]],
    shapes: list[list[int]],
    reference: list[np.ndarray],
    fp32_logits: list[np.ndarray],
    max_disagreement: float,
) -> None:
    """Quantize to model_int8.onnx beside the fp32 graph and check it against PyTorch (and record it against fp32)."""
    int8_path = fp32_path.with_name("model_int8.onnx")
    _quantize_int8(fp32_path, int8_path)
    int8_logits = OnnxScorer(int8_path, loaded.tokenizer, batch_size=8).logits_windows(windows, shapes)
    report.int8_vs_torch = compare_logits(reference, int8_logits)
    report.int8_vs_fp32 = compare_logits(fp32_logits, int8_logits)
    _check(report.int8_vs_torch, "int8 ONNX", max_disagreement)


def _write_folder(
    work: Path,
    src: str,
    loaded: LoadedModel,
    torch_scorer: TorchScorer,
    report: ExportReport,
    max_disagreement: float,
    started: float,
) -> None:
    """The tokenizer, config.json and radeid.json beside the graph; the report's file sizes and time filled in."""
    _write_tokenizer(src, loaded.tokenizer, work)
    torch_scorer.model.config.to_json_file(str(work / "config.json"))
    report.files = {p.name: p.stat().st_size for p in sorted(work.iterdir()) if p.is_file()}
    report.seconds = time.perf_counter() - started
    shape_features = getattr(torch_scorer.model.config, SHAPE_CONFIG_KEY, None)
    _write_metadata(work / METADATA_FILE, src, report, max_disagreement, shape_features)
    report.files[METADATA_FILE] = (work / METADATA_FILE).stat().st_size


def _check(stats: AgreementStats, what: str, max_disagreement: float) -> None:
    if stats.disagreement > max_disagreement:
        raise ExportError(
            f"{what} disagrees with PyTorch on {stats.disagreement:.2%} of {stats.tokens} word pieces "
            f"(limit {max_disagreement:.2%}; max |logit diff| {stats.max_logit_diff:.3g}); nothing was written"
        )


def _write_metadata(
    path: Path, source: str, report: ExportReport, max_disagreement: float, shape_features: Any = None
) -> None:
    def stats(value: AgreementStats | None) -> dict[str, Any] | None:
        return None if value is None else asdict(value)

    data = {
        "format": "radeid-onnx",
        "format_version": 1,
        "radeid_version": __version__,
        "source": source,
        "labels": list(report.labels),
        "max_length": report.max_length,
        "quantization": "int8-dynamic-per-channel" if report.quantize == "int8" else None,
        "exporter": "torch.onnx dynamo",
        **({"graph_edits": ["softmax-nan-guards-removed"]} if report.nan_guards_removed else {}),
        **({SHAPE_CONFIG_KEY: dict(shape_features)} if shape_features else {}),
        "verification": {
            "max_disagreement": max_disagreement,
            "fp32_vs_torch": stats(report.fp32_vs_torch),
            "int8_vs_torch": stats(report.int8_vs_torch),
            "int8_vs_fp32": stats(report.int8_vs_fp32),
        },
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
