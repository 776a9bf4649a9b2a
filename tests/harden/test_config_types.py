"""Issue 27, point 7: a config value of the wrong type is exit 2 with a message naming the key,
in the main process (also with `-w 2`), never a traceback and never silently taken."""

from __future__ import annotations

import json
import math
import types
import typing
from dataclasses import fields
from pathlib import Path
from typing import Any, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from radeid.config import Config, ConfigError
from radeid.config.config import DETECTOR_SECTIONS

ROW = {"id": "a", "text": "Seen by Dr. Alan Grant on 03/04/2019."}


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[pipeline]\nbatch_size = "x"', "pipeline.batch_size"),
        ('[detectors.rules]\nage_threshold = "x"', "detectors.rules.age_threshold"),
        ("[surrogate]\nlocale = 7", "surrogate.locale"),
        ('[surrogate]\nlocale = "zz_ZZ"', "surrogate.locale"),
        ("[resolver]\nstrong_sources = 3", "resolver.strong_sources"),
        ('[pipeline]\ndetectors = "rules"', "pipeline.detectors"),
        ('[pipeline]\nnormalize_unicode = "no"', "pipeline.normalize_unicode"),
        ('[resolver.source_priority]\nrules = "x"', "resolver.source_priority.rules"),
        ('[resolver]\nmerge_categories = "PATIENT"', "resolver.merge_categories"),
        ('[detectors.transformer]\nthreshold = "0.5"', "detectors.transformer.threshold"),
        ('[surrogate]\nmax_shift_days = "x"', "surrogate.max_shift_days"),
        ("[io]\nkeep_columns = [1, 2]", "io.keep_columns"),
    ],
)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_wrongly_typed_config_value_exit_2_naming_the_key(
    tmp_path: Path, cli, write_jsonl, key_file: Path, toml: str, key: str, workers: str
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [ROW])
    config = tmp_path / "c.toml"
    config.write_text(toml + "\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-w", workers)
    assert code == 2, output
    assert key in output and "Traceback" not in output
    assert not out.exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_unknown_locale_option_exit_2(tmp_path: Path, cli, write_jsonl, key_file: Path, workers: str) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [ROW])
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--locale", "zz_ZZ", "--key-file", key_file, "--no-model", "-w", workers)
    assert code == 2, output
    assert "surrogate.locale" in output and "zz_ZZ" in output and "Traceback" not in output


def test_a_known_locale_and_ints_for_floats_are_accepted(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[surrogate]\nlocale = "de_DE"\n[detectors.transformer]\nthreshold = 1\n', encoding="utf-8")
    loaded = Config.load(config)
    assert loaded.surrogate.locale == "de_DE" and loaded.transformer.threshold == 1


def test_with_section_checks_types() -> None:
    with pytest.raises(ConfigError, match="surrogate.max_shift_days must be an integer"):
        Config.load().with_section("surrogate", max_shift_days="x")


# --------------------------------------------------------------------------- fuzz (Hypothesis)

_SECTIONS = {
    "pipeline": "PipelineConfig",
    "resolver": "ResolverConfig",
    "protected": "ProtectedConfig",
    "replace": "ReplaceConfig",
    "surrogate": "SurrogateOptions",
    "io": "IOConfig",
}


def _keys() -> list[tuple[str, str, str]]:
    """`(section, key, kind)` of every typed key; kind is bool, int, float, str, list or table."""
    import radeid.config.sections as sections

    kinds = [(name, getattr(sections, cls)) for name, cls in _SECTIONS.items()]
    kinds += [(f"detectors.{name}", cls) for name, cls in DETECTOR_SECTIONS.items()]
    found = []
    for section, cls in kinds:
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            hint = hints[f.name]
            origin = get_origin(hint)
            if origin is tuple:
                kind = "list"
            elif origin is not None and "Mapping" in str(origin):
                kind = "table"
            elif origin is typing.Literal:
                kind = "str"
            elif origin in (typing.Union, types.UnionType):  # `[surrogate] scope`: a string or a table
                kind = "str|table"
            else:
                kind = {bool: "bool", int: "int", float: "float", str: "str"}[hint]
            found.append((section, f.name, kind))
    return found


KEYS = _keys()

_text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x7f"), max_size=12)
_scalars = {
    "bool": st.booleans(),
    "int": st.integers(-(10**12), 10**12),
    "float": st.floats(allow_nan=True, allow_infinity=True).filter(lambda f: not float(f).is_integer()),
    "str": _text,
}
_lists = st.lists(st.one_of(st.integers(), st.booleans(), _text), max_size=3)
_tables = st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), st.integers(), max_size=2)


def _wrong(kind: str) -> st.SearchStrategy[Any]:
    """Values that are surely not of `kind` (an int is a fine float, so it is not drawn for one)."""
    kinds = kind.split("|")
    options = [s for k, s in _scalars.items() if k not in kinds and not (kind == "float" and k == "int")]
    if kind != "list":
        options.append(_lists)
    else:  # also a list with an item of the wrong type (all these keys hold lists of strings)
        options.append(st.lists(st.one_of(st.integers(), st.booleans()), min_size=1, max_size=3))
    if "table" not in kinds:
        options.append(_tables)
    return st.one_of(options)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"


@st.composite
def _bad_files(draw: st.DrawFn) -> tuple[str, str]:
    section, key, kind = draw(st.sampled_from(KEYS))
    value = draw(_wrong(kind))
    return f"[{section}]\n{key} = {_toml(value)}\n", f"{section}.{key}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_bad_files())
def test_fuzz_wrongly_typed_config_files_exit_2_naming_the_key(
    tmp_path_factory: pytest.TempPathFactory, cli, write_jsonl, case: tuple[str, str]
) -> None:
    toml, key = case
    folder = tmp_path_factory.mktemp("fuzz")
    src = write_jsonl(folder / "in.jsonl", [ROW])
    config = folder / "c.toml"
    config.write_text(toml, encoding="utf-8")
    key_file = folder / "k.key"
    key_file.write_text("ab" * 32 + "\n", encoding="ascii")
    key_file.chmod(0o600)
    code, output = cli("deid", src, "-o", folder / "o.jsonl", "--config", config, "--key-file", key_file)
    assert code == 2, (toml, output)
    assert key in output.replace("\n", ""), (toml, output)
    assert "Traceback" not in output
