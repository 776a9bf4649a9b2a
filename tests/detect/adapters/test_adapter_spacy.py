"""The cased spaCy NER adapter: label rules on given entities; a real run when radeid[spacy] is there."""

from __future__ import annotations

from typing import Any

import pytest

spacy = pytest.importorskip("spacy")

from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.adapters.common import label_table  # noqa: E402
from radeid.detect.adapters.presidio import DEFAULT_MODEL  # noqa: E402
from radeid.detect.adapters.spacy_ner import DEFAULT_LABELS, SpacyNerDetector, date_like  # noqa: E402
from radeid.detect.base import build_detector  # noqa: E402


def offline(overrides: dict[str, str] | None = None, **options: Any) -> SpacyNerDetector:
    return SpacyNerDetector(None, label_table("detectors.spacy_ner", DEFAULT_LABELS, overrides or {}), **options)


def test_dates_need_a_digit_or_a_month_name() -> None:
    assert date_like("03/04/2019") and date_like("March 3") and date_like("Sept.") and date_like("2019")
    assert not date_like("yesterday") and not date_like("two weeks ago") and not date_like("mayor")


def test_label_rules_on_given_entities() -> None:
    text = "Dr. Jane Doe saw John Roe at Mercy Hospital, Acme Corp, Boston, yesterday and on March 3."
    ents = [
        (4, 12, "PERSON"),
        (17, 25, "PERSON"),
        (29, 43, "ORG"),
        (45, 54, "ORG"),
        (56, 62, "GPE"),
        (64, 73, "DATE"),
        (81, 88, "DATE"),
        (0, 3, "NORP"),
    ]
    got = [(text[s.start : s.end], s.category, s.source) for s in offline().spans(text, ents)]
    assert got == [
        ("Jane Doe", Category.HCW, "spacy_ner/PERSON"),
        ("John Roe", Category.PATIENT, "spacy_ner/PERSON"),
        ("Mercy Hospital", Category.HOSPITAL, "spacy_ner/ORG"),
        ("Boston", Category.LOCATION, "spacy_ner/GPE"),
        ("March 3", Category.DATE, "spacy_ner/DATE"),
    ]
    custom = offline({"ORG": "VENDOR", "GPE": "IGNORE"}, hospital_words=["corp"], titled_person_hcw=False)
    got = [(text[s.start : s.end], s.category) for s in custom.spans(text, ents)]
    assert ("Acme Corp", Category.VENDOR) in got and ("Jane Doe", Category.PATIENT) in got
    assert all(t != "Boston" for t, _ in got) and all(t != "Mercy Hospital" for t, _ in got)


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match="batch_size must be at least 1"):
        build_detector("spacy_ner", Config.from_dict({"detectors": {"spacy_ner": {"batch_size": 0}}}))
    with pytest.raises(ConfigError, match="hospital_words must be a list of strings"):
        build_detector("spacy_ner", Config.from_dict({"detectors": {"spacy_ner": {"hospital_words": "clinic"}}}))


@pytest.mark.skipif(not spacy.util.is_package(DEFAULT_MODEL), reason=f"{DEFAULT_MODEL} not installed")
def test_a_real_run_on_fixed_text() -> None:
    detector = build_detector("spacy_ner", Config.from_dict({"detectors": {"spacy_ner": {}}}))
    text = "Patient John Smith was seen by Dr. Jane Doe at Mercy Hospital on March 3, 2019. Seen yesterday."
    [spans] = detector.detect([Document("d", text)])
    got = [(text[s.start : s.end], s.category) for s in spans]
    assert ("John Smith", Category.PATIENT) in got
    assert ("Jane Doe", Category.HCW) in got
    assert ("Mercy Hospital", Category.HOSPITAL) in got
    assert all("yesterday" not in t for t, _ in got)
    assert all(s.source.startswith("spacy_ner/") for s in spans)
