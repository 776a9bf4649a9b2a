"""Plugins: installed packages that add detectors, replacement modes, surrogate generators or formats.

A plugin declares an entry point in the group `radeid.plugins` (in its `pyproject.toml`:
`[project.entry-points."radeid.plugins"] my_modes = "my_package.radeid_modes"`); importing that
module registers what it adds. A registry that is asked for a name it does not know loads the
plugins (once per process) and looks again, so a plugin's mode is a valid `--mode` and a plugin's
detector builds in every batch worker, and a run that names only built-in components never pays
for the scan. A plugin that fails to import is skipped; an unknown-name error names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points

__all__ = ["GROUP", "PluginReport", "load_plugins", "loaded"]

GROUP = "radeid.plugins"


@dataclass(frozen=True)
class PluginReport:
    """What `load_plugins` did: the entry points loaded, and those that failed with their error type."""

    loaded: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()


_report: PluginReport | None = None


def loaded() -> bool:
    """Whether this process has loaded its plugins already."""
    return _report is not None


def load_plugins() -> PluginReport:
    """Import every `radeid.plugins` entry point, once per process; later calls return the same report."""
    global _report
    if _report is not None:
        return _report
    loaded: list[str] = []
    failed: list[tuple[str, str]] = []
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        try:
            point.load()
        except Exception as exc:  # a broken plugin must not stop de-identification
            # Only the exception's type is kept: a plugin's message could quote anything.
            failed.append((point.name, type(exc).__name__))
            continue
        loaded.append(point.name)
    _report = PluginReport(tuple(loaded), tuple(failed))
    return _report
