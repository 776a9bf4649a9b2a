"""Surrogate name pools: Faker's gendered first names and surnames per locale, indexed by
initial (and length), the gender table, and a scope's keyed initial permutation (`letter_map`).

Split from `names.py` (issue 11): the pools are built once per locale and shared by the name
surrogates (`names.py`) and the place and vendor surrogates (`places.py`).
"""

from __future__ import annotations

import hashlib
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import import_module

from radeid.core.resources import bundled_data_path, iter_word_list, read_word_list
from radeid.patterns.names import world_genders
from radeid.replace.surrogate.keyed import Keyed, ascii_initial, fold_name
from radeid.replace.surrogate.name_shapes import NameShapes, name_shapes

__all__ = [
    "LETTERS",
    "NamePools",
    "ending_gender",
    "length_pools",
    "letter_map",
    "name_pools",
    "place_words",
    "read_wgnd_in_background",
    "wgnd_gender",
    "world_genders",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class NamePools:
    """Surrogate name lists and the gender table, built once per locale and cached."""

    given: Mapping[str, tuple[str, ...]]  # "F" / "M" / "U" -> names
    surnames: tuple[str, ...]
    by_letter: Mapping[tuple[str, str], tuple[str, ...]]  # (pool id, letter); pool id F/M/U/L
    by_letter_len: Mapping[tuple[str, str, int], tuple[str, ...]]
    rich: tuple[str, ...]  # initials with enough names in every pool: the permutation's domain
    gender: Mapping[str, str]  # fold_name(first name) -> "F" | "M" | "U"
    world: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)  # all locales
    shapes: NameShapes | None = field(default=None, compare=False, repr=False)  # the language's particles, titles
    parse_cache: dict[tuple[str, str | None, bool], tuple] = field(  # type: ignore[type-arg]
        default_factory=dict, compare=False, repr=False
    )

    def pool(self, pool_id: str) -> tuple[str, ...]:
        return self.surnames if pool_id == "L" else self.given[pool_id]

    def gender_of(self, norm: str) -> str:
        """F, M or U for a folded first name from the tables (the locale's, Faker's world table,
        then WGND 2.0); "" when no table knows it."""
        return self.gender.get(norm) or self.world.get(norm) or wgnd_gender(norm)


def _weighted(names: object) -> dict[str, float]:
    if isinstance(names, Mapping):
        total = float(sum(names.values())) or 1.0
        return {str(k): float(v) / total for k, v in names.items()}
    items = list(names)  # type: ignore[call-overload]
    return {str(k): 1.0 / max(len(items), 1) for k in items}


def _person_provider(locale: str) -> object | None:
    try:
        provider: object = import_module(f"faker.providers.person.{locale}").Provider
        return provider
    except (ImportError, AttributeError):
        return None


_wgnd: bytes | None = None


def _read_wgnd() -> bytes:
    """first_names_gender_wgnd.tsv.gz unpacked (about 20 MB): sorted "name<TAB>F|M" lines,
    searched in place (a dict of 1.6 million names would take several times the memory). One
    `zlib` call, which runs without the GIL, so `read_wgnd_in_background` overlaps it with other
    work."""
    data = zlib.decompress(bundled_data_path("surrogates", "first_names_gender_wgnd.tsv.gz").read_bytes(), 31)
    return data[data.index(b"\n") + 1 :] if data.startswith(b"#") else data


def _wgnd_lines() -> bytes:
    """The WGND lines, read on first need (only when a name is missing from the smaller tables)."""
    global _wgnd
    if _wgnd is None:
        _wgnd = _read_wgnd()
    return _wgnd


def read_wgnd_in_background() -> threading.Thread:
    """Start reading the WGND table in a thread (the fork server's warm-up: about 0.07 s of
    decompression off its critical path). Join the thread before forking: a process must not
    fork while a thread of its own runs. Whoever needs the table first and finds it missing
    reads it too, so the result never depends on the thread."""

    def read() -> None:
        global _wgnd
        try:
            data = _read_wgnd()
        except Exception:  # noqa: BLE001 - the first lookup reads it again and raises there
            return
        if _wgnd is None:
            _wgnd = data

    thread = threading.Thread(target=read, name="radeid-wgnd", daemon=True)
    thread.start()
    return thread


def wgnd_gender(norm: str) -> str:
    """F or M for a folded first name from WGND 2.0 (scripts/build_name_genders.py keeps the
    names that Faker's table and the ending rule do not already decide), else ""."""
    if not (norm.isascii() and norm.isalpha() and 2 <= len(norm) <= 12):
        return ""
    lines, key = _wgnd_lines(), norm.encode("ascii")
    lo, hi = 0, len(lines)
    while lo < hi:  # binary search over whole lines
        start = lines.rfind(b"\n", 0, (lo + hi) // 2) + 1
        end = lines.find(b"\n", start)
        end = len(lines) if end < 0 else end
        name, _, label = lines[start:end].partition(b"\t")
        if name == key:
            return label.decode("ascii")
        if name < key:
            lo = end + 1
        else:
            hi = start
    return ""


def ending_gender(norm: str) -> str:
    """F or M from the longest telling ending ("~ko", "~ova" lines of the world table), else ""."""
    table = world_genders()
    for k in (4, 3, 2):
        if len(norm) > k:
            label = table.get("~" + norm[-k:])
            if label:
                return label
    return ""


@lru_cache(maxsize=1)
def place_words() -> frozenset[str]:
    """Folded names of US states, countries (the bundled places lexicon) and big cities
    (surname_not_places.txt): never drawn as a surrogate surname."""
    words = {fold_name(t.lstrip("=")) for t, _ in iter_word_list(bundled_data_path("lexicons", "places.txt"))}
    words.update(fold_name(t) for t in read_word_list(bundled_data_path("surrogates", "surname_not_places.txt")))
    return frozenset(w for w in words if w)


@lru_cache(maxsize=8)
def name_pools(locale: str = "en_US") -> NamePools:
    """Build (once) the pools: Faker's gendered first names and surnames for `locale`.

    Genders come from Faker's en_US frequencies (P(female) from the two weighted lists; 0.2-0.8 is
    ambiguous), then the locale's lists, then the bundled hand table, which wins.
    Surnames that are also places (US states, countries, big cities) are left out of the pool.
    """
    if _person_provider(locale) is None:
        raise ValueError(f"Faker has no person names for locale {locale!r}")
    providers = [p for p in (_person_provider("en_US"), _person_provider(locale)) if p is not None]
    gender, display = _gender_table(providers)
    local = providers[-1]
    given = _given_pools(local, gender, display)
    places = place_words()
    surnames = tuple(
        sorted(
            {str(n) for n in getattr(local, "last_names", ()) if str(n).isalpha() and fold_name(str(n)) not in places}
        )
    )
    if not given["F"] or not given["M"] or not surnames:
        raise ValueError(f"Faker's names for locale {locale!r} are incomplete")
    by_letter, by_letter_len, rich = _letter_index(given, surnames)
    return NamePools(
        given=given,
        surnames=surnames,
        by_letter={k: tuple(v) for k, v in by_letter.items()},
        by_letter_len={k: tuple(v) for k, v in by_letter_len.items()},
        rich=rich,
        gender=gender,
        world=world_genders(),
        shapes=name_shapes(locale),
    )


def _gender_table(providers: list[object]) -> tuple[dict[str, str], dict[str, str]]:
    """Folded first name -> F/M/U (the providers' weights, then the bundled table, which wins); its spellings."""
    gender: dict[str, str] = {}
    for provider in providers:
        female = _weighted(getattr(provider, "first_names_female", ()))
        male = _weighted(getattr(provider, "first_names_male", ()))
        for name in sorted(
            set(female) | set(male)
        ):  # sorted: two spellings of one folded name (Jose, José) must settle the same way in every process
            f, m = female.get(name, 0.0), male.get(name, 0.0)
            p_female = f / (f + m) if f + m else 0.5
            label = "F" if p_female >= 0.8 else "M" if p_female <= 0.2 else "U"
            gender[fold_name(name)] = label
    display: dict[str, str] = {}
    for name, tag in iter_word_list(bundled_data_path("lang", "en", "surrogates", "first_names_gender.tsv")):
        if tag in ("F", "M", "U"):
            gender[fold_name(name)] = tag
            display[fold_name(name)] = name
    return gender, display


def _given_pools(local: object, gender: dict[str, str], display: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """The locale's first names sorted into F/M/U pools by the gender table (plus the bundled ambiguous ones)."""
    pools: dict[str, set[str]] = {"F": set(), "M": set(), "U": set()}
    for attr, default in (("first_names_female", "F"), ("first_names_male", "M")):
        for name in getattr(local, attr, ()):
            name = str(name)
            if not name.isalpha():
                continue
            label = gender.get(fold_name(name), default)
            pools[label if label != "U" else "U"].add(name)
    for key, label in gender.items():
        if label == "U" and key in display:
            pools["U"].add(display[key])
    return {k: tuple(sorted(v)) for k, v in pools.items()}


def _letter_index(
    given: dict[str, tuple[str, ...]], surnames: tuple[str, ...]
) -> tuple[dict[tuple[str, str], list[str]], dict[tuple[str, str, int], list[str]], tuple[str, ...]]:
    """Names by (pool, initial) and (pool, initial, length), and the initials every pool has enough names for."""
    by_letter: dict[tuple[str, str], list[str]] = {}
    by_letter_len: dict[tuple[str, str, int], list[str]] = {}
    for pool_id, names in (*given.items(), ("L", surnames)):
        for name in names:
            letter = ascii_initial(name)
            by_letter.setdefault((pool_id, letter), []).append(name)
            by_letter_len.setdefault((pool_id, letter, len(name)), []).append(name)
    rich = tuple(
        c
        for c in LETTERS
        if len(by_letter.get(("F", c), ())) >= 5
        and len(by_letter.get(("M", c), ())) >= 5
        and len(by_letter.get(("L", c), ())) >= 10
    )
    if len(rich) < 2:  # a script without Latin initials: no letter constraint at all
        rich = ()
    return by_letter, by_letter_len, rich


#: Latin-script Faker locales whose plain-ASCII names widen the by-length pools of
#: `--length-preserving`: a 10-letter surname or a 3-letter first name of a given initial is often
#: missing from one locale's lists, and a same-length name from a neighbouring locale reads truer
#: than a padded or cut one.
LENGTH_LOCALES = ("en_GB", "en_IE", "en_NZ", "en_IN", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL",
                  "sv_SE", "da_DK", "fi_FI")  # fmt: skip


@lru_cache(maxsize=8)
def length_pools(locale: str = "en_US") -> Mapping[tuple[str, str, int], tuple[str, ...]]:
    """Names by (pool id, initial, length) and by (pool id, "", length) for `--length-preserving`:
    the locale's own pools plus the plain-ASCII names of `LENGTH_LOCALES`. A borrowed first name
    joins the F or M pool only when its locale's list and the gender tables agree on its gender;
    a borrowed surname is never a place. Built on first need (about 0.2 s), then cached."""
    own = name_pools(locale)
    pools: dict[str, set[str]] = {pid: set(own.pool(pid)) for pid in ("F", "M", "U", "L")}
    places = place_words()
    for loc in LENGTH_LOCALES:
        provider = _person_provider(loc)
        if provider is None:
            continue
        for attr, label in (("first_names_female", "F"), ("first_names_male", "M"), ("last_names", "L")):
            for raw in getattr(provider, attr, ()):
                name = str(raw)
                if not (name.isascii() and name.isalpha() and name[:1].isupper() and len(name) > 1):
                    continue
                norm = fold_name(name)
                if label == "L":
                    if norm not in places:
                        pools["L"].add(name)
                elif own.gender_of(norm) == label:
                    pools[label].add(name)
    index: dict[tuple[str, str, int], list[str]] = {}
    for pid, names in pools.items():
        for name in sorted(names):
            index.setdefault((pid, ascii_initial(name), len(name)), []).append(name)
            index.setdefault((pid, "", len(name)), []).append(name)
    return {k: tuple(v) for k, v in index.items()}


def letter_map(keyed: Keyed, scope: str, pools: NamePools) -> dict[str, str]:
    """The scope's initial permutation: a random cyclic order of the common initials, each
    mapped to the next one (a single cycle, so no letter maps to itself); rare initials map to a
    keyed common one. An initial therefore never survives, and different common initials never
    collide. One keyed digest orders the letters (ties are impossible to matter: the order of
    equal keys is still a function of the key)."""
    rich = pools.rich
    if not rich:
        return {}
    seed = keyed.digest(scope, "initials")
    extra = hashlib.sha256(seed).digest()
    positions, others = _letter_positions(rich)
    order = [c for _, _, c in sorted([(seed[i], extra[i], c) for i, c in positions])]
    mapping = dict(zip(order, order[1:] + order[:1], strict=True))  # each letter to the next, the last to the first
    n = len(order)
    for c, i in others:
        mapping[c] = rich[extra[i] % n]
    return mapping


@lru_cache(maxsize=16)
def _letter_positions(rich: tuple[str, ...]) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """(position in the alphabet, letter) of the common initials, and (letter, position) of the
    other capitals, in alphabet order: `letter_map` runs once per patient."""
    common = tuple((ord(c) - 65, c) for c in rich)
    return common, tuple((c, ord(c) - 65) for c in LETTERS if c not in rich)
