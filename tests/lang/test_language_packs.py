"""Language packs (issue 30): `[pipeline] language` / `--lang` pick a pack's configuration overlay."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.config import Config, ConfigError
from radeid.config.language import available_languages, pack_overlay
from radeid.detect.transformer import ModelLoadError, resolve_model

ROOT = Path(__file__).resolve().parents[2]


def test_bundled_packs_are_german_english_and_spanish() -> None:
    assert available_languages() == ["de", "en", "es"]


def test_english_is_the_default_and_changes_nothing() -> None:
    default = Config.load()
    english = Config.load(overrides={"pipeline": {"language": "en"}})
    assert default == english
    assert default.pipeline.language == "en"
    assert default.transformer.model == "bundled"
    assert default.surrogate.locale == "en_US"
    assert default.surrogate.day_first is False


def test_spanish_pack_sets_model_locale_and_day_first() -> None:
    config = Config.load(overrides={"pipeline": {"language": "es"}})
    assert config.pipeline.language == "es"
    assert config.transformer.model == "bundled:es"
    assert config.surrogate.locale == "es_ES"
    assert config.surrogate.day_first is True


def test_the_users_file_wins_over_the_pack(tmp_path: Path) -> None:
    user = tmp_path / "site.toml"
    user.write_text('[pipeline]\nlanguage = "es"\n[surrogate]\nlocale = "es_MX"\n', encoding="utf-8")
    config = Config.load(user)
    assert config.surrogate.locale == "es_MX"  # the user's key
    assert config.transformer.model == "bundled:es"  # the pack's, which the user left alone


def test_an_override_picks_the_pack_over_the_file(tmp_path: Path) -> None:
    user = tmp_path / "site.toml"
    user.write_text('[pipeline]\nlanguage = "es"\n', encoding="utf-8")
    config = Config.load(user, {"pipeline": {"language": "en"}})
    assert config.transformer.model == "bundled"
    assert config.surrogate.locale == "en_US"


@pytest.mark.parametrize("value", ["fr", "", "ES"])
def test_an_unknown_language_names_the_known_ones(value: str) -> None:
    with pytest.raises(ConfigError, match=r"pipeline\.language must be one of de, en, es"):
        Config.load(overrides={"pipeline": {"language": value}})


def test_a_language_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"pipeline\.language"):
        Config.load(overrides={"pipeline": {"language": 7}})


def test_each_pack_names_its_own_language() -> None:
    for code in available_languages():
        assert pack_overlay(code).get("pipeline", {}).get("language") == code


def test_bundled_language_models_resolve_to_their_folders() -> None:
    english = Path(resolve_model("bundled"))
    spanish = Path(resolve_model("bundled:es"))
    assert english.name == "default" and (english / "model.onnx").is_file()
    assert spanish.name == "es" and (spanish / "model.onnx").is_file()
    assert (spanish / "MODEL_CARD.md").is_file()
    assert resolve_model("some/other/folder") == "some/other/folder"


def test_a_bundled_language_without_a_model_is_an_error_naming_the_shipped_ones() -> None:
    with pytest.raises(ModelLoadError, match=r"no bundled model 'bundled:xx'; shipped: bundled, bundled:es"):
        resolve_model("bundled:xx")


def test_bundled_models_stay_within_the_size_budget() -> None:
    for folder in (resolve_model("bundled"), resolve_model("bundled:es")):
        assert (Path(folder) / "model.onnx").stat().st_size <= 25 * 1024 * 1024
