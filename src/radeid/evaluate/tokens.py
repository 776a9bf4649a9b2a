"""Evaluation tokens: maximal runs of word characters, and each other non-space character alone.

Token-level scores need a tokenisation that does not depend on any model, so that rules, models
and other tools (Presidio) are compared on the same units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_TOKEN = re.compile(r"\w+|[^\w\s]")


def word_tokens(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of every evaluation token of `text`."""
    return [m.span() for m in _TOKEN.finditer(text)]


def covered_tokens(tokens: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[bool]:
    """For each token, whether any span overlaps it (a token counts as PHI if any part is)."""
    ordered = sorted(spans)
    flags: list[bool] = []
    j = 0
    for start, end in tokens:
        # spans ending at or before this token can never overlap a later token either
        while j < len(ordered) and ordered[j][1] <= start:
            j += 1
        hit = False
        k = j
        while k < len(ordered) and ordered[k][0] < end:
            if ordered[k][1] > start:
                hit = True
                break
            k += 1
        flags.append(hit)
    return flags
