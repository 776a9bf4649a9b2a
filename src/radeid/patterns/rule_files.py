"""Rule files: read the TOML (the shared base, the language pack's, then the user's), check their
schema, compile each rule once.

The schema is documented at the top of `radeid/data/rules/00_common.toml`; `radeid.detect.rules`
runs the compiled `Rule`s.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radeid.config.language import DEFAULT_LANGUAGE, pack_files
from radeid.core.categories import Category, split_label
from radeid.core.resources import bundled_data_path
from radeid.patterns.pattern_files import MacroExpander, read_pattern_file, word_regex
from radeid.patterns.regex_cache import compile_pattern
from radeid.patterns.validators import Validator, get_validator

__all__ = ["Rule", "base_rule_files", "bundled_rule_files", "load_rules"]

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
        "triggers", "window", "anchored", "word_start", "requires", "enabled", "description",
    }
)  # fmt: skip
_TOP_KEYS = frozenset({"macros", "lists", "rule"})
_EXTRA_PHI = re.compile(r"phi\d+")
_NAME_OK = re.compile(r"[A-Za-z0-9_.-]+")
_KEEP_SUBTYPE = "-"
_DEFAULT_WINDOW = (80, 160)


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
    requires: tuple[re.Pattern[str], ...] = ()  # the rule runs on a text where any of them is found
    word_start: bool = False
    source: str = field(init=False, repr=False)  # "rules/<name>", the Span.source of this rule

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", f"rules/{self.name}")


def base_rule_files() -> list[Path]:
    """The shared base: rule files every language loads (`radeid/data/rules/`), sorted by file name."""
    return sorted(bundled_data_path("rules").glob("*.toml"))


def bundled_rule_files(language: str | None = DEFAULT_LANGUAGE) -> list[Path]:
    """The rule files shipped in the package that `language` loads, in load order: the shared base,
    then the pack's (`radeid.config.language.pack_files`); None: the base only."""
    return [*base_rule_files(), *(pack_files(language, "rules") if language is not None else [])]


@dataclass
class _RawRules:
    macros: dict[str, str]
    lists: dict[str, list[str]]
    rules: dict[str, tuple[dict[str, Any], str]]


def _read_rule_file(path: Path, raw: _RawRules, *, may_override: bool) -> None:
    data = read_pattern_file(path, _TOP_KEYS, "rule file")
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
    """One rule entry checked and compiled; each check's error names the rule and the file it came from."""
    where = f"rule {name!r} ({origin})"
    category, regex, flags = _rule_pattern(entry, where, expander)
    requires = _rule_requires(entry, where, expander, flags)
    score, context_score = _rule_scores(entry, where)
    subtype = entry.get("subtype")
    groups = _rule_groups(entry, where, regex, category, subtype)
    validators = tuple(get_validator(v) for v in _as_list(entry.get("validator"), f"{where}: validator"))
    validator_args = _rule_validator_args(entry, expander)

    def words(key: str) -> re.Pattern[str] | None:
        return word_regex(expander.words(_as_list(entry.get(key), f"{where}: {key}")))

    subtype_context = _rule_subtype_context(entry, where, expander, subtype)
    triggers = _rule_triggers(entry, where, expander)
    window, word_start = _rule_window(entry, where, triggers)
    context_before, context_after = words("context_before"), words("context_after")
    return Rule(
        name=name,
        category=category,
        subtype=subtype,
        regex=regex,
        score=score,
        groups=groups,
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
        subtype_context=subtype_context,
        triggers=triggers,
        window=window,
        anchored=bool(entry.get("anchored", False)),
        origin=origin,
        requires=requires,
        word_start=word_start,
    )


def _rule_pattern(
    entry: Mapping[str, Any], where: str, expander: MacroExpander
) -> tuple[Category, re.Pattern[str], int]:
    """The category, compiled pattern and flags: the keys every rule needs, checked before the rest."""
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
        regex = compile_pattern(expander.expand(str(pattern_src)), flags)
    except (re.error, ValueError) as exc:
        raise ValueError(f"{where}: bad pattern: {exc}") from None
    return category, regex, flags


def _rule_requires(
    entry: Mapping[str, Any], where: str, expander: MacroExpander, flags: int
) -> tuple[re.Pattern[str], ...]:
    """The `requires` prefilters, compiled with the rule's flags; an empty list is a mistake, not "none"."""
    requires: list[re.Pattern[str]] = []
    for required in _as_list(entry.get("requires"), f"{where}: requires"):
        try:
            requires.append(compile_pattern(expander.expand(required), flags))
        except (re.error, ValueError) as exc:
            raise ValueError(f"{where}: bad requires: {exc}") from None
    if entry.get("requires") is not None and not requires:
        raise ValueError(f"{where}: requires is an empty list")
    return tuple(requires)


def _rule_scores(entry: Mapping[str, Any], where: str) -> tuple[float, float]:
    """`score` and `context_score` (default: the score), both checked to lie in (0, 1]."""
    score = float(entry.get("score", 0.85))
    context_score = float(entry.get("context_score", score))
    for value, key in ((score, "score"), (context_score, "context_score")):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{where}: {key} must be in (0, 1]")
    return score, context_score


def _rule_groups(
    entry: Mapping[str, Any], where: str, regex: re.Pattern[str], category: Category, subtype: str | None
) -> tuple[tuple[str | int, Category, str | None], ...]:
    """The groups that hold PHI and their labels: the `groups` table, else `phi`, `phi2`, ..., else the match."""
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
    return tuple(groups)


def _rule_validator_args(entry: Mapping[str, Any], expander: MacroExpander) -> dict[str, Any]:
    """`validator_args`, with an `@list` value replaced by that list's items."""
    validator_args: dict[str, Any] = {}
    for key, arg in dict(entry.get("validator_args", {})).items():
        if isinstance(arg, str) and arg.startswith("@"):
            arg = expander.list_items(arg[1:])
        validator_args[key] = arg
    return validator_args


def _rule_subtype_context(
    entry: Mapping[str, Any], where: str, expander: MacroExpander, subtype: str | None
) -> tuple[re.Pattern[str] | None, tuple[str | None, ...]]:
    """One regex of all subtypes' cue words and the subtype of each: the nearest cue is one scan."""
    context_words: list[list[str]] = []
    context_subtypes: list[str | None] = []
    for sub, items in dict(entry.get("subtype_context", {})).items():
        context_words.append(expander.words(_as_list(items, f"{where}: subtype_context")))
        context_subtypes.append(subtype if sub == _KEEP_SUBTYPE else sub)
    return word_regex(*context_words), tuple(context_subtypes)


def _rule_triggers(entry: Mapping[str, Any], where: str, expander: MacroExpander) -> tuple[str, ...]:
    """The lower-cased trigger words; an anchored rule needs some, and the literal prefilter needs Latin-1."""
    triggers = tuple(t.lower() for t in expander.words(_as_list(entry.get("triggers"), f"{where}: triggers")))
    if entry.get("anchored") and not triggers:
        raise ValueError(f"{where}: anchored = true needs triggers")
    for trigger in triggers:
        if not trigger or any(ord(ch) > 255 for ch in trigger):
            raise ValueError(f"{where}: triggers must be non-empty Latin-1 strings, got {trigger!r}")
    return triggers


def _rule_window(entry: Mapping[str, Any], where: str, triggers: tuple[str, ...]) -> tuple[tuple[int, int], bool]:
    """The trigger window `(before, after)` and `word_start`, which only an anchored [0, n] window allows."""
    window = entry.get("window", _DEFAULT_WINDOW)
    if not (isinstance(window, (list, tuple)) and len(window) == 2 and all(int(w) >= 0 for w in window)):
        raise ValueError(f"{where}: window must be [chars_before, chars_after]")
    word_start = bool(entry.get("word_start", False))
    if word_start and not (entry.get("anchored") and int(window[0]) == 0 and all(t[0].isalnum() for t in triggers)):
        raise ValueError(f"{where}: word_start = true needs anchored = true, window [0, n] and alphanumeric triggers")
    return (int(window[0]), int(window[1])), word_start


def load_rules(
    extra_rule_files: Sequence[str | Path] = (),
    disabled: Collection[str] = (),
    *,
    language: str | None = DEFAULT_LANGUAGE,
) -> list[Rule]:
    """Load the bundled rules (the shared base and pack `language`'s files; None: the base only,
    for a caller that names the pack's files among `extra_rule_files`, as `Config.rule_files`
    does), merge user files over them and drop disabled ones.

    A pack or user file may redefine a bundled rule (same `name`: the whole rule is replaced), macro
    or list, or add new ones; `enabled = false` switches a rule off. `disabled` takes rule names or
    shell-style patterns (`"name_*"`); a pattern that matches no rule is an error, to catch typos.
    """
    raw = _RawRules({}, {}, {})
    for path in base_rule_files():
        _read_rule_file(path, raw, may_override=False)
    for extra in [*(pack_files(language, "rules") if language is not None else []), *extra_rule_files]:
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
