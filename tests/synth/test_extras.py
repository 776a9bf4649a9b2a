"""Extra hard negatives and PHI contexts (`SynthOptions.extras`)."""

from __future__ import annotations

import random
import re

import pytest

from radeid.synth import extras as xs
from radeid.synth.builder import DocBuilder
from radeid.synth.fakes import Fakes
from radeid.synth.generate import SynthOptions, generate


@pytest.fixture(scope="module")
def docs() -> list:
    return list(generate(120, SynthOptions(seed=11, extras=1.0)))


def test_spans_match_text_and_negatives_hold_no_phi(docs: list) -> None:
    for doc in docs:
        for span in doc.spans:
            assert span.text_in(doc.text).strip() == span.text_in(doc.text)
        for start, end in doc.metadata["negatives"]:
            assert not any(s.start < end and start < s.end for s in doc.spans), doc.text[start:end]


def test_extras_off_is_the_first_generator() -> None:
    a = [d.text for d in generate(20, SynthOptions(seed=3))]
    b = [d.text for d in generate(20, SynthOptions(seed=3, extras=0.0))]
    assert a == b


def test_every_negative_class_is_phi_free_text() -> None:
    r = random.Random(0)
    for kind in xs.NEGATIVE_CLASSES:
        for _ in range(20):
            assert xs.negative(r, kind).strip()


def _one(kind: str, seed: int) -> tuple[str, list[tuple[str, str]]]:
    r = random.Random(seed)
    f = Fakes()
    f.reset(seed)
    f.rng = r
    b = DocBuilder(random.Random(1))
    from datetime import datetime

    xs.phi_sentence(b, xs.Extra(r, f, datetime(2020, 1, 1)), kind)
    text, spans = b.build()
    return text, [(s.category.value, s.text_in(text)) for s in spans]


def test_iso_datetime_labels_the_date_only() -> None:
    for seed in range(20):
        text, spans = _one("iso_datetime", seed)
        assert len(spans) == 1 and spans[0][0] == "DATE" and re.fullmatch(r"\d{4}-\d{2}-\d{2}", spans[0][1])


def test_possessive_labels_the_name_only() -> None:
    for seed in range(20):
        text, spans = _one("possessive", seed)
        assert len(spans) == 1 and "'" not in spans[0][1] and spans[0][1] + "'s" in text


def test_compact_dates_and_names_without_titles() -> None:
    for seed in range(20):
        _, spans = _one("compact_date", seed)
        assert spans[0][0] == "DATE" and re.fullmatch(r"\d{8}|\d{2}-?[A-Z]{3}-?\d{4}", spans[0][1])
        text, spans = _one("name_no_title", seed)
        assert spans[0][0] == "PATIENT" and "(" not in spans[0][1]


def test_departments_are_not_labelled(docs: list) -> None:
    for doc in docs:
        for span in doc.spans:
            assert span.text_in(doc.text) not in xs.DEPARTMENTS


def test_extras_do_not_depend_on_the_hash_seed(tmp_path) -> None:  # noqa: ANN001
    """Faker builds its it_IT city list from a set; read in a stable order, a corpus is the same in
    every process (PYTHONHASHSEED varies between runs by default)."""
    import os
    import subprocess
    import sys

    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"s{seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        cmd = [sys.executable, "-m", "radeid", "synth", "-n", "60", "--seed", "3", "--extras", "1.0", "-o", str(out)]
        subprocess.run(cmd, check=True, env=env, capture_output=True)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
