"""`--mode` offers what the registry holds, a plugin's mode included; plugins load from entry points."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import radeid.core.plugins as plugins
from radeid.config.modes import REPLACERS
from radeid.replace.mask import MASK_MODES, mask_mode


@pytest.fixture
def clean_registries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Whatever a test registers is gone after it (the registries are process-wide)."""
    for registry in (REPLACERS, MASK_MODES):
        monkeypatch.setattr(registry, "_entries", dict(registry._entries))
        monkeypatch.setattr(registry, "_lazy", dict(registry._lazy))
    monkeypatch.setattr(plugins, "_report", None)
    yield


def test_a_mode_registered_in_python_is_a_valid_mode_option(
    tmp_path: Path, cli, write_jsonl, read_jsonl, clean_registries: None
) -> None:
    @mask_mode("hash_marks")
    def hash_marks(span, text, state, options) -> str:  # type: ignore[no-untyped-def]
        return "#" * len(text)

    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "Call (555) 201-3344 today."}])
    code, output = cli("deid", src, "-o", tmp_path / "out.jsonl", "--mode", "hash_marks", "--no-model", "-w", "1", "-q")
    assert code == 0, output
    assert read_jsonl(tmp_path / "out.jsonl")[0]["text"] == "Call ############## today."


def test_an_unknown_mode_is_a_usage_error_listing_the_known_ones(tmp_path: Path, cli, write_jsonl) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "nothing"}])
    code, output = cli("deid", src, "-o", tmp_path / "out.jsonl", "--mode", "blur", "-q")
    assert code == 2
    flat = " ".join(re.sub("[│╭╮╰╯─]", " ", output).split())  # Click's error panel wraps at the terminal width
    assert "'blur' is not a replacement mode; known: fixed, mask, numbered, surrogate, tag" in flat
    assert not (tmp_path / "out.jsonl").exists()


def _entry_point(name: str, module: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=module, group=plugins.GROUP)


def test_plugins_load_from_entry_points_and_a_broken_one_is_skipped_by_name(
    tmp_path: Path, cli, write_jsonl, read_jsonl, clean_registries: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Plugin modules on the path: importing the good one registers a mode, the bad one lacks its attribute.
    (tmp_path / "radeid_test_plugin_good.py").write_text(
        "from radeid.replace.mask import mask_mode\n"
        "mask_mode('dots')(lambda span, text, state, options: '.' * len(text))\n"
    )
    (tmp_path / "radeid_test_plugin_bad.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("radeid_test_plugin_good", "radeid_test_plugin_bad"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    points = [_entry_point("good", "radeid_test_plugin_good"), _entry_point("bad", "radeid_test_plugin_bad:missing")]
    monkeypatch.setattr(plugins, "entry_points", lambda group: [p for p in points if p.group == group])

    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "Call (555) 201-3344 today."}])
    code, output = cli("deid", src, "-o", tmp_path / "out.jsonl", "--mode", "dots", "--no-model", "-w", "1", "-q")
    assert code == 0, output
    assert read_jsonl(tmp_path / "out.jsonl")[0]["text"] == "Call .............. today."
    # a name no plugin registered: the error names the plugin that failed to load
    code, output = cli("deid", src, "-o", tmp_path / "out2.jsonl", "--mode", "stars", "-q")
    flat = " ".join(re.sub("[│╭╮╰╯─]", " ", output).split())
    assert code == 2 and "plugin 'bad' not loaded (AttributeError)" in flat


def test_plugins_load_once_per_process_and_only_for_a_name_not_known(
    clean_registries: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(plugins, "entry_points", lambda group: calls.append(group) or [])
    assert "tag" in REPLACERS and REPLACERS.get("surrogate") is not None
    assert calls == []  # built-in names never scan the installed packages
    assert "no_such_mode" not in REPLACERS
    assert calls == [plugins.GROUP]
    first = plugins.load_plugins()
    assert plugins.load_plugins() is first and "no_such_mode" not in REPLACERS
    assert calls == [plugins.GROUP]
