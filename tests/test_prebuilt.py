"""`radeid.pipeline.prebuilt`: a worker reuses the fork server's detectors only for the very same detection."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from radeid.config.config import Config
from radeid.core.document import Document
from radeid.pipeline import prebuilt
from radeid.pipeline.spec import PipelineSpec
from radeid.run.worker_start import _SAMPLE, warm


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prebuilt, "_BUILT", {})
    monkeypatch.setattr(gc, "freeze", lambda: None)  # `warm` freezes the fork server's heap, not ours


def _rules_only(**rules: object) -> Config:
    config = Config.load(overrides={"pipeline": {"detectors": ["rules", "lexicon"]}})
    return config.with_section("detectors.rules", **rules) if rules else config


def test_nothing_is_shared_until_remembered() -> None:
    config = _rules_only()
    assert prebuilt.lookup(config) is None
    first = PipelineSpec.surrogates(b"k" * 32, config).build()
    second = PipelineSpec.surrogates(b"k" * 32, config).build()
    assert first.detectors[0] is not second.detectors[0]


def test_warm_shares_detection_with_a_cli_like_spec_and_output_is_unchanged() -> None:
    warm()
    # The worker's config differs where detection does not look: output paths, batch size, threads.
    config = Config.load(overrides={"io": {"audit": "a.jsonl"}, "pipeline": {"batch_size": 7}})
    config = config.with_section("pipeline", detectors=["rules", "lexicon"])
    spec = PipelineSpec.surrogates(b"k" * 32, config).with_threads(1)
    shared = spec.build()
    remembered = prebuilt.lookup(spec.config)
    assert remembered is not None
    assert shared.detectors == remembered[0] and shared.resolver is remembered[1]
    doc = Document("d", _SAMPLE, patient_id="p")
    prebuilt._BUILT.clear()
    fresh = spec.build()
    assert fresh.resolver is not shared.resolver
    assert fresh.deidentify([doc]) == shared.deidentify([doc])


def test_a_different_detection_is_built_anew() -> None:
    config = _rules_only()
    prebuilt.remember(config, PipelineSpec.masking(config, "tag").build())
    assert prebuilt.lookup(config) is not None
    assert prebuilt.lookup(_rules_only(age_threshold=70)) is None
    assert prebuilt.lookup(config.with_section("pipeline", detectors=["rules"])) is None
    assert prebuilt.lookup(config.with_section("resolver", min_score=0.99)) is None
    with_model = config.with_section("pipeline", detectors=["rules", "transformer"])
    assert prebuilt.detection_key(with_model) is None
    prebuilt.remember(with_model, PipelineSpec.masking(config, "tag").build())
    assert prebuilt.lookup(with_model) is None


def test_a_named_file_is_part_of_the_detection(tmp_path: Path) -> None:
    allow = tmp_path / "allow.txt"
    allow.write_text("Smithfield\n", encoding="utf-8")
    config = _rules_only()
    config = config.with_section("resolver", allow_lists=(str(allow),))
    prebuilt.remember(config, PipelineSpec.masking(config, "tag").build())
    assert prebuilt.lookup(config) is not None
    allow.write_text("Smithfield\nJonesville\n", encoding="utf-8")
    os.utime(allow)
    assert prebuilt.lookup(config) is None
