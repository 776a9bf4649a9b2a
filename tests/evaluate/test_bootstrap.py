"""Bootstrap over documents: seeded, hand-checkable on two documents, contains the point, narrows with n."""

from __future__ import annotations

import numpy as np
import pytest

from radeid import Document, Span
from radeid.evaluate.bootstrap import bootstrap, percentile_interval, prf
from radeid.evaluate.metrics import MACRO, MICRO, PHI, Counts, evaluate_documents


def two_documents():
    # d1: both name tokens found (recall 1); d2: both missed (recall 0). Corpus recall 2/4 = 0.5.
    found = Document("d1", "Ann Lee", spans=(Span(0, 7, "PATIENT"),))
    missed = Document("d2", "Bob Ray", spans=(Span(0, 7, "PATIENT"),))
    return evaluate_documents([found, missed], {"d1": [Span(0, 7, "PATIENT")], "d2": []})


def corpus(n: int):
    """n documents cycling through four outcomes, so the recall is 5/8 at any multiple of 4."""
    outcomes = [[Span(0, 7, "PATIENT")], [], [Span(0, 3, "PATIENT")], [Span(0, 7, "PATIENT")]]
    docs = [Document(f"d{i}", "Ann Lee", spans=(Span(0, 7, "PATIENT"),)) for i in range(n)]
    return evaluate_documents(docs, {f"d{i}": outcomes[i % 4] for i in range(n)})


def test_two_documents_worked_out_by_hand() -> None:
    # Resamples of 2 documents: {d1,d1} recall 1, {d1,d2} 0.5, {d2,d2} 0 (probabilities 1/4, 1/2, 1/4).
    # With 400 resamples both extremes occur ~100 times, so the 2.5th and 97.5th percentiles are 0 and 1.
    boot = bootstrap(two_documents(), n_resamples=400, seed=1)
    recall = boot.get("token", PHI, "recall")
    assert recall is not None
    assert (recall.point, recall.low, recall.high) == (0.5, 0.0, 1.0)
    assert recall.resamples == 400
    # precision: {d2,d2} predicted nothing while names were there -> 0.0; otherwise 1.0
    precision = boot.get("token", "PATIENT", "precision")
    assert precision is not None and (precision.low, precision.high) == (0.0, 1.0)


def test_seeded_and_reproducible() -> None:
    result = corpus(12)
    a = bootstrap(result, n_resamples=50, seed=7)
    b = bootstrap(result, n_resamples=50, seed=7)
    c = bootstrap(result, n_resamples=50, seed=8)
    assert a.intervals == b.intervals
    assert a.intervals != c.intervals


def test_interval_contains_the_point_estimate() -> None:
    result = corpus(40)
    boot = bootstrap(result, n_resamples=200, seed=0)
    for (level, key, metric), interval in boot.intervals.items():
        assert interval.contains(interval.point), (level, key, metric, interval)
    assert boot.get("token", PHI, "recall").point == pytest.approx(result.scores("token")[PHI].recall)


def test_interval_narrows_with_more_documents() -> None:
    small = bootstrap(corpus(8), n_resamples=200, seed=0).get("token", PHI, "f1")
    large = bootstrap(corpus(200), n_resamples=200, seed=0).get("token", PHI, "f1")
    assert small.point == pytest.approx(large.point)  # same mix of outcomes
    assert large.width < small.width / 2  # ~ 1/sqrt(25) of it in theory


def test_one_document_gives_a_zero_width_interval() -> None:
    boot = bootstrap(corpus(1), n_resamples=20, seed=0)
    iv = boot.get("token", PHI, "f1")
    assert iv.low == iv.high == iv.point == 1.0


def test_a_category_absent_from_a_resample_is_left_out_there() -> None:
    # PHONE occurs in one document of ten: about (9/10)^10 = 35% of resamples have no PHONE at all.
    docs = [Document(f"d{i}", "Ann", spans=(Span(0, 3, "PATIENT"),)) for i in range(9)]
    docs.append(Document("p", "555", spans=(Span(0, 3, "PHONE"),)))
    result = evaluate_documents(docs, {d.id: list(d.spans) for d in docs})
    boot = bootstrap(result, n_resamples=100, seed=3)
    phone = boot.get("token", "PHONE", "recall")
    assert 40 < phone.resamples < 90
    assert (phone.low, phone.high) == (1.0, 1.0)
    assert boot.get("token", MACRO, "recall").resamples == 100
    assert boot.get("token", MICRO, "f1").high == 1.0


def test_vectorised_metrics_match_counts() -> None:
    rng = np.random.default_rng(0)
    for tp, fp, fn in rng.integers(0, 4, size=(60, 3)):
        c = Counts(int(tp), int(fp), int(fn))
        v = prf(np.array([tp]), np.array([fp]), np.array([fn]), np.array([tp]))
        if c.empty:
            assert np.isnan(v["f1"][0])
        else:
            assert (v["precision"][0], v["recall"][0], v["f1"][0]) == pytest.approx((c.precision, c.recall, c.f1))


def test_percentile_interval_and_bad_arguments() -> None:
    assert percentile_interval([0.0, 1.0, float("nan")], 0.5) == (0.25, 0.75, 2)
    with pytest.raises(ValueError):
        bootstrap(corpus(4), n_resamples=0)
    with pytest.raises(ValueError):
        bootstrap(corpus(4), confidence=1.5)


def test_to_dict_is_nested_by_level_key_metric() -> None:
    data = bootstrap(two_documents(), n_resamples=10, seed=0).to_dict()
    assert data["resamples"] == 10 and data["seed"] == 0
    assert set(data["intervals"]["token"][PHI]["recall"]) == {"point", "low", "high", "resamples"}
    assert "precision" not in data["intervals"]["core"][PHI]
