"""Invented, pronounceable brand and model words of the original's shape.

`LOGIQ E9` -> `MORAX C7`, `3Dimensions` -> `4Tavelonix`, `IntelliSpace` -> `TabeloRinex`: words of
three letters or more become words of the bundled list of invented brand words
(`data/surrogates/vendor_words.txt`, built by `scripts/build_vendor_words.py`) of the same
length (4 to 11 letters; shorter ones get 4, longer ones 12), in the same case pattern (all
capitals, capitalised, camel case); digit runs become digits of the same length (no leading zero
where there was none); runs of one or two letters ("E" of "E9", "GE") become other capitals. A
word that is a real vendor or product word (the bundled vendor lexicon) is never produced.

Distinct words never share a fake in one scope (issue 28: "Siemens" and "Philips" both became
"Quantivo"): the list is cut into one bucket per length whose size is a prime N, and a word's
slot in it goes through a keyed affine permutation of the scope, (a * slot + b) mod N with
0 < a < N, a bijection (one keyed digest per scope gives every bucket's a and b). The words of
the vendor lexicon hold the first slots of their bucket, in sorted order, so two of them can
never meet; any other word gets a keyed slot among the rest, so it never takes a lexicon word's
fake (two such words may meet, one chance in a few hundred; the document's check in
`vendors.py` then draws again).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
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


def is_short(run: str) -> bool:
    """A letter run written as letters, not a word: one or two letters, or up to three capitals."""
    return len(run) <= 2 or (run.isupper() and len(run) <= 3)


def brand_token(token: str, stream: KeyStream, word: Callable[[str], str] | None = None) -> str:
    """An invented token of the same shape (see the module docstring); never the token itself.
    `word` (folded letter run -> invented word) writes runs of three letters or more."""
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
                out.append(camel_like(word(fold(run)), run) if word and not is_short(run) else _letters(run, stream))
            else:
                out.append(run)
        new = "".join(out)
        if fold(new) != fold(token) and (not new.isalpha() or fold(new) not in real_vendor_words()):
            break
    return new


_LENGTHS = range(4, 13)  # bucket lengths: shorter words use 4, longer ones 12


def bucket_of(length: int) -> int:
    """The bucket length a word of `length` letters draws from."""
    return min(max(length, _LENGTHS[0]), _LENGTHS[-1])


def _prime_at_most(n: int) -> int:
    while n > 2 and any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n -= 1
    return n


@lru_cache(maxsize=1)
def brand_buckets() -> dict[int, tuple[tuple[str, ...], dict[str, int]]]:
    """Per bucket length: the invented words (a prime number of them) and the slots of the
    lexicon's words of that length (sorted, from 0)."""
    real = real_vendor_words()
    words = [w for w in read_word_list(bundled_data_path("surrogates", "vendor_words.txt")) if fold(w) not in real]
    out: dict[int, tuple[tuple[str, ...], dict[str, int]]] = {}
    for length in _LENGTHS:
        pool = [w for w in words if len(w) == length]
        pool = pool[: _prime_at_most(len(pool))]
        known = sorted(w for w in real if w.isalpha() and bucket_of(len(w)) == length)
        if len(known) >= len(pool):  # pragma: no cover - the bundled list is sized for the lexicon
            raise ValueError(f"vendor_words.txt has too few words of {length} letters")
        out[length] = (tuple(pool), {w: i for i, w in enumerate(known)})
    return out


def scope_bytes(digest: bytes) -> bytes:
    """64 keyed bytes of a scope (its digest and the digest's SHA-256): every bucket's permutation
    is read from its own 6 of them, so one keyed hash per scope serves all buckets."""
    return digest + hashlib.sha256(digest).digest()


def brand_word(folded: str, keyed_bytes: bytes, draw: Callable[[], int]) -> str:
    """The invented word (capitalised) for a folded word of the original: its slot (the lexicon's
    own, else `draw()`, called only then, among the other slots) through its bucket's permutation
    (a * slot + b) mod n, a and b read from the bucket's 6 bytes of `keyed_bytes` (`scope_bytes`)."""
    length = len(folded)
    length = 4 if length < 4 else 12 if length > 12 else length  # bucket_of, inline: once per word
    pool, known = brand_buckets()[length]
    n = len(pool)
    slot = known.get(folded)
    if slot is None:
        slot = len(known) + draw() % (n - len(known))
    at = 6 * (length - _LENGTHS[0])
    a = 1 + int.from_bytes(keyed_bytes[at : at + 3], "big") % (n - 1)
    b = int.from_bytes(keyed_bytes[at + 3 : at + 6], "big") % n
    return pool[(a * slot + b) % n]


def any_brand_word(length: int, value: int) -> str:
    """A word of the bucket of `length` letters picked by `value` (redraws: any word at all)."""
    pool = brand_buckets()[bucket_of(length)][0]
    return pool[value % len(pool)]


def camel_like(word: str, original: str) -> str:
    """`word` in the case pattern of `original`: all capitals, all small, capitalised, or camel
    case with a capital at a syllable start near the original's ("IntelliSpace" -> "TabeloRinex")."""
    if original[:1].isupper() and original[1:].islower():
        return word  # the list's words are capitalised: the common case first
    if original.isupper() and len(original) > 1:
        return word.upper()
    if original.islower():
        return word.lower()
    inner = [i for i, c in enumerate(original) if i and c.isupper()]
    if not inner:
        return word[:1].upper() + word[1:].lower() if original[:1].isupper() else word.lower()
    word = word.lower()
    want = inner[0] * len(word) / len(original)
    starts = [i for i in range(2, len(word) - 1) if word[i] not in "aeiou" and word[i + 1] in "aeiou"]
    out = word[:1].upper() if original[:1].isupper() else word[:1]
    if not starts:
        return out + word[1:]
    at = min(starts, key=lambda i: abs(i - want))
    return out + word[1:at] + word[at].upper() + word[at + 1 :]
