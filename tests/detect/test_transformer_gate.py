"""The model gate (`[detectors.transformer] gate`): which windows the model must see."""

from __future__ import annotations

import re

import pytest

from radeid.config.config import Config, ConfigError
from radeid.core.document import Document
from radeid.detect.chunking import Window
from radeid.detect.transformer.gate import gate_windows, signal_spans

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
    detector.gate, detector.gate_scope = True, "window"
    on = detector.detect(docs)
    assert on == off
    assert off[0]  # there is PHI to find
    assert detector.windows_skipped >= 2  # the prose windows of "a" and all of "b"


def _plan(text: str, context: int, max_tokens: int = 40, stride: int = 8) -> tuple[list[Window], list[bool]]:
    from radeid.detect.chunking import boundary_strengths
    from radeid.detect.transformer.gate import sentence_plan

    offsets = _words(text)
    return sentence_plan(text, offsets, boundary_strengths(text, offsets), max_tokens, stride, context)


def _covered_once_outside_overlaps(windows: list[Window], n: int) -> None:
    covered = [0] * n
    for w in windows:
        for i in range(w.start, w.end):
            covered[i] += 1
    assert min(covered) >= 1


def test_sentence_plan_sends_only_sentences_with_a_signal() -> None:
    prose = "The heart is normal in size. The lungs are clear. No pleural effusion is seen.\n"
    phi = "Compared with the study of 03/04/2021 today."
    text = prose * 2 + phi + "\n" + prose * 2
    offsets = _words(text)
    n_prose = len(_words(prose))
    n_phi = len(_words(phi))
    windows, keep = _plan(text, context=0)
    # the sentence with the date, exactly; the prose before and after is skipped
    assert [(w.start, w.end) for w in windows] == [(0, 2 * n_prose), (2 * n_prose, 2 * n_prose + n_phi),
                                                   (2 * n_prose + n_phi, len(offsets))]  # fmt: skip
    assert keep == [False, True, False]
    # with context, three pieces on each side come along
    windows, keep = _plan(text, context=3)
    assert [(w.start, w.end) for w, k in zip(windows, keep, strict=True) if k] == [
        (2 * n_prose - 3, 2 * n_prose + n_phi + 3)
    ]
    _covered_once_outside_overlaps(windows, len(offsets))


def test_sentence_plan_without_signals_skips_everything_and_joins_near_regions() -> None:
    prose = "The heart is normal in size. The lungs are clear.\n"
    text = prose * 4
    windows, keep = _plan(text, context=4)
    assert keep == [False] and windows == [Window(0, len(_words(text)))]
    assert _plan("", context=4) == ([], [])
    # two signals one short sentence apart: one region, not two
    text = "Seen by Smith today. Heart normal. Seen by Jones today.\n" + prose * 3
    windows, keep = _plan(text, context=4)
    assert keep[0] and not keep[-1] and keep.count(True) == 1
    _covered_once_outside_overlaps(windows, len(_words(text)))


def test_sentence_plan_cuts_long_regions_into_model_windows() -> None:
    sentence = "Seen by Smith " + "and Smith " * 60 + "today."
    windows, keep = _plan(sentence, context=0, max_tokens=40, stride=8)
    assert all(keep) and len(windows) >= 4
    assert all(len(w) <= 40 for w in windows)
    assert windows[0].start == 0 and windows[-1].end == len(_words(sentence))


def test_gate_scope_config_keys() -> None:
    from radeid.detect.transformer import TransformerDetector

    config = Config.load(overrides={"detectors": {"transformer": {"gate_scope": "sentence", "gate_context": 8}}})
    assert (config.transformer.gate_scope, config.transformer.gate_context) == ("sentence", 8)
    with pytest.raises(ConfigError, match="detectors.transformer.gate_scope must be one of window, sentence"):
        Config.load(overrides={"detectors": {"transformer": {"gate_scope": "page"}}})
    with pytest.raises(ConfigError, match="gate_context must not be negative"):
        Config.load(overrides={"detectors": {"transformer": {"gate_context": -1}}})
    with pytest.raises(ValueError, match="gate_scope"):  # the Python API checks it too
        TransformerDetector("bundled", gate=True, gate_scope="page")


def test_sentence_gate_keeps_the_bundled_models_spans_on_a_report() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from radeid.detect.transformer import TransformerDetector

    detector = TransformerDetector.from_config(Config.load().transformer)
    header = "Patient: Jane Doe   MRN: 4417-2231   DOB: 03/14/1962\nReferring physician: Dr. Alan Brooks\n"
    footer = "Dictated by Maria Lopez, MD on 2024-02-11 at Mercy General Hospital.\n"
    docs = [Document("a", header + PROSE * 12 + footer), Document("b", PROSE * 3)]
    detector.gate, detector.gate_scope = False, "window"
    off = detector.detect(docs)
    detector.gate, detector.gate_scope, detector.gate_context = True, "sentence", 16
    detector.pieces_scored = detector.pieces_skipped = 0
    on = detector.detect(docs)
    assert on == off
    assert off[0]
    assert detector.pieces_skipped > detector.pieces_scored  # the prose is not scored


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        ("per dr. j. ramos, ok to advance diet", "dr."),
        ("Singh, A. (attending) at bedside.", ", A."),
        ("A: O-Y-E-L-A-R-A-N.", "O-Y-E-L-A-R-A-N"),
        ("was at bayside urgent care yesterday", "urgent care"),
    ],
)
def test_lower_case_titles_initials_spelled_names_and_lower_case_facilities_are_signals(text: str, signal: str) -> None:
    # issue 25: the sentence gate never showed these lines to the model
    from radeid.detect.transformer.gate import signal_spans

    assert (text.index(signal), text.index(signal) + len(signal)) in signal_spans(text)
