"""What every adapter shares: registration, plain sections, option checks, label maps, missing extras."""

from __future__ import annotations

import sys

import pytest

from radeid.config.config import Config, ConfigError
from radeid.core.categories import Category
from radeid.detect.adapters.common import Options, is_titled, label_table
from radeid.detect.base import DETECTORS, build_detector

ADAPTERS = {
    "presidio": ("presidio_analyzer", "presidio"),
    "philter": ("philter_lite", "philter"),
    "spacy_ner": ("spacy", "spacy"),
}


def test_the_adapters_are_registered_by_name() -> None:
    for name in ("presidio", "philter", "physionet_deid", "spacy_ner"):
        assert name in DETECTORS


def test_an_adapter_section_stays_a_plain_mapping() -> None:
    config = Config.from_dict({"detectors": {"presidio": {"score_threshold": 0.5, "labels": {"NRP": "LOCATION"}}}})
    assert config.detectors["presidio"] == {"score_threshold": 0.5, "labels": {"NRP": "LOCATION"}}


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_a_missing_library_names_the_extra_to_install(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module, extra = ADAPTERS[name]
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    with pytest.raises(ConfigError) as caught:
        build_detector(name, Config.from_dict({"detectors": {name: {}}}))
    assert f'pip install "radeid[{extra}]"' in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_options_refuse_unknown_keys_and_wrong_types() -> None:
    options = Options("presidio", {"score_threshold": "high", "modle": "x"})
    with pytest.raises(ConfigError, match=r"detectors\.presidio\.score_threshold must be a number"):
        options.number("score_threshold", 0.0)
    options = Options("presidio", {"modle": "x", "batch_size": True})
    with pytest.raises(ConfigError, match="must be an integer"):
        options.integer("batch_size", 1)  # a bool is not an integer here
    options.string("model")
    with pytest.raises(ConfigError, match=r"unknown key\(s\): modle"):
        options.done()


def test_label_table_reads_the_bundled_map_then_the_overrides() -> None:
    table = label_table("detectors.presidio", "presidio", {"nrp": "LOCATION", "PERSON": "HCW", "URL": "IGNORE"})
    assert table["PHONE_NUMBER"] == (Category.PHONE, None)
    assert table["US_SSN"] == (Category.ID, "SSN")
    assert table["NRP"] == (Category.LOCATION, None)  # keys compare upper-case
    assert table["PERSON"] == (Category.HCW, None)
    assert table["URL"] is None and table["TITLE"] is None
    with pytest.raises(ConfigError, match="'PERSON' maps to 'DOCTOR'"):
        label_table("detectors.presidio", "presidio", {"PERSON": "DOCTOR"})
    with pytest.raises(ConfigError, match="label_map: unknown label map"):
        label_table("detectors.presidio", "no_such_map", {})


def test_a_title_just_before_a_name_on_the_same_line() -> None:
    text = "Seen by Dr. Jane Doe and Doctor Lee; dr Kim.\nDr.\nAnn"
    assert is_titled(text, text.index("Jane"))
    assert is_titled(text, text.index("Lee"))
    assert is_titled(text, text.index("Kim"))
    assert not is_titled(text, text.index("Seen"))
    assert not is_titled(text, text.index("Ann"))  # the title is on the line before
