"""What defines a training run (`TrainConfig`) and what it reached (`TrainResult`); no torch.

`TrainConfig` is stored in `training.json` and in checkpoints; `RESUME_KEYS` are the settings a
checkpoint must share with the run that resumes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from radeid.train.data import DEFAULT_LABELS

__all__ = ["RESUME_KEYS", "EpochCallback", "TrainConfig", "TrainResult"]

#: Settings that must match when resuming (the others, e.g. threads, may change).
RESUME_KEYS = (
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
    "teacher",
    "keep_layers",
    "distill_weight",
    "temperature",
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
    # Distillation (radeid.train.distill): a trained model folder to copy `keep_layers` of and learn
    # from; `distill_weight` is the share of the soft (teacher) term in the loss.
    teacher: str = ""
    keep_layers: tuple[int, ...] = ()
    distill_weight: float = 0.5
    temperature: float = 2.0

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
        self.keep_layers = tuple(int(i) for i in self.keep_layers)
        if self.teacher and not self.keep_layers:
            raise ValueError("a teacher needs keep_layers: the teacher's encoder layers the student keeps")
        if not 0.0 <= self.distill_weight <= 1.0 or self.temperature <= 0:
            raise ValueError("distill_weight must be within 0-1 and temperature positive")


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
