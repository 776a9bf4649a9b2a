"""`ModelLoadError`, the one error every part of the transformer detector raises.

A leaf module, so that label decoding, scorers and loading can raise it without importing one
another.
"""

from __future__ import annotations

from radeid.config.config import ConfigError

__all__ = ["ModelLoadError"]


class ModelLoadError(ConfigError):
    """A model that cannot be loaded or used; the message says what is missing and what to do."""
