"""Paired Wilcoxon signed-rank tests over per-document F1, with Bonferroni correction."""

from __future__ import annotations

import pytest

from radeid import Document, Span
from radeid.evaluate.compare import compare, paired_values, wilcoxon_test
from radeid.evaluate.metrics import PHI, EvaluationInputError, evaluate_documents

# Four one-name documents "Ann Bob Cy Di" (4 tokens, all PATIENT). Per-document token F1:
#   found k of 4 tokens, nothing spurious -> P = 1, R = k/4, F1 = 2k / (k + 4)
#   k = 4 -> 1.0, k = 2 -> 2/3, k = 1 -> 0.4, k = 0 -> 0.0
TEXT = "Ann Bob Cy Di"
TOKENS = [(0, 3), (4, 7), (8, 10), (11, 13)]


def first(k: int) -> list[Span]:
    return [Span(s, e, "PATIENT") for s, e in TOKENS[:k]]


def gold(n: int) -> list[Document]:
    return [Document(f"d{i}", TEXT, spans=(Span(0, 13, "PATIENT"),)) for i in range(n)]


def run(found: list[int]):
    return evaluate_documents(gold(len(found)), {f"d{i}": first(k) for i, k in enumerate(found)})


def test_wilcoxon_worked_out_by_hand() -> None:
    # tokens found per document, and the per-document F1 that gives:
    a = run([1, 2, 4, 0])  # 0.4, 2/3, 1.0, 0.0
    b = run([4, 1, 2, 4])  # 1.0, 0.4, 2/3, 1.0
    # differences B - A: +0.6, -4/15 (0.267), -1/3 (0.333), +1.0; ranks of |d|: 0.267->1, 0.333->2, 0.6->3, 1.0->4
    # W+ = 3 + 4 = 7, W- = 1 + 2 = 3; statistic = min = 3.
    # Exact null: W- <= 3 for the sign subsets {}, {1}, {2}, {3}, {1,2} -> 5 of 16; two-sided p = 10/16 = 0.625
    ids, xs, ys = paired_values(a, b, "token", PHI)
    assert ids == ["d0", "d1", "d2", "d3"]
    assert xs == pytest.approx([0.4, 2 / 3, 1.0, 0.0])
    assert ys == pytest.approx([1.0, 0.4, 2 / 3, 1.0])
    cmp = compare(a, b, names=("rules", "hybrid"))
    phi = cmp.get(PHI)
    assert phi is not None
    assert phi.statistic == 3.0
    assert phi.p_value == pytest.approx(0.625)
    assert (phi.wins_a, phi.wins_b, phi.nonzero, phi.documents) == (2, 2, 4, 4)
    assert phi.median_difference == pytest.approx((0.6 - 4 / 15) / 2)
    # PHI and PATIENT tested: Bonferroni multiplies by 2 and caps at 1
    assert [t.key for t in cmp.tests] == [PHI, "PATIENT"]
    assert phi.p_adjusted == 1.0


def test_one_sided_and_the_smallest_exact_p() -> None:
    # B better on all 5 documents: W- = 0; exact one-sided p = 1/32, two-sided 2/32
    a, b = run([0, 1, 2, 0, 1]), run([4, 4, 4, 2, 2])
    assert wilcoxon_test([0, 0, 0, 0, 0], [1, 2, 3, 4, 5]) == (0.0, pytest.approx(2 / 32))
    greater = compare(a, b, alternative="greater", keys=[PHI])
    assert greater.get(PHI).p_value == pytest.approx(1 / 32)
    assert greater.get(PHI).p_adjusted == pytest.approx(1 / 32)  # one test: no correction
    assert greater.get(PHI).significant(0.05)
    both = compare(a, b, keys=[PHI, "PATIENT", "DATE"])
    assert both.get(PHI).p_adjusted == pytest.approx(3 * 2 / 32)


def test_identical_systems_and_documents_without_the_category() -> None:
    a = run([1, 2, 3])
    cmp = compare(a, a, keys=[PHI, "DATE"])
    assert cmp.get(PHI).p_value == 1.0 and cmp.get(PHI).nonzero == 0
    assert cmp.get("DATE").documents == 0  # no DATE anywhere: nothing paired


def test_documents_are_paired_by_id_and_must_match() -> None:
    a = run([1, 2])
    other = evaluate_documents([Document("x", TEXT)], {"x": []})
    with pytest.raises(EvaluationInputError, match="different documents"):
        compare(a, other)


def test_to_dict() -> None:
    data = compare(run([1, 2, 4]), run([4, 4, 4])).to_dict()
    assert data["correction"] == "bonferroni" and data["family_size"] == 2
    assert {"key", "p_value", "p_adjusted", "significant"} <= set(data["tests"][0])
