"""English is a language pack like the others (issue 30): its rules and protected content live in
`radeid/data/lang/en/`, what reads the same in every language stays in the shared base, and a
pack says in its config.toml which packs it builds on (`[pack] extends`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.config import Config, ConfigError
from radeid.config import language as language_module
from radeid.config.language import pack_chain, pack_extends, pack_files, pack_overlay
from radeid.core.document import Document
from radeid.detect.rules import RuleDetector
from radeid.patterns.rule_files import base_rule_files, bundled_rule_files
from radeid.resolve.protected import ProtectedContent, base_protected_files, bundled_protected_files

BASE_RULES = {
    *("email", "url_scheme", "url_www", "url_domain", "ipv4", "ipv6"),
    *("date_iso", "id_payment_card", "id_dicom_uid"),
}


def _names(paths: list[Path]) -> list[str]:
    return [f"{p.parent.parent.name}/{p.name}" for p in paths]


def test_the_english_rules_and_protected_content_are_the_english_packs() -> None:
    assert [p.name for p in base_rule_files()] == ["00_common.toml", "formats.toml", "internet.toml"]
    assert [p.name for p in base_protected_files()] == ["00_common.toml", "formats.toml"]
    assert _names(pack_files("en", "rules")) == [
        f"en/{name}.toml"
        for name in ("00_english", "ages", "contact", "dates", "hospitals", "ids", "locations", "names")
    ]
    assert _names(pack_files("en", "protected")) == ["en/clinical_values.toml", "en/clinical_words.toml"]
    assert bundled_rule_files() == [*base_rule_files(), *pack_files("en", "rules")]
    assert bundled_protected_files(None) == base_protected_files()


def test_spanish_and_german_say_they_extend_english_and_english_extends_nothing() -> None:
    assert pack_extends("en") == [] and pack_extends("es") == ["en"] and pack_extends("de") == ["en"]
    assert pack_chain("es") == ["en", "es"] and pack_chain("de") == ["en", "de"] and pack_chain("en") == ["en"]
    assert _names(pack_files("es", "rules")) == [*_names(pack_files("en", "rules")), "es/es.toml"]
    assert "pack" not in pack_overlay("es")  # a table about the pack, not a configuration section


def test_auto_starts_from_the_english_files_as_before() -> None:
    assert pack_files("auto", "rules") == pack_files("en", "rules")
    assert Config.load(overrides={"pipeline": {"language": "auto"}}).rule_files == tuple(
        map(str, pack_files("en", "rules"))
    )


def test_the_shared_base_holds_only_language_neutral_rules() -> None:
    base = RuleDetector(language=None)
    assert set(base.rule_names) == BASE_RULES
    text = "Mail jane.doe@example.org, see www.example.org, host 10.1.2.3, exam 2019-03-04, MRN 12345678, March 4, 2019"
    found = {text[s.start : s.end] for s in base.detect([Document("d", text)])[0]}
    assert found == {"jane.doe@example.org", "www.example.org", "10.1.2.3", "2019-03-04"}


def test_the_default_rule_detector_is_the_english_pack_and_the_pipeline_loads_the_same_rules() -> None:
    english = RuleDetector()
    assert english.rule_names == RuleDetector(language="en").rule_names
    assert set(english.rule_names) > BASE_RULES | {"date_month_day", "phone_us", "id_ssn", "name_hcw_title"}
    config = Config.load()
    piped = RuleDetector(extra_rule_files=config.rule_files, language=None)
    assert piped.rule_names == english.rule_names
    default = ProtectedContent.from_files()
    assert [p.name for p in default.patterns] == [
        p.name for p in ProtectedContent.from_files(config.protected_files, language=None).patterns
    ]
    assert {"gcs_components", "code_icd10_bare", "eponym", "vital_value"} <= {p.name for p in default.patterns}


def _packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packs: dict[str, str]) -> None:
    for code, pack_table in packs.items():
        folder = tmp_path / code
        (folder / "rules").mkdir(parents=True)
        (folder / "config.toml").write_text(f'{pack_table}\n[pipeline]\nlanguage = "{code}"\n', encoding="utf-8")
    monkeypatch.setattr(language_module, "_packs_root", lambda: tmp_path)


@pytest.mark.parametrize(
    ("packs", "message"),
    [
        ({"xx": '[pack]\nextends = ["yy"]'}, r"'xx': \[pack\] extends names 'yy', which is no pack"),
        ({"xx": '[pack]\nextends = "en"'}, r"'xx': \[pack\] extends must be a list of language codes"),
        ({"xx": "[pack]\nbase = []"}, r"'xx': \[pack\] may only set extends"),
        (
            {"xx": '[pack]\nextends = ["yy"]', "yy": '[pack]\nextends = ["xx"]'},
            r"'xx': \[pack\] extends loops: xx -> yy -> xx",
        ),
    ],
)
def test_a_bad_pack_table_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packs: dict[str, str], message: str
) -> None:
    _packs(tmp_path, monkeypatch, packs)
    with pytest.raises(ConfigError, match=message):
        pack_files("xx", "rules")


def test_a_pack_loads_the_files_of_the_packs_it_extends_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _packs(tmp_path, monkeypatch, {"aa": "", "bb": '[pack]\nextends = ["aa"]', "cc": '[pack]\nextends = ["bb", "aa"]'})
    for code in ("aa", "bb", "cc"):
        (tmp_path / code / "rules" / f"{code}.toml").write_text("", encoding="utf-8")
    assert pack_chain("cc") == ["aa", "bb", "cc"]
    assert [p.name for p in pack_files("cc", "rules")] == ["aa.toml", "bb.toml", "cc.toml"]
