"""The first-word gates of protected patterns (radeid.patterns.first_words) never skip a match.

`ProtectedContent.find` skips a word-list pattern for a window that holds none of the words its
matches can begin with. The reference below is `find` as it was before (every pattern runs); on
fuzzed windows of report text both must give the same spans. The analysis itself is also checked
on random small patterns: whenever the regex finds a match in a window, the gate must let it run.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from radeid.patterns import first_words
from radeid.patterns.first_words import FirstWords, stored_gate, stored_gates, window_words
from radeid.patterns.regex_cache import engine_tag
from radeid.pipeline.regex_inventory import bundled_protected_regexes
from radeid.resolve.protected import _DIGIT, ProtectedContent, ProtectedSpan

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

needs_file = pytest.mark.skipif(
    not first_words.stored_path().exists(), reason=f"no first-words file is shipped for {engine_tag()}"
)


def ref_find(pc: ProtectedContent, text: str, start: int = 0, end: int | None = None) -> list[ProtectedSpan]:
    """`ProtectedContent.find` before the gates: every pattern runs on every window."""
    stop = len(text) if end is None else end
    found: list[ProtectedSpan] = []
    plans = pc._plans if _DIGIT.search(text, start, stop) is not None else pc._no_digit_plans
    for finditer, requires, group, klass, name, soft, _gate, _requires_gate in plans:
        if requires is not None and requires(text, start, stop) is None:
            continue
        for match in finditer(text, start, stop):
            s, e = match.span(group)
            if e > s and any(ch.isalnum() for ch in text[s:e]):
                found.append(ProtectedSpan(s, e, klass, name, soft))
    found.sort(key=lambda p: (p.start, -p.end))
    return found


def _may_match(gate: FirstWords, text: str, start: int, stop: int) -> bool:
    words = window_words(text, start, stop)
    return words is None or gate.may_match(words)


def _corpus() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_EXAMPLES.glob("*.txt")))


#: Text that the word-list patterns match, mixed in so the fuzzed windows hold many matches.
_FRAGMENTS = [
    "CT abdomen and pelvis with contrast",
    "Body Imaging",
    "Christmas Eve",
    "a/p",
    "AC joint",
    "IR suite 3",
    "Neuroradiology",
    "Department of Radiology",
    "Dept. of the Neurology",
    "PACS",
    "MRI Room 2",
    "G-E junction",
    "age 45",
    "aged: 3 y",
    "2+ 3 = 5",
    "HO-2",
    "PGY3",
    "10 am",
    "11:30 p.m.",
    "E4 V5 M6",
    "Easter Sunday",
    "Fourth of July",
    "Apgar 9",
    "BI-RADS 4",
    "XR chest 2 views",
    "ICA",
    "ct",
    "images",
    "on a",
    "\u0130mage",
    "Dr. Grant",
    "  ",
    "\n",
    "\t",
    "-",
    "/",
    ".",
    ",",
    "K\u212aelvin",
    "\u017fpecialty",
    "x",
    "Pulmonary",
    "Foley catheter",
    "Hickman line",
    "Wilms tumor",
    "Greenfield filter",
    "Swan-Ganz catheter",
    "Monteggia fracture",
    "Baker's cyst",
    "Kerley B lines",
    "catheters",
]


def _texts(rng: random.Random, corpus: str, count: int) -> list[str]:
    out = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randrange(1, 12)):
            if rng.random() < 0.5:
                at = rng.randrange(len(corpus))
                pieces.append(corpus[at : at + rng.randrange(1, 60)])
            else:
                piece = rng.choice(_FRAGMENTS)
                pieces.append(piece.upper() if rng.random() < 0.2 else piece)
            pieces.append(rng.choice(["", " ", "  ", "\t", ", ", "\n", "/", "-"]))
        out.append("".join(pieces))
    return out


@needs_file
def test_the_stored_gates_are_those_the_analysis_gives_for_every_bundled_pattern() -> None:
    patterns = ProtectedContent.from_files().patterns
    regexes = bundled_protected_regexes()  # every language pack's protected patterns
    assert {p.regex for p in patterns} <= set(regexes)
    fresh = {(regex.pattern, regex.flags): first_words.first_words(regex) for regex in regexes}
    assert {key: gate for key, gate in fresh.items() if gate is not None} == stored_gates(), (
        "run `PYTHONPATH=src python scripts/build_regex_cache.py` after editing protected patterns"
    )
    names = {p.name for p in patterns if stored_gate(p.regex) is not None}
    assert {"exam_title", "specialty", "holiday", "anatomy_term"} <= names
    assert all(stored_gate(p.requires) is not None for p in patterns if p.requires is not None)


def test_find_with_gates_equals_find_without_on_fuzzed_windows() -> None:
    pc = ProtectedContent.from_files()
    rng = random.Random(20261123)
    corpus = _corpus()
    assert corpus
    checked = matched = 0
    for text in _texts(rng, corpus, 1500):
        windows = [(0, None)] + [
            (a, min(len(text), a + rng.randrange(0, 90))) for a in (rng.randrange(len(text) + 1) for _ in range(4))
        ]
        for start, end in windows:
            got = pc.find(text, start, end)
            assert got == ref_find(pc, text, start, end)
            checked += 1
            matched += bool(got)
    assert matched > checked // 4  # the fuzz really exercises matches


def test_find_near_on_the_example_reports_is_unchanged() -> None:
    pc = ProtectedContent.from_files()
    for path in sorted(_EXAMPLES.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        for start in range(0, len(text), 7):
            end = min(len(text), start + 47)
            assert pc.find(text, start, end) == ref_find(pc, text, start, end)


def test_text_that_is_not_ascii_is_never_gated() -> None:
    assert window_words("Stra\u00dfe CT", 0, 9) is None
    pc = ProtectedContent.from_files()
    text = "\u017fpecialty: Neuroradiology \u212a \u0130CA"
    assert pc.find(text) == ref_find(pc, text)


def test_window_words_see_the_character_before_the_window() -> None:
    keys, prefixes = window_words("xx Body Imaging, ok", 4, 16) or (set(), set())
    assert {"imaging", "imaging,"} <= keys and "ima" in prefixes
    assert "ody" not in keys  # no match can start inside "Body" ("body" is an extra key only)
    assert window_words("xx Body", 3, 7) == ({"body"}, {"bod"})


# Random small patterns built like the bundled ones: a lookbehind, alternatives of words, classes,
# optional and repeated parts, a trailing boundary, sometimes case-insensitive.
_PARTS = ["ab", "abc", "b", "ca", "x", "[ \\t]", "[ \\t]+", "[ \\t]*", "[-/]", "(?:s)?", "\\d", "[ivx]+", "[a-c]", "'s"]


def _random_pattern(rng: random.Random) -> str:
    def word() -> str:
        return "".join(rng.choice(["a", "b", "c", "x", "ab", "ca"]) for _ in range(rng.randrange(1, 3)))

    def part(depth: int) -> str:
        roll = rng.random()
        if depth < 2 and roll < 0.25:
            return "(?:" + "|".join(seq(depth + 1) for _ in range(rng.randrange(2, 4))) + ")"
        if depth < 2 and roll < 0.35:
            return "(?:" + seq(depth + 1) + ")" + rng.choice(["?", "*", "+", "{1,2}", "{0,3}"])
        if roll < 0.5:
            return word()
        return rng.choice(_PARTS)

    def seq(depth: int) -> str:
        return "".join(part(depth) for _ in range(rng.randrange(1, 4)))

    body = seq(0)
    if rng.random() < 0.5:
        body = "(?i:" + body + ")"
    tail = rng.choice(["", "(?![\\w])", "(?![\\w/-])", "(?![^\\W_])", "(?![^\\W_/])", "\\b", "(?=[ ])", "_"])
    return rng.choice(["(?<![\\w])", "(?<![\\w/&-])", "(?<!\\w)", "(?<![^\\W_])", "[ \\t]", "-"]) + body + tail


def test_a_gate_never_skips_a_window_where_its_pattern_matches() -> None:
    rng = random.Random(7)
    alphabet = ["a", "b", "c", "x", "A", "B", "C", "s", "S", "i", "v", "I", " ", "\t", "-", "/", "'", "1", ".", "_"]
    gated = 0
    for _ in range(400):
        regex = re.compile(_random_pattern(rng))
        gate = first_words.first_words(regex)
        if gate is None:
            continue
        gated += 1
        for _ in range(60):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 24)))
            start = rng.randrange(len(text) + 1)
            stop = rng.randrange(start, len(text) + 1)
            if regex.search(text, start, stop) is not None:
                assert _may_match(gate, text, start, stop), (regex.pattern, text, start, stop)
    assert gated > 100


def test_patterns_without_a_safe_gate_get_none() -> None:
    for source in [
        r"\w+",  # no lookbehind
        r"(?<![a-z])abc",  # the lookbehind lets a word character stand before a match
        r"(?<!\w)[^x]bc",  # a negated class
        r"(?<!\w)(?:a|-b)",  # a match may start with a non-word character
        r"(?<!\w)(?:ab|c)?",  # an empty match
        r"(?<!\w)\u212a",  # not ASCII (the Kelvin sign matches "k" case-insensitively)
        r"(?<!\w)a\w",  # too weak: a one-letter prefix
        r"(?<![^\Wa])bcd",  # the lookbehind lets "a" stand before a match
        r"[ a]bcd",  # the first character may be a letter
    ]:
        assert first_words.first_words(re.compile(source, re.IGNORECASE)) is None, source
    gate = first_words.first_words(re.compile(r"(?<![\w/])(?i:ct|mri)(?:[ \t]+suite)?(?![\w])"))
    assert gate == FirstWords(frozenset({"ct", "mri", "ct ", "ct\t", "mri ", "mri\t"}), frozenset())
    # `(?![^\W_])` lets "_" follow: "_" ends a word here, so "pacs_x" still shows the word "pacs"
    gate = first_words.first_words(re.compile(r"(?<![\w])(?i:pacs|ris)(?![^\W_])"))
    assert gate == FirstWords(frozenset({"pacs", "ris"}), frozenset())
    assert _may_match(gate, "see pacs_x", 0, 10) and not _may_match(gate, "see pacsx", 0, 9)
