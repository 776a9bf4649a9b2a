"""Language packs: one folder per language under `radeid/data/lang/<code>/`, selected by
`[pipeline] language` (or `--lang`).

A pack is data, not code: its `config.toml` is a configuration overlay that sits between the bundled
defaults and the user's file (defaults, then the pack, then the user's file, then command-line
options), so a pack sets what its language needs (the model, the surrogate locale, the date order,
rule files and word lists) and a user can still override any of it. English is the defaults
themselves, so its overlay is empty. A new language is a new folder: see the guide
"Adding a language" in the documentation.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from radeid.core.errors import ConfigError
from radeid.core.resources import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "AUTO_LANGUAGE",
    "DEFAULT_LANGUAGE",
    "available_languages",
    "check_languages",
    "config_dict",
    "dotted_keys",
    "drop_keys",
    "language_of",
    "pack_folder",
    "pack_overlay",
]

DEFAULT_LANGUAGE = "en"
#: `[pipeline] language = "auto"`: each document gets the pack of the language it is written in.
AUTO_LANGUAGE = "auto"
_PACK_FILE = "config.toml"


def _packs_root() -> Path:
    return bundled_data_path("lang")


def available_languages() -> list[str]:
    """The codes of the bundled packs (folders holding a `config.toml`), sorted."""
    root = _packs_root()
    return sorted(p.name for p in root.iterdir() if (p / _PACK_FILE).is_file())


def pack_folder(code: str) -> Path:
    """The folder of pack `code`; an unknown code is a configuration error naming the known ones."""
    if not isinstance(code, str) or not code or code not in available_languages():
        known = ", ".join(available_languages())
        raise ConfigError(f"pipeline.language must be one of {known}, not {code!r}")
    return _packs_root() / code


def pack_overlay(code: str) -> dict[str, Any]:
    """Pack `code`'s configuration overlay; it must name its own language in `[pipeline] language`."""
    path = pack_folder(code) / _PACK_FILE
    try:
        with open(path, "rb") as handle:
            overlay: dict[str, Any] = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"language pack {code!r}: {path} is not valid TOML: {exc}") from None
    named = overlay.get("pipeline", {}).get("language", DEFAULT_LANGUAGE)
    if named != code:
        raise ConfigError(f"language pack {code!r}: its config.toml sets pipeline.language = {named!r}")
    return overlay


def language_of(*layers: Mapping[str, Any] | None) -> str:
    """The language the last layer that names one asks for (`[pipeline] language`), else English."""
    code: Any = DEFAULT_LANGUAGE
    for layer in layers:
        pipeline = (layer or {}).get("pipeline")
        if isinstance(pipeline, Mapping) and "language" in pipeline:
            code = pipeline["language"]
    if not isinstance(code, str):
        raise ConfigError(f"pipeline.language must be a language code such as 'en' or 'es', not {code!r}")
    return code


def check_languages(pipeline: Any) -> None:
    """`language` is a pack or "auto"; `languages` (auto's candidates) and `fallback_language` are packs."""
    if pipeline.language != AUTO_LANGUAGE:
        pack_folder(pipeline.language)
    for code in pipeline.languages:
        if code not in available_languages():
            raise ConfigError(
                f"pipeline.languages: {code!r} is not a language pack ({', '.join(available_languages())})"
            )
    if pipeline.fallback_language not in available_languages():
        known = ", ".join(available_languages())
        raise ConfigError(f"pipeline.fallback_language must be one of {known}, not {pipeline.fallback_language!r}")
    if not 0.0 <= pipeline.language_confidence <= 1.0:
        raise ConfigError("pipeline.language_confidence must be within [0, 1]")


def dotted_keys(table: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """Every leaf key of a nested table as "section.key" ("detectors.transformer.model")."""
    for key, value in table.items():
        if isinstance(value, Mapping) and value:
            yield from dotted_keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def drop_keys(table: Mapping[str, Any], dotted: frozenset[str], prefix: str = "") -> dict[str, Any]:
    """`table` less the leaf keys named in `dotted`."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, Mapping) and value:
            out[key] = drop_keys(value, dotted, f"{prefix}{key}.")
        elif f"{prefix}{key}" not in dotted:
            out[key] = value
    return out


def config_dict(config: Any) -> dict[str, Any]:
    """A loaded config as the nested table it could have been read from."""
    return {f.name: _plain(getattr(config, f.name)) for f in dataclasses.fields(config) if f.compare}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
