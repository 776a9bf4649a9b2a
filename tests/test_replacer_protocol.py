"""Every replacer declares its event counts (`stats`); one built without them is refused at once."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from radeid.config.config import Config, ConfigError
from radeid.config.modes import REPLACERS
from radeid.core.document import Document, Result, Span
from radeid.replace.base import Replacer, build_replacer


class NoStats:
    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        return Result.build(document, [])


def test_the_built_in_replacers_declare_stats() -> None:
    for mode in ("tag", "mask", "numbered", "fixed"):
        replacer = build_replacer(Config.load().with_section("replace", mode=mode), None)
        assert isinstance(replacer, Replacer) and dict(replacer.stats) == {}
    surrogate = build_replacer(Config.load(), b"k" * 32)
    assert isinstance(surrogate, Replacer)


def test_a_replacer_without_stats_is_a_config_error_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(REPLACERS, "_entries", dict(REPLACERS._entries))
    REPLACERS.add("nostats", lambda config, key: NoStats())
    config = Config.load().with_section("replace", mode="nostats")
    with pytest.raises(ConfigError, match="replacement mode 'nostats' built NoStats, which lacks `replace` or `stats`"):
        build_replacer(config, None)
