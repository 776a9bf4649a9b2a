"""`radeid model export` and `radeid model info`, registered on the main CLI with `register(app)`.

Exit codes follow the main CLI: 0 ok, 1 the export ran but failed its check against PyTorch (or
the model could not be loaded), 2 usage errors (missing extras, bad paths or options). Only light
modules are imported here: the CLI imports this file on every start.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, fail
from radeid.cli.options import QuietOpt

__all__ = ["calibrate", "export", "info", "model_app", "register"]


model_app = typer.Typer(
    name="model",
    help="Export token-classification models to ONNX and inspect model folders.",
    no_args_is_help=True,
    add_completion=False,
)


def _consoles() -> tuple[Console, Console]:
    return Console(highlight=False, soft_wrap=True), Console(stderr=True, highlight=False, soft_wrap=True)


@model_app.command("export")
def export(
    src: Annotated[str, typer.Argument(help="Hugging Face model folder (or hub name, online only).")],
    dst: Annotated[Path, typer.Argument(help="Output folder for model.onnx, tokenizer.json, radeid.json.")],
    quantize: Annotated[
        str | None,
        typer.Option("--quantize", help="int8: dynamic int8 quantization with per-channel weights (smaller, faster)."),
    ] = None,
    sample_file: Annotated[
        list[Path] | None,
        typer.Option("--sample-file", help="Text file(s) to verify on instead of the built-in sample reports."),
    ] = None,
    max_disagreement: Annotated[
        float,
        typer.Option(
            "--max-disagreement", min=0.0, max=1.0, help="Fail when labels differ from PyTorch on more than this share."
        ),
    ] = 0.005,
    opset: Annotated[int | None, typer.Option("--opset", help="ONNX opset (default: the exporter's).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an earlier radeid export at DST.")] = False,
    keep_fp32: Annotated[bool, typer.Option("--keep-fp32", help="With --quantize, also keep model_fp32.onnx.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Export a token-classification model to ONNX and check it against PyTorch on sample text."""
    out, err = _consoles()
    _check_export_paths(src, dst, sample_file or [])
    samples = _check_export(quantize, sample_file)

    from radeid.detect.transformer import ModelLoadError
    from radeid.model.export import ExportError, export_model

    _quiet_libraries()
    if not quiet:
        err.print(f"exporting {escape(src)} -> {escape(str(dst))} (dynamo exporter) ...")
    try:
        report = export_model(
            src,
            dst,
            quantize=quantize,
            samples=samples,
            max_disagreement=max_disagreement,
            opset=opset,
            overwrite=overwrite,
            keep_fp32=keep_fp32,
        )
    except ExportError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except ModelLoadError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    for line in report.lines():
        out.print(escape(line))
    out.print(f"wrote {escape(str(report.dst))} in {report.seconds:.1f}s")


def _check_export_paths(src: str, dst: Path, sample_files: list[Path]) -> None:
    """DST may neither be nor hold nor sit inside SRC or a sample file (`radeid.io.paths`, exit 2)."""
    from radeid.cli.jobs import check_job_paths

    reads: dict[str, Path | None] = {"SRC": Path(src) if Path(src).exists() else None}  # else a hub name
    for n, path in enumerate(sample_files, 1):
        reads[f"--sample-file #{n}" if len(sample_files) > 1 else "--sample-file"] = path
    check_job_paths(reads, {"DST": dst})


def _check_export(quantize: str | None, sample_file: list[Path] | None) -> list[str] | None:
    """--quantize and the export extras checked, and the --sample-file texts read, before anything heavy loads."""
    if quantize not in (None, "int8"):
        raise fail(f"--quantize takes 'int8', not {quantize!r}", EXIT_USAGE)
    missing = [m for m in ("torch", "transformers", "onnx", "onnxscript", "onnxruntime") if not _has(m)]
    if missing:
        raise fail(
            f"export needs {', '.join(missing)}: pip install torch==2.13.0 first (a CPU build), "
            "then pip install 'radeid[train]'",
            EXIT_USAGE,
        )
    samples: list[str] | None = None
    if sample_file:
        try:
            samples = [p.read_text(encoding="utf-8") for p in sample_file]
        except OSError as exc:
            raise fail(f"cannot read a sample file: {exc}", EXIT_USAGE) from None
    return samples


@model_app.command("info")
def info(
    path: Annotated[
        str,
        typer.Argument(
            help="A model folder (ONNX export or Hugging Face folder); left out or 'bundled': the bundled "
            "English model; "
            "'bundled:es': the Spanish one."
        ),
    ] = "bundled",
    label_map: Annotated[
        str | None, typer.Option("--label-map", help="Label map to show categories with (e.g. stanford).")
    ] = None,
) -> None:
    """Print a model folder's format, labels (and their radeid categories), length limit and size.

    Examples:

      radeid model info

      radeid model info models/stanford-onnx --label-map stanford
    """
    out, err = _consoles()
    from radeid.detect.transformer import ModelLoadError, resolve_model
    from radeid.model.info import model_info

    try:
        folder = Path(resolve_model(path))
        summary = model_info(folder, label_map=label_map)
    except ModelLoadError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    for line in summary.lines():
        out.print(escape(line))
    if summary.problems:
        raise typer.Exit(EXIT_FAILED)


@model_app.command("calibrate")
def calibrate(
    model_dir: Annotated[Path, typer.Argument(help="A model folder (ONNX export or Hugging Face folder).")],
    validation: Annotated[Path, typer.Argument(help="Validation documents with gold spans (JSONL, i2b2, BRAT, ...).")],
    target_recall: Annotated[
        float,
        typer.Option("--target-recall", min=0.0, max=1.0, help="Token recall each category must keep."),
    ] = 0.995,
    min_tokens: Annotated[
        int, typer.Option("--min-tokens", min=1, help="Leave categories with fewer gold word pieces at the default.")
    ] = 20,
    label_map: Annotated[
        str | None, typer.Option("--label-map", "-l", help="Label map for the gold labels (e.g. i2b2_2014).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the thresholds, write nothing.")] = False,
) -> None:
    """Choose per-category thresholds on validation data and write them into MODEL_DIR/radeid.json.

    Per category: the highest threshold on 1 - P(O) whose token recall (word pieces inside gold
    spans of that category reaching it) stays at or above --target-recall. The detector uses them
    for the categories listed; others keep transformer.threshold.
    """
    out, err = _consoles()
    if not validation.exists():
        raise fail(f"not found: {validation}", EXIT_USAGE)
    from radeid.detect.transformer import ModelLoadError, TransformerDetector
    from radeid.io.errors import FormatError
    from radeid.model.calibrate import calibrate_detector, write_thresholds
    from radeid.train.data import load_documents

    try:
        docs = load_documents(validation, label_map)
        detector = TransformerDetector(str(model_dir))
    except (ModelLoadError, FormatError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if not any(d.spans for d in docs):
        raise fail(f"{validation} has no gold spans", EXIT_USAGE)
    try:
        result = calibrate_detector(detector, docs, target_recall, min_tokens)
    except ValueError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    for name, value in sorted(result.thresholds.items()):
        out.print(f"{name:10} {value:.6f}  ({result.tokens[name]} pieces, recall {result.recall[name]:.4f})")
    for name, n in sorted(result.skipped.items()):
        out.print(f"{name:10} default    ({n} pieces < --min-tokens)")
    if dry_run:
        return
    path = write_thresholds(model_dir, result, {"documents": len(docs), "file": validation.name})
    out.print(f"wrote thresholds to {escape(str(path))}")


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _quiet_libraries() -> None:
    """Progress bars and load reports from transformers would bury the verification figures."""
    import logging

    for name in ("torch.onnx", "onnxruntime", "onnxscript", "root"):
        logging.getLogger(name).setLevel(logging.ERROR)
    logging.getLogger().setLevel(logging.ERROR)
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - checked before
        pass


def register(app: typer.Typer) -> None:
    """Add the `model` command group (`export`, `info`, `calibrate`) to the main `radeid` app."""
    app.add_typer(model_app, name="model")
