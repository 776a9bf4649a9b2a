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
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from radeid.core.document import Document
from radeid.detect.transformer.torch_model import ShapeTokenClassifier
from radeid.train.data import IGNORE_INDEX, Example, encode_documents, stratified_split, token_scores
from radeid.train.distill import distillation_loss, student_from_teacher
from radeid.train.model_folder import base_tokenizer, save_model_folder
from radeid.train.optim import class_weights, optimizer_groups, parameter_groups
from radeid.train.schedule import discriminative_lrs, momentum, stlr
from radeid.train.settings import RESUME_KEYS, EpochCallback, TrainConfig, TrainResult

__all__ = ["TrainConfig", "TrainResult", "Trainer", "resolve_device", "train"]

log = logging.getLogger(__name__)

CHECKPOINT_DIR = "checkpoints"
CHECKPOINT_FILE = "last.pt"
TRAINING_FILE = "training.json"


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
        self.tokenizer = base_tokenizer(config.base)
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
        self.teacher: ShapeTokenClassifier | None = None
        if config.teacher:
            self.teacher = _load_teacher(config)
            self.model = student_from_teacher(self.teacher, config.keep_layers).to(self.device)
            self.teacher.to(self.device)
        else:
            self.model = ShapeTokenClassifier.from_base(
                config.base, config.labels, shape_dim=config.shape_dim, dropout=config.dropout
            ).to(self.device)
        log.info("training on %s", self.device)
        self.groups = parameter_groups(self.model)
        self.peaks = discriminative_lrs(config.lr, len(self.groups), config.layer_decay)
        param_groups = optimizer_groups(self.groups, config.weight_decay)
        self.optimizer = torch.optim.AdamW(param_groups, lr=0.0, betas=(config.beta_high, 0.999))
        self.loss_fn = nn.CrossEntropyLoss(
            weight=class_weights(config.labels, config.phi_weight).to(self.device), ignore_index=IGNORE_INDEX
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

    def _forward(self, batch: dict[str, torch.Tensor], model: ShapeTokenClassifier | None = None) -> torch.Tensor:
        model = model or self.model
        kwargs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
        if model.uses_shapes:
            kwargs["shape_ids"] = batch["shape_ids"]
        return model(**kwargs).logits

    def train_step(self, epoch: int, batch_index: int, indices: Sequence[int]) -> float:
        """One optimizer step; returns the batch loss."""
        self.model.train()
        self._apply_schedule(epoch, batch_index)
        batch = self.tensors([self.train_examples[i] for i in indices])
        logits = self._forward(batch)
        if self.teacher is not None:
            with torch.inference_mode():
                teacher_logits = self._forward(batch, self.teacher)
            c = self.config
            loss = distillation_loss(
                logits, teacher_logits.clone(), batch["labels"], self.loss_fn, c.distill_weight, c.temperature
            )
        else:
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
        changed = [k for k in RESUME_KEYS if saved.get(k) != getattr(self.config, k)]
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
        c = self.config
        return save_model_folder(self.model, self.tokenizer, c.base, folder or self.output, c.max_length)

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
            log.info(
                "resuming at epoch %d, batch %d (step %d)", self.state["epoch"], self.state["batch"], self.state["step"]
            )
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
            entry = {
                "epoch": float(epoch),
                "phase_head": float(self.phase(epoch) == "head"),
                "train_loss": float(np.mean(losses)) if losses else float("nan"),
                **scores,
            }
            self.state["history"].append(entry)
            f1 = scores.get("f1", -1.0) if scores else -1.0
            log.info(
                "epoch %d done: train loss %.4f, validation %s",
                epoch,
                entry["train_loss"],
                ", ".join(f"{k} {v:.4f}" for k, v in scores.items() if k != "tokens"),
            )
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


def _load_teacher(config: TrainConfig) -> ShapeTokenClassifier:
    """The trained teacher, frozen in eval mode; its labels must be the run's."""
    teacher = ShapeTokenClassifier.from_pretrained(config.teacher)
    labels = tuple(teacher.config.id2label[i] for i in range(len(teacher.config.id2label)))
    if labels != tuple(config.labels):
        raise ValueError(f"the teacher {config.teacher} was trained on other labels than this run's")
    for param in teacher.parameters():
        param.requires_grad_(False)
    return teacher.eval()


def resolve_device(name: str = "auto") -> torch.device:
    """`auto`: the first CUDA device when torch sees one, else the CPU; otherwise torch's own name."""
    if name in ("", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA device")
    return device


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
