"""What rule files and protected-content files share: reading, `{{MACRO}}` expansion, word-list regexes.

Used by `radeid.patterns.rule_files` and `radeid.resolve.protected`: one TOML file read with its
top-level keys checked, `{{MACRO}}` / `{{list:NAME}}` references expanded, word lists written as
tries (the word-list regexes are also the context-word checks of the rules).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from radeid.patterns.regex_cache import compile_pattern

__all__ = ["MacroExpander", "read_pattern_file", "trie_regex", "word_regex"]

_REF = re.compile(r"\{\{(list:)?([A-Za-z_][A-Za-z0-9_]*)\}\}")


def _trie_char(char: str) -> str:
    return "[ \\t]+" if char == " " else re.escape(char)


def trie_regex(items: Iterable[str]) -> str:
    """An alternation of the literal `items` written as a trie: `(?:a(?:nd|t)|by)`.

    Python's `re` tries the branches of `a|b|c` one after another, so a 300-word list costs 300
    comparisons at every position; the trie shares prefixes and fails after one or two. Longer
    items still win over their prefixes (each optional tail is greedy), as with longest-first.
    A space inside an item matches any run of spaces and tabs.
    """
    trie: dict[str, Any] = {}
    for item in items:
        if not item:
            continue
        node = trie
        for char in item:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        terminal = "" in node
        branches = [_trie_char(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if terminal:
            return ("(?:" + body + ")?") if len(branches) == 1 else body + "?"
        return body

    if not trie:
        return "(?!)"
    return "(?:" + emit(trie) + ")"


class MacroExpander:
    """Expands `{{MACRO}}` and `{{list:NAME}}` references, recursively, with cycle detection."""

    def __init__(self, macros: Mapping[str, str], lists: Mapping[str, list[str]]) -> None:
        self.macros = macros
        self.lists = lists
        self._done: dict[str, str] = {}
        self._lists_done: dict[str, str] = {}

    def list_items(self, name: str) -> list[str]:
        if name not in self.lists:
            raise ValueError(f"unknown list {name!r}")
        return self.lists[name]

    def alternation(self, name: str) -> str:
        if name not in self._lists_done:
            self._lists_done[name] = trie_regex(self.list_items(name))
        return self._lists_done[name]

    def expand(self, pattern: str, stack: tuple[str, ...] = ()) -> str:
        def replace(found: re.Match[str]) -> str:
            is_list, name = found.group(1), found.group(2)
            if is_list:
                return self.alternation(name)
            if name in stack:
                raise ValueError(f"macro cycle: {' -> '.join((*stack, name))}")
            if name not in self.macros:
                raise ValueError(f"unknown macro {name!r}")
            if name not in self._done:
                self._done[name] = "(?:" + self.expand(self.macros[name], (*stack, name)) + ")"
            return self._done[name]

        return _REF.sub(replace, pattern)

    def words(self, items: Iterable[str]) -> list[str]:
        """A word list where `@name` items stand for a whole `[lists]` entry (a bare "@" is literal)."""
        out: list[str] = []
        for item in items:
            if item.startswith("@") and item[1:].isidentifier():
                out.extend(self.list_items(item[1:]))
            else:
                out.append(item)
        return out


def word_regex(*word_lists: Sequence[str]) -> re.Pattern[str] | None:
    """Case-insensitive regex for any word of the lists, bounded where a word starts/ends alphanumeric.

    A match of list `i` has `lastgroup` "w<i>_<k>" (so one scan serves several lists, as for
    `subtype_context`). Words are grouped by which edges need a boundary, each group is a trie
    behind one shared boundary check, and a first-character lookahead lets most positions fail
    at once: these regexes run around every candidate span.
    """
    classes: dict[tuple[bool, bool], list[list[str]]] = {}
    first_chars: set[str] = set()
    for index, words in enumerate(word_lists):
        for word in {" ".join(w.split()) for w in words if w.strip()}:
            lists = classes.setdefault((word[0].isalnum(), word[-1].isalnum()), [[] for _ in word_lists])
            lists[index].append(word)
            first_chars.add(word[0].lower())
    parts: list[str] = []
    for (bounded_start, bounded_end), lists in sorted(classes.items()):
        named = [f"(?P<w{i}_{len(parts)}>{trie_regex(items)})" for i, items in enumerate(lists) if items]
        body = "(?:" + "|".join(named) + ")"
        parts.append((r"(?<![^\W_])" if bounded_start else "") + body + (r"(?![^\W_])" if bounded_end else ""))
    if not parts:
        return None
    lead = "[" + "".join(re.escape(char) for char in sorted(first_chars)) + "]"
    return compile_pattern(f"(?={lead})(?:" + "|".join(parts) + ")", re.IGNORECASE)


def read_pattern_file(path: Path, top_keys: Collection[str], what: str) -> dict[str, Any]:
    """The TOML table of one pattern file; `what` names the kind of file in the error messages."""
    try:
        with open(path, "rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read {what} {path}: {exc}") from exc
    except UnicodeDecodeError as exc:  # tomllib decodes the whole file first
        raise ValueError(f"cannot read {what} {path}: not valid UTF-8 (byte {exc.start + 1})") from None
    unknown = set(data) - set(top_keys)
    if unknown:
        raise ValueError(f"{path}: unknown top-level keys {sorted(unknown)}; expected {sorted(top_keys)}")
    return data
