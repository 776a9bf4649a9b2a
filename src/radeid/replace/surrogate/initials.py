"""Transcription initials ("MSC/jrt": the dictating physician / the typist) stay initials.

The name planner reads a lone "MSC" as a surname and wrote "LYNCH/gallegos", which tells a
reader at once that the text was altered. Initials written next to a slash are recognised here
and every letter goes through the scope's initial permutation (`name_pools.letter_map`, the one
"J. Smith" uses): the same person's initials agree throughout the scope, different common
letters never merge, and the case of each letter is kept ("MSC/jrt" -> "KLD/bmw").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from radeid.replace.surrogate.keyed import ascii_initial

__all__ = ["is_transcription_initials", "render_initials"]

_RUN = re.compile(r"[^\W\d_]{2,4}")
_PAIR = re.compile(r"[^\W\d_]{2,4}/[^\W\d_]{2,4}")


def is_transcription_initials(text: str, start: int, end: int) -> bool:
    """A span of 2-4 letters in one case right beside a slash and another run of letters
    ("MSC/jrt", "jrt/MSC"), or the whole pair as one span."""
    original = text[start:end]
    if "/" in original:
        return _PAIR.fullmatch(original) is not None
    after = text[end : end + 2]
    before = text[max(0, start - 2) : start]
    beside = (len(after) == 2 and after[0] == "/" and after[1].isalpha()) or (
        len(before) == 2 and before[1] == "/" and before[0].isalpha()
    )  # the cheap test first: most names have no slash beside them
    return beside and _RUN.fullmatch(original) is not None and (original.isupper() or original.islower())


def render_initials(original: str, letters: Mapping[str, str], fallback: str) -> str:
    """Each letter through the scope's initial permutation (`fallback` for a letter outside it),
    in the letter's case; anything else (the slash) kept."""
    out = []
    for ch in original:
        if not ch.isalpha():
            out.append(ch)
            continue
        new = letters.get(ascii_initial(ch), fallback)
        out.append(new.lower() if ch.islower() else new.upper())
    return "".join(out)
