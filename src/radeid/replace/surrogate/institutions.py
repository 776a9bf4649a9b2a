"""Real institutions a surrogate must never name.

A generated hospital, clinic, imaging centre or university is checked here and regenerated on a
hit. Real means: a name of the bundled detection lexicon (`lexicons/hospitals.txt`, with its
spelling variants), a name of `surrogates/real_institutions.txt`, or a name real by construction:
any "University of ..." (most US ones are real), any institution named after a US state ("<State>
[State] University ..."), "St. <name>'s ..." (saints name hundreds of real hospitals). A generated
name is also real when it starts with a real name of two words or more ("Mayo Clinic Health
System").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from radeid.core.resources import bundled_data_path, read_word_list

#: (literal, regex, replacement): the literal is what the regex needs to match at all, so a name
#: without it (most names) skips the substitution
_VARIANTS = (
    ("saint", re.compile(r"\bsaint\b"), "st"),
    ("mount", re.compile(r"\bmount\b"), "mt"),
    ("center", re.compile(r"\bcenter\b"), "centre"),
    ("&", re.compile(r"&"), " and "),
)
_APOSTROPHES = re.compile(r"['’`]")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def normalize_institution(name: str) -> str:
    """Case-, accent-, apostrophe- and punctuation-insensitive key; "Saint"/"St.", "Mount"/"Mt.",
    "Center"/"Centre" and "&"/"and" read alike; a leading "The" is dropped."""
    if name.isascii():  # NFKD and the ASCII filter leave ASCII as it is: every generated name
        text = name.lower()
    else:
        text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()
    if "'" in text or "`" in text:  # (no "’" is left after the ASCII filter)
        text = _APOSTROPHES.sub("", text)
    for literal, rx, repl in _VARIANTS:
        if literal in text:
            text = rx.sub(repl, text)
    text = _NON_ALNUM.sub(" ", text).strip()
    return text[4:] if text.startswith("the ") else text


@lru_cache(maxsize=1)
def _us_states() -> tuple[str, ...]:
    from faker.providers.address.en_US import Provider

    return (*(normalize_institution(s) for s in Provider.states), "district of columbia")


@lru_cache(maxsize=1)
def _state_words() -> tuple[frozenset[tuple[str, ...]], frozenset[str], int]:
    """The US states as word tuples, their first words, and the most words one has."""
    states = frozenset(tuple(s.split()) for s in _us_states())
    return states, frozenset(s[0] for s in states), max(len(s) for s in states)


def _real_by_construction(words: list[str]) -> bool:
    """Whether a normalized name's words hold a US state's name, are "St <name> ...", or hold
    "university of". Word runs, not a regex: the key's words are its only word characters, so a
    run of whole words is exactly what a regex between word boundaries would find, and a 52-way
    alternation tried at every position was the slowest part of checking a generated name."""
    if len(words) > 1 and words[0] == "st" and words[1].isalpha():
        return True
    states, firsts, longest = _state_words()
    for i, word in enumerate(words):
        if word == "university" and words[i + 1 : i + 2] == ["of"]:
            return True
        if word not in firsts:
            continue
        for n in range(1, longest + 1):
            if i + n <= len(words) and tuple(words[i : i + n]) in states:
                return True
    return False


@lru_cache(maxsize=1)
def real_institution_keys() -> frozenset[str]:
    """Normalized names of the real institutions listed in the bundled files."""
    names: set[str] = set()
    for term in read_word_list(bundled_data_path("lexicons", "hospitals.txt")):
        term = term.lstrip("=").lstrip("\\")
        if " " in term:  # acronyms and single words are not generated names
            names.add(normalize_institution(term))
    for term in read_word_list(bundled_data_path("surrogates", "real_institutions.txt")):
        names.add(normalize_institution(term))
    return frozenset(names)


def is_real_institution(name: str) -> bool:
    """Whether a (generated) facility name names, or starts with, a real institution."""
    words = normalize_institution(name).split()
    if _real_by_construction(words):
        return True
    real = real_institution_keys()
    return any(" ".join(words[:n]) in real for n in range(2, len(words) + 1))
