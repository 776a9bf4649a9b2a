"""The model gate (`[detectors.transformer] gate`): which windows the model must see."""

from __future__ import annotations

import re

import pytest

from radeid.config import Config
from radeid.detect.chunking import Window
from radeid.detect.transformer.gate import gate_windows, signal_spans
from radeid.document import Document

PROSE = (
    "FINDINGS: The heart is normal in size. The lungs are clear. No pleural effusion or pneumothorax.\n"
    "IMPRESSION: 1. No acute cardiopulmonary process. 2. Stable 5 mm nodule, PA and lateral views.\n"
)


def _words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def _keep(text: str) -> bool:
    offsets = _words(text)
    [keep] = gate_windows(text, offsets, [Window(0, len(offsets))])
    return keep


def test_gate_skips_phi_free_prose() -> None:
    assert signal_spans(PROSE) == []
    assert not _keep(PROSE)
    assert not _keep("Chest XXXX. XXXX-year-old XXXX with XXXX. Two views of the chest.")


@pytest.mark.parametrize(
    "phi",
    [
        "Seen by John Smith today.",  # a name mid-sentence
        "Nora is very reliable.",  # a first name at a sentence start
        "my friend lives in switzerland",  # a lower-case place
        "Compared with the study of 03/04/2021.",  # a date
        "MRN 12345678 on file.",  # an ID
        "Patient: jane doe",  # a field cue
        "Reply to jdoe@example.org please.",  # an e-mail
        "Signed by K. Oddgeirsdottir.",  # a surname after an initial
        "I'm in ÖSTERSKÄR, at the conference",  # a non-ASCII capitalised word
    ],
)
def test_gate_keeps_windows_with_phi(phi: str) -> None:
    assert _keep(phi)
    text = PROSE + phi + "\n" + PROSE
    offsets = _words(text)
    n_prose = len(_words(PROSE))
    windows = [
        Window(0, n_prose),
        Window(n_prose, len(offsets) - n_prose),
        Window(len(offsets) - n_prose, len(offsets)),
    ]
    assert gate_windows(text, offsets, windows) == [False, True, False]


def test_gate_config_key() -> None:
    assert Config.load().transformer.gate in (True, False)
    assert Config.load(overrides={"detectors": {"transformer": {"gate": True}}}).transformer.gate is True


def test_gate_keeps_the_bundled_models_spans() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from radeid.detect.transformer import TransformerDetector

    config = Config.load().transformer
    detector = TransformerDetector.from_config(config)
    header = "Patient: Jane Doe   MRN: 4417-2231   DOB: 03/14/1962\nReferring physician: Dr. Alan Brooks\n"
    footer = "Dictated by Maria Lopez, MD on 2024-02-11 at Mercy General Hospital.\n"
    docs = [Document("a", header + PROSE * 12 + footer), Document("b", PROSE * 3)]
    detector.gate = False
    off = detector.detect(docs)
    detector.gate = True
    on = detector.detect(docs)
    assert on == off
    assert off[0]  # there is PHI to find
    assert detector.windows_skipped >= 2  # the prose windows of "a" and all of "b"
