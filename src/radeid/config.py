"""Configuration: bundled defaults (a data file) with a user TOML file merged over them."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from radeid.categories import Category
from radeid.wordlists import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MASK_MODES = ("tag", "numbered", "mask", "fixed")
TRANSFORMER_BACKENDS = ("auto", "onnx", "torch")
LABEL_SCHEMES = ("auto", "bio", "io")


class ConfigError(ValueError):
    """A configuration file or value that cannot be used; the message says which key."""


@dataclass(frozen=True)
class PipelineConfig:
    detectors: tuple[str, ...] = ("rules", "lexicon")
    batch_size: int = 64
    normalize_unicode: bool = True


@dataclass(frozen=True)
class RulesConfig:
    extra_files: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    age_threshold: int = 89


@dataclass(frozen=True)
class LexiconConfig:
    include_bundled: bool = True
    hospital_lists: tuple[str, ...] = ()
    vendor_lists: tuple[str, ...] = ()
    deny_lists: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResolverConfig:
    use_bundled_allow_list: bool = True
    allow_lists: tuple[str, ...] = ()
    min_score: float = 0.0
    extend_to_word_boundaries: bool = True
    split_fields: bool = True
    protected: bool = True
    strong_sources: tuple[str, ...] = ()
    form_check_sources: tuple[str, ...] = ()
    merge_categories: tuple[Category, ...] = ()
    source_priority: Mapping[str, int] = field(default_factory=dict)
    category_priority: Mapping[Category, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ProtectedConfig:
    """Text that is never PHI (`radeid/data/protected/*.toml` plus the user's own files)."""

    include_bundled: bool = True
    extra_files: tuple[str, ...] = ()
    disabled_classes: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class MaskConfig:
    mode: str = "mask"
    char: str = "*"
    fixed_length: int = 8


@dataclass(frozen=True)
class TransformerConfig:
    """The `transformer` detector; `model` empty means none is configured."""

    model: str = ""
    backend: str = "auto"
    device: str = "cpu"
    label_map: str = ""
    scheme: str = "auto"
    threshold: float = 0.5
    batch_size: int = 16
    max_length: int = 0
    stride: int = 128
    threads: int = 0
    check_forms: bool = True


@dataclass(frozen=True)
class Config:
    """The whole pipeline configuration; build it with `Config.load`."""

    pipeline: PipelineConfig = field(default_factory=PipelineConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    lexicon: LexiconConfig = field(default_factory=LexiconConfig)
    resolver: ResolverConfig = field(default_factory=ResolverConfig)
    protected: ProtectedConfig = field(default_factory=ProtectedConfig)
    mask: MaskConfig = field(default_factory=MaskConfig)
    transformer: TransformerConfig = field(default_factory=TransformerConfig)

    @classmethod
    def load(cls, path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> Config:
        """Defaults, then the user file at `path`, then `overrides` (a nested dict, e.g. from CLI flags)."""
        data = read_toml(bundled_data_path("config.toml"))
        if path is not None:
            data = deep_merge(data, read_toml(Path(path)))
        if overrides:
            data = deep_merge(data, overrides)
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Config:
        _reject_unknown(data, {f.name for f in fields(cls)}, "")
        sections = {
            "pipeline": _section(PipelineConfig, data.get("pipeline", {}), "pipeline"),
            "rules": _section(RulesConfig, data.get("rules", {}), "rules"),
            "lexicon": _section(LexiconConfig, data.get("lexicon", {}), "lexicon"),
            "resolver": _resolver(data.get("resolver", {})),
            "protected": _section(ProtectedConfig, data.get("protected", {}), "protected"),
            "mask": _section(MaskConfig, data.get("mask", {}), "mask"),
            "transformer": _section(TransformerConfig, data.get("transformer", {}), "transformer"),
        }
        config = cls(**sections)
        config.validate()
        return config

    def validate(self) -> None:
        if self.mask.mode not in MASK_MODES:
            raise ConfigError(f"mask.mode must be one of {', '.join(MASK_MODES)}, not {self.mask.mode!r}")
        if len(self.mask.char) != 1:
            raise ConfigError("mask.char must be exactly one character")
        if self.mask.fixed_length < 1:
            raise ConfigError("mask.fixed_length must be at least 1")
        if self.pipeline.batch_size < 1:
            raise ConfigError("pipeline.batch_size must be at least 1")
        if self.rules.age_threshold < 0:
            raise ConfigError("rules.age_threshold must not be negative")
        self._validate_transformer()

    def _validate_transformer(self) -> None:
        t = self.transformer
        if t.backend not in TRANSFORMER_BACKENDS:
            known = ", ".join(TRANSFORMER_BACKENDS)
            raise ConfigError(f"transformer.backend must be one of {known}, not {t.backend!r}")
        if t.scheme not in LABEL_SCHEMES:
            raise ConfigError(f"transformer.scheme must be one of {', '.join(LABEL_SCHEMES)}, not {t.scheme!r}")
        if not 0.0 < float(t.threshold) <= 1.0:
            raise ConfigError("transformer.threshold must be in (0, 1]")
        if t.batch_size < 1:
            raise ConfigError("transformer.batch_size must be at least 1")
        if t.max_length < 0 or t.stride < 0 or t.threads < 0:
            raise ConfigError("transformer.max_length, stride and threads must not be negative")


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None


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
        raise ConfigError(
            f"{prefix}unknown config key(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )


def _section(kind: type, data: Mapping[str, Any], where: str) -> Any:
    names = {f.name for f in fields(kind)}
    _reject_unknown(data, names, where)
    values: dict[str, Any] = {}
    for f in fields(kind):
        if f.name in data:
            value = data[f.name]
            values[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        return kind(**values)
    except TypeError as exc:  # pragma: no cover - dataclass signature mismatch
        raise ConfigError(f"[{where}] {exc}") from None


def _resolver(data: Mapping[str, Any]) -> ResolverConfig:
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
        strong_sources=base.strong_sources,
        form_check_sources=base.form_check_sources,
        merge_categories=merge,
        source_priority=source_priority,
        category_priority=category_priority,
    )
