"""English numbers written in words ("ninety-one"), read by the age validator and the age form check.

Its own module so that the validators and the form checks, which read each other's tables, do not
import each other.
"""

from __future__ import annotations

import re

__all__ = ["number_from_words"]

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_NUMBER_WORD_SPLIT = re.compile(r"[\s-]+")


def number_from_words(text: str) -> int | None:
    """The value of an English number written in words below 1,000: "ninety-one" -> 91,
    "one hundred and two" -> 102, "a hundred" -> 100; None when a word is not a number word."""
    total = 0
    seen = False
    for word in _NUMBER_WORD_SPLIT.split(text.strip().lower()):
        if not word or word == "and":
            continue
        if word == "a" and not seen:
            total, seen = 1, True
        elif word == "hundred":
            total = (total or 1) * 100
            seen = True
        elif word in _NUMBER_WORDS:
            total += _NUMBER_WORDS[word]
            seen = True
        else:
            return None
    return total if seen else None
