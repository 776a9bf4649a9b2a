"""Invented, pronounceable brand and model words of the original's shape.

`LOGIQ E9` -> `VERIX C7`, `3Dimensions` -> `4Spectra`, `IntelliSpace` -> `BrivoLane`: letter runs
become syllable-built words of about the same length in the same case pattern (all capitals,
capitalised, camel case), digit runs become digits of the same length (no leading zero where there
was none), runs of one or two letters ("E" of "E9", "GE") become other capitals. A word that is a
real vendor or product word (the bundled vendor lexicon) is never produced.
"""

from __future__ import annotations

import re
from functools import lru_cache

from radeid.core.resources import bundled_data_path, read_word_list
from radeid.replace.surrogate.keyed import KeyStream, fold

_ONSETS = ("b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
           "br", "cr", "dr", "fl", "gr", "kr", "pr", "tr", "st", "pl", "cl", "sc", "qu", "th")  # fmt: skip
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ia", "eo")
_ENDINGS = ("x", "n", "r", "s", "l", "ra", "ris", "rix", "ton", "tex", "va", "via", "nex", "lyn", "tis", "vo",
            "lon", "ron", "nta", "ma", "ris", "gen", "dex", "lis", "ro", "nia")  # fmt: skip
_CAPITALS = "BCDFGHJKLMNPRSTVXZ"  # no vowels: invented acronyms never spell a word
_RUN = re.compile(r"\d+|[^\W\d_]+|[\W_]+")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


@lru_cache(maxsize=1)
def real_vendor_words() -> frozenset[str]:
    """Folded words of the bundled vendor lexicon (brands, products, series)."""
    words: set[str] = set()
    for term in read_word_list(bundled_data_path("lexicons", "vendors.txt")):
        words.update(fold(w) for w in re.findall(r"[^\W_]+", term.lstrip("=").lstrip("\\")))
    return frozenset(words)


def pronounceable(length: int, stream: KeyStream) -> str:
    """A lower-case invented word of `length` letters (at least 3), syllable by syllable."""
    length = max(3, length)
    real = real_vendor_words()
    word = ""
    for _ in range(8):
        word = ""
        while len(word) < length - 2:
            word += stream.choice(_ONSETS) + stream.choice(_VOWELS)
        rest = length - len(word)
        endings = [e for e in _ENDINGS if len(e) == rest] or ["x"]
        word = (word + stream.choice(endings))[:length] if rest > 0 else word[:length]
        if word not in real:
            break
    return word


def _letters(run: str, stream: KeyStream) -> str:
    if len(run) <= 2 or (run.isupper() and len(run) <= 3):
        return "".join(_CAPITALS[stream.below(len(_CAPITALS))] if c.isupper() else
                       _CAPITALS[stream.below(len(_CAPITALS))].lower() for c in run)  # fmt: skip
    if run.isupper():
        return pronounceable(len(run), stream).upper()
    if run.islower():
        return pronounceable(len(run), stream)
    parts = _CAMEL.findall(run)
    if "".join(parts) != run:
        return pronounceable(len(run), stream).capitalize()
    return "".join(_letters(p, stream) if p.isupper() else pronounceable(len(p), stream).capitalize() for p in parts)


def brand_token(token: str, stream: KeyStream) -> str:
    """An invented token of the same shape (see the module docstring); never the token itself."""
    new = token
    for _ in range(4):
        out = []
        for run in _RUN.findall(token):
            if run.isdigit():
                digits = stream.digits(len(run))
                if digits[0] == "0" and run[0] != "0":
                    digits = str(1 + stream.below(9)) + digits[1:]
                out.append(digits)
            elif run[0].isalpha():
                out.append(_letters(run, stream))
            else:
                out.append(run)
        new = "".join(out)
        if fold(new) != fold(token) and (not new.isalpha() or fold(new) not in real_vendor_words()):
            break
    return new
