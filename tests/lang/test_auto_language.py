"""`[pipeline] language = "auto"`: each document gets the pack of the language it is written in."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest

from radeid import Document
from radeid.config import Config, ConfigError
from radeid.pipeline.language_id import LanguageIdentifier
from radeid.pipeline.multilingual import MultilingualDeidentifier, build_deidentifier
from radeid.pipeline.spec import PipelineSpec

NO_MODEL = {"pipeline": {"detectors": ["rules", "lexicon"]}, "replace": {"mode": "tag"}}
ENGLISH = "CHEST X-RAY. Patient: John Miller. Date of exam: 03/14/2021. No acute findings. Dictated by Dr. Sarah Cohen."
SPANISH = (
    "Paciente: María García, de 45 años. Fecha de ingreso: 3 de marzo de 2019. Se realiza radiografía de tórax "
    "sin hallazgos. Médico: Dr. Juan Pérez. Teléfono 912 345 678."
)
GERMAN = "Befund: Kein Nachweis eines Pneumothorax. Die Lunge ist beidseits belüftet, das Herz ist normal groß."


def _auto(**extra: Any) -> Config:
    return Config.load(overrides={**NO_MODEL, "pipeline": {**NO_MODEL["pipeline"], "language": "auto", **extra}})


def test_auto_is_a_valid_language_and_loads_no_pack() -> None:
    config = _auto()
    assert config.pipeline.language == "auto"
    assert config.surrogate.locale == "en_US"


def test_for_language_applies_the_pack_but_not_over_the_users_keys() -> None:
    config = Config.load(overrides={"pipeline": {"language": "auto"}, "surrogate": {"locale": "es_MX"}})
    spanish = config.for_language("es")
    assert spanish.pipeline.language == "es"
    assert spanish.transformer.model == "bundled:es"
    assert spanish.surrogate.day_first is True
    assert spanish.surrogate.locale == "es_MX"  # the user's choice wins, as with language = "es"
    assert config.for_language("en").transformer.model == "bundled"
    assert config.for_language("en").surrogate.locale == "es_MX"


def test_for_language_refuses_an_unknown_pack() -> None:
    with pytest.raises(ConfigError, match="pipeline.language must be one of"):
        _auto().for_language("xx")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"languages": ["en", "xx"]}, "pipeline.languages: 'xx' is not a language pack"),
        ({"fallback_language": "xx"}, "pipeline.fallback_language must be one of"),
        ({"language_confidence": 1.5}, "pipeline.language_confidence must be within"),
    ],
)
def test_bad_auto_settings_are_refused(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _auto(**extra)


def test_the_users_keys_do_not_change_the_fingerprint() -> None:
    plain = Config.load()
    same = Config.load(overrides={"pipeline": {"language": "en"}})
    assert plain.explicit != same.explicit
    assert PipelineSpec(plain, b"k").fingerprint() == PipelineSpec(same, b"k").fingerprint()


def test_a_single_candidate_needs_no_identifier(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_lingua(monkeypatch)
    assert LanguageIdentifier(["es"], "es").identify(ENGLISH) == "es"


def test_auto_without_the_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_lingua(monkeypatch)
    with pytest.raises(ConfigError, match=r'pip install "radeid\[lang\]"'):
        LanguageIdentifier(["en", "es"], "en").identify(ENGLISH)


def _without_lingua(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "lingua" or name.startswith("lingua."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)


# -- with the identifier installed ----------------------------------------------------------------


@pytest.fixture
def lingua() -> None:
    pytest.importorskip("lingua")


@pytest.mark.usefixtures("lingua")
@pytest.mark.parametrize(("text", "code"), [(ENGLISH, "en"), (SPANISH, "es"), (GERMAN, "de")])
def test_identifier_names_the_language(text: str, code: str) -> None:
    assert LanguageIdentifier(["en", "es", "de"], "en").identify(text) == code


@pytest.mark.usefixtures("lingua")
def test_identifier_falls_back_without_letters_or_certainty() -> None:
    identifier = LanguageIdentifier(["en", "es"], "es")
    assert identifier.identify("12/03/2020 14:55 -- 3.5 / 2.1") == "es"
    assert LanguageIdentifier(["en", "es"], "en", confidence=1.0).identify(SPANISH) == "en"


@pytest.mark.usefixtures("lingua")
def test_each_document_goes_to_its_own_languages_pipeline() -> None:
    auto = build_deidentifier(_auto())
    assert isinstance(auto, MultilingualDeidentifier)
    docs = [Document("en1", ENGLISH, patient_id="p1"), Document("es1", SPANISH, patient_id="p1")]
    results = auto.deidentify(docs)
    assert [r.document.id for r in results] == ["en1", "es1"]
    assert auto.languages == {"en": 1, "es": 1}
    for doc, result, code in zip(docs, results, ["en", "es"], strict=True):
        alone = build_deidentifier(
            Config.load(overrides={**NO_MODEL, "pipeline": {**NO_MODEL["pipeline"], "language": code}})
        )
        assert result.text == alone.deidentify([doc])[0].text
    assert auto.pipelines["es"].config.surrogate.locale == "es_ES"
    assert auto.pipelines["en"].config.surrogate.locale == "en_US"
    assert "Dr. [HCW]. Teléfono [PHONE]." in results[1].text


@pytest.mark.usefixtures("lingua")
def test_auto_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from radeid.cli.main import app

    source = tmp_path / "mixed.jsonl"
    source.write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in [("en1", ENGLISH), ("es1", SPANISH)]),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app, ["deid", str(source), "-o", str(out), "--lang", "auto", "--mode", "tag", "--no-model", "-q"]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["en1", "es1"]
    assert "Teléfono [PHONE]" in rows[1]["text"]
    assert "Date of exam: [DATE]" in rows[0]["text"]
