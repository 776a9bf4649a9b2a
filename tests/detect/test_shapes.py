"""Word shapes per word piece (`radeid.detect.shapes`): the casing input of the bundled model."""

from __future__ import annotations

import random

from radeid.detect.shapes import SHAPES, word_shape, word_shapes


def _reference_shapes(text: str, offsets: list[tuple[int, int]]) -> list[int]:
    """The definition spelled out: walk out from each piece's first character over alphanumerics."""
    shapes = []
    for start, end in offsets:
        if end <= start or start >= len(text):
            shapes.append(0)
        elif not text[start].isalnum():
            shapes.append(word_shape(text[start]))
        else:
            lo, hi = start, max(end, start + 1)
            while lo > 0 and text[lo - 1].isalnum():
                lo -= 1
            while hi < len(text) and text[hi].isalnum():
                hi += 1
            shapes.append(word_shape(text[lo:hi]))
    return shapes


def test_word_shapes_of_pieces() -> None:
    text = "Dr. McDonald saw JOHNSON at 10am, T12."
    # pieces as a WordPiece tokenizer cuts them: "mc", "##donald", "johnson" split in two
    offsets = [(0, 0), (0, 2), (2, 3), (4, 6), (6, 12), (13, 16), (17, 21), (21, 24), (25, 27),
               (28, 30), (30, 32), (32, 33), (34, 37), (37, 38), (0, 0)]  # fmt: skip
    names = [SHAPES[i] for i in word_shapes(text, offsets)]
    assert names == ["<pad>", "Xxxx", ".", "xXxX", "xXxX", "xxxx", "XXXX", "XXXX", "xxxx",
                     "Xd", "Xd", ".", "Xd", ".", "<pad>"]  # fmt: skip


def test_word_shapes_match_the_spelled_out_definition_on_fuzzed_text() -> None:
    rng = random.Random(7)
    alphabet = "aZé9_- .,'\n\t²½Ⅻ٣ßİǅ中x"  # letters, digits and numerals of other scripts, underscores
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        offsets = sorted((rng.randint(0, len(text) + 2), rng.randint(0, len(text) + 2)) for _ in range(12))
        assert word_shapes(text, offsets) == _reference_shapes(text, offsets), (text, offsets)
