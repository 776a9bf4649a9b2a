"""An encoder with a linear token-classification head that also reads word shapes.

Why not a stock `AutoModelForTokenClassification`: the base encoder is uncased, so the head gets
each piece's word shape (`radeid.detect.shapes`) as a small learnt embedding concatenated to the
encoder's output. Models trained without shapes are saved as plain Hugging Face token classifiers
(any tool loads them); models with shapes are saved in the same layout (config.json with the
labels and a `radeid_shape_features` entry, `model.safetensors` with the encoder under its usual
prefix, e.g. `bert.`, plus `shape_embedding.weight` and `classifier.*`), which
`TransformerDetector` and `radeid model export` recognise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from radeid.detect.shapes import CONFIG_KEY, SHAPE_VERSION, SHAPES

__all__ = ["ShapeTokenClassifier", "TokenOutput"]

SAFETENSORS_FILE = "model.safetensors"


class TokenOutput:
    """The one field callers use (`.logits`), like a transformers model output."""

    def __init__(self, logits: torch.Tensor) -> None:
        self.logits = logits


def _encoder_from_config(config: Any) -> nn.Module:
    from transformers import AutoModel

    try:
        return AutoModel.from_config(config, add_pooling_layer=False)
    except TypeError:  # encoders without a pooler option
        return AutoModel.from_config(config)


class ShapeTokenClassifier(nn.Module):
    """Encoder -> [hidden ; shape embedding] -> dropout -> linear, one row of logits per piece.

    `shape_dim = 0` gives the plain architecture (same weights as `*ForTokenClassification`).
    """

    def __init__(self, config: Any, encoder: nn.Module | None = None, shape_dim: int = 0) -> None:
        super().__init__()
        self.config = config
        self.encoder = encoder if encoder is not None else _encoder_from_config(config)
        hidden = int(config.hidden_size)
        dropout: float | None = getattr(config, "classifier_dropout", None)
        if dropout is None:
            dropout = float(getattr(config, "hidden_dropout_prob", 0.1))
        self.dropout = nn.Dropout(float(dropout))
        self.shape_dim = int(shape_dim)
        self.uses_shapes = self.shape_dim > 0
        if self.uses_shapes:
            self.shape_embedding = nn.Embedding(len(SHAPES), self.shape_dim, padding_idx=0)
            nn.init.normal_(self.shape_embedding.weight, std=0.02)
            with torch.no_grad():
                self.shape_embedding.weight[0].zero_()
            setattr(config, CONFIG_KEY, {"version": SHAPE_VERSION, "size": len(SHAPES), "dim": self.shape_dim})
            config.architectures = ["RadeidShapeTokenClassifier"]
        self.classifier = nn.Linear(hidden + self.shape_dim, int(config.num_labels))
        nn.init.normal_(self.classifier.weight, std=0.02)
        nn.init.zeros_(self.classifier.bias)

    @property
    def prefix(self) -> str:
        """Where the encoder's weights live in a saved state dict (`bert` for BERT)."""
        return str(getattr(self.encoder, "base_model_prefix", "") or "encoder")

    def head_parameters(self) -> list[nn.Parameter]:
        """The parameters trained in the head-only phase."""
        params = list(self.classifier.parameters())
        if self.uses_shapes:
            params.extend(self.shape_embedding.parameters())
        return params

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        shape_ids: torch.Tensor | None = None,
    ) -> TokenOutput:
        kwargs: dict[str, torch.Tensor] = {"input_ids": input_ids}
        if attention_mask is not None:
            kwargs["attention_mask"] = attention_mask
        if token_type_ids is not None:
            kwargs["token_type_ids"] = token_type_ids
        hidden = self.encoder(**kwargs).last_hidden_state
        if self.uses_shapes:
            if shape_ids is None:
                shape_ids = torch.zeros_like(input_ids)
            hidden = torch.cat([hidden, self.shape_embedding(shape_ids)], dim=-1)
        return TokenOutput(self.classifier(self.dropout(hidden)))

    # ------------------------------------------------------------------------------ building

    @classmethod
    def from_base(
        cls,
        base: str | Path,
        labels: Sequence[str],
        *,
        shape_dim: int = 16,
        dropout: float = 0.1,
    ) -> ShapeTokenClassifier:
        """A pretrained encoder (folder or hub name) with a new head for `labels`."""
        from transformers import AutoModel

        try:
            encoder = AutoModel.from_pretrained(str(base), add_pooling_layer=False)
        except TypeError:
            encoder = AutoModel.from_pretrained(str(base))
        encoder = encoder.float()  # a half-precision base (fp16 safetensors) is trained in fp32
        config = encoder.config
        if getattr(config, "dtype", None) not in (None, torch.float32, "float32"):
            config.dtype = torch.float32  # else the saved config says float16 and loaders build a half model
        config.num_labels = len(labels)
        config.id2label = dict(enumerate(labels))
        config.label2id = {label: i for i, label in enumerate(labels)}
        config.classifier_dropout = float(dropout)
        return cls(config, encoder, shape_dim)

    @classmethod
    def from_pretrained(cls, folder: str | Path) -> ShapeTokenClassifier:
        """Load a folder written by `save_pretrained` (with or without shapes)."""
        from safetensors.torch import load_file
        from transformers import AutoConfig

        folder = Path(folder)
        config = AutoConfig.from_pretrained(str(folder))
        spec = getattr(config, CONFIG_KEY, None)
        shape_dim = int(spec["dim"]) if isinstance(spec, dict) else 0
        model = cls(config, shape_dim=shape_dim)
        state = load_file(str(folder / SAFETENSORS_FILE))
        model.load_state(state)
        return model.eval()

    def load_state(self, state: dict[str, torch.Tensor]) -> None:
        """Load a saved (prefixed) state dict; encoder weights the encoder does not use (pooler) are skipped."""
        own = self.state_dict()
        mapped: dict[str, torch.Tensor] = {}
        for key, value in state.items():
            if key.startswith(self.prefix + "."):
                name = "encoder." + key[len(self.prefix) + 1 :]
            else:
                name = key
            if name in own:
                mapped[name] = value
        missing = [k for k in own if k not in mapped]
        if missing:
            raise ValueError(f"saved model lacks {len(missing)} weight(s), e.g. {missing[0]}")
        self.load_state_dict(mapped)

    def saved_state(self) -> dict[str, torch.Tensor]:
        """State dict with the encoder under its Hugging Face prefix, contiguous, for safetensors."""
        out: dict[str, torch.Tensor] = {}
        for key, value in self.state_dict().items():
            name = self.prefix + key[len("encoder") :] if key.startswith("encoder.") else key
            out[name] = value.detach().to("cpu").contiguous().clone()
        return out

    def save_pretrained(self, folder: str | Path) -> None:
        """Write config.json + model.safetensors; without shapes, as a stock `*ForTokenClassification`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if not self.uses_shapes:
            from transformers import AutoModelForTokenClassification

            stock = AutoModelForTokenClassification.from_config(self.config)
            missing, _ = stock.load_state_dict(self.saved_state(), strict=False)
            if any(not k.startswith(f"{self.prefix}.pooler") for k in missing):
                raise ValueError(f"cannot save as a stock token classifier: missing {missing[:3]}")
            stock.save_pretrained(str(folder))
            return
        from safetensors.torch import save_file

        self.config.to_json_file(str(folder / "config.json"))
        save_file(self.saved_state(), str(folder / SAFETENSORS_FILE), metadata={"format": "pt"})
