"""Protected content: text that is never PHI (clinical values and clinical words), kept as data.

This is the "pseudo annotation" idea of deduce: instead of hoping every detector stays away from
`Temp 98.6`, `L4/5`, `Grade 3/6` or `Fleischner Society`, one component finds such text and the
resolver lets no PHI proposal inside it survive (unless a strong, validated rule claims it). In
surrogate mode a false positive is an invisible change to research data, so this matters as much
as recall.

The patterns live in TOML files (the shared base `radeid/data/protected/*.toml`, schema at the top
of its `00_common.toml`, then the language pack's `radeid/data/lang/<code>/protected/*.toml`)
and reuse the rule files' macro and word-list machinery. Patterns never cross a line break, so
`ProtectedContent.find_near` only scans the lines that hold a PHI proposal: most lines of a
report have none, which keeps the cost per document small.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radeid.config.language import DEFAULT_LANGUAGE, pack_files
from radeid.core.document import Span
from radeid.core.resources import bundled_data_path
from radeid.patterns.first_words import stored_gate, window_words
from radeid.patterns.pattern_files import MacroExpander, read_pattern_file
from radeid.patterns.regex_cache import compile_pattern

__all__ = [
    "ProtectedContent",
    "ProtectedPattern",
    "ProtectedSpan",
    "base_protected_files",
    "bundled_protected_files",
    "merge_intervals",
]

_TOP_KEYS = frozenset({"macros", "lists", "protect"})
_ENTRY_KEYS = frozenset(
    {"name", "class", "pattern", "flags", "edge", "needs_digit", "requires", "enabled", "description"}
)
_EDGES = ("cut", "soft")
_FLAGS = {"IGNORECASE": re.IGNORECASE, "VERBOSE": re.VERBOSE, "ASCII": re.ASCII}
_NAME_OK = re.compile(r"[A-Za-z0-9_.-]+")
_KEEP_GROUP = "keep"
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class ProtectedSpan:
    """A stretch of text that is not PHI, with the pattern and class that found it."""

    start: int
    end: int
    klass: str
    name: str
    soft: bool = False


@dataclass(frozen=True)
class ProtectedPattern:
    name: str
    klass: str
    regex: re.Pattern[str]
    origin: str
    soft: bool = False
    needs_digit: bool = False
    requires: re.Pattern[str] | None = None

    @property
    def group(self) -> str | int:
        """The group that is the protected span: `keep` when the pattern names one, else the match."""
        return _KEEP_GROUP if _KEEP_GROUP in self.regex.groupindex else 0


def base_protected_files() -> list[Path]:
    """The shared base: protected-content files every language loads (`radeid/data/protected/`)."""
    return sorted(bundled_data_path("protected").glob("*.toml"))


def bundled_protected_files(language: str | None = DEFAULT_LANGUAGE) -> list[Path]:
    """The protected-content files shipped in the package that `language` loads, in load order: the
    shared base, then the pack's (`radeid.config.language.pack_files`); None: the base only."""
    return [*base_protected_files(), *(pack_files(language, "protected") if language is not None else [])]


def load_patterns(
    files: Iterable[str | Path], disabled_classes: Iterable[str] = (), disabled: Iterable[str] = ()
) -> list[ProtectedPattern]:
    """Read the files in order (later ones override macros, lists and patterns by name) and compile."""
    macros: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    entries: dict[str, tuple[dict[str, Any], str]] = {}
    for file in files:
        path = Path(file)
        data = read_pattern_file(path, _TOP_KEYS, "protected-content file")
        macros.update({k: str(v) for k, v in data.get("macros", {}).items()})
        for name, items in data.get("lists", {}).items():
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise ValueError(f"{path}: list {name!r} must be a list of strings")
            lists[name] = list(items)
        for entry in data.get("protect", []):
            name = entry.get("name")
            if not isinstance(name, str) or not _NAME_OK.fullmatch(name):
                raise ValueError(f"{path}: every [[protect]] entry needs a name of letters, digits, '_', '.', '-'")
            unknown = set(entry) - _ENTRY_KEYS
            if unknown:
                raise ValueError(f"{path}: protected pattern {name!r} has unknown keys {sorted(unknown)}")
            entries[name] = (dict(entry), str(path))
    expander = MacroExpander(macros, lists)
    skip_classes, skip_names = set(disabled_classes), set(disabled)
    patterns = []
    for name, (entry, origin) in entries.items():
        if not entry.get("enabled", True) or name in skip_names or entry.get("class") in skip_classes:
            continue
        patterns.append(_compile(name, entry, origin, expander))
    return patterns


def _compile(name: str, entry: dict[str, Any], origin: str, expander: MacroExpander) -> ProtectedPattern:
    where = f"protected pattern {name!r} ({origin})"
    klass, source = entry.get("class"), entry.get("pattern")
    if not isinstance(klass, str) or not klass or not isinstance(source, str):
        raise ValueError(f"{where}: needs a `class` and a `pattern`")
    edge = entry.get("edge", "cut")
    if edge not in _EDGES:
        raise ValueError(f"{where}: edge must be one of {', '.join(_EDGES)}, not {edge!r}")
    flags = 0
    for flag in entry.get("flags", []):
        if str(flag).upper() not in _FLAGS:
            raise ValueError(f"{where}: unknown flag {flag!r}; known: {', '.join(_FLAGS)}")
        flags |= _FLAGS[str(flag).upper()]
    try:
        regex = compile_pattern(expander.expand(source), flags)
    except (re.error, ValueError) as exc:
        raise ValueError(f"{where}: bad pattern: {exc}") from None
    requires = None
    if entry.get("requires") is not None:
        try:
            requires = compile_pattern(expander.expand(str(entry["requires"])), flags)
        except (re.error, ValueError) as exc:
            raise ValueError(f"{where}: bad requires: {exc}") from None
    return ProtectedPattern(
        name=name,
        klass=klass,
        regex=regex,
        origin=origin,
        soft=edge == "soft",
        needs_digit=bool(entry.get("needs_digit", False)),
        requires=requires,
    )


class ProtectedContent:
    """Finds protected content; see the module docstring."""

    def __init__(self, patterns: Sequence[ProtectedPattern]) -> None:
        self.patterns = tuple(patterns)
        # What `find` needs of each pattern, looked up once rather than per window and pattern;
        # most windows hold no digit, which rules out every `needs_digit` pattern at once (the
        # order of the patterns is kept, so equal matches still sort in pattern order).
        self._plans = tuple(_plan(p) for p in self.patterns)
        self._no_digit_plans = tuple(_plan(p) for p in self.patterns if not p.needs_digit)
        # Word-list patterns with a stored gate (`radeid.patterns.first_words`) are skipped for a
        # window holding no word they can begin with; the window's words are read once for all.
        self._gated = any(plan[-2:] != (None, None) for plan in self._plans)
        self._no_digit_gated = any(plan[-2:] != (None, None) for plan in self._no_digit_plans)

    @classmethod
    def from_files(
        cls,
        extra_files: Iterable[str | Path] = (),
        *,
        include_bundled: bool = True,
        disabled_classes: Iterable[str] = (),
        disabled: Iterable[str] = (),
        language: str | None = DEFAULT_LANGUAGE,
    ) -> ProtectedContent:
        """The bundled patterns (the shared base and pack `language`'s; None: the base only, for a
        caller that names the pack's files in `extra_files`, as `Config.protected_files` does),
        then `extra_files`, which may redefine any of them by name."""
        bundled = bundled_protected_files(language) if include_bundled else []
        files = [*bundled, *map(Path, extra_files)]
        return cls(load_patterns(files, disabled_classes, disabled))

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(sorted({p.klass for p in self.patterns}))

    def find(self, text: str, start: int = 0, end: int | None = None) -> list[ProtectedSpan]:
        """Every protected match in `text[start:end]` (offsets into `text`), sorted."""
        stop = len(text) if end is None else end
        found: list[ProtectedSpan] = []
        if _DIGIT.search(text, start, stop) is not None:
            plans, gated = self._plans, self._gated
        else:
            plans, gated = self._no_digit_plans, self._no_digit_gated
        words = window_words(text, start, stop) if gated else None
        for finditer, requires, group, klass, name, soft, gate, requires_gate in plans:
            if words is not None:  # skip when no word of the window can begin a match (or `requires`)
                if gate is not None and gate[0].isdisjoint(words[0]) and gate[1].isdisjoint(words[1]):
                    continue
                if (
                    requires_gate is not None
                    and requires_gate[0].isdisjoint(words[0])
                    and requires_gate[1].isdisjoint(words[1])
                ):
                    continue
            if requires is not None and requires(text, start, stop) is None:
                continue
            for match in finditer(text, start, stop):
                s, e = match.span(group)
                if e > s and any(ch.isalnum() for ch in text[s:e]):
                    found.append(ProtectedSpan(s, e, klass, name, soft))
        found.sort(key=lambda p: (p.start, -p.end))
        return found

    def find_near(self, text: str, spans: Iterable[Span]) -> list[ProtectedSpan]:
        """Protected matches that can overlap `spans`: each span's line, within `NEAR` characters.

        Patterns never cross a line break and protected text is short, so a match that overlaps a
        span starts less than `NEAR` characters before it; scanning only there keeps the cost per
        document small (most of a report is far from any PHI proposal).
        """
        windows: set[tuple[int, int]] = set()
        for span in spans:
            line_start = text.rfind("\n", 0, span.start) + 1
            line_end = text.find("\n", span.end)
            line_end = len(text) if line_end < 0 else line_end
            windows.add((max(line_start, span.start - NEAR), min(line_end, span.end + NEAR)))
        found: list[ProtectedSpan] = []
        for start, end in merge_intervals(windows):
            found.extend(self.find(text, start, end))
        return found


#: One pattern as `find` runs it: finditer, requires' search (or None), group, class, name, soft,
#: and the gates of the pattern and of `requires`, each (whole first words, prefixes) or None.
_Plan = tuple[
    Callable[[str, int, int], Iterator[re.Match[str]]],
    Callable[[str, int, int], "re.Match[str] | None"] | None,
    str | int,
    str,
    str,
    bool,
    tuple[frozenset[str], frozenset[str]] | None,
    tuple[frozenset[str], frozenset[str]] | None,
]


def _plan(pattern: ProtectedPattern) -> _Plan:
    requires = pattern.requires.search if pattern.requires is not None else None
    gate = stored_gate(pattern.regex)
    requires_gate = stored_gate(pattern.requires) if pattern.requires is not None else None
    return (
        pattern.regex.finditer,
        requires,
        pattern.group,
        pattern.klass,
        pattern.name,
        pattern.soft,
        None if gate is None else (gate.whole, gate.prefixes),
        None if requires_gate is None else (requires_gate.whole, requires_gate.prefixes),
    )


#: How far around a PHI proposal protected content is looked for (longer than any protected match).
NEAR = 40


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open intervals as sorted, disjoint intervals (touching ones are joined)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def covering(
    intervals: Sequence[tuple[int, int]], starts: Sequence[int], start: int, end: int
) -> list[tuple[int, int]]:
    """The disjoint `intervals` (sorted, with their `starts`) that overlap `[start, end)`."""
    index = max(bisect.bisect_right(starts, start) - 1, 0)
    out = []
    while index < len(intervals) and intervals[index][0] < end:
        if intervals[index][1] > start:
            out.append(intervals[index])
        index += 1
    return out
