"""`--lang es` on the Spanish examples (issue 30): every gold token found, dates written back in Spanish."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from radeid.config import Config
from radeid.core.document import Document
from radeid.core.tokens import covered_tokens, word_tokens
from radeid.pipeline.spec import PipelineSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "es"
KEY = bytes(range(32))


def _gold(path: Path) -> list[tuple[str, int, int]]:
    rows = []
    for line in path.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
        _, label, _ = line.split("\t")
        category, start, end = label.split()
        rows.append((category, int(start), int(end)))
    return rows


@pytest.fixture(scope="module")
def spanish() -> object:
    return PipelineSpec.surrogates(KEY, Config.load(overrides={"pipeline": {"language": "es"}})).build()


@pytest.mark.parametrize("name", ["rx_torax", "tc_abdomen"])
def test_every_gold_token_of_the_spanish_examples_is_found(spanish: object, name: str) -> None:
    path = EXAMPLES / f"{name}.txt"
    text = path.read_text(encoding="utf-8")
    spans = spanish.detect([Document(id=name, text=text)])[0]  # type: ignore[attr-defined]
    tokens = word_tokens(text)
    found = covered_tokens(tokens, [(s.start, s.end) for s in spans])
    gold = covered_tokens(tokens, [(a, b) for _, a, b in _gold(path)])
    missed = [text[a:b] for (a, b), g, f in zip(tokens, gold, found, strict=True) if g and not f]
    assert missed == []


def test_spanish_dates_keep_their_form_and_language(spanish: object) -> None:
    text = (EXAMPLES / "rx_torax.txt").read_text(encoding="utf-8")
    out = spanish.deidentify([Document(id="rx", text=text, patient_id="p")])[0].text  # type: ignore[attr-defined]
    long_dates = re.findall(r"\b(\d{1,2}) de ([a-záéíóú]+) de (\d{4})\b", out)
    assert len(long_dates) == 2 and long_dates[0] == long_dates[1]  # one date, one surrogate
    day, month, year = long_dates[0]
    months = "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split()
    assert month in months and 1 <= int(day) <= 31 and 2022 <= int(year) <= 2026
    assert "3 de marzo de 2024" not in out and "14/02/1951" not in out
    assert re.search(r"Fecha de nacimiento: (\d\d)/(\d\d)/19(\d\d)\n", out)  # DD/MM/YYYY kept
