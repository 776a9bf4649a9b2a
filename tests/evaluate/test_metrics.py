"""Metric definitions, checked against values worked out by hand on small documents."""

from __future__ import annotations

import pytest

from radeid import Category, Document, Span
from radeid.evaluate.metrics import (
    MACRO,
    MICRO,
    PHI,
    Counts,
    EvaluationInputError,
    count_document,
    evaluate_documents,
)

# Tokens of TEXT (word runs and single symbols):
#   Dr(0,2) Smith(3,8) saw(9,12) John(13,17) on(18,20) 3(21,22) /(22,23) 4(23,24) /(24,25) 2019(25,29) .(30,31)
TEXT = "Dr Smith saw John on 3/4/2019 ."
GOLD = Document(
    "d1",
    TEXT,
    spans=(Span(3, 8, Category.HCW), Span(13, 17, Category.PATIENT), Span(21, 29, Category.DATE)),
)
# Smith with the wrong category, the date cut short ("3/4/"), "Dr" spurious, John missed.
PRED = [Span(3, 8, Category.PATIENT), Span(21, 25, Category.DATE), Span(0, 2, Category.ID)]


@pytest.fixture
def result():
    return evaluate_documents([GOLD], {"d1": PRED})


def approx(value: float) -> object:
    return pytest.approx(value, abs=1e-12)


def test_gold_and_predicted_offsets_are_what_the_test_says() -> None:
    assert [TEXT[s.start : s.end] for s in GOLD.spans] == ["Smith", "John", "3/4/2019"]
    assert [TEXT[s.start : s.end] for s in PRED] == ["Smith", "3/4/", "Dr"]


def test_token_binary(result) -> None:
    # gold PHI tokens: Smith John 3 / 4 / 2019 (7); predicted: Dr Smith 3 / 4 / (6)
    # TP = Smith 3 / 4 / = 5; FP = Dr; FN = John 2019
    c = result.total("token", PHI)
    assert (c.tp, c.fp, c.fn) == (5, 1, 2)
    s = result.scores("token")[PHI]
    assert s.precision == approx(5 / 6)
    assert s.recall == approx(5 / 7)
    assert s.f1 == approx(10 / 13)  # 2*5 / (2*5 + 1 + 2)


def test_token_wrong_category_is_binary_tp_and_fn_for_gold_and_fp_for_predicted(result) -> None:
    # "Smith": gold HCW, predicted PATIENT -> binary TP (above), HCW FN, PATIENT FP.
    assert result.total("token", "HCW") == Counts(tp=0, fp=0, fn=1)
    # PATIENT: John missed (FN) and Smith wrongly called PATIENT (FP)
    assert result.total("token", "PATIENT") == Counts(tp=0, fp=1, fn=1)
    assert result.total("token", "DATE") == Counts(tp=4, fp=0, fn=1)  # 3 / 4 / found, 2019 missed
    assert result.total("token", "ID") == Counts(tp=0, fp=1, fn=0)  # Dr


def test_token_per_category_scores_micro_and_macro(result) -> None:
    scores = result.scores("token")
    assert list(scores) == [PHI, "DATE", "PATIENT", "HCW", "ID", MICRO, MACRO]  # taxonomy order
    date = scores["DATE"]
    assert (date.precision, date.recall) == (1.0, approx(4 / 5))
    assert date.f1 == approx(8 / 9)
    assert scores["HCW"].precision == 0.0  # nothing predicted as HCW but an HCW was there: 0, not 1
    # micro = categories summed: tp 4, fp 2 (Smith as PATIENT, Dr), fn 3 (Smith as HCW, John, 2019)
    micro = scores[MICRO]
    assert (micro.precision, micro.recall, micro.f1) == (approx(4 / 6), approx(4 / 7), approx(8 / 13))
    # macro over DATE, PATIENT, HCW, ID: only DATE scores anything
    macro = scores[MACRO]
    assert macro.precision == approx(1 / 4)
    assert macro.recall == approx(0.8 / 4)
    assert macro.f1 == approx((8 / 9) / 4)


def test_span_exact(result) -> None:
    # no span matches with its category; only Smith matches by position
    for category in ("HCW", "PATIENT", "DATE"):
        assert result.total("exact", category).tp == 0
        assert result.total("exact", category).fn == 1
    assert result.total("exact", "ID") == Counts(fp=1)
    assert result.total("exact", PHI) == Counts(tp=1, fp=2, fn=2)
    assert result.scores("exact")[PHI].f1 == approx(1 / 3)


def test_span_overlap(result) -> None:
    # DATE: "3/4/" overlaps the gold date; PATIENT Smith overlaps no gold PATIENT
    assert result.total("overlap", "DATE") == Counts(tp=1, fp=0, fn=0, tp_pred=1)
    assert result.total("overlap", "PATIENT") == Counts(tp=0, fp=1, fn=1, tp_pred=0)
    assert result.total("overlap", "HCW") == Counts(fn=1)
    # binary: gold Smith and the date are overlapped, John is not; predicted Dr overlaps nothing
    binary = result.scores("overlap")[PHI]
    assert (binary.precision, binary.recall) == (approx(2 / 3), approx(2 / 3))
    assert result.scores("overlap")[MICRO].recall == approx(1 / 3)


def test_overlap_precision_counts_predictions_recall_counts_gold() -> None:
    # one prediction "Ann Lee Bob" covers two gold names: 2 found names, 1 correct prediction
    doc = Document("d", "Ann Lee Bob", spans=(Span(0, 3, "PATIENT"), Span(8, 11, "PATIENT")))
    c = evaluate_documents([doc], {"d": [Span(0, 11, "PATIENT")]}).total("overlap", "PATIENT")
    assert c == Counts(tp=2, fp=0, fn=0, tp_pred=1)
    assert (c.precision, c.recall) == (1.0, 1.0)


def test_core_of_span_recall_ignores_the_predicted_category(result) -> None:
    # Smith (HCW) is hidden although called PATIENT; the date has 4 of 5 tokens; John is missed.
    core = result.scores("core")
    assert core["HCW"].recall == 1.0
    assert core["DATE"].recall == 1.0
    assert core["PATIENT"].recall == 0.0
    assert core[PHI].recall == approx(2 / 3)


def test_span_offsets_are_compared_after_trimming_whitespace() -> None:
    doc = Document("d", "Seen  Smith \n", spans=(Span(4, 13, "HCW"),))  # "  Smith \n"
    result = evaluate_documents([doc], {"d": [Span(6, 11, "HCW")]})
    assert result.total("exact", "HCW") == Counts(tp=1)


def test_a_token_is_phi_if_any_part_is_covered_and_takes_the_category_covering_most() -> None:
    doc = Document("d", "Smith", spans=(Span(0, 5, "HCW"),))
    partial = evaluate_documents([doc], {"d": [Span(1, 3, "HCW")]})
    assert partial.total("token", "HCW") == Counts(tp=1)
    mixed = evaluate_documents([doc], {"d": [Span(0, 1, "ID"), Span(1, 5, "HCW")]})
    assert mixed.total("token", "HCW") == Counts(tp=1)  # 4 characters of HCW beat 1 of ID
    assert mixed.total("token", "ID") == Counts()


def test_ignored_gold_tokens_are_neither_tp_fp_nor_fn() -> None:
    # "CEO" carries a non-PHI gold label (Presidio TITLE -> IGNORE): predicting it costs nothing.
    doc = Document("d", "The CEO Ann met us", spans=(Span(8, 11, "PATIENT"),))
    ignored = {"d": [(4, 7)]}
    result = evaluate_documents([doc], {"d": [Span(4, 7, "HCW"), Span(8, 11, "PATIENT")]}, ignored=ignored)
    assert result.total("token", PHI) == Counts(tp=1)
    assert result.total("token", "HCW") == Counts()
    assert result.total("exact", PHI) == Counts(tp=1)
    assert result.documents[0].tokens == 4 and result.documents[0].ignored_tokens == 1
    assert result.categories == ("PATIENT",)
    # missing it is not a false negative either
    quiet = evaluate_documents([doc], {"d": [Span(8, 11, "PATIENT")]}, ignored=ignored)
    assert quiet.total("token", PHI) == Counts(tp=1)


def test_ignored_regions_may_come_from_metadata() -> None:
    doc = Document("d", "The CEO Ann", metadata={"ignored_spans": [{"start": 4, "end": 7}]})
    result = evaluate_documents([doc], {"d": [Span(4, 7, "HCW")]})
    assert result.total("token", PHI) == Counts()
    assert result.total("overlap", PHI) == Counts()


def test_a_prediction_touching_ignored_and_real_gold_is_scored() -> None:
    doc = Document("d", "The CEO Ann", spans=(Span(8, 11, "PATIENT"),))
    result = evaluate_documents([doc], {"d": [Span(4, 11, "HCW")]}, ignored={"d": [(4, 7)]})
    # CEO: ignored token; Ann: binary TP, PATIENT FN, HCW FP
    assert result.total("token", PHI) == Counts(tp=1)
    assert result.total("token", "PATIENT") == Counts(fn=1)
    assert result.total("token", "HCW") == Counts(fp=1)
    assert result.total("overlap", PHI) == Counts(tp=1, tp_pred=1)


def test_zero_denominators() -> None:
    assert (Counts().precision, Counts().recall, Counts().f1) == (1.0, 1.0, 1.0)  # nothing to find, none found
    assert (Counts(fp=2).precision, Counts(fp=2).recall, Counts(fp=2).f1) == (0.0, 0.0, 0.0)
    assert (Counts(fn=1).precision, Counts(fn=1).f1) == (0.0, 0.0)


def test_per_document_counts_are_kept_and_sum_to_the_total() -> None:
    other = Document("d2", "Call 555-1234", spans=(Span(5, 13, "PHONE"),))
    result = evaluate_documents([GOLD, other], {"d1": PRED, "d2": []})
    assert [d.doc_id for d in result.documents] == ["d1", "d2"]
    assert result.documents[1].get("token", PHI) == Counts(fn=3)  # 555 - 1234
    assert result.total("token", PHI) == Counts(tp=5, fp=1, fn=5)
    assert result.document_f1("token", PHI)["d2"] == 0.0
    assert result.documents[0].get("token", MICRO) == Counts(tp=4, fp=2, fn=3)


def test_missing_predictions_warn_and_score_as_nothing_found() -> None:
    result = evaluate_documents([GOLD], {})
    assert result.total("token", PHI) == Counts(fn=7)
    assert any("'d1'" in w and "no predictions" in w for w in result.warnings)


def test_predictions_for_unknown_documents_are_an_error_naming_them() -> None:
    with pytest.raises(EvaluationInputError, match="'ghost'"):
        evaluate_documents([GOLD], {"d1": PRED, "ghost": []})
    result = evaluate_documents([GOLD], {"d1": PRED, "ghost": []}, unknown_ids="warn")
    assert any("'ghost'" in w for w in result.warnings)


def test_duplicate_gold_ids_and_offsets_past_the_text_are_errors() -> None:
    with pytest.raises(EvaluationInputError, match="duplicate"):
        evaluate_documents([GOLD, GOLD], {})
    with pytest.raises(EvaluationInputError, match="past the end"):
        evaluate_documents([GOLD], {"d1": [Span(20, 99, "DATE")]})


def test_categories_restrict_rows_and_averages_not_binary() -> None:
    result = evaluate_documents([GOLD], {"d1": PRED}, categories=["date"])
    assert result.categories == ("DATE",)
    scores = result.scores("token")
    assert list(scores) == [PHI, "DATE", MICRO, MACRO]
    assert scores[MICRO].f1 == scores["DATE"].f1 == scores[MACRO].f1
    assert result.total("token", PHI) == Counts(tp=5, fp=1, fn=2)  # still every category


def test_whitespace_tokenizer_changes_the_units() -> None:
    # whitespace units: Dr Smith saw John on 3/4/2019 . -> the date is one unit, hit by "3/4/"
    result = evaluate_documents([GOLD], {"d1": PRED}, tokenizer="whitespace")
    assert result.total("token", PHI) == Counts(tp=2, fp=1, fn=1)
    assert result.tokenizer == "whitespace"


def test_count_document_on_an_empty_document() -> None:
    counts = count_document(Document("e", ""), [])
    assert counts.counts == {} and counts.tokens == 0
    assert counts.get("token", PHI).f1 == 1.0


def test_to_dict_has_no_text() -> None:
    data = evaluate_documents([GOLD], {"d1": PRED}).to_dict()
    assert "Smith" not in repr(data) and "John" not in repr(data)
    assert set(data["levels"]["core"][PHI]) == {"recall", "gold", "predicted"}
