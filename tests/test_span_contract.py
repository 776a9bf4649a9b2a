"""Every component that returns spans returns valid, tight offsets into the original text.

A span must lie inside the text, cover something, and neither start nor end on whitespace; the
resolver's output must also be sorted and non-overlapping. Checked on the bundled examples and
on awkward texts (Unicode that changes length when lower-cased, CRLF, tabs, upper case).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid import Document, Span
from radeid.config.config import Config
from radeid.detect.lexicon import LexiconDetector
from radeid.detect.rules import RuleDetector
from radeid.pipeline.deidentifier import Deidentifier

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

AWKWARD = [
    "İSTANBUL İİ Dr. İlker Öz seen at Mayo Clinic on 3/4/2019, MRN 1234567.",
    "Patient: DOE, JANE\r\nDOB: 01/02/1930\r\nAge: 94\r\nSiemens SOMATOM scanner\r\n",
    "\tCall\t(555) 201-3344\text. 12\tor page 4-5678.",
    "",
    "   ",
    "Ⅻ ﬁnding ß GE Healthcare Signa ß 2019-03-04",
]


def documents() -> list[Document]:
    docs = [Document(p.stem, p.read_text(encoding="utf-8")) for p in sorted(EXAMPLES.glob("*.txt"))]
    docs += [Document(f"awkward{i}", text) for i, text in enumerate(AWKWARD)]
    return docs


def assert_tight(text: str, span: Span) -> None:
    assert 0 <= span.start < span.end <= len(text), span
    piece = text[span.start : span.end]
    assert piece.strip() == piece and piece, (span, "span starts or ends on whitespace")


@pytest.mark.parametrize(
    "make",
    [lambda: RuleDetector(), lambda: LexiconDetector.from_files()],
    ids=["rules", "lexicon"],
)
def test_detector_spans_are_tight(make) -> None:  # noqa: ANN001
    detector = make()
    docs = documents()
    results = detector.detect(docs)
    assert len(results) == len(docs)
    for doc, spans in zip(docs, results, strict=True):
        for span in spans:
            assert_tight(doc.text, span)
            assert span.source.startswith(detector.name)


def test_resolved_spans_are_sorted_disjoint_and_tight() -> None:
    deid = Deidentifier(Config.load())
    docs = documents()
    for doc, spans in zip(docs, deid.detect(docs), strict=True):
        for span in spans:
            assert_tight(doc.text, span)
        for a, b in zip(spans, spans[1:], strict=False):
            assert a.end <= b.start


def test_results_keep_every_document_and_its_untouched_text() -> None:
    deid = Deidentifier(Config.load(), key=bytes(range(32)))  # the default mode: surrogates
    docs = documents()
    results = deid.deidentify(docs)
    assert [r.document.id for r in results] == [d.id for d in docs]
    for result in results:
        # outside the replacements, the output is the original text, character for character
        cursor_in, pieces = 0, []
        for rep in result.replacements:
            pieces.append(result.document.text[cursor_in : rep.span.start])
            cursor_in = rep.span.end
        pieces.append(result.document.text[cursor_in:])
        kept = "".join(pieces)
        rebuilt = result.text
        for _rep, (start, end) in sorted(
            zip(result.replacements, result.output_offsets(), strict=True), key=lambda x: -x[1][0]
        ):
            rebuilt = rebuilt[:start] + rebuilt[end:]
        assert rebuilt == kept
