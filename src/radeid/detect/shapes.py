"""Word shapes of word pieces: the casing signal an uncased encoder cannot see.

all-MiniLM-L6-v2 lower-cases its input, so "Smith" and "smith", "MRI" and "mri" reach it as the
same pieces, yet capitalisation is one of the strongest cues for names. A model trained by
`radeid train` can therefore take, next to each word piece, the *shape* of the word the piece
belongs to, read from the original characters through the tokenizer's offsets: `Xxxx`, `XXXX`,
`xxxx`, `dd`, ... The shape is taken over the whole alphanumeric word, so every piece of
"Johnson" carries `Xxxx`, not just the first.

The same function runs at training time and at inference (plain Python, no torch), so the ids
the model learnt are the ids it is fed. A model declares the feature in its folder
(`config.json` key `radeid_shape_features`, copied to `radeid.json` on export) with the version
of the shape table below; a new table must get a new version.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

__all__ = [
    "CONFIG_KEY",
    "SHAPES",
    "SHAPE_VERSION",
    "shape_spec",
    "word_shape",
    "word_shapes",
]

#: Key in config.json / radeid.json that declares the shape input: `{"version": 1, "size": N, "dim": D}`.
CONFIG_KEY = "radeid_shape_features"

#: Version of the table below; stored with every model that uses shapes.
SHAPE_VERSION = 1

#: Shape names by id. Id 0 is padding and special tokens ([CLS], [SEP]).
SHAPES: tuple[str, ...] = (
    "<pad>",  # 0 padding, special tokens
    "xxxx",  # 1 lower-case word
    "Xxxx",  # 2 capitalised word
    "XXXX",  # 3 all capitals, two letters or more
    "X",  # 4 one capital letter (initials, "L" in "L4")
    "x",  # 5 one lower-case letter
    "xXxX",  # 6 other mixed case (McDonald, iPhone)
    "dd",  # 7 digits only
    "Xd",  # 8 letters and digits (T12, CT21, 4mm)
    ".",  # 9 punctuation and symbols
    "other",  # 10 anything else (letters outside Latin casing, e.g. CJK)
)
_INDEX = {name: i for i, name in enumerate(SHAPES)}


def word_shape(word: str) -> int:
    """Shape id of one word (a run of alphanumerics, or a single other character)."""
    if not word:
        return 0
    letters = [c for c in word if c.isalpha()]
    has_digit = any(c.isdigit() for c in word)
    if not letters:
        return _INDEX["dd"] if has_digit else _INDEX["."]
    if has_digit:
        return _INDEX["Xd"]
    upper = sum(c.isupper() for c in letters)
    lower = sum(c.islower() for c in letters)
    if upper == 0 and lower == 0:
        return _INDEX["other"]
    if len(letters) == 1:
        return _INDEX["X"] if upper else _INDEX["x"]
    if lower == 0:
        return _INDEX["XXXX"]
    if upper == 0:
        return _INDEX["xxxx"]
    if upper == 1 and letters[0].isupper():
        return _INDEX["Xxxx"]
    return _INDEX["xXxX"]


def word_shapes(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    r"""Shape id per word piece: the shape of the alphanumeric word around the piece's first character.

    Pieces with empty offsets (special tokens) get 0. The words are found once per text with one
    regular expression (`[^\W_]` is exactly `str.isalnum`) and each distinct word is shaped once
    (`_cached_shape`): this runs for every word piece of every report, so walking the characters
    around each piece in Python cost several milliseconds per report.
    """
    n = len(text)
    runs = [m.span() for m in _ALNUM_RUN.finditer(text)]
    run_starts = [lo for lo, _ in runs]
    shapes: list[int] = []
    for start, end in offsets:
        if end <= start or start >= n:
            shapes.append(0)
            continue
        if not text[start].isalnum():
            shapes.append(_cached_shape(text[start]))
            continue
        lo, hi = runs[bisect.bisect_right(run_starts, start) - 1]
        if end > hi:  # a piece that runs past its word (never seen with WordPiece): take it whole
            lo, hi = _grow(text, lo, end)
        shapes.append(_cached_shape(text[lo:hi]))
    return shapes


_ALNUM_RUN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=65536)
def _cached_shape(word: str) -> int:
    return word_shape(word)


def _grow(text: str, lo: int, end: int) -> tuple[int, int]:
    """`[lo, end)` grown to the right over alphanumerics."""
    hi = end
    while hi < len(text) and text[hi].isalnum():
        hi += 1
    return lo, hi


def shape_spec(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The shape declaration of a model config (None when the model takes no shapes); checks the version."""
    if not config:
        return None
    spec = config.get(CONFIG_KEY)
    if not spec:
        return None
    if not isinstance(spec, Mapping) or spec.get("version") != SHAPE_VERSION:
        version = spec.get("version") if isinstance(spec, Mapping) else spec
        raise ValueError(
            f"the model uses word-shape features version {version!r}; this radeid computes version "
            f"{SHAPE_VERSION}: use the radeid version the model was trained with"
        )
    return dict(spec)
