"""Hospitals, locations and vendors: lexicon-driven surrogates of the same kind and form.

A "... Medical Center" becomes another (invented) medical center, a street address another
street address with the same house-number length and street type, "Boston, MA 02114" another
city, state and ZIP; an acronym stays an acronym of the same length (and when the document also
spells the facility out, the acronym becomes the initials of that facility's surrogate).
Pools are built once per locale; choices are keyed per scope like everything else.

Kept as one module (about 680 lines): the facility and location generators share the pools, the
per-document claims and the town streams, so that one town or facility reads the same in both; the
seam, if it grows, is the facility generator (with its renaming plan) against the location one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import NamedTuple

from radeid.core.document import Span
from radeid.core.resources import bundled_data_path, iter_word_list, read_word_list
from radeid.replace.surrogate import addresses as ad
from radeid.replace.surrogate.addresses import (
    is_streetlike,
    label_address,
    language_of,
    new_number,
    place_words,
    word_key,
)
from radeid.replace.surrogate.base import LENGTH_DRAWS_FROM, SurrogateContext
from radeid.replace.surrogate.institutions import is_real_institution
from radeid.replace.surrogate.keyed import KeyStream, apply_case, case_style, fold, shape_scramble
from radeid.replace.surrogate.name_pools import name_pools
from radeid.replace.surrogate.place_kinds import PO_BOX, UNIT, ZIP, classify_place, state_of

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class PlacePools:
    """Lists for facility, address and vendor surrogates (built once per locale)."""

    cities: tuple[str, ...]
    states: tuple[tuple[str, str], ...]  # (name, abbreviation)
    state_by_key: Mapping[str, tuple[str, str]]  # folded name or abbreviation -> pair
    zip_ranges: Mapping[str, tuple[int, int]]
    countries: tuple[str, ...]
    country_keys: frozenset[str]
    street_suffixes: frozenset[str]
    street_words: tuple[str, ...]
    patterns: Mapping[str, tuple[str, ...]]  # facility type -> patterns
    fillers: Mapping[str, tuple[str, ...]]  # region / specialty -> words
    vendor_names: tuple[str, ...]
    vendor_generic: frozenset[str]


def _address_provider(locale: str) -> object:
    try:
        return import_module(f"faker.providers.address.{locale}").Provider
    except (ImportError, AttributeError):
        return import_module("faker.providers.address.en_US").Provider


@lru_cache(maxsize=8)
def place_pools(locale: str = "en_US") -> PlacePools:
    """Build the pools: Faker cities (generated once from a fixed seed), US states, countries,
    and the bundled pattern / vendor lists."""
    from faker import Faker  # imported here: only place surrogates need a Faker instance

    try:
        fake = Faker(locale)
    except AttributeError:
        fake = Faker("en_US")
    fake.seed_instance(0)
    cities = sorted({fake.city() for _ in range(800)})
    us = import_module("faker.providers.address.en_US").Provider
    abbrs = [a for a in us.states_abbr if a != "DC"]
    states = list(zip(us.states, abbrs, strict=True)) + [("District of Columbia", "DC")]
    suffixes = {fold(s) for s in us.street_suffixes}
    suffixes |= set(
        "st st. ave ave. av rd rd. blvd blvd. dr dr. ln ln. ct ct. pl pl. pkwy hwy ter cir way sq trl pike".split()
    )
    state_by_key: dict[str, tuple[str, str]] = {}
    for name, abbr in states:
        state_by_key[fold(name)] = (name, abbr)
        state_by_key[fold(abbr)] = (name, abbr)
    local = _address_provider(locale)
    countries: tuple[str, ...] = tuple(getattr(local, "countries", ()) or us.countries)
    country_keys = frozenset(fold(c) for c in countries) | {
        "usa", "us", "u.s.", "u.s.a.", "united states", "united states of america", "uk", "u.k."
    }  # fmt: skip
    patterns, fillers = _facility_lists(locale)
    bad_city = set(state_by_key) | {fold(c) for c in countries} | suffixes
    cities = [c for c in cities if c and fold(c) not in bad_city and fold(c.split()[-1]) not in suffixes]
    countries = tuple(c for c in countries if fold(c) not in state_by_key)  # not "Georgia"
    return PlacePools(
        cities=tuple(cities),
        states=tuple(states),
        state_by_key=state_by_key,
        zip_ranges=dict(us.states_postcode),
        countries=countries,
        country_keys=country_keys,
        street_suffixes=frozenset(suffixes),
        street_words=tuple(read_word_list(bundled_data_path("surrogates", "street_words.txt"))),
        patterns=patterns,
        fillers=fillers,
        vendor_names=tuple(read_word_list(bundled_data_path("surrogates", "vendor_names.txt"))),
        vendor_generic=frozenset(
            fold(w) for w in read_word_list(bundled_data_path("surrogates", "vendor_generic.txt"))
        ),
    )


def _facility_lists(locale: str) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Facility patterns by type and their fillers by slot, in the locale's language
    (`hospital_patterns_es.tsv` for es_ES; English where a language has none)."""
    lang = language_of(locale)
    found = []
    for stem, default in (("hospital_patterns", "hospital"), ("hospital_fillers", "region")):
        path = bundled_data_path("surrogates", f"{stem}_{lang}.tsv")
        if not path.is_file():
            path = bundled_data_path("surrogates", f"{stem}.tsv")
        lists: dict[str, list[str]] = {}
        for term, label in iter_word_list(path):
            lists.setdefault(label or default, []).append(term)
        found.append({k: tuple(v) for k, v in lists.items()})
    return found[0], found[1]


def whole_case(original: str, new: str) -> str:
    """Upper or lower case the whole surrogate when the whole original was."""
    if original.isupper():  # every cased letter upper (str.isupper): one letter does not count
        return new.upper() if sum(c.isalpha() for c in original) > 1 else new
    if original.islower():
        return new.lower()
    return new


def _acronym(text: str, stream: KeyStream) -> str:
    """Random capitals in place of the letters; never the original acronym itself."""
    for _ in range(8):
        new = "".join(LETTERS[stream.below(26)] if c.isalpha() else c for c in text)
        if new != text:
            break
    return new


_ACRONYM = re.compile(r"[A-Z][A-Z&]{1,7}")
_STOP = frozenset({"of", "the", "and", "&", "for", "at", "in"})
_INITIAL_WORD = re.compile(r"[^\W\d_][\w'’]*")


def initials(name: str) -> str:
    """ "Massachusetts General Hospital" -> "MGH" (small words skipped)."""
    return "".join(w[0].upper() for w in _INITIAL_WORD.findall(name) if w.casefold() not in _STOP)


def claim(ctx: SurrogateContext, original: str, new: str) -> bool:
    """Record `new` as the surrogate of `original`; True when another original of the document
    already has it (the caller draws again). A surrogate the engine will reject anyway (the
    original itself, another original of the document) is not recorded."""
    key, norm = fold(new), fold(original)
    if key == norm or new.casefold() in ctx.memory.forbidden:
        return False
    owner = ctx.memory.taken_places.setdefault(key, norm)
    return owner != norm


def unclaimed(ctx: SurrogateContext, original: str, draw: Callable[[tuple[str, ...]], str]) -> str:
    """`draw(salt)`'s surrogate of `original`, drawn again (new salts) while another original of
    the document already has it."""
    new = draw(())
    for salt in range(1, 8):
        if not claim(ctx, original, new):
            break
        new = draw((f"d{salt}",))
    return new


# --- hospitals -----------------------------------------------------------------------------------

_FACILITY_TYPES = (
    ("children", re.compile(r"\b(children|infantil|materno|kinderklinik)", re.I)),
    ("university", re.compile(r"\buniversit", re.I)),
    ("practice", re.compile(r"\b(family (medicine|practice)|practice|associates|medical group|physicians|"
                            r"pediatrics|internal medicine|praxis|consultorio)\b", re.I)),
    ("imaging", re.compile(r"\b(imaging|radiolog|mri|diagnostic|diagn[oó]stico|imagen)", re.I)),
    ("clinic", re.compile(r"\b(clinic|cl[ií]nica|policl[ií]nica|klinik\b|[\w-]+-klinik\b)", re.I)),
    ("medical_center", re.compile(r"\b((medical|med\.?)\s+(center|centre|ctr)|centro m[eé]dico)\b", re.I)),
    ("institute", re.compile(r"\b(institute|instituto|institut)\b", re.I)),
    ("health_system", re.compile(r"\b(health(care)?|salud|gesundheit)", re.I)),
    ("hospital", re.compile(r"\b(hospital|hosp|infirmary|sanatori|krankenhaus|klinikum)", re.I)),
    ("department", re.compile(r"\b(department|dept|servicio|abteilung)\b", re.I)),
    ("center", re.compile(r"\b(center|centre|ctr|centro|zentrum)\b", re.I)),
)  # fmt: skip
#: words that join a facility name's parts: never a sign of a facility by themselves
_CONNECTORS = frozenset("of the and & for at in de del la las los el y für fur und der die das am an im".split())
_FACILITY_WORD = re.compile(r"\S+")


@lru_cache(maxsize=1 << 14)
def _facility_kind(name: str) -> tuple[str, str]:
    """(pattern type, initials) of a facility name, type "" when no facility word says which;
    cached, facility names repeat."""
    return next((k for k, rx in _FACILITY_TYPES if rx.search(name)), ""), initials(name)


@lru_cache(maxsize=1)
def _known_facilities() -> frozenset[str]:
    """Folded names of the hospital lexicon: "Mass General" is a hospital without saying so."""
    terms = read_word_list(bundled_data_path("lexicons", "hospitals.txt"))
    return frozenset(fold(t.lstrip("=").lstrip("\\")) for t in terms)


def load_place_tables(locale: str = "en_US") -> None:
    """Load what facility and address surrogates read on first need (the facility lexicon, the
    address words, the US address parser and its model): for the fork server's warm-up."""
    _known_facilities()
    label_address("1 Main Street", locale)


class _Facility(NamedTuple):  # a tuple: made for every facility span, cheaper than a frozen dataclass
    original: str
    norm: str
    kind: str  # a pattern type, "acronym", or "place" (a city, state or country tagged as a facility)
    tail: tuple[str, ...] = ()  # ", Dallas, TX" after the facility name: kept as places, in order
    renamable: bool = False  # kind words to keep and distinctive words to replace


CITY_SUFFIXES = ("town", "ton", "land", "ville", "berg", "burgh", "borough", "bury", "view", "port", "mouth",
                  "stad", "furt", "chester", "fort", "haven", "side", "shire")  # Faker en_US's  # fmt: skip
_COMMA = re.compile(r"(\s*,\s*)")
_SLOT = re.compile(r"\{(\w+)\}")


class HospitalGenerator:
    """Facilities, departments and organisations: an invented one of the same kind, never a real
    one; a place tagged as a facility ("lives in Boston") stays a place; a trailing ", City, ST"
    stays a city and a state."""

    realism_check = True

    def __init__(self, locale: str) -> None:
        self.pools = place_pools(locale)
        self.names = name_pools(locale)
        self.places = LocationGenerator(locale)
        self.words = place_words(locale)
        self._by_len: dict[str, dict[int, tuple[str, ...]]] = {}
        one_word = tuple(c for c in self.pools.cities if " " not in c)
        # a distinctive word becomes a town or a surname (English: Faker's invented towns; other
        # languages' town lists are real towns, so surnames only)
        self._single = (one_word, self.names.surnames) if self.words.lang == "en" else (self.names.surnames,)

    def _words_of_length(self, slot: str, length: int) -> tuple[str, ...]:
        """The words a name slot ({city}, {surname}, {given}) may take, of one length."""
        index = self._by_len.get(slot)
        if index is None:
            words = {
                "city": self.pools.cities,
                "surname": self.names.surnames,
                "given": self.names.given["F"] + self.names.given["M"],
            }[slot]
            grouped: dict[int, list[str]] = {}
            for w in words:
                grouped.setdefault(len(w), []).append(w)
            index = self._by_len[slot] = {k: tuple(v) for k, v in grouped.items()}
        return index.get(length, ())

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> _Facility:
        stripped = original.strip()
        if _ACRONYM.fullmatch(stripped):
            ctx.memory.acronyms.add(stripped)
            return _Facility(original, fold(original), "acronym")
        parts = _COMMA.split(original)
        head, tail = original, tuple[str, ...]()
        if len(parts) > 2 and _facility_kind(parts[0])[0]:
            head, tail = parts[0], tuple(parts[1:])
        kind, key = _facility_kind(head)
        renamable = self._renamable(head)
        if not kind:
            kind = "hospital" if renamable or fold(stripped) in _known_facilities() else "place"
        parsed = _Facility(head, fold(head), kind, tail, renamable)
        if len(key) >= 2 and kind != "place":
            ctx.memory.hospitals.setdefault(key, parsed)
        return parsed

    def _renamable(self, name: str) -> bool:
        return _renamable(name, self.words.facility_words)

    def generate(self, parsed: _Facility, ctx: SurrogateContext, attempt: int) -> str:
        original = parsed.original + "".join(parsed.tail)
        return unclaimed(ctx, original, lambda salt: self._draw(parsed, ctx, attempt, salt))

    def _draw(self, parsed: _Facility, ctx: SurrogateContext, attempt: int, salt: tuple[str, ...]) -> str:
        if parsed.kind == "place":
            return self.places.generate((parsed.original, ""), ctx, attempt)
        if parsed.kind == "acronym":
            full = ctx.memory.hospitals.get(parsed.original.strip())
            if full is not None and not attempt and not salt:
                key = initials(self._facility(full, ctx, 0))
                if len(key) == len(parsed.original.strip()) and key != parsed.original.strip():
                    return parsed.original.replace(parsed.original.strip(), key)
            # the stream only acronyms draw from here (`_facility` derives the same one itself)
            stream = ctx.keyed.stream(ctx.scope, "hospital", parsed.norm, *(str(attempt),) * bool(attempt), *salt)
            return _acronym(parsed.original, stream)
        new = self._facility(parsed, ctx, attempt, salt)
        for i, piece in enumerate(parsed.tail):
            new += piece if i % 2 == 0 else self.places.generate((piece, ""), ctx, attempt)
        return new

    def _facility(self, parsed: _Facility, ctx: SurrogateContext, attempt: int, salt: tuple[str, ...] = ()) -> str:
        stream = ctx.keyed.stream(ctx.scope, "hospital", parsed.norm, *(str(attempt),) * bool(attempt), *salt)
        patterns = self.pools.patterns.get(parsed.kind) or self.pools.patterns["hospital"]
        key = _facility_kind(parsed.original)[1]  # its initials, cached when the parse read it
        abbreviated = key in ctx.memory.acronyms  # the document abbreviates it: keep an abbreviable fake
        # --length-preserving redraws aim at the original's length through the name slot
        length = len(parsed.original) if ctx.options.length_preserving and attempt >= LENGTH_DRAWS_FROM else 0
        new = ""
        for tries in range(33):
            if parsed.renamable and tries < 16:  # then patterns: "University of ..." is real
                new = self._rename(parsed.original, stream, bool(length))
            else:
                new = self._fill(stream.choice(patterns), stream, length)
            if is_real_institution(new):
                ctx.stats["real_institution_retries"] += 1
            elif not abbreviated or (len(initials(new)) == len(key) and initials(new) != key):
                break
        return whole_case(parsed.original, new)

    def _rename(self, name: str, stream: KeyStream, aim: bool) -> str:
        """The facility's kind words kept ("Westbury Family Medicine" -> "Aaronland Family
        Medicine"), every other run of words replaced by as many invented ones: a town or a surname
        for one word, a given name and surnames for more; `aim` keeps each word's length."""
        plan, tail, avoid = _rename_plan(name, self.words.facility_words)
        out: list[str] = []
        for before, run in plan:
            out.append(before)
            out.append(self._invented(run, stream, avoid, aim))
        out.append(tail)
        return "".join(out)

    def _invented(self, run: tuple[tuple[str, str], ...], stream: KeyStream, avoid: frozenset[str], aim: bool) -> str:
        """Words for a run of distinctive words, each in its original's case."""
        words = []
        last = len(run) - 1
        for i, (old, punct) in enumerate(run):
            if not old.isalpha() and any(c.isdigit() for c in old):
                words.append(new_number(old, stream))
                continue
            if last:  # "Johns Hopkins" -> a given name and surnames
                slot, pool = ("given", self.names.given["F" if stream.below(2) else "M"]) if i == 0 else (
                    "surname", self.names.surnames)  # fmt: skip
            else:
                slot, pool = "surname", self._single[stream.below(len(self._single))]
            same = self._words_of_length(slot, len(old)) if aim else ()
            word = stream.choice(same or pool)
            for _ in range(8):
                if word_key(word) not in avoid:
                    break
                word = stream.choice(same or pool)
            inner = punct if aim and i < last else ""  # "St. Jude": its room
            words.append(apply_case(word, case_style(old)) + inner)
        return " ".join(words)

    def _fill(self, pattern: str, stream: KeyStream, length: int = 0) -> str:
        """The pattern with its slots filled; with a `length`, the last name slot takes a word
        that makes the whole that long when the pools have one."""
        flexible = [m for m in _SLOT.finditer(pattern) if m.group(1) in ("city", "surname", "given")]
        if length and flexible:
            last = flexible[-1]
            before = self._fill(pattern[: last.start()], stream)
            after = self._fill(pattern[last.end() :], stream)
            words = self._words_of_length(last.group(1), length - len(before) - len(after))
            if words:
                return before + stream.choice(words) + after

        def slot(m: re.Match[str]) -> str:
            name = m.group(1)
            if name == "city":
                return stream.choice(self.pools.cities)
            if name == "surname":
                return stream.choice(self.names.surnames)
            if name == "given":
                return stream.choice(self.names.given["F" if stream.below(2) else "M"])
            return stream.choice(self.pools.fillers.get(name, ("Central",)))

        return _SLOT.sub(slot, pattern)


@lru_cache(maxsize=1 << 14)
def _renamable(name: str, generic: frozenset[str]) -> bool:
    """Whether a facility name has both a kind word to keep ("Family Medicine") and a word to
    replace (cached: facility names repeat)."""
    keys = [word_key(m.group()) for m in _FACILITY_WORD.finditer(name)]
    return any(k in generic and k not in _CONNECTORS for k in keys) and any(
        k not in generic and any(c.isalpha() for c in k) for k in keys
    )


Run = tuple[tuple[str, str], ...]  # distinctive words of a facility name, each with its trailing "." or ","


@lru_cache(maxsize=1 << 14)
def _rename_plan(name: str, generic: frozenset[str]) -> tuple[tuple[tuple[str, Run], ...], str, frozenset[str]]:
    """How `HospitalGenerator._rename` rewrites a name (cached: facility names repeat): (text
    before, run of distinctive words) pairs, the text after the last run, and the folded words a
    surrogate must not reuse."""
    plan: list[tuple[str, Run]] = []
    run: list[re.Match[str]] = []
    pos = 0
    for m in [*_FACILITY_WORD.finditer(name), None]:
        if m is not None and word_key(m.group()) not in generic and m.group()[0].isalnum():
            run.append(m)
            continue
        if run:
            words = tuple((w.group().rstrip(".,;:"), w.group()[len(w.group().rstrip(".,;:")) :]) for w in run)
            plan.append((name[pos : run[0].start()], words))
            pos = run[-1].start() + len(words[-1][0])
            run = []
    avoid = frozenset(word_key(m.group()) for m in _FACILITY_WORD.finditer(name))
    return tuple(plan), name[pos:], avoid


# --- locations -----------------------------------------------------------------------------------

_STATE_ZIP = re.compile(r"(?P<state>[A-Za-z][A-Za-z .]*?)\s+(?P<zip>\d{5}(?:-\d{4})?)")
_SEGMENT = re.compile(r"[^,\n;]+|[,\n;]+")


class LocationGenerator:
    """Streets, cities, states, ZIP codes, countries, rooms, alone or as a comma-separated
    address: each part becomes another of its kind (`place_kinds.classify_place`)."""

    realism_check = True

    def __init__(self, locale: str) -> None:
        self.locale = locale
        self.pools = place_pools(locale)
        self.names = name_pools(locale)
        self._by_len: dict[str, dict[int, tuple[str, ...]]] = {}
        self._street_words = place_words(locale).street_words or self.pools.street_words

    def _pool(self, pool_name: str) -> tuple[str, ...]:
        if pool_name == "street_words":
            return self._street_words
        pool: tuple[str, ...] = getattr(self.names if pool_name == "surnames" else self.pools, pool_name)
        return pool

    def _of_length(self, pool_name: str, length: int) -> tuple[str, ...]:
        index = self._by_len.get(pool_name)
        if index is None:
            grouped: dict[int, list[str]] = {}
            for w in self._pool(pool_name):
                grouped.setdefault(len(w), []).append(w)
            index = self._by_len[pool_name] = {k: tuple(v) for k, v in grouped.items()}
        return index.get(length, ())

    def _choose(self, pool_name: str, seg: str, stream: KeyStream, aim: bool) -> str:
        """A word of pool `pool_name`; when `aim` (`--length-preserving` redraws) one of `seg`'s
        length if the pool has one, so the address keeps its length and all its parts."""
        if aim:
            same = self._of_length(pool_name, len(seg))
            if same:
                return stream.choice(same)
            if pool_name == "cities":
                city = self._compound_city(len(seg), stream)
                if city:
                    return city
        return stream.choice(self._pool(pool_name))

    def _compound_city(self, length: int, stream: KeyStream) -> str:
        """A city of `length` letters in Faker's own "{last_name}{city_suffix}" form ("Coxton",
        "Hallburgh") when the drawn cities have none of that length; "" if no surname fits."""
        start = stream.below(len(CITY_SUFFIXES))
        for shortest in (4, 3, 2):  # a longer stem reads truer ("Coxton" before "Liland")
            for i in range(len(CITY_SUFFIXES)):
                suffix = CITY_SUFFIXES[(start + i) % len(CITY_SUFFIXES)]
                if length - len(suffix) >= shortest:
                    stems = self._of_length("surnames", length - len(suffix))
                    if stems:
                        return stream.choice(stems) + suffix
        return ""

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> tuple[str, str]:
        subtype = (span.subtype or "").upper()
        if ctx.options.keep_state:
            for seg in re.split(r"[,\n;]", original):
                st = state_of(seg.strip(), self.pools)
                if st:
                    ctx.memory.states.append(st[1])
                m = _STATE_ZIP.fullmatch(seg.strip())
                st = state_of(m.group("state"), self.pools) if m else None
                if st:
                    ctx.memory.states.append(st[1])
        return original, subtype

    def generate(self, parsed: tuple[str, str], ctx: SurrogateContext, attempt: int) -> str:
        return unclaimed(ctx, parsed[0], lambda salt: self._draw(parsed, ctx, attempt, salt))

    def _draw(self, parsed: tuple[str, str], ctx: SurrogateContext, attempt: int, salt: tuple[str, ...]) -> str:
        original, subtype = parsed
        tail = (*(str(attempt),) * bool(attempt), *salt)
        kind = classify_place(original, self.pools, subtype)
        aim = ctx.options.length_preserving and attempt >= LENGTH_DRAWS_FROM
        if kind in ("street", "address", "city") and is_streetlike(original, self.locale):
            return self._address(original, ctx, tail, aim)
        stream = ctx.keyed.stream(ctx.scope, "location", fold(original), *tail)
        if kind != "address":
            lead = original[: len(original) - len(original.lstrip())]
            trail = original[len(original.rstrip()) :]
            return lead + self._segment(original.strip(), stream, ctx, kind, aim, tail) + trail
        out = []
        for m in _SEGMENT.finditer(original):
            piece = m.group()
            if not piece.strip() or piece[0] in ",\n;":
                out.append(piece)
                continue
            lead = piece[: len(piece) - len(piece.lstrip())]
            trail = piece[len(piece.rstrip()) :]
            out.append(lead + self._segment(piece.strip(), stream, ctx, "", aim, tail) + trail)
        return "".join(out)

    def _address(self, original: str, ctx: SurrogateContext, tail: tuple[str, ...], aim: bool) -> str:
        """A street address part by part (`addresses.label_address`): generic words kept, every
        other word replaced; each part keyed by its own text, so "Pike Road" reads the same in
        every address of the scope."""
        pieces = label_address(original, self.locale)
        avoid = {word_key(w) for text, label in pieces if label in (ad.NAME, ad.CITY) for w in text.split()}
        out: list[str] = []
        state = ""
        i = 0
        while i < len(pieces):
            text, label = pieces[i]
            j = i
            if label == ad.CITY:  # a city of several words is one city ("New York")
                while j + 2 < len(pieces) and pieces[j + 1][0].isspace() and pieces[j + 2][1] == ad.CITY:
                    j += 2
                text = "".join(p[0] for p in pieces[i : j + 1])
            stream = ctx.keyed.stream(ctx.scope, "address", label, fold(text), *tail)
            new = self._part(text, label, stream, ctx, avoid, aim, state, tail)
            if label == ad.STATE:
                state = (self.pools.state_by_key.get(fold(new).rstrip(".")) or ("", ""))[1]
            out.append(new)
            i = j + 1
        return "".join(out)

    def _part(
        self,
        text: str,
        label: str,
        stream: KeyStream,
        ctx: SurrogateContext,
        avoid: set[str],
        aim: bool,
        state: str,
        tail: tuple[str, ...] = (),
    ) -> str:
        """One labelled part of an address, in its own form."""
        if label in ad.KEPT or not any(c.isalnum() for c in text):
            return text
        if label in (ad.NUMBER, ad.UNIT):
            return new_number(text, stream)
        if label == ad.ZIP:
            new = self._zip(text, stream, ctx, state or None) if ZIP.fullmatch(text) else new_number(text, stream)
            return new if new != text else new_number(text, stream)
        if label == ad.STATE:
            return self._state(text, stream, ctx, "state_code" if len(text.rstrip(".")) == 2 else "state")
        if label in (ad.COUNTRY, ad.SEGMENT):
            return self._segment(text, stream, ctx, "country" if label == ad.COUNTRY else "", aim, tail)
        if label == ad.CITY:  # one town, one surrogate, in an address or alone ("Leipzig" twice)
            stream = _city_stream(ctx, text, tail)
        pool = "cities" if label == ad.CITY else ("street_words" if stream.below(2) else "surnames")
        for _ in range(8):
            word = self._choose(pool, text.rstrip(".,"), stream, aim)
            if not any(word_key(w) in avoid for w in word.split()):
                break
        if label == ad.CITY:
            return whole_case(text, word)
        return apply_case(word, case_style(text)) + text[len(text.rstrip(".,")) :]

    def _zip(self, text: str, stream: KeyStream, ctx: SurrogateContext, state: str | None) -> str:
        five = text[:5]
        if ctx.options.keep_state:
            abbr = state or (ctx.memory.states[0] if ctx.memory.states else "")
            if abbr in self.pools.zip_ranges:
                low, high = self.pools.zip_ranges[abbr]
                five = f"{stream.between(low, high):05d}"
                return five + shape_scramble(text[5:], stream)
            return text[0] + shape_scramble(text[1:], stream)
        return shape_scramble(text, stream) if five else text

    def _segment(
        self,
        seg: str,
        stream: KeyStream,
        ctx: SurrogateContext,
        kind: str = "",
        aim: bool = False,
        tail: tuple[str, ...] = (),
    ) -> str:
        plz = _POSTCODE_CITY.fullmatch(seg)
        if plz:  # "D-69117 Heidelberg", "28013 Madrid": the postcode's shape, another town
            city = whole_case(plz.group("city"), self._town(plz.group("city"), ctx, aim, tail))
            return new_number(plz.group("code"), stream) + plz.group("sep") + city
        if not kind:
            m = _STATE_ZIP.fullmatch(seg)
            if m and state_of(m.group("state"), self.pools):
                state = self._segment(m.group("state"), stream, ctx, "", aim)
                pair = self.pools.state_by_key.get(fold(state))
                zip_new = self._zip(m.group("zip"), stream, ctx, pair[1] if pair else None)
                return seg[: m.start("state")] + state + seg[m.end("state") : m.start("zip")] + zip_new
            kind = classify_place(seg, self.pools)
            if kind == "address":
                kind = "city"
        if kind == "zip":
            return self._zip(seg, stream, ctx, None) if ZIP.fullmatch(seg) else shape_scramble(seg, stream)
        if kind in ("state", "state_code"):
            return self._state(seg, stream, ctx, kind)
        if kind == "unit":
            if PO_BOX.fullmatch(seg):
                return "".join(stream.digit() if c.isdigit() else c for c in seg)
            m = UNIT.fullmatch(seg)
            cue, ident = (m.group("cue"), m.group("id")) if m else ("", seg)
            return cue + _room(ident, stream)
        if kind == "room":
            return _room(seg, stream)
        if kind == "country":
            country = self._choose("countries", seg, stream, aim)
            if fold(country) == fold(seg):
                country = self._choose("countries", seg, stream, aim)
            return whole_case(seg, country)
        if kind == "street" and is_streetlike(seg, self.locale):
            return self._address(seg, ctx, (fold(seg),), aim)
        return whole_case(seg, self._town(seg, ctx, aim, tail))

    def _town(self, seg: str, ctx: SurrogateContext, aim: bool, tail: tuple[str, ...] = ()) -> str:
        """A town for town `seg`, the same wherever `seg` is written (alone or in an address)."""
        stream = _city_stream(ctx, seg, tail)
        for _ in range(8):
            town = self._choose("cities", seg, stream, aim)
            if fold(town) != fold(seg):
                break
        return town

    def _state(self, seg: str, stream: KeyStream, ctx: SurrogateContext, kind: str) -> str:
        """Another state in the same form: a name for a name, a postal code for a code."""
        name, abbr = state_of(seg, self.pools) or self.pools.state_by_key.get(fold(seg).rstrip("."), ("", ""))
        if ctx.options.keep_state and name:
            return seg
        new_name, new_abbr = stream.choice(self.pools.states)
        if (new_name, new_abbr) == (name, abbr):
            new_name, new_abbr = self.pools.states[(self.pools.states.index((name, abbr)) + 1) % 51]
        if kind == "state_code":
            return new_abbr + seg[len(seg.rstrip(".")) :] if seg[:1].isupper() or not seg else new_abbr.lower()
        return whole_case(seg, new_name)


def _city_stream(ctx: SurrogateContext, town: str, tail: tuple[str, ...] = ()) -> KeyStream:
    """A town's own stream: the same town alone or in an address gets the same fake; `tail` (a
    redraw's attempt and salt) moves it when two towns of a document would meet."""
    return ctx.keyed.stream(ctx.scope, "town", fold(town.strip().rstrip(".,")), *tail)


# a European postcode before its town (the US "City, ST 12345" order is read elsewhere)
_POSTCODE_CITY = re.compile(r"(?P<code>(?:[A-Z]{1,2}-)?\d{4,5})(?P<sep>[ \t]+)(?P<city>[^\W\d_][^\d,;]*)")


def _room(ident: str, stream: KeyStream) -> str:
    """A room, bed or unit id of the same shape ("4B-312" -> "7D-518"): digit for digit, letter for
    letter, no leading zero where there was none, never the original."""
    for _ in range(4):
        new = shape_scramble(ident, stream)
        if new[:1] == "0" and ident[:1] != "0":
            new = str(1 + stream.below(9)) + new[1:]
        if new != ident:
            return new
    return new
