"""`RuleDetector`: regular expressions + context words + validators, with the rules kept as data.

The rules live in TOML files (`radeid/data/rules/*.toml`; the schema is documented at the top of
`00_common.toml`). This module is only the engine: it loads and merges rule files, expands
`{{MACRO}}` / `{{list:NAME}}` references, compiles each rule once, and applies it.

Speed comes from *triggers*: a rule may name literal strings (matched in the text lower-cased
with every digit written as `9`, so `"999-99-9999"` is the shape of an SSN). One Aho-Corasick pass
finds every trigger in a document, and a triggered rule's regular expression only runs in a
window around its hits, or, for an `anchored` rule that starts with its cue ("MRN", "Dictated
by"), only at the hit itself. A rule without triggers scans the whole text (always correct,
slower). Word lists inside patterns are compiled as tries, and the busiest patterns start with a
character class rather than a lookbehind, because Python's `re` then skips non-candidate
positions in C. On ~2.5 KB radiology reports this keeps the detector well under a millisecond.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ahocorasick

from radeid.categories import Category, split_label
from radeid.detect.validators import Validator, get_validator
from radeid.document import Document, Span
from radeid.edges import tighten
from radeid.wordlists import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["RuleDetector", "Rule", "bundled_rule_files", "load_rules", "tighten", "trie_regex"]

_FLAGS = {
    "IGNORECASE": re.IGNORECASE,
    "VERBOSE": re.VERBOSE,
    "MULTILINE": re.MULTILINE,
    "DOTALL": re.DOTALL,
    "ASCII": re.ASCII,
}
_RULE_KEYS = frozenset(
    {
        "name", "category", "subtype", "pattern", "flags", "score", "groups", "validator",
        "validator_args", "context_before", "context_after", "context_window", "context_required",
        "context_score", "negative_before", "negative_after", "negative_window", "subtype_context",
        "triggers", "window", "anchored", "enabled", "description",
    }
)  # fmt: skip
_TOP_KEYS = frozenset({"macros", "lists", "rule"})
_EXTRA_PHI = re.compile(r"phi\d+")
_REF = re.compile(r"\{\{(list:)?([A-Za-z_][A-Za-z0-9_]*)\}\}")
_NAME_OK = re.compile(r"[A-Za-z0-9_.-]+")
_KEEP_SUBTYPE = "-"
_DEFAULT_WINDOW = (80, 160)


# Trigger text: digits become 9, whitespace a plain space (lower-casing is done by bytes.lower).
_NORMALISE = bytes.maketrans(b"0123456789\t\n\r\x0b\x0c", b"9999999999     ")
_NON_SPACE = re.compile(r"\S*")


@dataclass(frozen=True)
class Rule:
    """One compiled rule. Built from TOML by `load_rules`; see `00_common.toml` for the fields."""

    name: str
    category: Category
    subtype: str | None
    regex: re.Pattern[str]
    score: float
    groups: tuple[tuple[str | int, Category, str | None], ...]
    validators: tuple[Validator, ...]
    validator_args: Mapping[str, Any]
    context_before: re.Pattern[str] | None
    context_after: re.Pattern[str] | None
    context_window: int
    context_required: bool
    context_score: float
    negative_before: re.Pattern[str] | None
    negative_after: re.Pattern[str] | None
    negative_window: tuple[int, int]
    subtype_context: tuple[re.Pattern[str] | None, tuple[str | None, ...]]
    triggers: tuple[str, ...]
    window: tuple[int, int]
    anchored: bool
    origin: str
    source: str = field(init=False, repr=False)  # "rules/<name>", the Span.source of this rule

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", f"rules/{self.name}")


# --------------------------------------------------------------------------------------------
# Loading


def bundled_rule_files() -> list[Path]:
    """The rule files shipped in the package, in load order (sorted by file name)."""
    return sorted(bundled_data_path("rules").glob("*.toml"))


@dataclass
class _RawRules:
    macros: dict[str, str]
    lists: dict[str, list[str]]
    rules: dict[str, tuple[dict[str, Any], str]]


def _read_rule_file(path: Path, raw: _RawRules, *, may_override: bool) -> None:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read rule file {path}: {exc}") from exc
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ValueError(f"{path}: unknown top-level keys {sorted(unknown)}; expected {sorted(_TOP_KEYS)}")
    for name, value in data.get("macros", {}).items():
        if not isinstance(value, str):
            raise ValueError(f"{path}: macro {name!r} must be a string")
        if _bare_whitespace(value):
            raise ValueError(f"{path}: macro {name!r} has literal whitespace (use [ ] or \\s)")
        raw.macros[name] = value
    for name, value in data.get("lists", {}).items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{path}: list {name!r} must be a list of strings")
        raw.lists[name] = list(value)
    seen: set[str] = set()
    for entry in data.get("rule", []):
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME_OK.fullmatch(name):
            raise ValueError(f"{path}: every rule needs a name of letters, digits, '_', '.', '-'")
        if name in seen:
            raise ValueError(f"{path}: rule {name!r} is defined twice")
        if name in raw.rules and not may_override:
            raise ValueError(f"{path}: rule {name!r} already defined in {raw.rules[name][1]}")
        unknown = set(entry) - _RULE_KEYS
        if unknown:
            raise ValueError(f"{path}: rule {name!r} has unknown keys {sorted(unknown)}")
        seen.add(name)
        raw.rules[name] = (dict(entry), str(path))


def _bare_whitespace(pattern: str) -> bool:
    """True when `pattern` has whitespace outside a character class and not escaped.

    Such whitespace would silently vanish in a VERBOSE rule, so macros may not contain it.
    """
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char.isspace():
            return True
    return False


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


def _word_regex(*word_lists: Sequence[str]) -> re.Pattern[str] | None:
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
    parts = []
    for (bounded_start, bounded_end), lists in sorted(classes.items()):
        named = [f"(?P<w{i}_{len(parts)}>{trie_regex(items)})" for i, items in enumerate(lists) if items]
        body = "(?:" + "|".join(named) + ")"
        parts.append((r"(?<![^\W_])" if bounded_start else "") + body + (r"(?![^\W_])" if bounded_end else ""))
    if not parts:
        return None
    lead = "[" + "".join(re.escape(char) for char in sorted(first_chars)) + "]"
    return re.compile(f"(?={lead})(?:" + "|".join(parts) + ")", re.IGNORECASE)


def _two_ints(value: Any, what: str) -> tuple[int, int]:
    """`n` or `[before, after]` as `(before, after)`."""
    if isinstance(value, int):
        return value, value
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return value[0], value[1]
    raise ValueError(f"{what} must be a number or [before, after]")


def _as_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{what} must be a string or a list of strings")


def _compile_rule(name: str, entry: Mapping[str, Any], origin: str, expander: MacroExpander) -> Rule:
    where = f"rule {name!r} ({origin})"
    try:
        category = Category.parse(entry["category"])
        pattern_src = entry["pattern"]
    except KeyError as exc:
        raise ValueError(f"{where}: missing required key {exc.args[0]!r}") from None
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    flags = 0
    for flag in _as_list(entry.get("flags"), f"{where}: flags"):
        if flag.upper() not in _FLAGS:
            raise ValueError(f"{where}: unknown flag {flag!r}; known: {', '.join(_FLAGS)}")
        flags |= _FLAGS[flag.upper()]
    try:
        regex = re.compile(expander.expand(str(pattern_src)), flags)
    except (re.error, ValueError) as exc:
        raise ValueError(f"{where}: bad pattern: {exc}") from None

    score = float(entry.get("score", 0.85))
    context_score = float(entry.get("context_score", score))
    for value, key in ((score, "score"), (context_score, "context_score")):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{where}: {key} must be in (0, 1]")
    subtype = entry.get("subtype")

    groups: list[tuple[str | int, Category, str | None]] = []
    for group, label in dict(entry.get("groups", {})).items():
        if group not in regex.groupindex:
            raise ValueError(f"{where}: groups names {group!r}, which the pattern does not define")
        group_cat, group_sub = split_label(str(label))
        groups.append((group, group_cat, group_sub))
    if not groups:
        # `phi`, then `phi2`, `phi3`, ... (a list of values after one cue), else the whole match
        extra = sorted((g for g in regex.groupindex if _EXTRA_PHI.fullmatch(g)), key=lambda g: int(g[3:]))
        for group_name in ["phi", *extra] if "phi" in regex.groupindex else [0]:
            groups.append((group_name, category, subtype))

    validators = tuple(get_validator(v) for v in _as_list(entry.get("validator"), f"{where}: validator"))
    validator_args: dict[str, Any] = {}
    for key, value in dict(entry.get("validator_args", {})).items():
        if isinstance(value, str) and value.startswith("@"):
            value = expander.list_items(value[1:])
        validator_args[key] = value

    def words(key: str) -> re.Pattern[str] | None:
        return _word_regex(expander.words(_as_list(entry.get(key), f"{where}: {key}")))

    # One regex for all subtypes, so finding the nearest cue word is one scan.
    context_words: list[list[str]] = []
    context_subtypes: list[str | None] = []
    for sub, items in dict(entry.get("subtype_context", {})).items():
        context_words.append(expander.words(_as_list(items, f"{where}: subtype_context")))
        context_subtypes.append(subtype if sub == _KEEP_SUBTYPE else sub)
    subtype_regex = _word_regex(*context_words)

    triggers = tuple(t.lower() for t in expander.words(_as_list(entry.get("triggers"), f"{where}: triggers")))
    if entry.get("anchored") and not triggers:
        raise ValueError(f"{where}: anchored = true needs triggers")
    for trigger in triggers:
        if not trigger or any(ord(ch) > 255 for ch in trigger):
            raise ValueError(f"{where}: triggers must be non-empty Latin-1 strings, got {trigger!r}")
    window = entry.get("window", _DEFAULT_WINDOW)
    if not (isinstance(window, (list, tuple)) and len(window) == 2 and all(int(w) >= 0 for w in window)):
        raise ValueError(f"{where}: window must be [chars_before, chars_after]")

    context_before, context_after = words("context_before"), words("context_after")
    return Rule(
        name=name,
        category=category,
        subtype=subtype,
        regex=regex,
        score=score,
        groups=tuple(groups),
        validators=validators,
        validator_args=validator_args,
        context_before=context_before,
        context_after=context_after,
        context_window=int(entry.get("context_window", 40)),
        context_required=bool(entry.get("context_required", True)),
        context_score=context_score,
        negative_before=words("negative_before"),
        negative_after=words("negative_after"),
        negative_window=_two_ints(entry.get("negative_window", 30), f"{where}: negative_window"),
        subtype_context=(subtype_regex, tuple(context_subtypes)),
        triggers=triggers,
        window=(int(window[0]), int(window[1])),
        anchored=bool(entry.get("anchored", False)),
        origin=origin,
    )


def load_rules(extra_rule_files: Sequence[str | Path] = (), disabled: Collection[str] = ()) -> list[Rule]:
    """Load the bundled rules, merge user files over them and drop disabled ones.

    A user file may redefine a bundled rule (same `name`: the whole rule is replaced), macro or
    list, or add new ones; `enabled = false` switches a rule off. `disabled` takes rule names or
    shell-style patterns (`"name_*"`); a pattern that matches no rule is an error, to catch typos.
    """
    raw = _RawRules({}, {}, {})
    for path in bundled_rule_files():
        _read_rule_file(path, raw, may_override=False)
    for extra in extra_rule_files:
        path = Path(extra)
        if not path.is_file():
            raise ValueError(f"rule file not found: {path}")
        _read_rule_file(path, raw, may_override=True)

    names = list(raw.rules)
    dropped: set[str] = set()
    for pattern in disabled:
        matched = fnmatch.filter(names, pattern)
        if not matched:
            raise ValueError(f"disabled rule {pattern!r} matches no rule")
        dropped.update(matched)

    expander = MacroExpander(raw.macros, raw.lists)
    rules = []
    for name, (entry, origin) in raw.rules.items():
        if name in dropped or not entry.get("enabled", True):
            continue
        rules.append(_compile_rule(name, entry, origin, expander))
    return rules


# --------------------------------------------------------------------------------------------
# Detection


class RuleDetector:
    """Finds PHI with the bundled (and user) rules; see the module docstring for how it is fast."""

    name = "rules"

    def __init__(
        self,
        extra_rule_files: Sequence[str | Path] = (),
        disabled: Collection[str] = (),
        age_threshold: int = 89,
    ) -> None:
        self.age_threshold = int(age_threshold)
        self._rules = load_rules(extra_rule_files, disabled)
        self._options = [{**rule.validator_args, "age_threshold": self.age_threshold} for rule in self._rules]
        # Rules with the same triggers (the month-name date rules) share one list of hits.
        self._automaton: Any = None
        self._group_of: list[int] = []
        groups: dict[frozenset[str], int] = {}
        for rule in self._rules:
            self._group_of.append(groups.setdefault(frozenset(rule.triggers), len(groups)) if rule.triggers else -1)
        keyed: dict[str, list[int]] = {}
        for trigger_set, group in groups.items():
            for trigger in trigger_set:
                keyed.setdefault(trigger, []).append(group)
        if keyed:
            automaton = ahocorasick.Automaton()
            for trigger, group_ids in sorted(keyed.items()):
                automaton.add_word(trigger, (len(trigger), tuple(group_ids)))
            automaton.make_automaton()
            self._automaton = automaton

    @property
    def rule_names(self) -> list[str]:
        """Names of the active rules, in the order they run (bundled files, then user files)."""
        return [rule.name for rule in self._rules]

    @property
    def rules(self) -> list[Rule]:
        """The compiled active rules (for inspection and tools; treat as read-only)."""
        return list(self._rules)

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        """One sorted list of spans per document, in input order (spans may overlap)."""
        return [self.detect_text(doc.text) for doc in docs]

    def detect_text(self, text: str) -> list[Span]:
        """Spans for one text, sorted by offsets.

        Rules often agree (an MRN is also "6+ digits near an ID word"); of spans with the same
        offsets and category only one is kept: one with a subtype over one without, then the
        higher score, then the earlier rule.
        """
        if not text:
            return []
        # (start, end, category) -> (has subtype, score, rule order, subtype, source); Spans are
        # only built for the winners at the end.
        found: dict[tuple[int, int, Category], tuple[bool, float, int, str | None, str]] = {}
        hits = self._trigger_hits(text)
        for index, rule in enumerate(self._rules):
            if rule.triggers:
                rule_hits = hits.get(self._group_of[index])
                if not rule_hits:
                    continue
                finder = _anchored_matches if rule.anchored else _window_matches
                matches = finder(rule, rule_hits, text)
            else:
                matches = rule.regex.finditer(text)
            options = self._options[index]
            for match in matches:
                for start, end, category, subtype, score in _spans_of(rule, match, text, options):
                    key = (start, end, category)
                    old = found.get(key)
                    if old is None or (subtype is not None, score, -index) > old[:3]:
                        found[key] = (subtype is not None, score, -index, subtype, rule.source)
        spans = [
            Span(start, end, category, subtype, score, source)
            for (start, end, category), (_, score, _, subtype, source) in found.items()
        ]
        spans.sort(key=lambda s: (s.start, s.end, s.category.value, s.subtype or ""))
        return spans

    def _trigger_hits(self, text: str) -> dict[int, list[tuple[int, int]]]:
        """Hits of every trigger, as `{trigger group: [(start, end), ...]}`."""
        if self._automaton is None:
            return {}
        # One byte per character keeps offsets. Digits become 9 so triggers can name shapes, and
        # whitespace a space; spaces around the text let " id " match the word at either end.
        norm = " " + text.encode("latin-1", "replace").lower().translate(_NORMALISE).decode("latin-1") + " "
        hits: dict[int, list[tuple[int, int]]] = {}
        n = len(text)
        for end, (length, indexes) in self._automaton.iter(norm):
            hit = (max(0, end - length), min(n, end))
            for index in indexes:
                bucket = hits.get(index)
                if bucket is None:
                    hits[index] = [hit]
                else:
                    bucket.append(hit)
        return hits


def _window_matches(rule: Rule, hits: list[tuple[int, int]], text: str) -> Iterator[re.Match[str]]:
    """Every match inside the (merged) windows around the hits."""
    for low, high in _regions(hits, rule.window, text):
        yield from rule.regex.finditer(text, low, high)


def _anchored_matches(rule: Rule, hits: list[tuple[int, int]], text: str) -> Iterator[re.Match[str]]:
    """Matches that start at most `window[0]` characters before a hit (or just inside it).

    For rules whose pattern begins with the cue the trigger names, trying `match` at a handful of
    positions is much cheaper than scanning the whole window position by position.
    """
    before, after = rule.window
    n = len(text)
    regex = rule.regex
    tried: set[int] = set()
    done_until = -1
    for start, end in sorted(hits):
        high = min(n, end + after)
        if high < n:
            tail = _NON_SPACE.match(text, high, min(n, high + 64))
            high = tail.end() if tail else high
        for pos in range(max(0, start - before, done_until), min(n, start + 2)):
            if pos in tried:
                continue
            tried.add(pos)
            match = regex.match(text, pos, high)
            if match is not None and match.end() > match.start():
                done_until = match.end()
                yield match
                break


def _regions(hits: list[tuple[int, int]], window: tuple[int, int], text: str) -> list[tuple[int, int]]:
    """Merge the windows around trigger hits; extend each to the end of its last word."""
    before, after = window
    n = len(text)
    regions: list[tuple[int, int]] = []
    for start, end in sorted(hits):
        low, high = max(0, start - before), min(n, end + after)
        if regions and low <= regions[-1][1]:
            if high > regions[-1][1]:
                regions[-1] = (regions[-1][0], high)
        else:
            regions.append((low, high))
    out = []
    for low, high in regions:
        if high < n:
            tail = _NON_SPACE.match(text, high, min(n, high + 64))
            high = tail.end() if tail else high
        out.append((low, high))
    return out


def _spans_of(
    rule: Rule, match: re.Match[str], text: str, options: Mapping[str, Any]
) -> list[tuple[int, int, Category, str | None, float]]:
    """Turn one match into `(start, end, category, subtype, score)` candidates: tighten, validate,
    check context words, pick the subtype."""
    produced: list[tuple[int, int, Category, str | None, float]] = []
    n = len(text)
    for group, category, subtype in rule.groups:
        start, end = match.span(group)
        if start < 0:
            continue
        start, end = tighten(text, start, end)
        if end <= start:
            continue
        if rule.validators:
            value = text[start:end]
            valid = True
            for validator in rule.validators:
                if not validator(value, match, options):
                    valid = False
                    break
            if not valid:
                if group == 0 or group == "phi":
                    return []
                continue
        before, after = rule.negative_window
        if rule.negative_before is not None and rule.negative_before.search(text, max(0, start - before), start):
            continue
        if rule.negative_after is not None and rule.negative_after.search(text, end, min(n, end + after)):
            continue
        score = rule.score
        if rule.context_before is not None or rule.context_after is not None:
            w = rule.context_window
            has_context = (
                rule.context_before is not None and rule.context_before.search(text, max(0, start - w), start)
            ) or (rule.context_after is not None and rule.context_after.search(text, end, min(n, end + w)))
            if has_context:
                score = rule.context_score
            elif rule.context_required:
                continue
        subtype_regex, subtypes = rule.subtype_context
        if subtype_regex is not None:
            cues = list(subtype_regex.finditer(text, max(0, start - rule.context_window), start))
            if cues and cues[-1].lastgroup is not None:
                subtype = subtypes[int(cues[-1].lastgroup[1:].partition("_")[0])]
        produced.append((start, end, category, subtype, score))
    return produced
