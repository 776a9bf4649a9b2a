"""TransformerDetector machinery without a model: a real WordPiece tokenizer and a fake scorer.

Needs only `tokenizers` and numpy (no torch, no model files): the tokenizer is built in memory
with BERT's uncased normalisation (lower-casing, accent stripping) and, on purpose, truncation
and padding switched on, which the detector must switch off.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.base import Detector
from radeid.detect.transformer import LabelDecoder, LoadedModel, ModelLoadError, PieceTokenizer, TransformerDetector

tokenizers = pytest.importorskip("tokenizers")

FILLER = (
    "the lungs are clear there is no effusion or pneumothorax heart size is normal mild "
    "atelectasis at both bases stable nodule in right upper lobe liver spleen kidneys unremarkable"
).split()
MARKERS = {"zebra": "B-PATIENT", "penguin": "B-ID", "kangaroo": "I-ID"}
LABELS = ("O", "B-PATIENT", "I-PATIENT", "B-ID", "I-ID")


def make_tokenizer() -> tokenizers.Tokenizer:
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    words = sorted(set(FILLER) | set(MARKERS) | {".", ",", "dr", "'", "s", "##s", "##foo", "foo"})
    vocab = {token: i for i, token in enumerate(specials + words)}
    tok = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True, clean_text=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    tok.enable_truncation(max_length=64)  # a trap: the detector must never truncate
    tok.enable_padding(length=64, pad_id=0, pad_token="[PAD]")
    return tok


class MarkerScorer:
    """Fake model: each marker id gets its label with probability 0.97, everything else O."""

    def __init__(self, tokenizer: tokenizers.Tokenizer) -> None:
        self.label_of = {tokenizer.token_to_id(w): LABELS.index(label) for w, label in MARKERS.items()}
        self.windows: list[int] = []
        self.calls = 0

    def score_windows(self, windows: Sequence[Sequence[int]]) -> list[np.ndarray]:
        self.calls += 1
        out = []
        for ids in windows:
            self.windows.append(len(ids))
            probs = np.full((len(ids), len(LABELS)), 0.03 / (len(LABELS) - 1), dtype=np.float32)
            for i, token_id in enumerate(ids):
                label = self.label_of.get(token_id, 0)
                probs[i, label] = 0.97
            out.append(probs)
        return out


def make_detector(
    max_length: int = 512, stride: int = 128, requested: int | None = None, **options: object
) -> tuple[TransformerDetector, MarkerScorer]:
    """A detector around the fake scorer; `max_length` is the model's limit, `requested` the option."""
    tok = make_tokenizer()
    piece = PieceTokenizer(tok)
    scorer = MarkerScorer(tok)
    loaded = LoadedModel(
        source="fake", backend="fake", tokenizer=piece, scorer=scorer, labels=LABELS, max_length=max_length, metadata={}
    )
    detector = TransformerDetector.from_loaded(loaded, stride=stride, max_length=requested, **options)  # type: ignore[arg-type]
    return detector, scorer


def found(detector: TransformerDetector, text: str) -> list[tuple[str, str]]:
    [spans] = detector.detect([Document("d", text)])
    return [(text[s.start : s.end], s.label) for s in spans]


def filler(n_words: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """Tokens (each one word piece: filler words and ".") and the separator before each, with
    sentence ends and line breaks sprinkled in as a radiology report has them."""
    tokens: list[str] = []
    seps: list[str] = []
    for i in range(n_words):
        tokens.append(rng.choice(FILLER))
        seps.append("\n" if tokens[-2:-1] == ["."] and rng.random() < 0.3 else " " if tokens[:-1] else "")
        if i % 17 == 16:
            tokens.append(".")
            seps.append("")
    return tokens, seps


def render(tokens: Sequence[str], seps: Sequence[str]) -> str:
    return "".join(sep + token for sep, token in zip(seps, tokens, strict=True))


# ------------------------------------------------------------------------------------ basics


def test_is_a_detector_and_turns_off_truncation_and_padding() -> None:
    det, _ = make_detector()
    assert isinstance(det, Detector) and det.name == "transformer"
    assert det.loaded.tokenizer.prefix and det.loaded.tokenizer.suffix
    assert det.max_tokens == 510
    text = " ".join(["lungs"] * 200 + ["zebra"])  # past the tokenizer file's 64-token truncation
    assert found(det, text) == [("zebra", "PATIENT")]


def test_offsets_are_exact_in_the_original_text_despite_lowercasing_and_accents() -> None:
    det, _ = make_detector()
    text = "Dr. ZÉBRA's  lungs\tare clear; Zebrafoo penguin  KANGAROO\nzebra zebra"
    [spans] = det.detect([Document("d", text)])
    got = [(text[s.start : s.end], s.label) for s in spans]
    assert got == [
        ("ZÉBRA", "PATIENT"),
        ("Zebrafoo", "PATIENT"),  # the piece "zebra" grown to the whole word
        ("penguin  KANGAROO", "ID"),  # B-ID then I-ID: one span
        ("zebra", "PATIENT"),  # B- then B-: two spans
        ("zebra", "PATIENT"),
    ]
    assert all(s.source == "transformer" and 0.9 < s.score <= 1.0 for s in spans)


def test_empty_and_blank_documents() -> None:
    det, scorer = make_detector()
    assert det.detect([]) == []
    assert det.detect([Document("a", ""), Document("b", "  \n\t ")]) == [[], []]
    assert scorer.calls <= 1


def test_batching_across_documents_does_not_mix_them_up() -> None:
    det, scorer = make_detector(max_length=40, stride=8)
    rng = random.Random(3)
    docs = []
    for k in range(12):
        tokens, seps = filler(rng.randint(0, 120), rng)
        for _ in range(rng.randint(0, 4) if tokens else 0):
            i = rng.randrange(len(tokens))
            if tokens[i] != ".":
                tokens[i] = rng.choice(["zebra", "penguin"])
        docs.append(Document(f"d{k}", render(tokens, seps)))
    together = det.detect(docs)
    assert scorer.calls == 1  # one scorer call for the whole batch of documents
    alone = [det.detect([doc])[0] for doc in docs]
    assert together == alone
    for doc, spans in zip(docs, together, strict=True):
        assert len(spans) == doc.text.count("zebra") + doc.text.count("penguin")


# ------------------------------------------------------------------------- long documents


@pytest.mark.parametrize(("max_length", "stride"), [(512, 128), (64, 16)])
def test_20000_word_report_phi_at_start_every_window_boundary_and_end(max_length: int, stride: int) -> None:
    det, scorer = make_detector(max_length=max_length, stride=stride)
    tokens, seps = filler(20_000, random.Random(7))
    # Plan the windows, then put a marker on the token at each side of every cut, at the start and
    # at the end. Filler words and markers are one word piece each, so the plan does not move.
    offsets, windows = det.plan(render(tokens, seps))
    assert len(offsets) == len(tokens) and len(windows) > 5
    cuts = {0, len(tokens) - 1}
    for w in windows:
        cuts.update({w.start, w.end - 1, min(w.end, len(tokens) - 1), max(w.start - 1, 0)})
    for i in cuts:
        if tokens[i] != ".":
            tokens[i] = "zebra"
    tokens[0] = tokens[-1] = "zebra"
    text = render(tokens, seps)
    offsets2, windows2 = det.plan(text)
    assert windows2 == windows
    expected = [offsets2[i] for i, token in enumerate(tokens) if token == "zebra"]
    assert len(expected) >= 2 * len(windows)
    [spans] = det.detect([Document("long", text)])
    assert [(s.start, s.end) for s in spans] == expected
    assert all(text[s.start : s.end] == "zebra" and s.category is Category.PATIENT for s in spans)
    assert sum(scorer.windows) >= len(tokens)  # every piece went through the model at least once
    assert max(scorer.windows) <= max_length - 2


# -------------------------------------------------------------------------- label decoding


def probs_for(labels: Sequence[str], per_token: Sequence[str], confidence: float = 0.9) -> np.ndarray:
    rest = (1 - confidence) / (len(labels) - 1)
    out = np.full((len(per_token), len(labels)), rest, dtype=np.float32)
    for i, label in enumerate(per_token):
        out[i, labels.index(label)] = confidence
    return out


def word_offsets(text: str) -> list[tuple[int, int]]:
    import re

    return [(m.start(), m.end()) for m in re.finditer(r"\w+|[^\w\s]", text)]


def test_io_scheme_joins_neighbours_but_never_across_a_line_break() -> None:
    labels = ("O", "PATIENT", "DATE")
    decoder = LabelDecoder(labels)
    assert decoder.scheme == "io"
    text = "Jane Smith\nJohn Doe on 3 May"
    tags = ["PATIENT", "PATIENT", "PATIENT", "PATIENT", "O", "DATE", "DATE"]
    spans = decoder.decode(text, word_offsets(text), probs_for(labels, tags))
    assert [(text[s.start : s.end], s.label) for s in spans] == [
        ("Jane Smith", "PATIENT"),
        ("John Doe", "PATIENT"),
        ("3 May", "DATE"),
    ]


def test_bio_scheme_splits_on_b_and_sums_b_and_i_probabilities() -> None:
    labels = ("O", "B-HCW", "I-HCW", "B-DATE", "I-DATE")
    decoder = LabelDecoder(labels)
    assert decoder.scheme == "bio"
    text = "Smith Jones 2020"
    probs = np.array(
        [
            [0.1, 0.5, 0.3, 0.05, 0.05],
            [0.1, 0.5, 0.3, 0.05, 0.05],  # B-HCW again: a second name
            [0.3, 0.0, 0.0, 0.3, 0.4],  # DATE wins on B+I (0.7) though O is the single top label
        ],
        dtype=np.float32,
    )
    spans = decoder.decode(text, word_offsets(text), probs)
    assert [(text[s.start : s.end], s.label) for s in spans] == [("Smith", "HCW"), ("Jones", "HCW"), ("2020", "DATE")]
    assert spans[2].score == pytest.approx(0.7, abs=1e-6)


def test_b_label_on_a_subword_piece_continues_the_word() -> None:
    labels = ("O", "B-ID", "I-ID")
    decoder = LabelDecoder(labels)
    text = "MRN 12345678"
    offsets = [(0, 3), (4, 7), (7, 9), (9, 12)]  # "123", "##45", "##678"
    spans = decoder.decode(text, offsets, probs_for(labels, ["O", "B-ID", "B-ID", "I-ID"]))
    assert [(text[s.start : s.end], s.label) for s in spans] == [("12345678", "ID")]


def test_threshold_is_on_one_minus_p_outside() -> None:
    labels = ("O", "PATIENT")
    text = "Jane"
    probs = np.array([[0.6, 0.4]], dtype=np.float32)
    assert LabelDecoder(labels).decode(text, [(0, 4)], probs, threshold=0.5) == []
    [span] = LabelDecoder(labels).decode(text, [(0, 4)], probs, threshold=0.3)
    assert span == Span(0, 4, Category.PATIENT) and span.score == pytest.approx(0.4)


def test_stanford_labels_map_unchanged() -> None:
    labels = ("O", "VENDOR", "DATE", "HCW", "HOSPITAL", "ID", "PATIENT", "PHONE")
    for label_map in (None, "stanford"):
        decoder = LabelDecoder(labels, label_map)
        assert decoder.scheme == "io"
        assert {k[0] for k in decoder.keys} == {
            Category.VENDOR,
            Category.DATE,
            Category.HCW,
            Category.HOSPITAL,
            Category.ID,
            Category.PATIENT,
            Category.PHONE,
        }


def test_label_maps_give_subtypes_and_can_ignore_labels() -> None:
    labels = ("O", "B-MEDICALRECORD", "I-MEDICALRECORD", "B-PROFESSION", "I-PROFESSION")
    decoder = LabelDecoder(labels, "i2b2_2014")
    assert decoder.keys == ((Category.ID, "MRN"),)
    assert decoder.targets[3] is None
    text = "MRN 123 nurse"
    spans = decoder.decode(text, word_offsets(text), probs_for(labels, ["O", "B-MEDICALRECORD", "B-PROFESSION"]))
    assert [(text[s.start : s.end], s.label) for s in spans] == [("123", "ID/MRN")]
    custom = LabelDecoder(("O", "NAME"), {"NAME": "HCW/RADIOLOGIST"})
    assert custom.keys == ((Category.HCW, "RADIOLOGIST"),)


def test_unknown_labels_are_an_error_not_silently_dropped() -> None:
    with pytest.raises(ModelLoadError, match="LABEL_1.*label map"):
        LabelDecoder(("LABEL_0", "LABEL_1"))
    with pytest.raises(ModelLoadError, match="no radeid category|not PHI|PHI category"):
        LabelDecoder(("O",))
    with pytest.raises(ModelLoadError, match="unknown label map"):
        LabelDecoder(("O", "DATE"), "no-such-map")


def test_detector_options_are_checked() -> None:
    with pytest.raises(ValueError):
        make_detector(threshold=0.0)
    with pytest.raises(ModelLoadError, match="exceeds"):
        make_detector(max_length=512, requested=600)
    det, _ = make_detector(max_length=64, requested=32, stride=1000)
    assert det.max_length == 32 and det.max_tokens == 30 and det.stride == 15


def test_batches_sort_by_length_and_bound_attention_memory() -> None:
    from radeid.detect.transformer.scorers import _BatchScorer

    scorer = _BatchScorer(PieceTokenizer(make_tokenizer()), batch_size=16, attention_cells=4 * 512 * 512)
    lengths = [510] * 10 + [254] * 20 + [30] * 40
    batches = scorer.batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))  # each window once
    for batch in batches:
        widths = [lengths[i] for i in batch]
        assert widths == sorted(widths) and max(widths) - min(widths) <= 224  # sorted: little padding
        assert len(batch) <= 16 and len(batch) * (max(widths) + 2) ** 2 <= 4 * 512 * 512
    assert [len(b) for b in batches if lengths[b[0]] == 510] == [4, 4, 2]
