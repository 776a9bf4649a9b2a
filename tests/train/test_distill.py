"""Distillation: the student is a layer subset of the teacher, the loss mixes gold and soft labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from radeid.core.document import Document  # noqa: E402
from radeid.detect.transformer.torch_model import ShapeTokenClassifier  # noqa: E402
from radeid.model.tiny import build_random_model  # noqa: E402
from radeid.train.data import DEFAULT_LABELS, IGNORE_INDEX  # noqa: E402
from radeid.train.distill import (  # noqa: E402
    distillation_loss,
    encoder_layers,
    parse_layers,
    student_from_teacher,
)
from radeid.train.finetune import TrainConfig, Trainer, train  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_random_model(tmp_path_factory.mktemp("base") / "tiny", hidden_size=32, layers=3)


def _config(base: Path, out: Path, **kw: object) -> TrainConfig:
    settings: dict[str, object] = dict(
        base=str(base), output=str(out), epochs=2, freeze_epochs=0, lr=3e-3, head_lr=1e-2, max_length=48,
        stride=8, batch_size=8, shape_dim=8, checkpoint_every=0, threads=1, seed=0,
    )  # fmt: skip
    settings.update(kw)
    return TrainConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def teacher(base: Path, docs: list[Document], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("teacher") / "t"
    train(_config(base, out, epochs=3, freeze_epochs=1), docs)
    return out


def _logits(model: ShapeTokenClassifier, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(ids, torch.ones_like(ids), shape_ids=torch.ones_like(ids)).logits


def test_parse_layers() -> None:
    assert parse_layers("0,2,4") == (0, 2, 4) and parse_layers(" 1 ") == (1,)
    for bad in ("", "2,1", "0,0", "-1,2", "a,b"):
        with pytest.raises(ValueError, match="layers"):
            parse_layers(bad)


def test_student_keeps_the_chosen_teacher_layers_and_leaves_the_teacher_whole(teacher: Path) -> None:
    model = ShapeTokenClassifier.from_pretrained(teacher)
    ids = torch.tensor([[101, 2000, 2017, 2003, 102]])
    same = student_from_teacher(model, (0, 1, 2)).eval()
    assert torch.equal(_logits(same, ids), _logits(model, ids))  # all layers kept: the same function
    student = student_from_teacher(model, (0, 2)).eval()
    assert len(encoder_layers(student)) == 2 and len(encoder_layers(model)) == 3
    assert student.config.num_hidden_layers == 2 and model.config.num_hidden_layers == 3
    kept = encoder_layers(student)[1].state_dict()
    for name, value in encoder_layers(model)[2].state_dict().items():
        assert torch.equal(kept[name], value), name
    assert not torch.allclose(_logits(student, ids), _logits(model, ids))
    with pytest.raises(ValueError, match="3 encoder layers"):
        student_from_teacher(model, (0, 3))


def test_loss_mixes_gold_and_soft_terms_over_real_pieces_only() -> None:
    torch.manual_seed(0)
    student = torch.randn(2, 5, 4)
    teacher = torch.randn(2, 5, 4)
    labels = torch.tensor([[IGNORE_INDEX, 1, 0, 2, IGNORE_INDEX], [IGNORE_INDEX, 3, 3, IGNORE_INDEX, IGNORE_INDEX]])
    hard = torch.nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX)
    gold = hard(student.reshape(-1, 4), labels.reshape(-1))
    assert torch.equal(distillation_loss(student, teacher, labels, hard, 0.0, 2.0), gold)
    # the student equal to the teacher: the soft term is zero
    assert torch.allclose(distillation_loss(student, student.clone(), labels, hard, 0.5, 2.0), 0.5 * gold)
    # the soft term by hand: KL(teacher_T || student_T) * T^2, averaged over the 5 real pieces
    real = labels.reshape(-1) != IGNORE_INDEX
    p_t = torch.softmax(teacher.reshape(-1, 4)[real] / 2.0, -1)
    log_s = torch.log_softmax(student.reshape(-1, 4)[real] / 2.0, -1)
    soft = (p_t * (p_t.log() - log_s)).sum() / 5 * 4.0
    mixed = distillation_loss(student, teacher, labels, hard, 0.25, 2.0)
    assert torch.allclose(mixed, 0.75 * gold + 0.25 * soft, atol=1e-6)
    # teacher logits at special tokens and padding do not count
    changed = teacher.clone()
    changed[labels == IGNORE_INDEX] = 100.0
    assert torch.allclose(distillation_loss(student, changed, labels, hard, 0.25, 2.0), mixed)


def test_distilled_student_trains_saves_and_loads_with_fewer_layers(
    teacher: Path, docs: list[Document], tmp_path: Path
) -> None:
    out = tmp_path / "student"
    cfg = _config(teacher, out, teacher=str(teacher), keep_layers=(0, 2), epochs=3, distill_weight=0.5)
    trainer = Trainer(cfg, docs)
    assert trainer.teacher is not None and not any(p.requires_grad for p in trainer.teacher.parameters())
    teacher_before = {k: v.clone() for k, v in trainer.teacher.state_dict().items()}
    before = trainer.evaluate(trainer.train_examples)["loss"]
    result = trainer.fit()
    after = trainer.evaluate(trainer.train_examples)["loss"]
    assert after < before, (before, after)
    assert result.steps == 3 * trainer.steps_per_epoch
    for name, value in trainer.teacher.state_dict().items():  # the teacher is never trained
        assert torch.equal(value, teacher_before[name]), name
    saved = json.loads((out / "config.json").read_text())
    assert saved["num_hidden_layers"] == 2
    summary = json.loads((out / "training.json").read_text())
    assert summary["settings"]["teacher"] == str(teacher) and summary["settings"]["keep_layers"] == [0, 2]
    loaded = ShapeTokenClassifier.from_pretrained(out)
    assert len(encoder_layers(loaded)) == 2
    assert (out / "tokenizer.json").exists()  # copied from the teacher folder (the base)

    from radeid.detect.transformer import TransformerDetector

    [spans] = TransformerDetector(out, backend="torch").detect([docs[0]])
    assert all(0 <= s.start < s.end <= len(docs[0].text) for s in spans)


def test_a_teacher_needs_layers_and_the_same_labels(teacher: Path, docs: list[Document], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="keep_layers"):
        _config(teacher, tmp_path / "a", teacher=str(teacher))
    with pytest.raises(ValueError, match="other labels"):
        fewer = _config(teacher, tmp_path / "b", teacher=str(teacher), keep_layers=(0,), labels=DEFAULT_LABELS[:5])
        Trainer(fewer, docs)
