"""Old import paths of modules that moved into the layered packages, kept for one release.

radeid 0.2 had its modules flat at the package root (`radeid.keys`, `radeid.mask`, ...). They now
live in layered packages (`radeid.secure.keys`, `radeid.replace.mask`, ...). Programs written
against the old paths keep working for one release: importing one gives the module at its new
place (the same object, so monkeypatching either name patches both) and a `DeprecationWarning`
naming the new path. A meta-path finder does this, so the package root holds no stub files.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

__all__ = ["MOVED_MODULES", "MOVED_PACKAGES", "install", "lazy_exports", "new_path"]

#: Old module path -> new module path.
MOVED_MODULES: dict[str, str] = {
    "radeid.categories": "radeid.core.categories",
    "radeid.document": "radeid.core.document",
    "radeid.tokens": "radeid.core.tokens",
    "radeid.registry": "radeid.core.registry",
    "radeid.edges": "radeid.core.edges",
    "radeid.labelmaps": "radeid.core.labelmaps",
    "radeid.wordlists": "radeid.core.resources",
    "radeid.metakeys": "radeid.core.metakeys",
    "radeid.sections": "radeid.config.sections",
    "radeid.detect.regex_cache": "radeid.patterns.regex_cache",
    "radeid.detect.pattern_files": "radeid.patterns.pattern_files",
    "radeid.detect.first_words": "radeid.patterns.first_words",
    "radeid.detect.rule_files": "radeid.patterns.rule_files",
    "radeid.detect.validators": "radeid.patterns.validators",
    "radeid.detect.forms": "radeid.patterns.forms",
    "radeid.detect.gazetteer": "radeid.patterns.gazetteer",
    "radeid.trace": "radeid.resolve.trace",
    "radeid.detect.protected": "radeid.resolve.protected",
    "radeid.detect.completion": "radeid.resolve.completion",
    "radeid.detect.evidence": "radeid.resolve.evidence",
    "radeid.detect.propagation": "radeid.resolve.propagation",
    "radeid.normalize": "radeid.detect.normalize",
    "radeid.mask": "radeid.replace.mask",
    "radeid.spec": "radeid.pipeline.spec",
    "radeid.prebuilt": "radeid.pipeline.prebuilt",
    "radeid.commit": "radeid.io.commit",
    "radeid.paths": "radeid.io.paths",
    "radeid.keys": "radeid.secure.keys",
    "radeid.vault": "radeid.secure.vault",
    "radeid.batch": "radeid.run.batch",
    "radeid.parallel": "radeid.run.parallel",
    "radeid.pool": "radeid.run.pool",
    "radeid.line_batches": "radeid.run.chunks",
    "radeid.stream": "radeid.run.stream",
    "radeid.merge": "radeid.run.merge",
    "radeid.journal": "radeid.run.journal",
    "radeid.worker_start": "radeid.run.worker_start",
    "radeid.forkserver_preload": "radeid.run.forkserver_preload",
    "radeid.explain": "radeid.evaluate.explain",
    "radeid.ensemble_command": "radeid.cli.ensemble",
    "radeid.explain_command": "radeid.cli.explain",
    "radeid.review_command": "radeid.cli.review",
    "radeid.server_command": "radeid.cli.serve",
    "radeid.spark_command": "radeid.cli.spark",
    "radeid.train.model": "radeid.detect.transformer.torch_model",
    "radeid.evaluate.commands": "radeid.cli.evaluate",
    "radeid.evaluate.cli_options": "radeid.cli.evaluate_options",
    "radeid.model.commands": "radeid.cli.model",
    "radeid.synth.commands": "radeid.cli.synth",
    "radeid.train.commands": "radeid.cli.train",
}

#: Old package prefix -> new package prefix (every module below moves with it).
MOVED_PACKAGES: dict[str, str] = {"radeid.surrogate": "radeid.replace.surrogate"}


def new_path(old: str) -> str | None:
    """Where the module once importable as `old` lives now, or None if it did not move."""
    if old in MOVED_MODULES:
        return MOVED_MODULES[old]
    for prefix, target in MOVED_PACKAGES.items():
        if old == prefix or old.startswith(prefix + "."):
            return target + old[len(prefix) :]
    return None


class _Alias(importlib.abc.Loader):
    """Loads an old path by importing the new one and putting that module in its place."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a throw-away module; exec_module replaces it in sys.modules

    def exec_module(self, module: ModuleType) -> None:
        warnings.warn(
            f"{module.__name__} moved to {self.target}; the old path goes away in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        # The import system returns whatever sys.modules holds under the old name once this
        # returns: the real module, whose own __spec__ stays untouched.
        sys.modules[module.__name__] = importlib.import_module(self.target)


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds only the old paths; every other import falls through to the normal finders."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = new_path(fullname)
        if new is None:
            return None
        is_package = fullname in MOVED_PACKAGES
        return importlib.machinery.ModuleSpec(fullname, _Alias(new), is_package=is_package)


def install() -> None:
    """Add the finder once (the package's `__init__` calls this).

    It goes first: under a moved package's old name (`radeid.surrogate.engine`) the normal path
    finder would otherwise load a second copy of the module from the new package's folder.
    """
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for a package that offers its modules' main names (PEP 562).

    `exports` maps a name to the module that defines it. The module is imported on first use, so
    importing one small module of the package never loads its heavy siblings (a batch worker
    imports `radeid.run.worker_start`, not the whole runner).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
