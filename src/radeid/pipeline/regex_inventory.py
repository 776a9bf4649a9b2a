"""Which regular expressions the bundled configuration compiles: what the shipped regex cache must hold.

It lives in the pipeline layer, above the cache (`radeid.patterns.regex_cache`), because the only
way to know is to build the default pipeline and record what it compiles.
"""

from __future__ import annotations

import re

from radeid.config.config import Config
from radeid.config.language import DEFAULT_LANGUAGE, available_languages
from radeid.patterns.regex_cache import recording
from radeid.pipeline.deidentifier import Deidentifier
from radeid.resolve.protected import ProtectedContent

__all__ = ["bundled_languages", "bundled_patterns", "bundled_protected_regexes"]


def bundled_languages() -> list[str]:
    """Every bundled language pack, English (the defaults) first."""
    return [DEFAULT_LANGUAGE, *(code for code in available_languages() if code != DEFAULT_LANGUAGE)]


def _rules_only(code: str) -> Config:
    config = Config.load(overrides={"pipeline": {"language": code}})
    return config.with_section("pipeline", detectors=[d for d in config.pipeline.detectors if d != "transformer"])


def bundled_patterns() -> list[tuple[str, int]]:
    """(source, flags) of every pattern the rules-only pipeline of each bundled language pack
    compiles (a pack's rules may redefine a shared macro, so its patterns differ), first seen
    first: what the shipped file must hold."""
    seen_all: list[tuple[str, int]] = []
    for code in bundled_languages():
        with recording() as seen:
            Deidentifier(_rules_only(code))
        seen_all.extend(seen)
    return list(dict.fromkeys(seen_all))


def bundled_protected_regexes() -> list[re.Pattern[str]]:
    """The protected patterns (and their `requires`) of every bundled language pack, whose
    first-word gates the shipped file holds."""
    regexes: list[re.Pattern[str]] = []
    for code in bundled_languages():
        config = _rules_only(code)
        protected = ProtectedContent.from_files(config.protected_files, language=None).patterns
        regexes += [p.regex for p in protected] + [p.requires for p in protected if p.requires is not None]
    return list(dict.fromkeys(regexes))
