"""The optimizer's view of the model: parameters by depth, weight decay, class weights of the loss.

Parameter groups top first (head, encoder layers, embeddings) carry the discriminative learning
rates of `radeid.train.schedule`; biases, norms and the shape embedding are not weight-decayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from radeid.detect.transformer.torch_model import ShapeTokenClassifier

__all__ = ["class_weights", "optimizer_groups", "parameter_groups"]


def class_weights(labels: Sequence[str], phi_weight: float) -> torch.Tensor:
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
    groups: list[list[tuple[str, nn.Parameter]]] = [[(n, p) for n, p in model.named_parameters() if id(p) in head_ids]]
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


def optimizer_groups(groups: Sequence[Sequence[tuple[str, nn.Parameter]]], weight_decay: float) -> list[dict[str, Any]]:
    """Optimizer parameter groups: per depth, the decayed and the undecayed parameters (rates set later)."""
    param_groups: list[dict[str, Any]] = []
    for depth, members in enumerate(groups):
        for no_decay in (False, True):
            params = [p for n, p in members if _no_decay(n, p) == no_decay]
            if params:
                wd = 0.0 if no_decay else weight_decay
                param_groups.append({"params": params, "depth": depth, "weight_decay": wd, "lr": 0.0})
    return param_groups
