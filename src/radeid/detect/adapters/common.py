"""What the adapters share: reading a plain `[detectors.<name>]` table, lazy imports with an install
line, foreign labels to radeid categories, and the clinician-title rule for person names."""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from radeid.config.config import ConfigError
from radeid.core.categories import Category
from radeid.core.labelmaps import load_label_map, map_label

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["Options", "import_optional", "install_line", "is_titled", "label_table", "section"]


def install_line(extra: str) -> str:
    return f'pip install "radeid[{extra}]"'


def import_optional(module: str, extra: str, detector: str) -> ModuleType:
    """`module`, or a `ConfigError` naming the extra that provides it (never the library's own message)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"detector {detector!r} needs the optional package {module.split('.')[0]!r}; install it with: "
            f"{install_line(extra)}"
        ) from None


def section(config: Config | None, name: str) -> Mapping[str, Any]:
    """The detector's own table; adapters are not built-in sections, so it is a plain mapping (or absent)."""
    if config is None:
        return {}
    table = config.detectors.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"[detectors.{name}] must be a table")
    return table


class Options:
    """Typed reads from a plain table; `done()` refuses keys nobody read (a typo is an error, not a no-op)."""

    def __init__(self, name: str, table: Mapping[str, Any]) -> None:
        self.where = f"detectors.{name}"
        self.table = dict(table)
        self.seen: set[str] = set()

    def _get(self, key: str, default: Any, kinds: tuple[type, ...], what: str) -> Any:
        self.seen.add(key)
        value = self.table.get(key, default)
        if value is None or (isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)):
            return value
        raise ConfigError(f"{self.where}.{key} must be {what}")

    def string(self, key: str, default: str | None = None) -> str | None:
        value: str | None = self._get(key, default, (str,), "a string")
        return value

    def number(self, key: str, default: float) -> float:
        return float(self._get(key, default, (int, float), "a number"))

    def integer(self, key: str, default: int) -> int:
        return int(self._get(key, default, (int,), "an integer"))

    def flag(self, key: str, default: bool) -> bool:
        return bool(self._get(key, default, (bool,), "true or false"))

    def strings(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self._get(key, default, (list, tuple), "a list of strings")
        if not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{self.where}.{key} must be a list of strings")
        return tuple(value)

    def mapping(self, key: str) -> dict[str, str]:
        value = self._get(key, {}, (Mapping,), "a table of strings")
        if not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"{self.where}.{key} must be a table of strings")
        return {str(k): v for k, v in value.items()}

    def path(self, key: str) -> Path | None:
        value = self.string(key)
        return Path(value).expanduser() if value else None

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.seen)
        if unknown:
            known = ", ".join(sorted(self.seen))
            raise ConfigError(f"[{self.where}] unknown key(s): {', '.join(unknown)}; known: {known}")


Target = tuple[Category, str | None]


def label_table(
    where: str, base: str | Mapping[str, str] | None, overrides: Mapping[str, str]
) -> dict[str, Target | None]:
    """Foreign label -> `(category, subtype)` or `None` (not PHI): a bundled/TOML map, then the section's overrides.

    Values are `CATEGORY`, `CATEGORY/SUBTYPE` or `IGNORE`; every value is checked when the detector is built.
    """
    raw: dict[str, str] = {}
    if isinstance(base, str):
        try:
            raw.update(load_label_map(base))
        except ValueError as error:
            raise ConfigError(f"{where}.label_map: {error}") from None
    elif base is not None:
        raw.update({k.upper(): v for k, v in base.items()})
    raw.update({k.upper(): v for k, v in overrides.items()})
    table: dict[str, Target | None] = {}
    for label, target in raw.items():
        if target.upper() in ("IGNORE", "DROP"):
            table[label] = None
            continue
        mapped = map_label(target)
        if mapped is None:
            raise ConfigError(f"{where}: label {label!r} maps to {target!r}, not a radeid category or IGNORE")
        table[label] = mapped
    return table


# A clinician's title right before a name ("Dr. Smith", "Doctor Jones", "Smith, MD" is not handled here).
_TITLE = re.compile(r"(?:\b(?:dr|doctor|prof|professor)\.?)\s*$", re.IGNORECASE)


def is_titled(text: str, start: int) -> bool:
    """True when a clinician title ends just before `start` (within the same line)."""
    line_start = text.rfind("\n", 0, start) + 1
    return _TITLE.search(text, max(line_start, start - 20), start) is not None
