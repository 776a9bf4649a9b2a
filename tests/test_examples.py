"""The synthetic examples are valid BRAT standoff with exact offsets (no dependency on radeid.io).

The examples feed the README quick start and span-contract tests, so a wrong offset here would
silently corrupt every figure computed on them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from radeid.core.categories import Category
from radeid.synth.markup import markup_problems, parse_markup

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
VALID = {c.value for c in Category}
TEXTS = sorted(EXAMPLES.glob("*.txt"))


def read_ann(path: Path) -> list[tuple[str, str, int, int, str]]:
    """(id, label, start, end, text) for each T-line; any other line is an error here."""
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        assert len(parts) == 3 and parts[0].startswith("T"), f"{path.name}:{lineno}: not a T-line"
        label, start, end = parts[1].split(" ")
        rows.append((parts[0], label, int(start), int(end), parts[2]))
    return rows


def test_there_are_a_dozen_paired_documents() -> None:
    assert len(TEXTS) >= 12
    assert {p.stem for p in EXAMPLES.glob("*.ann")} == {p.stem for p in TEXTS}


@pytest.mark.parametrize("txt", TEXTS, ids=lambda p: p.stem)
def test_offsets_match_text_and_labels_are_categories(txt: Path) -> None:
    text = txt.read_text(encoding="utf-8")
    rows = read_ann(txt.with_suffix(".ann"))
    assert rows, "every example has PHI"
    assert len({r[0] for r in rows}) == len(rows), "duplicate T ids"
    previous_end = -1
    for tid, label, start, end, surface in sorted(rows, key=lambda r: r[2]):
        assert label in VALID, (tid, label)
        assert 0 <= start < end <= len(text), tid
        assert text[start:end] == surface, (tid, surface)
        assert surface == surface.strip(), tid
        assert start >= previous_end, f"{tid} overlaps the previous span"
        previous_end = end


def test_generator_and_files_agree() -> None:
    """The committed .txt/.ann are exactly what examples/make_annotations.py produces."""
    spec = importlib.util.spec_from_file_location("make_annotations", EXAMPLES / "make_annotations.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, markup in module.DOCS.items():
        text, spans = parse_markup(markup)
        assert markup_problems(name, text, spans, module.GENERIC) == []
        assert (EXAMPLES / f"{name}.txt").read_text(encoding="utf-8") == text
        assert (EXAMPLES / f"{name}.ann").read_text(encoding="utf-8") == module.brat(spans)


def test_examples_cover_the_categories_the_readme_promises() -> None:
    labels = {row[1] for txt in TEXTS for row in read_ann(txt.with_suffix(".ann"))}
    assert labels == VALID
