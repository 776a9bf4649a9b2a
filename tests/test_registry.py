"""The named registries behind every extension point."""

from __future__ import annotations

import pytest

from radeid.config.config import ConfigError
from radeid.core.registry import Registry


def test_register_get_and_unknown_names_listed() -> None:
    reg: Registry[int] = Registry("widget", "pipeline.widgets")
    reg.add("b", 2)

    @reg.register("a")
    def make() -> int:
        return 1

    assert reg.get("a") is make
    assert reg.get("b") == 2
    assert reg.names() == ["a", "b"]
    with pytest.raises(ConfigError) as info:
        reg.get("c")
    assert str(info.value) == "unknown widget 'c' in pipeline.widgets; known: a, b"


def test_lazy_entries_import_on_first_use() -> None:
    reg: Registry[object] = Registry("thing")
    reg.register_lazy("dumps", "json:dumps")
    assert "dumps" in reg
    import json

    assert reg.get("dumps") is json.dumps
    with pytest.raises(ValueError):
        reg.register_lazy("bad", "json.dumps")
