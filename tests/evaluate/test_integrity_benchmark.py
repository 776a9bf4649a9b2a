"""The figures of `benchmarks/integrity.py` on tiny hand-made runs, so the instrument itself is checked."""

from __future__ import annotations

import sys
from pathlib import Path

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.resolve.trace import Decision

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


# -- (e) the veto audit: exact counts on hand-made decisions ----------------------------------------------

_GOLD_TEXT = "Seen by Dr. Ahmed on Friday at Lakeside clinic."
#             0    5    10   15   20   25   30   35   40   45
# tokens: Seen(0,4) by(5,7) Dr(8,10) .(10,11) Ahmed(12,17) on(18,20) Friday(21,27) at(28,30)
#         Lakeside(31,39) clinic(40,46) .(46,47)
_GOLD_RECORD = {
    "id": "g",
    "text": _GOLD_TEXT,
    "spans": [
        {"start": 12, "end": 17, "category": "HCW"},
        {"start": 21, "end": 27, "category": "DATE"},
        {"start": 31, "end": 39, "category": "OTHER"},
    ],
}


def _counts(final: list[Span], decisions: list[Decision], by_pattern: bool = False) -> dict[str, dict[str, int]]:
    tokens, gold, skip = integrity.evaluation_tokens(_GOLD_RECORD)
    return {k: dict(v) for k, v in integrity.veto_counts(tokens, gold, skip, final, decisions, by_pattern).items()}


def _zero(**counts: int) -> dict[str, int]:
    return {"gold_removed": 0, "non_gold_removed": 0, "gold_won_back": 0, "non_gold_won_back": 0} | counts


def test_evaluation_tokens_skip_other_gold_and_placeholders() -> None:
    tokens, gold, skip = integrity.evaluation_tokens(_GOLD_RECORD)
    assert len(tokens) == 11
    assert [i for i, g in enumerate(gold) if g] == [4, 6]  # Ahmed, Friday
    assert [i for i, k in enumerate(skip) if k] == [8]  # Lakeside: OTHER gold is neither
    openi = {"id": "o", "text": "XXXX is stable", "spans": [], "placeholders": [[0, 4]]}
    assert integrity.evaluation_tokens(openi)[2] == [True, False, False]


def test_a_dropped_span_over_gold_is_gold_removed() -> None:
    ahmed = Span(12, 17, Category.HCW, source="transformer")
    counts = _counts([], [Decision("form", "dropped", ahmed, (), "common_word")])
    assert counts == {"form:common_word": _zero(gold_removed=1)}


def test_a_dropped_span_covered_by_another_final_span_is_won_back() -> None:
    ahmed = Span(12, 17, Category.PATIENT, source="transformer")
    rule = Span(8, 17, Category.HCW, source="rules/name_cued")
    counts = _counts([rule], [Decision("protected", "dropped", ahmed, (), "misc_words/x")])
    assert counts == {"protected:misc_words": _zero(gold_won_back=1)}


def test_a_trimmed_span_counts_only_the_trimmed_part() -> None:
    # "Friday at Lakeside" trimmed to "Friday": "at" is non-gold removed, Lakeside (OTHER) is skipped,
    # Friday is kept and not counted at all
    before = Span(21, 39, Category.DATE, source="transformer")
    after = before.with_(end=27)
    counts = _counts([after], [Decision("edges", "trimmed", before, (after,))])
    assert counts == {"edges": _zero(non_gold_removed=1)}


def test_a_token_counts_once_per_check() -> None:
    # two decisions of one check over the same token: once; another check over it: once more
    friday = Span(21, 27, Category.DATE, source="transformer")
    wider = Span(18, 27, Category.DATE, source="transformer")
    decisions = [
        Decision("form", "dropped", friday, (), "date"),
        Decision("form", "dropped", wider, (), "date"),
        Decision("score", "dropped", friday, ()),
    ]
    counts = _counts([], decisions)
    assert counts == {"form:date": _zero(gold_removed=1, non_gold_removed=1), "score": _zero(gold_removed=1)}


def test_decisions_that_remove_nothing_are_not_rows() -> None:
    piece = Span(12, 17, Category.HCW, source="transformer")
    whole = Span(8, 17, Category.HCW, source="transformer")
    decisions = [Decision("extend", "extended", piece, (whole,)), Decision("merge", "merged", piece, (whole,))]
    assert _counts([whole], decisions) == {}


def test_check_names_aggregate_protected_by_class_and_hide_allow_list_terms() -> None:
    span = Span(0, 4, Category.PATIENT)
    protected = Decision("protected", "dropped", span, (), "vitals/bp,vitals/hr,labs/na")
    assert integrity.check_name(protected) == "protected:labs+vitals"
    assert integrity.check_name(protected, by_pattern=True) == "protected:vitals/bp,vitals/hr,labs/na"
    assert integrity.check_name(Decision("allow_list", "dropped", span, (), "baker cyst")) == "allow_list"
    assert integrity.check_name(Decision("form", "dropped", span, (), "phone")) == "form:phone"
    assert integrity.check_name(Decision("edges", "trimmed", span, (span.with_(end=2),))) == "edges"
    assert integrity.check_name(Decision("brand_new_step", "dropped", span, (), "why")) == "brand_new_step:why"


def test_option_counts_compare_final_spans_with_and_without_the_option() -> None:
    tokens, gold, skip = integrity.evaluation_tokens(_GOLD_RECORD)
    default = [Span(0, 4, Category.PATIENT)]  # "Seen": found only with the option on (non-gold)
    without = [
        Span(12, 17, Category.HCW),
        Span(28, 39, Category.HOSPITAL),
    ]  # Ahmed gold, "at" non-gold, Lakeside skipped
    counts = integrity.option_counts(tokens, gold, skip, default, without)
    assert dict(counts) == {
        "gold_removed": 1,
        "non_gold_removed": 1,
        "gold_only_with_it": 0,
        "non_gold_only_with_it": 1,
    }


def test_veto_audit_flags_checks_that_remove_more_gold_than_non_gold() -> None:
    ahmed = Span(12, 17, Category.HCW, source="transformer")
    clinic = Span(40, 46, Category.HOSPITAL, source="transformer")
    labelled = integrity.Run(
        [_GOLD_RECORD],
        [[]],
        [],
        1.0,
        decisions=[
            [
                Decision("form", "dropped", ahmed, (), "common_word"),
                Decision("allow_list", "dropped", clinic, (), "clinic"),
            ]
        ],
        off_spans={"gate": [[]]},
    )
    phi_free_record = {"id": "m", "text": "Seen by Dr. Ahmed", "spans": []}
    phi_free = integrity.Run(
        [phi_free_record], [[]], [], 1.0, decisions=[[Decision("form", "dropped", ahmed, (), "common_word")]]
    )
    audit = integrity.veto_audit({"presidio_synth": labelled, "mtsamples": phi_free})
    rows = audit["sets"]["presidio_synth"]["checks"]
    assert rows["form:common_word"]["costs_recall"] is True
    assert rows["allow_list"]["costs_recall"] is False  # 0 gold, 1 non-gold
    assert rows["gate"] == {
        "gold_removed": 0,
        "non_gold_removed": 0,
        "gold_only_with_it": 0,
        "non_gold_only_with_it": 0,
        "gold_won_back": None,
        "non_gold_won_back": None,
        "costs_recall": False,
    }
    assert audit["sets"]["presidio_synth"]["gold_tokens"] == 2
    # Seen, by, Dr, on, at, clinic; the two periods have no letter or digit: neither gold nor non-gold
    assert audit["sets"]["presidio_synth"]["non_gold_tokens"] == 6
    assert audit["sets"]["mtsamples"]["labelled"] is False
    assert audit["sets"]["mtsamples"]["checks"]["form:common_word"]["non_gold_removed"] == 1
    assert audit["costs_recall"] == [["form:common_word", "presidio_synth"]]


def test_the_veto_audit_counts_ages_outside_radeids_policy_as_neither_gold_nor_non_gold() -> None:
    """MEDDOCAN labels every age; radeid's policy (`age_threshold` 89) makes only older ages PHI, so a
    check that drops "72 años" costs no recall, and one that drops "95 años" does."""
    text = "Varón de 72 años y su madre de 95 años."
    record = {
        "id": "m",
        "text": text,
        "spans": [
            {"start": text.index("72"), "end": text.index("72") + 7, "category": "AGE"},
            {"start": text.index("95"), "end": text.index("95") + 7, "category": "AGE"},
        ],
    }
    tokens, gold, skip = integrity.evaluation_tokens(record, age_policy=True)
    words = [text[a:b] for a, b in tokens]
    assert [w for w, g in zip(words, gold, strict=True) if g] == ["95", "años"]
    assert [w for w, k in zip(words, skip, strict=True) if k] == ["72", "años", "."]  # the period: no letter
    # the scores of section (d) keep every gold age, as benchmarks/accuracy.py does
    tokens, gold, skip = integrity.evaluation_tokens(record)
    assert [w for w, g in zip(words, gold, strict=True) if g] == ["72", "años", "95", "años"]
    assert not any(skip)
