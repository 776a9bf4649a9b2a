"""Which regular expressions the bundled configuration compiles: what the shipped regex cache must hold.

It lives in the pipeline layer, above the cache (`radeid.patterns.regex_cache`), because the only
way to know is to build the default pipeline and record what it compiles.
"""

from __future__ import annotations

from radeid.config.config import Config
from radeid.patterns.regex_cache import recording
from radeid.pipeline.deidentifier import Deidentifier

__all__ = ["bundled_patterns"]


def bundled_patterns() -> list[tuple[str, int]]:
    """(source, flags) of every pattern the default rules-only pipeline compiles, first seen first:
    what the shipped file must hold."""
    config = Config.load()
    config = config.with_section("pipeline", detectors=[d for d in config.pipeline.detectors if d != "transformer"])
    with recording() as seen:
        Deidentifier(config)
    return list(dict.fromkeys(seen))
