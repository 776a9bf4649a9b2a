"""The fine-tuning loop: weighted cross-entropy, ULMFiT schedule, early stopping, resumable checkpoints.

Run shape (fastai's recipe for ULMFiT, applied to a transformer encoder):

1. `freeze_epochs` head-only epochs (encoder frozen: no backward pass through it, cheap on CPU),
   one slanted-triangular cycle at `head_lr`;
2. full unfreezing for the remaining epochs, one more cycle, with discriminative rates: the head
   at `lr`, each encoder layer below `layer_decay` times slower, embeddings slowest;
3. Adam's beta1 cycles inversely to the rate; gradients are clipped at 1.

After every epoch the model is scored on the validation windows (token-level micro F1 with the
right category); the best one is written to the output folder, and training stops after
`patience` epochs without improvement. A checkpoint (`checkpoints/last.pt`: weights, optimizer,
RNG state, position) is written every `checkpoint_every` steps and at each epoch end; `resume`
continues from it at the same step with the same batches. Document text is never logged.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from radeid.detect.transformer import PieceTokenizer
from radeid.document import Document
from radeid.train.data import DEFAULT_LABELS, IGNORE_INDEX, Example, encode_documents, stratified_split, token_scores
from radeid.train.model import ShapeTokenClassifier
from radeid.train.schedule import discriminative_lrs, momentum, stlr

__all__ = ["TrainConfig", "TrainResult", "Trainer", "resolve_device", "train"]

log = logging.getLogger(__name__)

CHECKPOINT_DIR = "checkpoints"
CHECKPOINT_FILE = "last.pt"
TRAINING_FILE = "training.json"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")

#: Settings that must match when resuming (the others, e.g. threads, may change).
_RESUME_KEYS = (
    "base",
    "epochs",
    "freeze_epochs",
    "lr",
    "head_lr",
    "layer_decay",
    "phi_weight",
    "dropout",
    "weight_decay",
    "max_length",
    "stride",
    "batch_size",
    "shape_dim",
    "seed",
    "cut_frac",
    "ratio",
)


@dataclass
class TrainConfig:
    """Everything that defines a run; stored in `training.json` and in checkpoints."""

    base: str
    output: str
    epochs: int = 4
    freeze_epochs: int = 1
    lr: float = 1e-4
    head_lr: float = 1e-3
    layer_decay: float = 1.3
    phi_weight: float = 3.0
    dropout: float = 0.1
    weight_decay: float = 0.01
    max_length: int = 256
    stride: int = 32
    batch_size: int = 16
    shape_dim: int = 16
    seed: int = 0
    cut_frac: float = 0.1
    ratio: float = 32.0
    beta_high: float = 0.95
    beta_low: float = 0.85
    val_fraction: float = 0.1
    patience: int = 2
    checkpoint_every: int = 200
    max_steps: int = 0  # stop (with a checkpoint) after this many steps in all; 0 = no limit
    threads: int = 0
    device: str = "auto"  # auto (cuda when available), cpu, cuda, cuda:N; not part of the resume check
    labels: tuple[str, ...] = DEFAULT_LABELS

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.freeze_epochs < 0:
            raise ValueError("epochs must be at least 1 and freeze_epochs not negative")
        if self.max_length < 8:
            raise ValueError("max_length must be at least 8")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.phi_weight <= 0:
            raise ValueError("phi_weight must be positive")
        self.labels = tuple(self.labels)


@dataclass
class TrainResult:
    """What a run reached; `history` has one entry per finished epoch."""

    output: Path
    best_f1: float
    best_epoch: int
    steps: int
    seconds: float
    stopped: str
    history: list[dict[str, float]] = field(default_factory=list)


EpochCallback = Callable[[int, dict[str, float]], None]


def _class_weights(labels: Sequence[str], phi_weight: float) -> torch.Tensor:
    return torch.tensor([1.0 if label == "O" else float(phi_weight) for label in labels], dtype=torch.float32)


def _layer_index(name: str) -> int | None:
    """Encoder layer number in a parameter name (`encoder.layer.3.` / `layers.3.`), if any."""
    parts = name.split(".")
    for i, part in enumerate(parts[:-1]):
        if part in ("layer", "layers", "h", "block") and parts[i + 1].isdigit():
            return int(parts[i + 1])
    return None


def parameter_groups(model: ShapeTokenClassifier) -> list[list[tuple[str, nn.Parameter]]]:
    """Parameters by depth, top first: head, top encoder layer, ..., bottom layer, embeddings.

    Encoder parameters outside numbered layers (embeddings, final norms) go to the bottom group,
    except a pooler or final norm above the layers, which joins the top layer.
    """
    head_ids = {id(p) for p in model.head_parameters()}
    layered: dict[int, list[tuple[str, nn.Parameter]]] = {}
    other: list[tuple[str, nn.Parameter]] = []
    top_extra: list[tuple[str, nn.Parameter]] = []
    for name, param in model.encoder.named_parameters():
        index = _layer_index(name)
        if index is not None:
            layered.setdefault(index, []).append((name, param))
        elif "embed" in name:
            other.append((name, param))
        else:
            top_extra.append((name, param))
    groups: list[list[tuple[str, nn.Parameter]]] = [
        [(n, p) for n, p in model.named_parameters() if id(p) in head_ids]
    ]
    for k, index in enumerate(sorted(layered, reverse=True)):
        groups.append(layered[index] + (top_extra if k == 0 else []))
    if not layered:
        other.extend(top_extra)
    if other:
        groups.append(other)
    return groups


def _no_decay(name: str, param: nn.Parameter) -> bool:
    """Biases, norms and the shape embedding are not weight-decayed (as usual for transformers)."""
    return param.ndim < 2 or "norm" in name.lower() or name.startswith("shape_embedding")


class Trainer:
    """One run: data, model, optimizer and position; `fit()` trains (or resumes) to the end."""

    def __init__(
        self,
        config: TrainConfig,
        train_docs: Sequence[Document],
        val_docs: Sequence[Document] | None = None,
        on_epoch: EpochCallback | None = None,
    ) -> None:
        self.config = config
        self.output = Path(config.output)
        self.on_epoch = on_epoch
        if config.threads:
            torch.set_num_threads(int(config.threads))
        torch.manual_seed(config.seed)
        self.device = resolve_device(config.device)
        self.tokenizer = _tokenizer(config.base)
        max_tokens = config.max_length - self.tokenizer.n_special
        if max_tokens < 4:
            raise ValueError(f"max_length {config.max_length} leaves no room for word pieces")
        if val_docs is None:
            val_docs = []
            if config.val_fraction > 0 and len(train_docs) >= 4:
                train_idx, val_idx = stratified_split(train_docs, config.val_fraction, config.seed)
                val_docs = [train_docs[i] for i in val_idx]
                train_docs = [train_docs[i] for i in train_idx]
        self.n_train_docs, self.n_val_docs = len(train_docs), len(val_docs)
        self.train_examples = encode_documents(train_docs, self.tokenizer, max_tokens, config.stride, config.labels)
        # Validation windows use no stride (at most a few pieces of overlap where a cut moves to a boundary).
        self.val_examples = encode_documents(val_docs, self.tokenizer, max_tokens, 0, config.labels)
        if not self.train_examples:
            raise ValueError("no training text: every document is empty")
        self.model = ShapeTokenClassifier.from_base(
            config.base, config.labels, shape_dim=config.shape_dim, dropout=config.dropout
        ).to(self.device)
        log.info("training on %s", self.device)
        self.groups = parameter_groups(self.model)
        self.peaks = discriminative_lrs(config.lr, len(self.groups), config.layer_decay)
        param_groups: list[dict[str, Any]] = []
        for depth, members in enumerate(self.groups):
            for no_decay in (False, True):
                params = [p for n, p in members if _no_decay(n, p) == no_decay]
                if params:
                    wd = 0.0 if no_decay else config.weight_decay
                    param_groups.append({"params": params, "depth": depth, "weight_decay": wd, "lr": 0.0})
        self.optimizer = torch.optim.AdamW(param_groups, lr=0.0, betas=(config.beta_high, 0.999))
        self.loss_fn = nn.CrossEntropyLoss(
            weight=_class_weights(config.labels, config.phi_weight).to(self.device), ignore_index=IGNORE_INDEX
        )
        self.steps_per_epoch = math.ceil(len(self.train_examples) / config.batch_size)
        self.state: dict[str, Any] = {
            "epoch": 0,
            "batch": 0,
            "step": 0,
            "best_f1": -1.0,
            "best_epoch": -1,
            "bad_epochs": 0,
            "history": [],
            "seconds": 0.0,
        }

    # ---------------------------------------------------------------------------- schedule

    def phase(self, epoch: int) -> str:
        return "head" if epoch < self.config.freeze_epochs else "full"

    def phase_position(self, epoch: int, batch: int) -> tuple[int, int]:
        """(step within the current phase's cycle, the cycle's length)."""
        c = self.config
        if self.phase(epoch) == "head":
            first, count = 0, min(c.freeze_epochs, c.epochs)
        else:
            first, count = min(c.freeze_epochs, c.epochs), c.epochs - min(c.freeze_epochs, c.epochs)
        return (epoch - first) * self.steps_per_epoch + batch, max(1, count * self.steps_per_epoch)

    def learning_rates(self, epoch: int, batch: int) -> tuple[list[float], float]:
        """Per depth group (top first) the rate at this position, and beta1."""
        c = self.config
        step, total = self.phase_position(epoch, batch)
        beta1 = momentum(step, total, c.beta_high, c.beta_low, c.cut_frac)
        if self.phase(epoch) == "head":
            return [stlr(step, total, c.head_lr, c.cut_frac, c.ratio)] + [0.0] * (len(self.groups) - 1), beta1
        return [stlr(step, total, peak, c.cut_frac, c.ratio) for peak in self.peaks], beta1

    def _apply_schedule(self, epoch: int, batch: int) -> None:
        rates, beta1 = self.learning_rates(epoch, batch)
        for group in self.optimizer.param_groups:
            group["lr"] = rates[group["depth"]]
            group["betas"] = (beta1, group["betas"][1])

    def _freeze_for(self, epoch: int) -> None:
        head = self.phase(epoch) == "head"
        for depth, members in enumerate(self.groups):
            for _, param in members:
                param.requires_grad_(depth == 0 or not head)

    # ------------------------------------------------------------------------------ batches

    def batches(self, epoch: int) -> list[list[int]]:
        """Example indices per batch for `epoch`: shuffled, then sorted by length within pools of
        50 batches (little padding), pool order shuffled; the same for a given seed and epoch."""
        rng = random.Random(self.config.seed * 100_003 + epoch)
        order = list(range(len(self.train_examples)))
        rng.shuffle(order)
        size = self.config.batch_size
        pool = size * 50
        batches: list[list[int]] = []
        for first in range(0, len(order), pool):
            chunk = sorted(order[first : first + pool], key=lambda i: len(self.train_examples[i]))
            batches.extend(chunk[k : k + size] for k in range(0, len(chunk), size))
        rng.shuffle(batches)
        return batches

    def tensors(self, examples: Sequence[Example]) -> dict[str, torch.Tensor]:
        """Padded model inputs (special tokens added, label -100 on them and on padding)."""
        tok = self.tokenizer
        head = len(tok.prefix)
        width = max(len(e) for e in examples) + tok.n_special
        ids = torch.full((len(examples), width), tok.pad_id, dtype=torch.long)
        mask = torch.zeros((len(examples), width), dtype=torch.long)
        shapes = torch.zeros((len(examples), width), dtype=torch.long)
        labels = torch.full((len(examples), width), IGNORE_INDEX, dtype=torch.long)
        for r, e in enumerate(examples):
            row = tok.wrap(e.ids)
            ids[r, : len(row)] = torch.tensor(row)
            mask[r, : len(row)] = 1
            shapes[r, head : head + len(e)] = torch.tensor(e.shapes)
            labels[r, head : head + len(e)] = torch.tensor(e.labels)
        out = {"input_ids": ids, "attention_mask": mask, "shape_ids": shapes, "labels": labels}
        return {k: v.to(self.device) for k, v in out.items()} if self.device.type != "cpu" else out

    def _forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        kwargs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
        if self.model.uses_shapes:
            kwargs["shape_ids"] = batch["shape_ids"]
        return self.model(**kwargs).logits

    def train_step(self, epoch: int, batch_index: int, indices: Sequence[int]) -> float:
        """One optimizer step; returns the batch loss."""
        self.model.train()
        self._apply_schedule(epoch, batch_index)
        batch = self.tensors([self.train_examples[i] for i in indices])
        logits = self._forward(batch)
        loss = self.loss_fn(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        self.optimizer.step()
        return float(loss.detach())

    def evaluate(self, examples: Sequence[Example] | None = None, batch_size: int = 0) -> dict[str, float]:
        """Token scores and mean loss on the validation windows (or `examples`)."""
        examples = self.val_examples if examples is None else examples
        if not examples:
            return {}
        batch_size = batch_size or (128 if self.device.type == "cuda" else 32)
        self.model.eval()
        preds: list[np.ndarray] = []
        golds: list[np.ndarray] = []
        losses: list[float] = []
        order = sorted(range(len(examples)), key=lambda i: len(examples[i]))
        head = len(self.tokenizer.prefix)
        with torch.inference_mode():
            for first in range(0, len(order), batch_size):
                chunk = [examples[i] for i in order[first : first + batch_size]]
                batch = self.tensors(chunk)
                logits = self._forward(batch)
                losses.append(float(self.loss_fn(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1))))
                best = logits.argmax(-1).cpu().numpy()
                for r, e in enumerate(chunk):
                    preds.append(best[r, head : head + len(e)])
                    golds.append(np.asarray(e.labels))
        scores = token_scores(preds, golds, self.config.labels)
        scores["loss"] = float(np.mean(losses))
        return scores

    # --------------------------------------------------------------------------- checkpoints

    @property
    def checkpoint_path(self) -> Path:
        return self.output / CHECKPOINT_DIR / CHECKPOINT_FILE

    def save_checkpoint(self) -> None:
        """Weights, optimizer, RNG and position, written atomically (a crash leaves the previous one)."""
        path = self.checkpoint_path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(
            {
                "config": asdict(self.config),
                "state": self.state,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "n_examples": len(self.train_examples),
            },
            tmp,
        )
        os.replace(tmp, path)

    def load_checkpoint(self) -> bool:
        """Continue from `checkpoints/last.pt` if there is one; False when there is none."""
        path = self.checkpoint_path
        if not path.exists():
            return False
        data = torch.load(path, map_location="cpu", weights_only=False)
        saved = data["config"]
        changed = [k for k in _RESUME_KEYS if saved.get(k) != getattr(self.config, k)]
        if changed:
            raise ValueError(
                f"cannot resume: the checkpoint was made with other settings ({', '.join(changed)}); "
                "use the same options or another output folder"
            )
        if data["n_examples"] != len(self.train_examples):
            raise ValueError("cannot resume: the training data differ from the checkpoint's")
        self.model.load_state_dict(data["model"])
        self.optimizer.load_state_dict(data["optimizer"])
        torch.set_rng_state(data["torch_rng"])
        self.state = data["state"]
        return True

    # ------------------------------------------------------------------------------- saving

    def save_model(self, folder: Path | None = None) -> Path:
        """The current weights as a model folder (+ tokenizer files, training.json)."""
        folder = folder or self.output
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(folder)
        base = Path(self.config.base)
        for name in _TOKENIZER_FILES:
            if (base / name).exists():
                shutil.copyfile(base / name, folder / name)
        if not (folder / "tokenizer.json").exists():
            self.tokenizer.tokenizer.save(str(folder / "tokenizer.json"))
        _set_window_limit(folder, self.config.max_length)
        return folder

    def write_summary(self, stopped: str) -> None:
        summary = {
            "settings": {k: v for k, v in asdict(self.config).items() if k not in ("output",)},
            "data": {
                "train_documents": self.n_train_docs,
                "train_windows": len(self.train_examples),
                "validation_documents": self.n_val_docs,
                "validation_windows": len(self.val_examples),
            },
            "steps": self.state["step"],
            "seconds": round(self.state["seconds"], 1),
            "best_validation_f1": self.state["best_f1"],
            "best_epoch": self.state["best_epoch"],
            "stopped": stopped,
            "history": self.state["history"],
        }
        (self.output / TRAINING_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")

    # ---------------------------------------------------------------------------------- fit

    def fit(self, resume: bool = False) -> TrainResult:
        """Train to the end (or to `max_steps`), resuming from the checkpoint when asked."""
        c = self.config
        self.output.mkdir(parents=True, exist_ok=True)
        if resume and self.load_checkpoint():
            log.info("resuming at epoch %d, batch %d (step %d)", self.state["epoch"], self.state["batch"],
                     self.state["step"])
        stopped = "finished"
        started = time.perf_counter() - self.state["seconds"]
        while self.state["epoch"] < c.epochs:
            epoch = self.state["epoch"]
            self._freeze_for(epoch)
            batches = self.batches(epoch)
            losses: list[float] = []
            for b in range(self.state["batch"], len(batches)):
                losses.append(self.train_step(epoch, b, batches[b]))
                self.state["batch"] = b + 1
                self.state["step"] += 1
                self.state["seconds"] = time.perf_counter() - started
                if self.state["step"] % 20 == 0:
                    log.info("epoch %d step %d loss %.4f", epoch, self.state["step"], float(np.mean(losses[-20:])))
                if c.max_steps and self.state["step"] >= c.max_steps:
                    self.save_checkpoint()
                    self.write_summary("max_steps")
                    return self._result("max_steps")
                if c.checkpoint_every and self.state["step"] % c.checkpoint_every == 0:
                    self.save_checkpoint()
            scores = self.evaluate()
            entry = {"epoch": float(epoch), "phase_head": float(self.phase(epoch) == "head"),
                     "train_loss": float(np.mean(losses)) if losses else float("nan"), **scores}
            self.state["history"].append(entry)
            f1 = scores.get("f1", -1.0) if scores else -1.0
            log.info("epoch %d done: train loss %.4f, validation %s", epoch, entry["train_loss"],
                     ", ".join(f"{k} {v:.4f}" for k, v in scores.items() if k != "tokens"))
            improved = not scores or f1 > self.state["best_f1"]
            if improved:
                self.state["best_f1"], self.state["best_epoch"], self.state["bad_epochs"] = f1, epoch, 0
                self.save_model()
            elif self.phase(epoch) == "full":
                self.state["bad_epochs"] += 1
            self.state["epoch"], self.state["batch"] = epoch + 1, 0
            self.state["seconds"] = time.perf_counter() - started
            self.save_checkpoint()
            self.write_summary("running")
            if self.on_epoch is not None:
                self.on_epoch(epoch, scores)
            if c.patience and self.state["bad_epochs"] >= c.patience:
                stopped = "early_stopping"
                break
        self.write_summary(stopped)
        return self._result(stopped)

    def _result(self, stopped: str) -> TrainResult:
        return TrainResult(
            output=self.output,
            best_f1=float(self.state["best_f1"]),
            best_epoch=int(self.state["best_epoch"]),
            steps=int(self.state["step"]),
            seconds=float(self.state["seconds"]),
            stopped=stopped,
            history=list(self.state["history"]),
        )


def resolve_device(name: str = "auto") -> torch.device:
    """`auto`: the first CUDA device when torch sees one, else the CPU; otherwise torch's own name."""
    if name in ("", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA device")
    return device


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


def _tokenizer(base: str) -> PieceTokenizer:
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


def train(
    config: TrainConfig,
    train_docs: Sequence[Document],
    val_docs: Sequence[Document] | None = None,
    *,
    resume: bool = False,
    on_epoch: EpochCallback | None = None,
) -> TrainResult:
    """Fine-tune `config.base` on `train_docs`; the best model lands in `config.output`."""
    return Trainer(config, train_docs, val_docs, on_epoch).fit(resume=resume)
