"""Configuration loading: defaults, user overlay, and loud errors for typos."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid import Category
from radeid.config.config import Config, ConfigError


def test_defaults_load() -> None:
    config = Config.load()
    assert config.pipeline.detectors == ("rules", "lexicon", "transformer")
    # the resolver's form checks judge model spans (after completion and gazetteer evidence)
    assert config.transformer.model == "bundled" and not config.transformer.check_forms
    assert config.resolver.form_check_sources == ("transformer",)
    assert config.rules.age_threshold == 89
    assert config.replace.mode == "surrogate"  # what `radeid deid` does with no options
    assert config.io.on_error == "fail" and config.surrogate.scope == "patient"
    assert config.resolver.category_priority[Category.EMAIL] > config.resolver.category_priority[Category.VENDOR]
    assert Category.DATE not in config.resolver.merge_categories


def test_user_file_merges_over_defaults(tmp_path: Path) -> None:
    user = tmp_path / "c.toml"
    user.write_text('[replace]\nmode = "tag"\n[resolver.source_priority]\nrules = 99\n', encoding="utf-8")
    config = Config.load(user)
    assert config.replace.mode == "tag"
    assert config.resolver.source_priority["rules"] == 99
    assert config.resolver.source_priority["lexicon"] == 20  # untouched keys survive the merge


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[replace]\nmood = 'tag'\n", "unknown config key"),
        ("[masks]\n", "unknown config key"),
        ("[replace]\nmode = 'blur'\n", "replace.mode must be one of fixed, mask, numbered, surrogate, tag"),
        ("[replace]\nchar = '**'\n", "exactly one character"),
        ("[mask]\nmode = 'tag'\n", r"\[mask\] in .* is now \[replace\]"),
        ("[rules]\ndisabled = []\n", r"is now \[detectors.rules\]"),
        ("[detectors.transformer]\nthreshold = 2.0\n", "detectors.transformer.threshold"),
        ("[surrogate]\ndate_shift = 'soon'\n", r"\[surrogate\] date_shift must be"),
        ("[surrogate]\ndate_format = '%Y-%m'\n", r"\[surrogate\] date_format '%Y-%m' must contain a day"),
        ("[surrogate]\nkeep_years = 'yes'\n", r"surrogate.keep_years"),
        ("[surrogate]\ndate_shifts = 5\n", r"surrogate.date_shifts"),
        ("[io]\non_error = 'ignore'\n", "io.on_error must be one of fail, skip"),
        ("[resolver]\nmerge_categories = ['NAME']\n", "unknown PHI category"),
        ("[mask\n", "not valid TOML"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    user = tmp_path / "bad.toml"
    user.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        Config.load(user)


def test_surrogate_date_options_load(tmp_path: Path) -> None:
    """Issue 28: keep_years, date_format and date_shifts are typed keys of [surrogate]."""
    assert (Config.load().surrogate.keep_years, Config.load().surrogate.date_format) == (False, "")
    user = tmp_path / "c.toml"
    user.write_text(
        '[surrogate]\nkeep_years = true\ndate_format = "%d.%m.%Y"\ndate_shifts = "shifts.csv"\n', encoding="utf-8"
    )
    options = Config.load(user).surrogate
    assert (options.keep_years, options.date_format, options.date_shifts) == (True, "%d.%m.%Y", "shifts.csv")


def test_missing_config_file() -> None:
    with pytest.raises(ConfigError, match="not found"):
        Config.load("/nonexistent/radeid.toml")
