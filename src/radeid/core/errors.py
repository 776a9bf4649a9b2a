"""Errors every layer may raise; they live at the bottom so the lowest layers can raise them too."""

from __future__ import annotations

__all__ = ["ConfigError"]


class ConfigError(ValueError):
    """A configuration file or value that cannot be used; the message says which key."""
