"""Evaluation tokens: maximal runs of word characters, and each other non-space character alone.

Token-level scores need a tokenisation that does not depend on any model, so that rules, models
and other tools (Presidio) are compared on the same units; ensembles (`radeid.detect.ensemble`) vote
on the same units, so what they combine is what evaluation counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


#: A tokenizer gives the `(start, end)` character offsets of the units that token-level scores count.
Tokenizer = Callable[[str], Sequence[tuple[int, int]]]

_NON_SPACE = re.compile(r"\S+")


def whitespace_tokens(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of every whitespace-separated chunk: coarser units, closer to "words" as people count them."""
    return [m.span() for m in _NON_SPACE.finditer(text)]


def hf_tokenizer(name: str) -> Tokenizer:
    """Score on a Hugging Face model's own word pieces, so token figures match what the model sees.

    Needs `transformers` (the `radeid[train]` extra) and a fast tokenizer (offset mappings).
    Special tokens are left out and leading/trailing whitespace is trimmed off each piece.
    """
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ValueError("a Hugging Face tokenizer needs `transformers` (pip install 'radeid[train]')") from exc
    tok = AutoTokenizer.from_pretrained(name)
    if not getattr(tok, "is_fast", False):  # pragma: no cover - depends on the model
        raise ValueError(f"tokenizer {name!r} is not a fast tokenizer; offsets are needed for evaluation")

    def tokenize(text: str) -> list[tuple[int, int]]:
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        pieces: list[tuple[int, int]] = []
        for start, end in enc["offset_mapping"]:
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start and (not pieces or (start, end) != pieces[-1]):
                pieces.append((start, end))
        return pieces

    return tokenize


def get_tokenizer(spec: str | Tokenizer | None = None) -> Tokenizer:
    """`"words"` (default: `word_tokens`), `"whitespace"`, `"hf:NAME_OR_PATH"`, or a callable as is."""
    if spec is None or spec == "words":
        return word_tokens
    if callable(spec):
        return spec
    if spec == "whitespace":
        return whitespace_tokens
    if spec.startswith("hf:") and len(spec) > 3:
        return hf_tokenizer(spec[3:])
    raise ValueError(f"unknown tokenizer {spec!r}; use 'words', 'whitespace' or 'hf:MODEL_NAME_OR_PATH'")
