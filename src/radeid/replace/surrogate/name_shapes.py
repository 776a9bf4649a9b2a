"""Name shapes of a language: the particles a surrogate keeps and the titles it reads.

English surrogates drop a surname's particles with it ("Dr. Van der Berg" -> "Dr. Lang"). In
Spanish and German the particles are part of the name's shape: "Danilo Ramos de Madrid" should
come back as "Emiliano Jaén de Plaza", "Friedrich von Hohenberg" as "Raymund von Mühle". A
language pack that wants this holds a `names.toml` (`data/lang/<code>/names.toml`): the particles
kept as written, each followed by a fake surname; the words that join two surnames ("Fuente y
Ortega"); and the titles written before a name, which are kept and may tell the gender ("Dña.",
"Frau", "Prof. Dr. med."); and how many surnames a full name ends with (two in Spanish). A
language without the file keeps the English behaviour exactly.

Particles and joins name no one: they may stay in a surrogate, and the leak check accepts them
(`data/surrogates/generic_tokens.toml`, `[names]`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from radeid.core.resources import bundled_data_path
from radeid.patterns.names import fold_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["NameShapes", "name_shapes", "shape_roles"]

#: the role of a particle or join kept as written in the surrogate (English particles: "particle", dropped)
KEEP = "keep"


@dataclass(frozen=True)
class NameShapes:
    """A language's name particles (folded word sequences), joins and titles (folded -> F/M/"")."""

    particles: frozenset[tuple[str, ...]]
    joins: frozenset[str]
    titles: Mapping[str, str]
    longest: int = 1
    surnames: int = 1  # how many surnames a full name ends with (Spanish 2: "Carmen Martín Pérez")

    def particle_at(self, words: Sequence[str], i: int) -> int:
        """How many words from `words[i]` form the longest particle (0: none)."""
        for n in range(min(self.longest, len(words) - i), 0, -1):
            if tuple(words[i : i + n]) in self.particles:
                return n
        return 0


def _language(locale: str) -> str:
    """ "es_ES" -> "es"."""
    return locale.replace("-", "_").split("_")[0].lower()


@lru_cache(maxsize=16)
def name_shapes(locale: str) -> NameShapes | None:
    """The name shapes of the locale's language pack, or None (the English behaviour) when its
    pack has no `names.toml`."""
    lang = _language(locale)
    if not lang.isalpha():
        return None
    path = bundled_data_path("lang", lang, "names.toml")
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        table = tomllib.load(handle).get("names", {})
    particles = frozenset(tuple(fold_name(w) for w in p.split()) for p in table.get("particles", ()))
    titles = {fold_name(t): str(g) for t, g in table.get("titles", {}).items()}
    return NameShapes(
        particles=particles,
        joins=frozenset(fold_name(w) for w in table.get("joins", ())),
        titles=titles,
        longest=max((len(p) for p in particles), default=1),
        surnames=int(table.get("surnames", 1)),
    )


def shape_roles(
    folded: Sequence[str],
    known_given: Mapping[str, str],
    shapes: NameShapes,
    has_title: bool,
    foreign: frozenset[str] = frozenset(),
) -> list[str]:
    """Roles of a mention's compounds (one folded word each, "" for a hyphenated compound) in a
    language with name shapes. The first compound is a given name (after a title only a known
    first name or a hyphenated one: "Dra. Villalba Crespo"); then a known first name is a given
    name and any other word a surname ("Carmen Ruiz Pérez", "María José García-López"), except
    that the language's last `surnames` words are surnames whatever they are ("Carmen Martín
    Pérez": Martín is a first name elsewhere, a surname here). A particle
    ("de la", "von und zu") or a join ("y") between name words is kept, and every word after one
    is a surname. A particle may open the name ("de la Fuente", "Dr. von Hohenberg") or end a cut
    one ("Ramos de"). A particle of another language (`foreign`: "van" in a Spanish report) goes
    with its surname, as in English."""
    n = len(folded)
    roles = ["given"] * n
    units = _surname_units(folded, shapes)
    i, surnames = 0, False
    while i < n:
        word = folded[i]
        size = shapes.particle_at(folded, i) if word else 0
        if size and (i + size < n or i > 0):
            roles[i : i + size] = [KEEP] * size
            i += size
            surnames = True
            continue
        if word in shapes.joins and 0 < i < n - 1 and roles[i - 1] != KEEP:
            roles[i] = KEEP
        elif word in foreign and i + 1 < n and (i > 0 or has_title or n > 2):
            roles[i] = "particle"
        elif surnames or (i > 0 and (not word or units[i] <= shapes.surnames)):
            roles[i] = "surname"
        elif (i > 0 or has_title) and word and word not in known_given:
            roles[i] = "surname"
        surnames = surnames or (i > 0 and roles[i] != "given")
        i += 1
    if roles and roles[-1] == "given" and (n > 1 or has_title):
        roles[-1] = "surname"
    return roles


def _surname_units(folded: Sequence[str], shapes: NameShapes) -> list[int]:
    """For each compound, how many name words from it to the end (a hyphenated compound counts
    two, particles and joins none): a word with no more than `shapes.surnames` is a surname."""
    units = [0] * (len(folded) + 1)
    for i in range(len(folded) - 1, -1, -1):
        word = folded[i]
        own = 2 if not word else 0 if (word in shapes.joins or any(word in p for p in shapes.particles)) else 1
        units[i] = units[i + 1] + own
    return units
