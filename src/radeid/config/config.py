"""Configuration: the whole job as data. Bundled defaults (`radeid/data/config.toml`), a user TOML
file merged over them, then overrides (CLI options) over both.

Sections: `[pipeline]`, `[detectors.<name>]` (one per registered detector), `[resolver]`,
`[protected]`, `[replace]`, `[surrogate]` and `[io]`; their dataclasses are in `radeid.config.sections`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from radeid.config.language import (
    AUTO_LANGUAGE,
    DEFAULT_LANGUAGE,
    check_languages,
    config_dict,
    dotted_keys,
    drop_keys,
    language_of,
    pack_files,
    pack_folder,
    pack_overlay,
)
from radeid.config.modes import REPLACERS
from radeid.config.schema import check_locale, check_section
from radeid.config.sections import (
    GATE_SCOPES,
    KEEP_MODE,
    LABEL_SCHEMES,
    ON_ERROR,
    TRANSFORMER_BACKENDS,
    EnsembleConfig,
    IOConfig,
    LexiconConfig,
    PipelineConfig,
    ProtectedConfig,
    ReplaceConfig,
    ResolverConfig,
    RulesConfig,
    SurrogateOptions,
    TransformerConfig,
)
from radeid.core.categories import Category
from radeid.core.errors import ConfigError
from radeid.core.resources import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The section dataclasses live in `radeid.config.sections`; they are importable from here too, for
# callers written before the split.
__all__ = ["DETECTOR_SECTIONS", "Config", "ConfigError", "deep_merge", "read_toml"]


#: Typed sections of the built-in detectors; a detector registered by a user keeps its
#: `[detectors.<name>]` table as a plain mapping and checks it in its own `from_config`.
DETECTOR_SECTIONS: dict[str, type] = {
    "rules": RulesConfig,
    "lexicon": LexiconConfig,
    "transformer": TransformerConfig,
    "ensemble": EnsembleConfig,
}

# Sections that moved; a file using the old name gets told where they went.
_MOVED = {"rules": "detectors.rules", "lexicon": "detectors.lexicon", "transformer": "detectors.transformer",
          "mask": "replace"}  # fmt: skip


def _default_detectors() -> dict[str, Any]:
    return {name: kind() for name, kind in DETECTOR_SECTIONS.items()}


@dataclass(frozen=True)
class Config:
    """The whole job; build it with `Config.load`."""

    pipeline: PipelineConfig = field(default_factory=PipelineConfig)
    detectors: Mapping[str, Any] = field(default_factory=_default_detectors)
    resolver: ResolverConfig = field(default_factory=ResolverConfig)
    protected: ProtectedConfig = field(default_factory=ProtectedConfig)
    replace: ReplaceConfig = field(default_factory=ReplaceConfig)
    surrogate: SurrogateOptions = field(default_factory=SurrogateOptions)
    io: IOConfig = field(default_factory=IOConfig)
    # Dotted keys the user's file or the overrides set ("surrogate.locale"): with `language =
    # "auto"`, each document's pack fills in only what the user left unset (`for_language`).
    explicit: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None, overrides: Mapping[str, Any] | None = None) -> Config:
        """Defaults, the language pack, the user file at `path`, then `overrides` (a nested dict, e.g.
        from CLI flags). The pack is the one the user's file or the overrides name in `[pipeline] language`."""
        data = read_toml(bundled_data_path("config.toml"))
        user: dict[str, Any] = {}
        if path is not None:
            user = read_toml(Path(path))
            _refuse_moved(user, str(path))
        if overrides:
            _refuse_moved(overrides, "the overrides")
        language = language_of(data, user, overrides)
        if language not in (DEFAULT_LANGUAGE, AUTO_LANGUAGE):
            data = deep_merge(data, _scope_table(pack_overlay(language)))
        data = deep_merge(_scope_table(data), _scope_table(user))
        if overrides:
            data = deep_merge(data, _scope_table(overrides))
        explicit = frozenset(dotted_keys(user)) | frozenset(dotted_keys(overrides or {}))
        return dataclasses.replace(cls.from_dict(data), explicit=explicit)

    def for_language(self, code: str) -> Config:
        """This config as pack `code` would make it: the pack's keys, except those the user set
        (`explicit`), over this config. For `language = "auto"`, once per language met."""
        pack_folder(code)  # an unknown code names the known ones
        overlay = _scope_table(pack_overlay(code)) if code != DEFAULT_LANGUAGE else {}
        data = deep_merge(config_dict(self), drop_keys(overlay, self.explicit))
        data.setdefault("pipeline", {})["language"] = code
        return dataclasses.replace(Config.from_dict(data), explicit=self.explicit)

    # The built-in detectors' sections, by name (`config.detectors["rules"]`).
    @property
    def rules(self) -> RulesConfig:
        return self.detectors["rules"]  # type: ignore[no-any-return]

    @property
    def lexicon(self) -> LexiconConfig:
        return self.detectors["lexicon"]  # type: ignore[no-any-return]

    @property
    def transformer(self) -> TransformerConfig:
        return self.detectors["transformer"]  # type: ignore[no-any-return]

    @property
    def ensemble(self) -> EnsembleConfig:
        return self.detectors["ensemble"]  # type: ignore[no-any-return]

    @property
    def rule_files(self) -> tuple[str, ...]:
        """Rule files after the shared base (`radeid/data/rules/`): the language pack's `rules/*.toml`
        (after those of the packs it extends), then the user's `[detectors.rules] extra_files`
        (which may redefine the pack's rules by name)."""
        pack = tuple(str(p) for p in pack_files(self.pipeline.language, "rules"))
        return (*pack, *self.rules.extra_files)

    @property
    def protected_files(self) -> tuple[str, ...]:
        """Protected-content files after the shared base: the pack's `protected/*.toml` (after those
        of the packs it extends; bundled data too, so `[protected] include_bundled = false` drops
        them), then the user's `extra_files`."""
        if not self.protected.include_bundled:
            return self.protected.extra_files
        pack = tuple(str(p) for p in pack_files(self.pipeline.language, "protected"))
        return (*pack, *self.protected.extra_files)

    def with_section(self, name: str, **changes: Any) -> Config:
        """This config with some keys of one section changed (`"detectors.transformer"` for a detector)."""
        if name.startswith("detectors."):
            detector = name.split(".", 1)[1]
            detectors = dict(self.detectors)
            current = detectors[detector]
            if dataclasses.is_dataclass(current) and not isinstance(current, type):
                check_section(type(current), changes, name)
                detectors[detector] = dataclasses.replace(current, **changes)
            else:
                detectors[detector] = {**current, **changes}
            changed = dataclasses.replace(self, detectors=detectors)
        else:
            check_section(type(getattr(self, name)), changes, name)
            changed = dataclasses.replace(self, **{name: dataclasses.replace(getattr(self, name), **changes)})
        changed.validate()
        return changed

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Config:
        _refuse_moved(data, "the configuration")
        _reject_unknown(data, {f.name for f in fields(cls)}, "")
        detectors = _default_detectors()
        raw_detectors = data.get("detectors", {})
        if not isinstance(raw_detectors, Mapping):
            raise ConfigError("[detectors] must be a table of detector sections")
        for name, table in raw_detectors.items():
            if not isinstance(table, Mapping):
                raise ConfigError(f"[detectors.{name}] must be a table")
            kind = DETECTOR_SECTIONS.get(name)
            detectors[name] = _section(kind, table, f"detectors.{name}") if kind else dict(table)
        config = cls(
            pipeline=_section(PipelineConfig, data.get("pipeline", {}), "pipeline"),
            detectors=detectors,
            resolver=_resolver(data.get("resolver", {})),
            protected=_section(ProtectedConfig, data.get("protected", {}), "protected"),
            replace=_section(ReplaceConfig, data.get("replace", {}), "replace"),
            surrogate=_section(SurrogateOptions, data.get("surrogate", {}), "surrogate"),
            io=_section(IOConfig, data.get("io", {}), "io"),
        )
        config.validate()
        return config

    def validate(self) -> None:
        for name in ("pipeline", "resolver", "protected", "replace", "surrogate", "io"):
            section = getattr(self, name)
            check_section(type(section), {f.name: getattr(section, f.name) for f in fields(section)}, name)
        for name, section in self.detectors.items():
            if dataclasses.is_dataclass(section) and not isinstance(section, type):
                values = {f.name: getattr(section, f.name) for f in fields(section)}
                check_section(type(section), values, f"detectors.{name}")
        check_locale(self.surrogate.locale)
        if self.replace.mode not in REPLACERS:
            known = ", ".join(REPLACERS.names())
            raise ConfigError(f"replace.mode must be one of {known}, not {self.replace.mode!r}")
        for category, mode in self.replace.categories.items():
            if mode not in REPLACERS and mode != KEEP_MODE:
                known = ", ".join([*REPLACERS.names(), KEEP_MODE])
                raise ConfigError(f"replace.categories.{category} must be one of {known}, not {mode!r}")
        if len(self.replace.char) != 1:
            raise ConfigError("replace.char must be exactly one character")
        if self.replace.fixed_length < 1:
            raise ConfigError("replace.fixed_length must be at least 1")
        check_languages(self.pipeline)  # an unknown language names the known ones
        if self.pipeline.batch_size < 1:
            raise ConfigError("pipeline.batch_size must be at least 1")
        if self.rules.age_threshold < 0:
            raise ConfigError("detectors.rules.age_threshold must not be negative")
        if self.io.progress_interval < 0:
            raise ConfigError("io.progress_interval must not be negative")
        if self.io.on_error not in ON_ERROR:
            raise ConfigError(f"io.on_error must be one of {', '.join(ON_ERROR)}, not {self.io.on_error!r}")
        if self.io.limit < 0 or self.io.sample < 0:
            raise ConfigError("io.limit and io.sample must not be negative (0 reads every document)")
        if self.io.limit and self.io.sample:
            raise ConfigError("io.limit (--limit) and io.sample (--sample) contradict each other; pass one of them")
        self._validate_transformer()
        self._validate_ensemble()

    def _validate_ensemble(self) -> None:
        """A member of an ensemble is not also run on its own: its spans would skip the vote."""
        if "ensemble" not in self.pipeline.detectors:
            return
        both = [m for m in self.ensemble.members if m in self.pipeline.detectors]
        if both:
            raise ConfigError(
                f"pipeline.detectors lists {', '.join(repr(m) for m in both)} and 'ensemble', whose members "
                f"include {'it' if len(both) == 1 else 'them'}; a member is not also run on its own: "
                "remove it from pipeline.detectors (or from detectors.ensemble.members)"
            )

    def _validate_transformer(self) -> None:
        t = self.transformer
        where = "detectors.transformer"
        if t.backend not in TRANSFORMER_BACKENDS:
            known = ", ".join(TRANSFORMER_BACKENDS)
            raise ConfigError(f"{where}.backend must be one of {known}, not {t.backend!r}")
        if t.scheme not in LABEL_SCHEMES:
            raise ConfigError(f"{where}.scheme must be one of {', '.join(LABEL_SCHEMES)}, not {t.scheme!r}")
        if not 0.0 < float(t.threshold) <= 1.0:
            raise ConfigError(f"{where}.threshold must be in (0, 1]")
        if t.batch_size < 1:
            raise ConfigError(f"{where}.batch_size must be at least 1")
        if t.max_length < 0 or t.stride < 0 or t.threads < 0:
            raise ConfigError(f"{where}.max_length, stride and threads must not be negative")
        if t.gate_scope not in GATE_SCOPES:
            raise ConfigError(f"{where}.gate_scope must be one of {', '.join(GATE_SCOPES)}, not {t.gate_scope!r}")
        if t.gate_context < 0:
            raise ConfigError(f"{where}.gate_context must not be negative")


def _scope_table(layer: Mapping[str, Any]) -> Mapping[str, Any]:
    """`[surrogate] scope = "corpus"` read as `[surrogate.scope] "*" = "corpus"`, so that a plain
    scope in one layer (`--scope`) and a per-category table in another merge key by key."""
    section = layer.get("surrogate")
    if not isinstance(section, Mapping) or not isinstance(section.get("scope"), str):
        return layer
    return {**layer, "surrogate": {**section, "scope": {"*": section["scope"]}}}


def _refuse_moved(data: Mapping[str, Any], where: str) -> None:
    for old, new in _MOVED.items():
        if old in data:
            raise ConfigError(f"[{old}] in {where} is now [{new}] (radeid 0.2); rename the section")


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except ValueError:  # an integer over Python's digit limit (tomllib raises it as it is)
        raise ConfigError(f"config file {path} holds a number too long to read") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None


def deep_merge(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """Merge tables key by key; any other value (lists included) in `update` replaces."""
    merged = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _reject_unknown(data: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        prefix = f"[{where}] " if where else ""
        raise ConfigError(f"{prefix}unknown config key(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def _section(kind: type, data: Mapping[str, Any], where: str) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"[{where}] must be a table, not {type(data).__name__}")
    names = {f.name for f in fields(kind)}
    _reject_unknown(data, names, where)
    check_section(kind, data, where)  # types first: a section's own checks assume them
    values: dict[str, Any] = {}
    for f in fields(kind):
        if f.name in data:
            value = data[f.name]
            values[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        return kind(**values)
    except TypeError as exc:  # pragma: no cover - dataclass signature mismatch
        raise ConfigError(f"[{where}] {exc}") from None
    except ValueError as exc:  # a section's own check (e.g. surrogate.date_shift)
        raise ConfigError(f"[{where}] {exc}") from None


def _resolver(data: Mapping[str, Any]) -> ResolverConfig:
    if isinstance(data, Mapping):
        check_section(ResolverConfig, data, "resolver")  # the structured keys too
    structured = ("source_priority", "category_priority", "merge_categories")
    plain = {k: v for k, v in data.items() if k not in structured}
    base = _section(ResolverConfig, plain, "resolver")
    try:
        merge = tuple(Category.parse(c) for c in data.get("merge_categories", ()))
        category_priority = {Category.parse(k): int(v) for k, v in data.get("category_priority", {}).items()}
    except ValueError as exc:
        raise ConfigError(f"[resolver] {exc}") from None
    source_priority = {str(k): int(v) for k, v in data.get("source_priority", {}).items()}
    return ResolverConfig(
        use_bundled_allow_list=base.use_bundled_allow_list,
        allow_lists=base.allow_lists,
        min_score=float(base.min_score),
        extend_to_word_boundaries=base.extend_to_word_boundaries,
        split_fields=base.split_fields,
        protected=base.protected,
        propagate=base.propagate,
        strong_sources=base.strong_sources,
        form_check_sources=base.form_check_sources,
        common_word_check=base.common_word_check,
        trim_lower_case_edges=base.trim_lower_case_edges,
        merge_categories=merge,
        source_priority=source_priority,
        category_priority=category_priority,
    )
