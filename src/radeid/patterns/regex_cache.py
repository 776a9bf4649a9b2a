"""The bundled rule and protected patterns, shipped already compiled for this Python's regex engine.

Why: compiling them is about 0.35 CPU-seconds (parsing and code generation of ~130 large patterns,
in pure Python), the biggest part of the warm-up that every `radeid deid` run waits for before its
first worker starts (`radeid.run.worker_start`). The `re` module has no public way to keep a compiled
pattern (pickle recompiles from the source), and no library does it, so this stores what
`re._compiler.compile` hands the C engine (`_sre.compile`): the opcode list, the flags and the
group tables. Loading them back takes a few milliseconds.

Safe by construction:
- a file is used only by the engine it was built for: same interpreter, minor version, opcode
  format (`_sre.MAGIC`) and code word size; any other Python compiles as before;
- an entry is looked up by its exact source and flags, so a changed or user-written pattern is a
  miss and is compiled as before;
- `_sre.compile` validates the opcodes it is given, and any failure falls back to `re.compile`;
- the tests check that every stored entry builds a pattern equal to `re.compile`'s (the engine's
  equality compares the opcodes), and that the file covers every bundled pattern.

Rebuild the file with `python scripts/build_regex_cache.py` after editing a bundled rule,
protected pattern or word list (the tests say so when it is stale).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the C regex engine; no stubs
import logging
import marshal
import re
import sys
import zlib
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from radeid.core.resources import bundled_data_path

__all__ = [
    "build_entry",
    "cache_path",
    "compile_pattern",
    "dump",
    "engine_tag",
    "from_entry",
    "loaded_entries",
    "recording",
]

log = logging.getLogger(__name__)

#: (final flags, opcodes as machine words, number of groups - 1, name -> index, index -> name)
Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]

_recorded: list[tuple[str, int]] | None = None


def engine_tag() -> str:
    """What a stored opcode list is valid for (part of the file name)."""
    impl = sys.implementation.name
    return f"{impl}-{sys.version_info[0]}{sys.version_info[1]}-sre{_sre.MAGIC}-w{_sre.CODESIZE}"


def cache_path() -> Path:
    """The stored file for this engine (it may not exist)."""
    return bundled_data_path("regex_cache", f"{engine_tag()}.bin")


def _word_type() -> str | None:
    """An `array` type code whose item is one opcode word, if this platform has one."""
    for code in ("I", "L", "H"):
        if array(code).itemsize == _sre.CODESIZE:
            return code
    return None  # pragma: no cover - no such platform known


@lru_cache(maxsize=1)
def loaded_entries() -> dict[tuple[str, int], Entry]:
    """The stored entries for this engine (empty when there is no file for it, or it is unreadable)."""
    path = cache_path()
    if sys.implementation.name != "cpython" or _word_type() is None:
        return {}
    try:
        with open(path, "rb") as handle:
            payload = marshal.loads(zlib.decompress(handle.read()))
        if payload["engine"] != engine_tag():
            return {}
        return {(source, flags): tuple(rest) for source, flags, *rest in payload["entries"]}
    except FileNotFoundError:
        return {}
    except Exception as exc:  # noqa: BLE001 - a bad cache only costs time
        log.debug("regex cache unreadable (%s); compiling instead", type(exc).__name__)
        return {}


def compile_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, from the stored opcodes when this exact pattern is stored."""
    if _recorded is not None:
        _recorded.append((source, flags))
    entry = loaded_entries().get((source, flags))
    if entry is not None:
        try:
            return from_entry(source, entry)
        except Exception as exc:  # noqa: BLE001 - never worse than compiling
            log.debug("stored regex rejected (%s); compiling instead", type(exc).__name__)
    return re.compile(source, flags)


def from_entry(source: str, entry: Entry) -> re.Pattern[str]:
    """The pattern a stored entry describes (the engine validates the opcodes, and raises if bad)."""
    final_flags, words, groups, groupindex, indexgroup = entry
    code = array(_word_type(), words).tolist()  # type: ignore[arg-type]
    pattern: re.Pattern[str] = _sre.compile(source, final_flags, code, groups, dict(groupindex), indexgroup)
    return pattern


@contextmanager
def recording() -> Iterator[list[tuple[str, int]]]:
    """Collect the (source, flags) of every `compile_pattern` call inside the block (the build
    script uses it to learn which patterns the bundled configuration compiles)."""
    global _recorded
    previous, _recorded = _recorded, []
    try:
        yield _recorded
    finally:
        _recorded = previous


def build_entry(source: str, flags: int) -> Entry:
    """What `re._compiler.compile` would pass to `_sre.compile` for this pattern (the build
    script's half; private `re` internals, so checked against `re.compile` right after)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(source, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    word = _word_type()
    if word is None:  # pragma: no cover - see _word_type
        raise RuntimeError("no array type matches the regex engine's code word")
    final_flags = int(flags) | int(parsed.state.flags)
    return final_flags, array(word, code).tobytes(), parsed.state.groups - 1, groupindex, tuple(indexgroup)


def dump(entries: dict[tuple[str, int], Entry]) -> bytes:
    """The file's bytes for `entries` (sorted, so the same entries give the same file)."""
    rows = [(source, int(flags), *entry) for (source, flags), entry in sorted(entries.items())]
    return zlib.compress(marshal.dumps({"engine": engine_tag(), "entries": rows}), 9)
