"""Language packs: one folder per language under `radeid/data/lang/<code>/`, selected by
`[pipeline] language` (or `--lang`).

A pack is data, not code: its `config.toml` is a configuration overlay that sits between the bundled
defaults and the user's file (defaults, then the pack, then the user's file, then command-line
options), so a pack sets what its language needs (the model, the surrogate locale, the date order,
rule files and word lists) and a user can still override any of it. Besides the overlay a pack
holds its rules (`rules/*.toml`) and protected content (`protected/*.toml`), loaded after the
shared base (`radeid/data/rules/`, `radeid/data/protected/`: what reads the same in every
language). Its `[pack] extends` table names the packs whose files it loads before its own
(Spanish and German extend English). English's overlay is empty: the bundled defaults describe
English. A new language is a new folder: see the guide "Adding a language" in the documentation.
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
    "PACK_FILE_KINDS",
    "available_languages",
    "check_languages",
    "config_dict",
    "dotted_keys",
    "drop_keys",
    "language_of",
    "pack_chain",
    "pack_extends",
    "pack_files",
    "pack_folder",
    "pack_overlay",
]

DEFAULT_LANGUAGE = "en"
#: `[pipeline] language = "auto"`: each document gets the pack of the language it is written in.
AUTO_LANGUAGE = "auto"
_PACK_FILE = "config.toml"
#: The folders of data files a pack may hold besides its overlay: `rules/*.toml` (the schema of
#: `radeid/data/rules/00_common.toml`) and `protected/*.toml` (that of `radeid/data/protected/00_common.toml`).
PACK_FILE_KINDS = ("rules", "protected")
#: The table of a pack's config.toml that describes the pack itself (not a configuration section).
_PACK_TABLE = "pack"
_PACK_KEYS = frozenset({"extends"})


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


def _read_pack(code: str) -> dict[str, Any]:
    path = pack_folder(code) / _PACK_FILE
    try:
        with open(path, "rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"language pack {code!r}: {path} is not valid TOML: {exc}") from None
    return data


def pack_overlay(code: str) -> dict[str, Any]:
    """Pack `code`'s configuration overlay (its config.toml less `[pack]`); it must name its own
    language in `[pipeline] language`."""
    overlay = {k: v for k, v in _read_pack(code).items() if k != _PACK_TABLE}
    named = overlay.get("pipeline", {}).get("language", DEFAULT_LANGUAGE)
    if named != code:
        raise ConfigError(f"language pack {code!r}: its config.toml sets pipeline.language = {named!r}")
    return overlay


def pack_extends(code: str) -> list[str]:
    """The packs whose rule and protected files pack `code` loads before its own (`[pack] extends`
    in its config.toml), as written: Spanish builds on the English pack's macros and rules."""
    table = _read_pack(code).get(_PACK_TABLE, {})
    if not isinstance(table, Mapping) or not set(table) <= _PACK_KEYS:
        raise ConfigError(f"language pack {code!r}: [pack] may only set {', '.join(sorted(_PACK_KEYS))}")
    extends = table.get("extends", [])
    if not isinstance(extends, list) or not all(isinstance(c, str) for c in extends):
        raise ConfigError(f"language pack {code!r}: [pack] extends must be a list of language codes")
    for base in extends:
        if base not in available_languages():
            raise ConfigError(f"language pack {code!r}: [pack] extends names {base!r}, which is no pack")
    return list(extends)


def pack_chain(code: str) -> list[str]:
    """Pack `code` after every pack it extends, each once, those it extends first ("es" gives
    ["en", "es"]); a pack that extends itself through others is a configuration error."""
    chain: list[str] = []

    def visit(current: str, path: tuple[str, ...]) -> None:
        if current in path:
            raise ConfigError(f"language pack {code!r}: [pack] extends loops: {' -> '.join((*path, current))}")
        for base in pack_extends(current):
            visit(base, (*path, current))
        if current not in chain:
            chain.append(current)

    visit(code, ())
    return chain


def pack_files(code: str, kind: str) -> list[Path]:
    """The files of one kind (`PACK_FILE_KINDS`) that pack `code` brings: those of the packs it
    extends, then its own, each pack's in file-name order. They load after the shared base and
    before the user's `extra_files`, so a user's file still wins by name and never has to repeat
    the pack's files to keep them. `auto` brings the default pack's (each document then gets its
    own language's, `Config.for_language`)."""
    if kind not in PACK_FILE_KINDS:
        raise ValueError(f"a pack holds {', '.join(PACK_FILE_KINDS)} files, not {kind!r}")
    chain = pack_chain(DEFAULT_LANGUAGE if code == AUTO_LANGUAGE else code)
    return [path for pack in chain for path in sorted((pack_folder(pack) / kind).glob("*.toml"))]


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
