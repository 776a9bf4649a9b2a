"""The figures of `benchmarks/integrity.py` on tiny hand-made runs, so the instrument itself is checked."""

from __future__ import annotations

import sys
from pathlib import Path

from radeid.categories import Category
from radeid.document import Document, Replacement, Result, Span

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import integrity  # noqa: E402  (a script folder, put on the path above)


def _run(records: list[dict], edits: list[list[tuple[int, int, Category, str, str]]]) -> integrity.Run:
    spans = [[Span(s, e, c, source=src) for s, e, c, _, src in doc] for doc in edits]
    results = [
        Result.build(Document(r["id"], r["text"]), [Replacement(sp, e[3]) for sp, e in zip(ss, doc, strict=True)])
        for r, ss, doc in zip(records, spans, edits, strict=True)
    ]
    return integrity.Run(records, spans, results, 1.0)


def test_held_out_half_is_the_odd_sha1() -> None:
    # `printf %s openi_iu/4 | sha1sum` ends in ...2fd (odd), /5 ...1f7 (odd), /6 ...56f (odd), /7 ...708 (even)
    ids = ["openi_iu/4", "openi_iu/5", "openi_iu/6", "openi_iu/7"]
    assert [integrity.held_out(i) for i in ids] == [True, True, True, False]


def test_trap_figures_count_lines_numbers_and_gold() -> None:
    records = [
        {"id": "t/vitals/1", "class": "vitals", "text": "Temp 98.6, HR 72", "spans": []},
        {"id": "t/holidays/1", "class": "holidays", "text": "Since Christmas.", "spans": []},
        {"id": "t/labs/1", "class": "labs", "text": "Na 138", "spans": []},
        {
            "id": "t/phi_adjacent/1",
            "class": "phi_adjacent",
            "text": "Dr. Ahmed 03/14/2019 BP 132/84 John Lee",
            "spans": [
                {"start": 4, "end": 9, "category": "HCW"},
                {"start": 10, "end": 20, "category": "DATE"},
                {"start": 31, "end": 39, "category": "PATIENT"},
            ],
        },
    ]
    edits = [
        [(5, 9, Category.AGE, "103.6", "transformer")],  # 98 changes (one numeric token)
        [(6, 15, Category.DATE, "Easter", "transformer")],  # a word, no number
        [],
        [
            (0, 9, Category.HCW, "Dr. Levy", "rules"),  # covers the gold Ahmed
            (10, 20, Category.DATE, "04/01/2019", "rules"),  # exact; numbers inside gold do not count
            (28, 30, Category.DATE, "11", "transformer"),  # 84 -> 11: a clinical number changed
            (31, 35, Category.PATIENT, "Jane", "transformer"),  # overlaps "John Lee" only
        ],
    ]
    fig = integrity.trap_figures(_run(records, edits))
    assert fig["phi_free_lines"] == 3
    assert fig["phi_free_lines_with_a_span"] == 2
    assert fig["per_class"]["vitals"] == {"lines": 1, "lines_with_a_span": 1, "spans": 1, "changed_numeric_tokens": 1}
    assert fig["per_class"]["labs"]["lines_with_a_span"] == 0
    assert fig["per_class"]["phi_adjacent"]["changed_numeric_tokens"] == 1
    assert fig["changed_numeric_tokens"] == 2
    assert fig["phi_free_spans_by_source"] == {"transformer": 2}
    adjacent = fig["phi_adjacent"]
    assert (adjacent["exact"], adjacent["covered"], adjacent["overlapped"], adjacent["missed"]) == (1, 1, 1, 0)


def test_changes_per_100_reports_ignore_placeholders() -> None:
    records = [
        {"id": "a", "text": "XXXX is stable. Seen on Friday.", "spans": []},
        {"id": "b", "text": "No change.", "spans": []},
    ]
    edits = [[(0, 4, Category.PATIENT, "Jane", "transformer"), (24, 30, Category.DATE, "Monday", "rules")], []]
    fig = integrity.changes(_run(records, edits), frozenset({"XXXX"}))
    assert fig["changed_tokens"] == 1  # Friday; XXXX ignored
    assert fig["changed_tokens_per_100_reports"] == 50.0
    assert fig["docs_with_a_change"] == 1
    assert fig["changed_tokens_by_category"] == {"DATE": 1}
