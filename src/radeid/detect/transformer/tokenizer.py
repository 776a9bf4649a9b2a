"""`PieceTokenizer`: a fast tokenizer set up the one way radeid needs it, for inference and training.

Whole texts in (never truncated or padded), word-piece ids with exact character offsets out, and
the model's special tokens kept apart so that windows can be wrapped in them. Windows themselves
are cut by `radeid.detect.chunking`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["PieceTokenizer"]


class PieceTokenizer:
    """A `tokenizers.Tokenizer` set up never to truncate or pad, plus the model's special tokens."""

    def __init__(self, tokenizer: Tokenizer, pad_id: int | None = None) -> None:
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self.tokenizer = tokenizer
        probe = "a"
        bare = tokenizer.encode(probe, add_special_tokens=False).ids
        full = tokenizer.encode(probe, add_special_tokens=True).ids
        self.prefix, self.suffix = _split_specials(full, bare)
        self.pad_id = pad_id if pad_id is not None else _guess_pad_id(tokenizer)

    @property
    def n_special(self) -> int:
        return len(self.prefix) + len(self.suffix)

    def encode(self, texts: Sequence[str]) -> list[tuple[list[int], list[tuple[int, int]]]]:
        """Word-piece ids and character offsets into each original text (no special tokens)."""
        # A lone surrogate (valid in a Python str, not in UTF-8) makes the tokenizer raise; U+FFFD
        # is one code point too, so every offset stays an index into the original text.
        clean = [_LONE_SURROGATE.sub("\ufffd", t) for t in texts]
        encodings = self.tokenizer.encode_batch(clean, add_special_tokens=False)
        return [(list(e.ids), [tuple(o) for o in e.offsets]) for e in encodings]  # type: ignore[misc]

    def wrap(self, ids: Sequence[int]) -> list[int]:
        return [*self.prefix, *ids, *self.suffix]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _split_specials(full: Sequence[int], bare: Sequence[int]) -> tuple[list[int], list[int]]:
    for i in range(len(full) - len(bare) + 1):
        if list(full[i : i + len(bare)]) == list(bare):
            return list(full[:i]), list(full[i + len(bare) :])
    return [], []


def _guess_pad_id(tokenizer: Tokenizer) -> int:
    for token in ("[PAD]", "<pad>", "<PAD>"):
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return int(token_id)
    return 0
