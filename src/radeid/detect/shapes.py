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

from collections.abc import Mapping, Sequence
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
    """Shape id per word piece: the shape of the alphanumeric word around the piece's first character.

    Pieces with empty offsets (special tokens) get 0. Runs over each word once per piece, which is
    linear in practice (words are short).
    """
    shapes: list[int] = []
    n = len(text)
    cache: dict[tuple[int, int], int] = {}
    for start, end in offsets:
        if end <= start or start >= n:
            shapes.append(0)
            continue
        if not text[start].isalnum():
            shapes.append(word_shape(text[start]))
            continue
        lo, hi = start, max(end, start + 1)
        while lo > 0 and text[lo - 1].isalnum():
            lo -= 1
        while hi < n and text[hi].isalnum():
            hi += 1
        key = (lo, hi)
        if key not in cache:
            cache[key] = word_shape(text[lo:hi])
        shapes.append(cache[key])
    return shapes


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
