"""Keyed randomness and the small text helpers every generator shares.

Every surrogate choice is a pure function of (secret key, scope, what is being replaced): the
same patient gets the same fake on any machine, in any order, with no stored mapping. A choice
costs one keyed hash; the digest is then read as a stream of small integers (`KeyStream`), which
is several times cheaper than seeding a `random.Random` per entity.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from hashlib import blake2b
from typing import TypeVar

from radeid.patterns.names import fold_name as fold_name  # the surrogates import it from here

T = TypeVar("T")

_DOMAIN = b"radeid/surrogate/v1"
#: Bound of a replacer's per-scope caches (a patient's shift, initials, keyed state, vendor
#: words; about 1.5 KB a patient): a scope's entries serve its own documents, which mostly come
#: together, so a run over many patients keeps its memory flat.
SCOPE_CACHE_LIMIT = 4096
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_WORDS = struct.Struct(">8I")  # a SHA-256 digest as eight 32-bit draws


class Keyed:
    """Keyed pseudo-random functions of (scope, what), under a subkey of the user's secret.

    `digest(scope, *parts)` = BLAKE2b-256 keyed with HMAC-SHA256(secret', scope) over the
    parts, where secret' = HMAC-SHA256(secret, domain). The per-scope HMAC is
    computed once per scope (cached); keyed BLAKE2b is a standard PRF/MAC and about three times
    cheaper per call than a second HMAC, which matters at ~15 choices per report. The keyed
    BLAKE2b state itself is kept per scope and copied for each call: a copy costs half of a
    fresh keyed start (which hashes a whole key block), and the digest is the same.
    """

    __slots__ = ("_key", "_scopes")

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, (bytes, bytearray)) or not key:
            raise ValueError("the surrogate key must be non-empty bytes")
        # Domain separation: the same user secret also opens the vault; the two uses never share
        # a key, so an output here can never help an attack on the vault or the other way round.
        self._key = hmac.digest(bytes(key), _DOMAIN, "sha256")
        self._scopes: dict[str, blake2b] = {}  # scope -> keyed BLAKE2b state, before any data

    def __repr__(self) -> str:
        return "Keyed(<secret>)"

    def _scope_state(self, scope: str) -> blake2b:
        state = self._scopes.get(scope)
        if state is None:
            if len(self._scopes) > SCOPE_CACHE_LIMIT:
                self._scopes.clear()
            sub = hmac.digest(self._key, scope.encode("utf-8", "surrogatepass"), "sha256")
            state = self._scopes[scope] = blake2b(key=sub, digest_size=32)
        return state

    def digest(self, scope: str, *parts: str) -> bytes:
        """32 pseudo-random bytes for `parts` within `scope`: the seed of `stream(scope, *parts)`.

        Parts are joined with U+001F (unit separator): only document text could contain it,
        and a clash would merely give two odd originals one fake, never leak anything.
        """
        return self.stream(scope, *parts).seed

    def stream(self, scope: str, *parts: str) -> KeyStream:
        """The keyed draws for `parts` within `scope`. The hash is written here, not in `digest`:
        a report makes about 12 streams and 2 digests, and the call between them cost 1.5% of
        the surrogates' instructions."""
        state = self._scopes.get(scope)
        if state is None:
            state = self._scope_state(scope)
        hasher = state.copy()
        hasher.update("\x1f".join(parts).encode("utf-8", "surrogatepass"))
        return KeyStream(hasher.digest())


class KeyStream:
    """A deterministic stream of integers drawn from one digest (re-hashed when used up)."""

    __slots__ = ("_seed", "_ints", "_pos", "_block")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._ints: tuple[int, ...] = _WORDS.unpack(seed)
        self._pos = 0
        self._block = 0

    @property
    def seed(self) -> bytes:
        """The 32 bytes the stream draws from (`Keyed.digest`)."""
        return self._seed

    def _next(self) -> int:
        """The next 32 random bits."""
        if self._pos == 8:
            self._block += 1
            self._ints = _WORDS.unpack(hashlib.sha256(self._seed + self._block.to_bytes(4, "big")).digest())
            self._pos = 0
        value = self._ints[self._pos]
        self._pos += 1
        return value

    def below(self, n: int) -> int:
        """An integer in [0, n); 32 random bits keep the modulo bias below 1e-6 for small n."""
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError("below() needs a positive bound")
        pos = self._pos
        if pos == 8:
            value = self._next()
        else:  # `_next` inline: this is the draw every generator makes
            value = self._ints[pos]
            self._pos = pos + 1
        if n < 1 << 20:
            return value % n
        return ((value << 32) | self._next()) % n

    def between(self, low: int, high: int) -> int:
        """An integer in [low, high], both ends included."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chance(self, probability: float) -> bool:
        return self._next() < probability * 4294967296.0

    def digit(self) -> str:
        return "0123456789"[self.below(10)]

    def _big(self) -> int:
        """256 fresh random bits as one integer (one hash), for many symbols at once."""
        self._block += 1
        return int.from_bytes(hashlib.sha256(self._seed + self._block.to_bytes(4, "big")).digest(), "big")

    def digits(self, k: int) -> str:
        """k uniform decimal digits (bias below 1e-17: 60 digits per 256 bits)."""
        out = []
        while k > 0:
            take = min(k, 60)
            out.append(f"{self._big() % 10**take:0{take}d}")
            k -= take
        return "".join(out)

    def letters(self, k: int) -> str:
        """k uniform capital letters (50 per 256 bits)."""
        out = []
        while k > 0:
            take = min(k, 50)
            value = self._big()
            for _ in range(take):
                value, r = divmod(value, 26)
                out.append(LETTERS[r])
            k -= take
        return "".join(out)


# --- normalisation -------------------------------------------------------------------------------

_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """Compare-key for whole strings: NFKC, case-folded, whitespace collapsed."""
    if text.isascii():
        return " ".join(text.lower().split())
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@lru_cache(maxsize=1 << 16)
def fold_alnum(text: str) -> str:
    """Compare-key for identifiers: letters and digits only, upper case ("12-34" == "1234")."""
    return "".join(filter(str.isalnum, unicodedata.normalize("NFKC", text))).upper()


@lru_cache(maxsize=1 << 16)
def ascii_initial(text: str) -> str:
    """Upper-case ASCII letter a word starts with ("É" -> "E"), or "" when there is none."""
    for ch in unicodedata.normalize("NFKD", text):
        if ch.isalpha():
            up = ch.upper()
            return up if "A" <= up <= "Z" else ""
    return ""


# --- case styles ---------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def case_style(word: str) -> str:
    """'upper', 'lower', 'title' or 'mixed' (e.g. "McDonald"); one letter counts by its case."""
    letters = [ch for ch in word if ch.isalpha()]
    if not letters:
        return "title"
    if all(ch.isupper() for ch in letters):
        return "upper"
    if all(ch.islower() for ch in letters):
        return "lower"
    if letters[0].isupper() and all(ch.islower() for ch in letters[1:]):
        return "title"
    return "mixed"


def apply_case(word: str, style: str) -> str:
    """Render a (title-case) surrogate word in the style of the original word."""
    if style == "upper":
        return word.upper()
    if style == "lower":
        return word.lower()
    return word


def shape_scramble(text: str, stream: KeyStream) -> str:
    """Digit for digit, letter for letter (case kept), everything else kept."""
    if text.isdigit():
        return stream.digits(len(text))
    digits = iter(stream.digits(sum(map(str.isdigit, text)))).__next__
    letters = iter(stream.letters(sum(map(str.isalpha, text)))).__next__
    return "".join(
        [
            digits() if ch.isdigit() else (letters().lower() if ch.islower() else letters()) if ch.isalpha() else ch
            for ch in text
        ]
    )
