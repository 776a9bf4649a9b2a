"""The Presidio adapter: entity map, threshold, titles, config errors; real runs when radeid[presidio] is there."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("presidio_analyzer")
spacy = pytest.importorskip("spacy")

from presidio_analyzer import RecognizerResult  # noqa: E402

from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.adapters.common import label_table  # noqa: E402
from radeid.detect.adapters.presidio import DEFAULT_MODEL, PresidioDetector  # noqa: E402
from radeid.detect.base import build_detector  # noqa: E402

needs_model = pytest.mark.skipif(not spacy.util.is_package(DEFAULT_MODEL), reason=f"{DEFAULT_MODEL} not installed")


def offline(**section: Any) -> PresidioDetector:
    """A detector without an analyzer: for the mapping of results, no model needed."""
    labels = label_table("detectors.presidio", "presidio", section.pop("labels", {}))
    return PresidioDetector(None, labels, **section)


def results(*items: tuple[str, int, int, float]) -> list[RecognizerResult]:
    return [RecognizerResult(entity, start, end, score) for entity, start, end, score in items]


def test_entities_map_to_categories_with_the_bundled_map() -> None:
    text = "Dr. Jane Doe saw John Roe on 2019-03-04, SSN 078-05-1120, from Lagos"
    spans = offline().spans(
        text,
        results(
            ("PERSON", 4, 12, 0.85),
            ("PERSON", 17, 25, 0.85),
            ("DATE_TIME", 29, 39, 0.6),
            ("US_SSN", 45, 56, 0.85),
            ("NRP", 63, 68, 0.85),
            ("CRYPTO", 63, 68, 0.5),
        ),
    )
    got = [(text[s.start : s.end], s.category, s.subtype, s.source) for s in spans]
    assert got == [
        ("Jane Doe", Category.HCW, None, "presidio/PERSON"),  # titled: a clinician
        ("John Roe", Category.PATIENT, None, "presidio/PERSON"),
        ("2019-03-04", Category.DATE, None, "presidio/DATE_TIME"),
        ("078-05-1120", Category.ID, "SSN", "presidio/US_SSN"),
        ("Lagos", Category.ID, None, "presidio/CRYPTO"),  # unmapped -> ID; NRP is IGNORE
    ]


def test_overrides_threshold_unmapped_and_title_rule() -> None:
    text = "Dr. Jane Doe 617-555-1234"
    found = results(("PERSON", 4, 12, 0.85), ("PHONE_NUMBER", 13, 25, 0.4), ("FOO", 0, 3, 0.9))
    detector = offline(labels={"PHONE_NUMBER": "ID/PHONE"}, unmapped=None, score_threshold=0.5, titled_person_hcw=False)
    assert [(s.start, s.end, s.category) for s in detector.spans(text, found)] == [(4, 12, Category.PATIENT)]
    detector = offline(labels={"PHONE_NUMBER": "ID/PHONE"}, unmapped=None)
    assert [(s.label, s.score) for s in detector.spans(text, found)] == [("HCW", 0.85), ("ID/PHONE", 0.4)]


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match="score_threshold must be between 0 and 1"):
        build_detector("presidio", Config.from_dict({"detectors": {"presidio": {"score_threshold": 2}}}))
    with pytest.raises(ConfigError, match=r"unknown key\(s\): treshold"):
        build_detector("presidio", Config.from_dict({"detectors": {"presidio": {"treshold": 0.2}}}))
    with pytest.raises(ConfigError, match="'no_such_model' is not installed .*never downloaded"):
        build_detector("presidio", Config.from_dict({"detectors": {"presidio": {"model": "no_such_model"}}}))


@pytest.fixture(scope="module")
def presidio() -> Any:
    return build_detector("presidio", Config.from_dict({"detectors": {"presidio": {"score_threshold": 0.3}}}))


@needs_model
def test_a_real_run_finds_a_phone_number_and_an_email(presidio: Any) -> None:
    texts = ["Call 617-555-1234 or write to jsmith@example.com today.", "No acute findings.", ""]
    first, second, third = presidio.detect([Document(str(i), t) for i, t in enumerate(texts)])
    got = {(s.start, s.end, s.category, s.source) for s in first}
    assert (5, 17, Category.PHONE, "presidio/PHONE_NUMBER") in got
    assert (30, 48, Category.EMAIL, "presidio/EMAIL_ADDRESS") in got
    assert texts[0][5:17] == "617-555-1234" and texts[0][30:48] == "jsmith@example.com"
    assert second == [] and third == []
    assert presidio.detect([]) == []
