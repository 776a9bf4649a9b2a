"""Shared helpers for the surrogate tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from radeid import Category, Document, Result, Span

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

KEY = b"surrogate-tests-key-0001-not-a-real-secret"
OTHER_KEY = b"surrogate-tests-key-0002-not-a-real-secret"


def doc_with(
    text: str,
    marks: Sequence[tuple[str, Category] | tuple[str, Category, int]],
    *,
    doc_id: str = "d1",
    patient_id: str | None = "p1",
    subtypes: dict[str, str] | None = None,
) -> tuple[Document, list[Span]]:
    """A document and sorted spans, each mark being (substring, category[, occurrence])."""
    spans = []
    for mark in marks:
        sub, cat = mark[0], mark[1]
        nth = mark[2] if len(mark) > 2 else 0  # type: ignore[misc]
        starts = [m.start() for m in re.finditer(re.escape(sub), text)]
        start = starts[nth]
        spans.append(Span(start, start + len(sub), cat, (subtypes or {}).get(sub)))
    spans.sort()
    return Document(doc_id, text, patient_id=patient_id, spans=tuple(spans)), spans


def new_texts(result: Result) -> dict[str, str]:
    """original span text -> surrogate (last one wins for repeated originals)."""
    text = result.document.text
    return {text[r.span.start : r.span.end]: r.new_text for r in result.replacements}


def surrogate_at(result: Result, index: int) -> str:
    return result.replacements[index].new_text
