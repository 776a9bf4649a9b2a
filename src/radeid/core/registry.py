"""Named registries: detectors, formats, mask modes and surrogate generators are looked up by the
name a config uses, so adding one touches its own module, never a chain of `if/elif`.

A registry entry is either the object itself (`@REGISTRY.register("name")`) or a lazy reference
`"package.module:attribute"` (`REGISTRY.register_lazy(...)`): heavy components (a model detector
imports onnxruntime) are imported only when a config names them. An unknown name is a
`ConfigError` that lists the known ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from radeid.core.errors import ConfigError
from radeid.core.plugins import load_plugins
from radeid.core.plugins import loaded as plugins_loaded

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Objects of one kind by name; `kind` names the kind in error messages ("detector")."""

    def __init__(self, kind: str, option: str = "") -> None:
        self.kind = kind
        self.option = option  # the config key that holds such names, for error messages
        self._entries: dict[str, T] = {}
        self._lazy: dict[str, str] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under `name` (a second one replaces it)."""

        def add(obj: T) -> T:
            self._entries[name] = obj
            self._lazy.pop(name, None)
            return obj

        return add

    def add(self, name: str, obj: T) -> None:
        self.register(name)(obj)

    def register_lazy(self, name: str, target: str) -> None:
        """Register `"package.module:attribute"`, imported on first `get(name)`."""
        if ":" not in target:
            raise ValueError(f"lazy target must be 'module:attribute', not {target!r}")
        self._lazy[name] = target
        self._entries.pop(name, None)

    def get(self, name: str) -> T:
        if name in self._entries:
            return self._entries[name]
        if name in self._lazy:
            module_name, attribute = self._lazy[name].split(":", 1)
            obj: Any = importlib.import_module(module_name)
            for part in attribute.split("."):  # "module:Class.from_config"
                obj = getattr(obj, part)
            self._entries[name] = obj
            del self._lazy[name]
            return obj  # type: ignore[no-any-return]
        if _plugins_added(name, self):
            return self.get(name)
        where = f" in {self.option}" if self.option else ""
        failed = "".join(f"; plugin {p!r} not loaded ({error})" for p, error in load_plugins().failed)
        raise ConfigError(f"unknown {self.kind} {name!r}{where}; known: {', '.join(self.names())}{failed}")

    def names(self) -> list[str]:
        return sorted({*self._entries, *self._lazy})

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._lazy or _plugins_added(name, self)

    def _has(self, name: object) -> bool:
        return name in self._entries or name in self._lazy

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def _plugins_added(name: object, registry: Registry[Any]) -> bool:
    """Whether loading the plugins (`radeid.core.plugins`, once per process) made `name` known.

    Plugins load only when a name is missing: scanning the installed packages' entry points costs
    about 40 ms, which every `radeid` run and worker would otherwise pay for nothing.
    """
    if plugins_loaded():
        return False
    load_plugins()
    return registry._has(name)
