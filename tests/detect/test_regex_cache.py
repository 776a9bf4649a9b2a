"""The shipped compiled patterns (radeid.patterns.regex_cache): identical to re.compile, complete, and
never worse than compiling when missing, stale or damaged."""

from __future__ import annotations

import marshal
import re
import zlib
from pathlib import Path

import pytest

from radeid.patterns import regex_cache
from radeid.patterns.regex_cache import build_entry, compile_pattern, dump, engine_tag, loaded_entries
from radeid.pipeline.regex_inventory import bundled_patterns

needs_cache = pytest.mark.skipif(
    not regex_cache.cache_path().exists(), reason=f"no compiled-pattern file is shipped for {engine_tag()}"
)


@needs_cache
def test_every_stored_pattern_is_the_one_re_compile_builds() -> None:
    entries = loaded_entries()
    assert len(entries) > 100
    for source, flags in entries:
        stored, compiled = compile_pattern(source, flags), re.compile(source, flags)
        # the engine's equality compares the flags, the source and the opcodes, word for word
        assert stored == compiled
        assert stored is not compiled  # really built from the file, not re's own cache
        assert (stored.groups, dict(stored.groupindex), stored.flags) == (
            compiled.groups,
            dict(compiled.groupindex),
            compiled.flags,
        )


@needs_cache
def test_the_shipped_file_covers_every_bundled_pattern() -> None:
    missing = [source for source, flags in bundled_patterns() if (source, flags) not in loaded_entries()]
    assert not missing, (
        f"{len(missing)} bundled pattern(s) are not in the shipped compiled-pattern file: "
        "run `PYTHONPATH=src python scripts/build_regex_cache.py` after editing rules, macros or protected patterns"
    )


@needs_cache
def test_a_stored_pattern_finds_what_the_compiled_one_finds() -> None:
    text = Path(__file__).resolve().parents[2].joinpath("examples").glob("*.txt")
    sample = "\n".join(p.read_text(encoding="utf-8") for p in sorted(text))
    assert sample
    for source, flags in list(loaded_entries())[:40]:
        stored, compiled = compile_pattern(source, flags), re.compile(source, flags)
        assert [(m.span(), m.groups()) for m in stored.finditer(sample)] == [
            (m.span(), m.groups()) for m in compiled.finditer(sample)
        ]


def test_a_pattern_not_stored_is_compiled_and_a_bad_one_raises_re_error() -> None:
    source = r"(?P<phi>zz-not-a-bundled-pattern-\d+)"
    assert (source, 0) not in loaded_entries()
    assert compile_pattern(source).fullmatch("zz-not-a-bundled-pattern-12").group("phi")
    with pytest.raises(re.error):
        compile_pattern(r"(unclosed")


def test_damaged_opcodes_fall_back_to_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    source = r"(?P<a>\d+)-(?P<b>[a-z]+)"
    final_flags, words, groups, groupindex, indexgroup = build_entry(source, 0)
    damaged = (final_flags, b"\xff" * len(words), groups, groupindex, indexgroup)
    monkeypatch.setattr(regex_cache, "loaded_entries", lambda: {(source, 0): damaged})
    pattern = compile_pattern(source)
    assert pattern == re.compile(source)
    assert pattern.fullmatch("12-ab").groupdict() == {"a": "12", "b": "ab"}


def test_an_entry_built_here_round_trips_through_the_file_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, flags = r"(?i)\b(?P<phi>dr\.?\s+[A-Z][a-z]+)", re.MULTILINE
    path = tmp_path / "cache.bin"
    path.write_bytes(dump({(source, flags): build_entry(source, flags)}))
    monkeypatch.setattr(regex_cache, "cache_path", lambda: path)
    loaded_entries.cache_clear()
    try:
        assert list(loaded_entries()) == [(source, flags)]
        assert compile_pattern(source, flags) == re.compile(source, flags)
    finally:
        loaded_entries.cache_clear()


@pytest.mark.parametrize("damage", ["other engine", "not zlib", "truncated"])
def test_a_file_for_another_engine_or_unreadable_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    source = r"\d{3}-\d{4}"
    good = dump({(source, 0): build_entry(source, 0)})
    data = {
        "other engine": zlib.compress(
            marshal.dumps({"engine": "cpython-99-sre1-w4", "entries": [(source, 0, *build_entry(source, 0))]})
        ),
        "not zlib": b"not a cache",
        "truncated": good[: len(good) // 2],
    }[damage]
    path = tmp_path / "cache.bin"
    path.write_bytes(data)
    monkeypatch.setattr(regex_cache, "cache_path", lambda: path)
    loaded_entries.cache_clear()
    try:
        assert loaded_entries() == {}
        assert compile_pattern(source) == re.compile(source)
    finally:
        loaded_entries.cache_clear()
