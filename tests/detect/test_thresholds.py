"""Per-category thresholds: the detector applies them, calibration picks them (fake scorer, hand-computed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.transformer import LoadedModel, ModelLoadError, PieceTokenizer, TransformerDetector, parse_thresholds

pytest.importorskip("tokenizers")

from tests.detect.test_transformer_fake import LABELS, make_tokenizer  # noqa: E402

#: word -> (label, probability of that label); P(O) is the rest, so 1 - P(O) is the probability.
SCORES = {"zebra": ("B-PATIENT", 0.9), "foo": ("B-PATIENT", 0.6), "penguin": ("B-ID", 0.7), "kangaroo": ("I-ID", 0.4)}


class FixedScorer:
    def __init__(self, tokenizer) -> None:  # type: ignore[no-untyped-def]
        self.of = {tokenizer.token_to_id(w): (LABELS.index(lab), p) for w, (lab, p) in SCORES.items()}

    def score_windows(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]:
        out = []
        for ids in windows:
            probs = np.zeros((len(ids), len(LABELS)), dtype=np.float32)
            probs[:, 0] = 1.0
            for i, token_id in enumerate(ids):
                if token_id in self.of:
                    label, p = self.of[token_id]
                    probs[i, 0], probs[i, label] = 1.0 - p, p
            out.append(probs)
        return out


def detector(metadata: dict, threshold: float = 0.8) -> TransformerDetector:
    tok = make_tokenizer()
    loaded = LoadedModel(
        source="fake", backend="fake", tokenizer=PieceTokenizer(tok), scorer=FixedScorer(tok), labels=LABELS,
        max_length=64, metadata=metadata,
    )  # fmt: skip
    return TransformerDetector.from_loaded(loaded, threshold=threshold, stride=8)


def _doc(text: str, spans: list[tuple[str, str]]) -> Document:
    out, pos = [], 0
    for word, cat in spans:
        start = text.index(word, pos)
        out.append(Span(start, start + len(word), Category(cat)))
        pos = start + len(word)
    return Document(id=str(len(text)), text=text, spans=tuple(out))


TEXT = "the lungs are clear zebra penguin kangaroo foo heart size is normal"


def found(det: TransformerDetector) -> set[tuple[str, str]]:
    [spans] = det.detect([Document(id="d", text=TEXT)])
    return {(TEXT[s.start : s.end], s.category.value) for s in spans}


def test_without_thresholds_the_single_threshold_applies() -> None:
    assert found(detector({})) == {("zebra", "PATIENT")}
    assert found(detector({}, threshold=0.5)) == {("zebra", "PATIENT"), ("penguin", "ID"), ("foo", "PATIENT")}


def test_model_thresholds_override_the_default_for_listed_categories_only() -> None:
    det = detector({"thresholds": {"ID": 0.5}})
    assert det.decoder.category_thresholds == {Category.ID: 0.5}
    # ID pieces: penguin 0.7 >= 0.5 kept, kangaroo 0.4 not; PATIENT keeps the default 0.8: foo (0.6) dropped.
    assert found(det) == {("zebra", "PATIENT"), ("penguin", "ID")}
    det = detector({"thresholds": {"PATIENT": 0.55, "ID": 0.35}})
    assert found(det) == {("zebra", "PATIENT"), ("penguin kangaroo", "ID"), ("foo", "PATIENT")}


def test_bad_thresholds_are_refused() -> None:
    for bad in ({"NAME": 0.5}, {"ID": 0.0}, {"ID": 1.5}, {"ID": "high"}, [0.5]):
        with pytest.raises(ModelLoadError):
            parse_thresholds(bad)
    assert parse_thresholds({"date": 1}) == {Category.DATE: 1.0}


def test_calibration_picks_the_highest_threshold_keeping_recall() -> None:
    from radeid.model.calibrate import calibrate_detector, gold_piece_scores

    docs = [
        _doc("zebra is here", [("zebra", "PATIENT")]),
        _doc("zebra and zebra seen", [("zebra", "PATIENT"), ("zebra", "PATIENT")]),
        _doc("foo penguin kangaroo", [("foo", "PATIENT"), ("penguin kangaroo", "ID")]),
        _doc("the lungs are clear", []),
    ]
    det = detector({})
    scores = gold_piece_scores(det, docs)
    assert sorted(scores[Category.PATIENT].tolist()) == pytest.approx([0.6, 0.9, 0.9, 0.9], abs=1e-6)
    assert sorted(scores[Category.ID].tolist()) == pytest.approx([0.4, 0.7], abs=1e-6)
    # PATIENT 0.9, 0.9, 0.9, 0.6: recall 0.75 needs 3 of 4 -> 0.9; recall 0.8 needs 4 -> 0.6.
    # ID 0.7, 0.4: recall 0.5 needs 1 of 2 -> 0.7; recall 0.75 needs 2 -> 0.4.
    c = calibrate_detector(det, docs, target_recall=0.75)
    assert c.thresholds == pytest.approx({"PATIENT": 0.9, "ID": 0.4}, abs=1e-6)
    assert c.recall == pytest.approx({"PATIENT": 0.75, "ID": 1.0})
    c = calibrate_detector(det, docs, target_recall=0.5)
    assert c.thresholds == pytest.approx({"PATIENT": 0.9, "ID": 0.7}, abs=1e-6)
    c = calibrate_detector(det, docs, target_recall=0.8)
    assert c.thresholds == pytest.approx({"PATIENT": 0.6, "ID": 0.4}, abs=1e-6)
    c = calibrate_detector(det, docs, target_recall=0.8, min_tokens=3)
    assert set(c.thresholds) == {"PATIENT"} and c.skipped == {"ID": 2}
    # The chosen thresholds give back the recall they promise when the detector applies them.
    det2 = detector({"thresholds": calibrate_detector(det, docs, target_recall=1.0).thresholds}, threshold=0.99)
    assert found(det2) == {("zebra", "PATIENT"), ("penguin kangaroo", "ID"), ("foo", "PATIENT")}


def test_write_thresholds_keeps_other_keys(tmp_path: Path) -> None:
    from radeid.model.calibrate import choose_thresholds, write_thresholds

    (tmp_path / "radeid.json").write_text(json.dumps({"labels": ["O"], "quantization": "int8-dynamic"}))
    c = choose_thresholds({Category.DATE: np.array([0.99, 0.98, 0.5], dtype=np.float32)}, target_recall=0.6)
    write_thresholds(tmp_path, c, {"documents": 3})
    data = json.loads((tmp_path / "radeid.json").read_text())
    assert data["labels"] == ["O"] and data["quantization"] == "int8-dynamic"
    assert data["thresholds"] == {"DATE": pytest.approx(0.98, abs=1e-6)}
    assert data["thresholds_calibration"]["documents"] == 3
    assert parse_thresholds(data["thresholds"]) == {Category.DATE: pytest.approx(0.98, abs=1e-6)}
