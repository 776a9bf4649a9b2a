"""The words a pattern's matches can begin with, so a scan can skip text that holds none of them.

Why: the protected-content word lists (exam titles, specialties, holidays, ...) begin with a
lookbehind such as `(?<![\\w/&-])`, which keeps Python's `re` from using a first-character
prefilter: it tries a full match at every position of every window. Reading the pattern's parse
tree once gives the first words a match can start with; a window none of whose words is one of
them cannot hold a match, and is skipped without running the regex. A "word" here is a run of
letters and digits (`[^\\W_]+`): the bundled patterns end at `(?![\\w...])` or `(?![^\\W_])`, and
both end such a run.

The analysis costs ~0.1 s for the bundled patterns (parsing them again, in pure Python), more
than the warm-up should pay, so `scripts/build_regex_cache.py` stores its result next to the
compiled patterns and `stored_gate` only looks it up: a pattern that is not stored (a user's, an
edited one, another Python) simply gets no gate.

Safe by construction: the analysis only ever widens what may match (zero-width assertions other
than a word boundary are ignored, repeats are unrolled), and anything it does not follow (a large
or negated class, a category, a non-ASCII character, a back-reference, too much work) either ends
the word as a mere prefix or gives the pattern no gate at all, and then the regex always runs.
Windows of text that is not ASCII are never gated (case-insensitive matching outside ASCII is
more than `str.lower`).
"""

from __future__ import annotations

import logging
import marshal
import re
import sys
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from radeid.core.resources import bundled_data_path
from radeid.patterns.regex_cache import engine_tag

if sys.version_info >= (3, 11):
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
else:  # pragma: no cover - exercised on 3.10 only
    import sre_constants
    import sre_parse

__all__ = ["FirstWords", "dump", "first_words", "stored_gate", "stored_gates", "stored_path", "window_words"]

log = logging.getLogger(__name__)

#: How much of a word is kept when it is only known to begin so (a shorter prefix would be as
#: safe, but too weak to skip much: a pattern with one gets no gate).
PREFIX = 3
#: The largest character class followed, in characters; a larger one ends the word as a prefix.
_MAX_CLASS = 64
#: Work (steps and ways found) before the analysis gives up on a pattern, to bound the time of the
#: build script and of the test that redoes it; the big word lists take a few thousand.
_BUDGET = 20_000
#: Ways a word may go on from one point of a pattern before that point counts as "goes on somehow".
_MAX_TAILS = 1024

# No lookbehind (it would cost what the gate saves): scanning from one character before the
# window, every word starting in it is found whole, and at most one extra key (a word running
# into the window) is added, which can only let a pattern run.
_WORD_AND_NEXT = re.compile(r"([^\W_]+)([\W_]?)")
_REPEATS = tuple(
    op
    for op in (
        sre_constants.MAX_REPEAT,
        sre_constants.MIN_REPEAT,
        getattr(sre_constants, "POSSESSIVE_REPEAT", None),
    )
    if op is not None
)
_ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", None)


@dataclass(frozen=True, slots=True)
class FirstWords:
    """What the first word of any match is, lower-cased: one of `whole` (alone, or with the character
    after it, which is not a letter or digit), or one that begins with one of `prefixes` (each
    `PREFIX` characters long)."""

    whole: frozenset[str]
    prefixes: frozenset[str]

    def may_match(self, words: tuple[set[str], set[str]]) -> bool:
        """Whether a window with these `window_words` can hold a match (two set look-ups, no scan)."""
        return not self.whole.isdisjoint(words[0]) or not self.prefixes.isdisjoint(words[1])


def window_words(text: str, start: int, stop: int) -> tuple[set[str], set[str]] | None:
    """The lower-cased words starting in `text[start:stop]` (cut at `stop`), alone and with the
    character after them, and their first `PREFIX` characters; None when `text` is not ASCII.

    A word starts where the character before it (`text[start - 1]` included, as a lookbehind
    sees it) is not a letter or digit; a gated pattern can start a match nowhere else.
    """
    if not text.isascii():
        return None
    begin = start - 1 if start > 0 else 0  # the lookbehind sees one character before `start`
    low = text[begin:stop].lower()  # ASCII: same length, same letters and digits
    found = _WORD_AND_NEXT.findall(low)  # one scan: (word, the character after it or "")
    keys = {word for word, _ in found}
    keys.update([word + after for word, after in found])
    return keys, {word[:PREFIX] for word, _ in found if len(word) >= PREFIX}


def stored_path() -> Path:
    """The stored gates for this engine (beside its compiled patterns; it may not exist)."""
    return bundled_data_path("regex_cache", f"{engine_tag()}.first-words")


@lru_cache(maxsize=1)
def stored_gates() -> dict[tuple[str, int], FirstWords]:
    """The stored gates, by (source, final flags); empty when there is no file or it is unreadable."""
    try:
        payload = marshal.loads(zlib.decompress(stored_path().read_bytes()))
        if payload["engine"] != engine_tag():
            return {}
        return {
            (source, flags): FirstWords(frozenset(whole), frozenset(prefixes))
            for source, flags, whole, prefixes in payload["gates"]
        }
    except FileNotFoundError:
        return {}
    except Exception as exc:  # noqa: BLE001 - a bad file only costs time
        log.debug("stored first words unreadable (%s); no gates", type(exc).__name__)
        return {}


def stored_gate(regex: re.Pattern[str]) -> FirstWords | None:
    """The stored gate of exactly this pattern (source and flags), or None: then it always runs."""
    return stored_gates().get((regex.pattern, regex.flags))


def dump(patterns: list[re.Pattern[str]]) -> bytes:
    """The stored file's bytes: the gate of each of `patterns` that has one (sorted, so the same
    patterns give the same file)."""
    rows = []
    for regex in patterns:
        gate = first_words(regex)
        if gate is not None:
            rows.append((regex.pattern, regex.flags, tuple(sorted(gate.whole)), tuple(sorted(gate.prefixes))))
    return zlib.compress(marshal.dumps({"engine": engine_tag(), "gates": sorted(set(rows))}), 9)


def first_words(regex: re.Pattern[str]) -> FirstWords | None:
    """The gate for `regex`, or None when it cannot be had safely (then the regex must always run).

    A gate needs a pattern that begins with a one-character negative lookbehind that excludes every
    letter and digit (so a match starts at a word start), or with one character that is neither
    (`[ \\t]`, as `requires` patterns do: the word starts after it), and whose matches then go on
    with a letter or digit in ASCII text.
    """
    if not isinstance(regex.pattern, str) or regex.flags & re.LOCALE:
        return None
    try:
        tree = sre_parse.parse(regex.pattern, regex.flags)
    except (re.error, RecursionError, ValueError):  # pragma: no cover - it compiled, so it parses
        return None
    items: list[Any] = list(tree.data)
    if not items or not (_excludes_word_chars(items[0], behind=True) or _separator(items[0])):
        return None
    walker = _Walker()
    try:
        walker.start(_push(items[1:], None))
    except (_GiveUp, RecursionError):
        return None
    if any(len(prefix) < PREFIX for prefix in walker.prefixes):
        return None
    return FirstWords(frozenset(walker.whole), frozenset(walker.prefixes))


class _GiveUp(Exception):
    """The pattern is too big or too odd to analyse."""


#: What is left of the pattern: (opcode, argument, rest), or None at its end. Case does not matter:
#: every ASCII character is compared lower-cased, and the walk stops at any other.
_Rest = Any


def _push(items: list[Any], rest: _Rest) -> _Rest:
    for op, av in reversed(items):
        rest = (op, av, rest)
    return rest


def _is_word_char(char: str) -> bool:
    """A letter or digit (`_`, which `\\w` also matches, separates words here)."""
    return char.isalnum()


def _excludes_word_chars(item: tuple[Any, Any], behind: bool) -> bool:
    """Whether `item` is `(?<![\\w...])` or `(?<![^\\W_])` (behind), or the same lookahead: no letter
    or digit at that side."""
    op, av = item
    if op is not sre_constants.ASSERT_NOT or av[0] != (-1 if behind else 1):
        return False
    body = list(av[1])
    if len(body) != 1 or body[0][0] is not sre_constants.IN:
        return False
    members = body[0][1]
    if not any(member[0] is sre_constants.NEGATE for member in members):
        return (sre_constants.CATEGORY, sre_constants.CATEGORY_WORD) in members
    # [^\W...]: word characters but the listed ones, which must not be letters or digits
    rest = [member for member in members if member[0] is not sre_constants.NEGATE]
    return (sre_constants.CATEGORY, sre_constants.CATEGORY_NOT_WORD) in rest and all(
        (op is sre_constants.CATEGORY and av is sre_constants.CATEGORY_NOT_WORD)
        or (op is sre_constants.LITERAL and not chr(av).isalnum())
        for op, av in rest
    )


def _separator(item: tuple[Any, Any]) -> bool:
    """Whether `item` takes one ASCII character that is not a letter or digit (`[ \\t]`)."""
    op, av = item
    chars = [chr(av)] if op is sre_constants.LITERAL else _class_chars(av) if op is sre_constants.IN else None
    return bool(chars) and all(char.isascii() and not char.isalnum() for char in chars or ())


def _class_chars(members: list[tuple[Any, Any]]) -> list[str] | None:
    """The characters of a small, plain character class; None for anything else."""
    chars: list[str] = []
    for op, av in members:
        if op is sre_constants.LITERAL:
            chars.append(chr(av))
        elif op is sre_constants.RANGE and av[1] - av[0] < _MAX_CLASS:
            chars.extend(map(chr, range(av[0], av[1] + 1)))
        else:
            return None
        if len(chars) > _MAX_CLASS:
            return None
    return chars


class _Walker:
    """Follows the pattern from its start to the end of a match's first word.

    `tails` is memoised on the (shared) rest of the pattern, so a word list's entries, which all
    go on the same way, are followed once; a rest that can go on in too many ways counts as "the
    word goes on somehow", which keeps the sets small (the word is then only a prefix).
    """

    def __init__(self) -> None:
        self.whole: set[str] = set()
        self.prefixes: set[str] = set()
        self.budget = _BUDGET
        self._memo: dict[int, tuple[_Rest, frozenset[tuple[str, str]]]] = {}

    def start(self, rest: _Rest) -> None:
        """Where a match begins: its first character must be an ASCII letter or digit."""
        if rest is None:
            raise _GiveUp
        op, av, after = rest
        if op is sre_constants.LITERAL or op is sre_constants.IN:
            chars = [chr(av)] if op is sre_constants.LITERAL else _class_chars(av)
            if chars is None:
                raise _GiveUp
            for char in dict.fromkeys(chars):
                if not char.isascii() or not _is_word_char(char):
                    raise _GiveUp
                for more, end in self.tails(after):
                    word = char.lower() + more
                    if end:
                        self.whole.add(word if end == _BOUNDARY else word + end)
                    else:
                        self.prefixes.add(word[:PREFIX])
        elif op is sre_constants.SUBPATTERN:
            self.start(_push(list(av[-1]), after))
        elif op is sre_constants.BRANCH:
            for branch in av[1]:
                self.start(_push(list(branch), after))
        elif _ATOMIC is not None and op is _ATOMIC:
            self.start(_push(list(av), after))
        elif op in _REPEATS and len(av) == 3:
            low, high, body = av
            if low == 0:
                self.start(after)
            if high != 0:
                again = (max(low - 1, 0), high if high == sre_constants.MAXREPEAT else high - 1, body, True)
                self.start(_push(list(body), (op, again, after)))
        elif op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            self.start(after)  # ignoring a zero-width condition only widens what may match
        else:
            raise _GiveUp

    def tails(self, rest: _Rest) -> frozenset[tuple[str, str]]:
        """How a word already begun can go on: (more lower-cased letters and digits, how it ends).

        It ends with the other character the match takes next, `_BOUNDARY` where a lookahead says
        no letter or digit follows, or "" where it may go on in ways not followed.
        """
        if rest is None:
            return _GOES_ON  # the match can end here, and the text's word go on
        memo = self._memo.get(id(rest))
        if memo is not None:
            return memo[1]
        found = self._tails(rest)
        self.budget -= 1 + len(found)
        if self.budget < 0:
            raise _GiveUp
        if len(found) > _MAX_TAILS:
            found = _GOES_ON
        self._memo[id(rest)] = (rest, found)  # keeps `rest` alive, so its id stays its own
        return found

    def _tails(self, rest: _Rest) -> frozenset[tuple[str, str]]:
        op, av, after = rest
        if op is sre_constants.LITERAL or op is sre_constants.IN:
            chars = [chr(av)] if op is sre_constants.LITERAL else _class_chars(av)
            if chars is None:
                return _GOES_ON
            found: set[tuple[str, str]] = set()
            for char in dict.fromkeys(chars):
                if not char.isascii():
                    found.add(("", ""))  # may match ASCII text case-insensitively (the Kelvin sign)
                elif not _is_word_char(char):
                    found.add(("", char))
                else:
                    found.update((char.lower() + more, end) for more, end in self.tails(after))
            return frozenset(found)
        if op is sre_constants.SUBPATTERN:
            return self.tails(_push(list(av[-1]), after))
        if op is sre_constants.BRANCH:
            return frozenset().union(*(self.tails(_push(list(branch), after)) for branch in av[1]))
        if _ATOMIC is not None and op is _ATOMIC:
            return self.tails(_push(list(av), after))
        if op in _REPEATS:
            low, high, body = av[:3]
            skip = self.tails(after) if low == 0 else frozenset()
            if high == 0:
                return skip
            if len(av) > 3:  # a later time round: stop (`[IVX]+` never ends)
                return skip | _GOES_ON
            again = (max(low - 1, 0), high if high == sre_constants.MAXREPEAT else high - 1, body, True)
            return skip | self.tails(_push(list(body), (op, again, after)))
        if _excludes_word_chars((op, av), behind=False):
            return _ENDS
        if op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            return self.tails(after)  # ignoring a zero-width condition only widens what may match
        return _GOES_ON


#: Not a character a match takes: the word ends here because a lookahead says so.
_BOUNDARY = "<boundary>"
_GOES_ON: frozenset[tuple[str, str]] = frozenset({("", "")})
_ENDS: frozenset[tuple[str, str]] = frozenset({("", _BOUNDARY)})
