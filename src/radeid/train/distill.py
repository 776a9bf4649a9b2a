"""Knowledge distillation: a shallower student cut from a trained teacher, taught by its soft labels.

Why: the model is most of the cost of the default pipeline (issue 14), and an encoder's cost is
nearly proportional to its layer count. The student starts as a copy of the teacher that keeps only
some of its encoder layers (DistilBERT's initialisation: every other layer), with the teacher's
embeddings, word-shape embedding and head, so it starts close and needs a short run. It is trained
on the weighted cross-entropy of the gold labels plus the KL divergence to the teacher's
temperature-softened distribution (Hinton et al., 2015), which carries the teacher's view of
ambiguous pieces that a hard label does not.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F

from radeid.detect.transformer.torch_model import ShapeTokenClassifier
from radeid.train.data import IGNORE_INDEX

__all__ = ["distillation_loss", "encoder_layers", "parse_layers", "student_from_teacher"]


def parse_layers(text: str) -> tuple[int, ...]:
    """`"0,2,4"` -> (0, 2, 4); ValueError for anything that is not distinct, increasing layer numbers."""
    try:
        layers = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"layers must be comma-separated numbers such as 0,2,4, not {text!r}") from None
    if not layers or list(layers) != sorted(set(layers)) or layers[0] < 0:
        raise ValueError(f"layers must be distinct increasing numbers from 0, such as 0,2,4; got {text!r}")
    return layers


def encoder_layers(model: ShapeTokenClassifier) -> nn.ModuleList:
    """The encoder's list of transformer layers (BERT-style `encoder.layer`)."""
    inner = getattr(model.encoder, "encoder", None)
    layers = getattr(inner, "layer", None)
    if not isinstance(layers, nn.ModuleList):
        raise ValueError("distillation needs a BERT-style encoder (encoder.layer); this model has none")
    return layers


def student_from_teacher(teacher: ShapeTokenClassifier, keep: Sequence[int]) -> ShapeTokenClassifier:
    """A copy of `teacher` with only the encoder layers `keep` (in order); the teacher is not changed."""
    count = len(encoder_layers(teacher))
    if not keep or max(keep) >= count:
        raise ValueError(f"the teacher has {count} encoder layers (0-{count - 1}); cannot keep {list(keep)}")
    student = copy.deepcopy(teacher)
    layers = encoder_layers(student)
    kept = nn.ModuleList(layers[i] for i in keep)
    student.encoder.encoder.layer = kept  # type: ignore[union-attr]
    for position, layer in enumerate(kept):  # some attention classes keep their index (for caches)
        attention = getattr(getattr(layer, "attention", None), "self", None)
        if attention is not None and hasattr(attention, "layer_idx"):
            attention.layer_idx = position
    student.config.num_hidden_layers = len(keep)
    encoder_config = getattr(student.encoder, "config", None)
    if encoder_config is not None:
        encoder_config.num_hidden_layers = len(keep)
    return student


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    labels: torch.Tensor,
    hard_loss: nn.Module,
    weight: float,
    temperature: float,
) -> torch.Tensor:
    """`(1 - weight) * hard_loss(gold) + weight * T^2 * KL(teacher_T || student_T)` over real pieces.

    The T^2 factor keeps the soft term's gradients on the hard term's scale (Hinton et al.);
    special tokens and padding (label -100) are left out of both terms.
    """
    width = student_logits.shape[-1]
    flat_student = student_logits.reshape(-1, width)
    flat_labels = labels.reshape(-1)
    hard = hard_loss(flat_student, flat_labels)
    if weight <= 0:
        return hard
    real = flat_labels != IGNORE_INDEX
    if not bool(real.any()):
        return hard
    log_student = F.log_softmax(flat_student[real] / temperature, dim=-1)
    log_teacher = F.log_softmax(teacher_logits.reshape(-1, width)[real] / temperature, dim=-1)
    soft = F.kl_div(log_student, log_teacher, log_target=True, reduction="batchmean") * temperature**2
    return (1.0 - weight) * hard + weight * soft
