"""The resynthesis loop: surrogates in, gold moved to them, pipeline scored per round, summarized."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from radeid import Document, Replacement, Result, Span
from radeid.evaluate.metrics import PHI
from radeid.evaluate.resynth import resynthesize, resynthesize_document, round_keys

NAMES = ["Li", "Alexandria", "Bo", "Maximilian", "Eve"]


class KeyedNames:
    """A test replacer: every span becomes a name chosen by the key (lengths differ from the original)."""

    def __init__(self, key: bytes) -> None:
        self.key = key

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        reps = []
        for span in spans:
            digest = hashlib.sha256(self.key + document.text[span.start : span.end].encode()).digest()
            reps.append(Replacement(span, NAMES[digest[0] % len(NAMES)]))
        return Result.build(document, reps)


class Lengthen:
    """Every span becomes `<<` + original + `>>` (shifts all later offsets by 4 per span)."""

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        return Result.build(document, [Replacement(s, f"<<{document.text[s.start : s.end]}>>") for s in spans])


def test_gold_moves_to_the_surrogates_and_ignored_regions_move_with_the_text() -> None:
    # "Mr Ann Lee, CEO, saw Bob." gold: Ann Lee (3,10), Bob (21,24); ignored: CEO (12,15)
    doc = Document("d", "Mr Ann Lee, CEO, saw Bob.", spans=(Span(3, 10, "PATIENT"), Span(21, 24, "HCW")))
    new, ignored = resynthesize_document(doc, Lengthen(), [(12, 15)])
    assert new.text == "Mr <<Ann Lee>>, CEO, saw <<Bob>>."
    assert [new.text[s.start : s.end] for s in new.spans] == ["<<Ann Lee>>", "<<Bob>>"]
    assert [s.category.value for s in new.spans] == ["PATIENT", "HCW"]
    assert [new.text[s:e] for s, e in ignored] == ["CEO"]
    assert new.metadata["ignored_spans"] == ignored


def test_overlapping_gold_is_replaced_once_and_still_scored() -> None:
    # (0,7) "Ann Lee" and (4,7) "Lee" overlap: the longer one is replaced; "Lee" lies inside it
    doc = Document("d", "Ann Lee x", spans=(Span(0, 7, "PATIENT"), Span(4, 7, "PATIENT")))
    new, _ = resynthesize_document(doc, Lengthen())
    assert new.text == "<<Ann Lee>> x"
    assert sorted((s.start, s.end) for s in new.spans) == [(0, 11), (0, 11)]


def test_round_keys_are_seeded_distinct_and_32_bytes() -> None:
    keys = round_keys(5, seed=0)
    assert keys == round_keys(5, seed=0)
    assert len(set(keys)) == 5 and all(len(k) == 32 for k in keys)
    assert keys != round_keys(5, seed=1)
    assert round_keys(2, master_key=b"s" * 32) != keys[:2]
    assert len(set(round_keys(3, seed=None))) == 3  # random


def exact_detector(wanted: set[str]):
    """Finds every occurrence of the strings in `wanted`: a detector that knows some names only."""

    def detect(docs: Sequence[Document]) -> list[list[Span]]:
        out = []
        for doc in docs:
            spans = []
            for name in wanted:
                start = doc.text.find(name)
                while start >= 0:
                    spans.append(Span(start, start + len(name), "PATIENT"))
                    start = doc.text.find(name, start + 1)
            out.append(spans)
        return out

    return detect


def test_the_loop_scores_each_round_against_the_surrogate_positions() -> None:
    gold = [Document(f"d{i}", f"Patient Zed{i} seen.", spans=(Span(8, 12, "PATIENT"),)) for i in range(6)]
    made: list[bytes] = []

    def factory(key: bytes) -> KeyedNames:
        made.append(key)
        return KeyedNames(key)

    # A detector that knows every surrogate name: recall 1 whatever the round.
    perfect = resynthesize(gold, exact_detector(set(NAMES)), 3, replacer_factory=factory, seed=5)
    assert made == round_keys(3, seed=5)
    assert len(perfect.rounds) == 3
    recall = perfect.get("token", PHI, "recall")
    assert (recall.point, recall.low, recall.high, recall.resamples) == (1.0, 1.0, 1.0, 3)
    # A detector that knows the original names only finds nothing once they are replaced.
    blind = resynthesize(gold, exact_detector({f"Zed{i}" for i in range(6)}), 2, replacer_factory=KeyedNames)
    assert blind.get("overlap", PHI, "recall").point == 0.0


class Fixed:
    """Replaces every span with one given name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        return Result.build(document, [Replacement(s, self.name) for s in spans])


def test_mean_and_range_over_rounds_by_hand() -> None:
    # Round r replaces the name with NAMES[r]: Li, Alexandria, Bo, Maximilian. The detector knows
    # Li and Bo, so token recall per round is 1, 0, 1, 0: mean 0.5; the 2.5th and 97.5th
    # percentiles of (0, 0, 1, 1) are 0 and 1.
    gold = [Document("d", "Seen Zed today", spans=(Span(5, 8, "PATIENT"),))]
    names = iter(NAMES)
    res = resynthesize(gold, exact_detector({"Li", "Bo"}), 4, replacer_factory=lambda key: Fixed(next(names)))
    assert [r.scores("token")[PHI].recall for r in res.rounds] == [1.0, 0.0, 1.0, 0.0]
    iv = res.get("token", PHI, "recall")
    assert (iv.point, iv.low, iv.high, iv.resamples) == (0.5, 0.0, 1.0, 4)
    # precision is 1 in the rounds where something was found, 0 (nothing predicted) in the others
    assert res.get("token", PHI, "precision").point == 0.5
    # gold token counts differ between rounds ("Alexandria" is one token like "Li"): mean 1
    assert res.mean_counts("token", PHI) == (1.0, 0.5)
    data = res.to_dict()
    assert data["rounds"] == 4 and data["keys"] == "seeded"
    assert data["summary"]["token"][PHI]["recall"]["mean"] == 0.5


def test_ignored_regions_survive_the_rounds() -> None:
    doc = Document("d", "CEO Ann met us", spans=(Span(4, 7, "PATIENT"),), metadata={"ignored_spans": [(0, 3)]})

    def detect_ceo_and_names(docs: Sequence[Document]) -> list[list[Span]]:
        found = exact_detector(set(NAMES))(docs)
        return [[Span(0, 3, "HCW"), *spans] for spans in found]  # "CEO" tagged: not counted

    res = resynthesize([doc], detect_ceo_and_names, 2, replacer_factory=KeyedNames)
    assert res.get("token", PHI, "precision").point == 1.0


def test_with_the_real_surrogate_engine() -> None:
    surrogate = pytest.importorskip("radeid.replace.surrogate")
    if not hasattr(surrogate, "SurrogateReplacer"):
        pytest.skip("surrogate engine not ready")
    text = "Seen by Dr. Alan Grant on 03/04/2019. MRN 1234567."
    gold = [Document("r1", text, spans=(Span(12, 22, "HCW"), Span(26, 36, "DATE"), Span(42, 49, "ID")))]
    made: list[Result] = []

    class Recording:
        def __init__(self, key: bytes) -> None:
            self.inner = surrogate.SurrogateReplacer(key)

        def replace(self, document: Document, spans: Sequence[Span]) -> Result:
            made.append(self.inner.replace(document, spans))
            return made[-1]

    def oracle(docs: Sequence[Document]) -> list[list[Span]]:
        # finds the surrogates by their text (not by offsets), as a perfect detector would
        assert all(not d.spans for d in docs), "the detector must not see the gold"
        out = []
        for doc in docs:
            spans = []
            for rep in made[-1].replacements:
                start = doc.text.index(rep.new_text)
                spans.append(Span(start, start + len(rep.new_text), rep.span.category))
            out.append(spans)
        return out

    res = resynthesize(gold, oracle, 2, seed=0, replacer_factory=Recording)
    assert res.get("exact", PHI, "f1").point == 1.0
    assert res.get("exact", "DATE", "f1").point == 1.0
    texts = {r.text for r in made}
    assert len(texts) == 2 and text not in texts  # a new text per round, never the original
