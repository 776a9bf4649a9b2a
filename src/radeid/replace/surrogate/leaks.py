"""Which words of an original reappear in its surrogate.

A surrogate that keeps a distinctive word of the original ("410 Orchard Lane" -> "521 Orchard
Lane") leaves PHI in the output. Only words that name a kind of thing may stay: a street type at
the end of a street name, "Hospital", a URL's scheme; they are data
(`data/surrogates/generic_tokens.toml`). Every other word or number of two characters or more
that reappears is a leak, and the engine draws the surrogate again. Dates and ages are checked by
value elsewhere: a shifted date may rightly keep its year or month.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache

from radeid.core.categories import Category
from radeid.core.resources import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["GenericWords", "generic_words", "leaked_name_words", "leaked_tokens", "name_generic_words"]

_TOKEN = re.compile(r"[^\W_]+")
_BOUNDARY = re.compile(r"[,;:()\n]|\d")  # what may follow the type word that ends a street name
_VALUE_CHECKED = frozenset({Category.DATE, Category.AGE, Category.PATIENT, Category.HCW})


@dataclass(frozen=True)
class GenericWords:
    """The words of one category that may stay, folded."""

    words: frozenset[str]
    street_types: frozenset[str] = frozenset()
    units: frozenset[str] = frozenset()


@cache
def generic_words(category: Category) -> GenericWords:
    """The category's generic words (with the words common to every category)."""
    with bundled_data_path("surrogates", "generic_tokens.toml").open("rb") as handle:
        table = tomllib.load(handle)
    common = table.get("all", {}).get("words", [])
    own = table.get(category.value, {})
    kinds: list[str] = []
    if category is Category.HOSPITAL:  # the kind words facility surrogates keep, one list for both
        with bundled_data_path("surrogates", "places.toml").open("rb") as handle:
            kinds = tomllib.load(handle).get("common", {}).get("facility_words", [])
    return GenericWords(
        words=frozenset(w.casefold() for w in [*common, *own.get("words", []), *kinds]),
        street_types=frozenset(w.casefold() for w in own.get("street_types", [])),
        units=frozenset(w.casefold() for w in own.get("units", [])),
    )


@cache
def name_generic_words() -> frozenset[str]:
    """The words of a person name that may stay in its surrogate, folded: the particles and joins
    of the languages' name shapes ("de la", "von") and titles ("Dña.", "Prof. Dr. med.")."""
    with bundled_data_path("surrogates", "generic_tokens.toml").open("rb") as handle:
        table = tomllib.load(handle).get("names", {})
    return frozenset(w.casefold() for key in ("particles", "titles") for w in table.get(key, ()))


def leaked_name_words(original: str, surrogate: str) -> frozenset[str]:
    """Folded words (2+ characters) of a person name found again in its surrogate, less the
    generic words of names (`name_generic_words`). The name planner never keeps a name word; this
    is the check of that promise (tests, audits)."""
    words = {m.group().casefold() for m in _TOKEN.finditer(original)}
    kept = {m.group().casefold() for m in _TOKEN.finditer(surrogate)}
    return frozenset(w for w in words & kept if len(w) > 1) - name_generic_words()


def _kind_words(original: str, generic: GenericWords) -> set[str]:
    """Street types of `original` that stand where a type stands: last word of the name."""
    if not generic.street_types:
        return set()
    kinds: set[str] = set()
    matches = list(_TOKEN.finditer(original))
    for m, after in zip(matches, [*matches[1:], None], strict=True):
        word = m.group().casefold()
        if word not in generic.street_types:
            continue
        if after is None or _BOUNDARY.search(original[m.end() : after.start()]):
            kinds.add(word)
        elif after.group().casefold() in generic.units or after.group()[0].isdigit():
            kinds.add(word)
    return kinds


def leaked_tokens(original: str, surrogate: str, category: Category) -> frozenset[str]:
    """Folded words and numbers (2+ characters) of `original` found in `surrogate`, less the
    category's generic words. Empty for dates, ages and names (checked by value and by the
    name planner)."""
    if category in _VALUE_CHECKED:
        return frozenset()
    folded = surrogate.casefold()
    # a substring test first, with no set built: most surrogates share no word with their original
    # (not cached: most originals checked here are IDs and phone numbers seen once, and a cache
    # that mostly misses costs more than reading a few words)
    near = [word for word in map(str.casefold, _TOKEN.findall(original)) if len(word) > 1 and word in folded]
    if not near:
        return frozenset()
    generic = generic_words(category)
    shared = set(near) - generic.words
    if not shared:
        return frozenset()
    shared &= {m.group().casefold() for m in _TOKEN.finditer(surrogate)}
    if shared & generic.street_types:
        shared -= _kind_words(original, generic)
    return frozenset(shared)
