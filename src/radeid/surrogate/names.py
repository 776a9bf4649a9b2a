"""Person names: parse each mention into parts, map every part with a key, render in place.

Why parts and not whole names: "Dr. Jane Smith" in one report and "Smith" alone in the next
report of the same patient must agree. Each part ("jane" as a given name, "smith" as a surname)
is mapped on its own, seeded by a keyed hash of (scope, role, gender, part), so every mention
of a part gets the same fake in every document of the scope, whatever the mention's form.
Initials use a keyed letter permutation per scope, and a fake part always starts with the
permuted letter of its original, so "J. Smith" agrees with "Jane Smith" even when they sit in
different documents.

Rendering replaces only the name words in the mention's own text: titles, credentials,
punctuation, order, spacing and the case of each word stay as they were.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import import_module

from radeid.surrogate.keyed import (
    Keyed,
    KeyStream,
    apply_case,
    ascii_initial,
    case_style,
    fold_name,
)
from radeid.wordlists import bundled_data_path, iter_word_list

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# --- pools ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NamePools:
    """Surrogate name lists and the gender table, built once per locale and cached."""

    given: Mapping[str, tuple[str, ...]]  # "F" / "M" / "U" -> names
    surnames: tuple[str, ...]
    by_letter: Mapping[tuple[str, str], tuple[str, ...]]  # (pool id, letter); pool id F/M/U/L
    by_letter_len: Mapping[tuple[str, str, int], tuple[str, ...]]
    rich: tuple[str, ...]  # initials with enough names in every pool: the permutation's domain
    gender: Mapping[str, str]  # fold_name(first name) -> "F" | "M" | "U"
    parse_cache: dict[tuple[str, str | None, bool], tuple] = field(  # type: ignore[type-arg]
        default_factory=dict, compare=False, repr=False
    )

    def pool(self, pool_id: str) -> tuple[str, ...]:
        return self.surnames if pool_id == "L" else self.given[pool_id]


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


@lru_cache(maxsize=8)
def name_pools(locale: str = "en_US") -> NamePools:
    """Build (once) the pools: Faker's gendered first names and surnames for `locale`.

    Genders come from Faker's en_US frequencies (P(female) from the two weighted lists;
    0.2-0.8 is ambiguous), then the locale's lists, then the bundled table, which wins.
    """
    gender: dict[str, str] = {}
    if _person_provider(locale) is None:
        raise ValueError(f"Faker has no person names for locale {locale!r}")
    providers = [p for p in (_person_provider("en_US"), _person_provider(locale)) if p is not None]
    for provider in providers:
        female = _weighted(getattr(provider, "first_names_female", ()))
        male = _weighted(getattr(provider, "first_names_male", ()))
        for name in set(female) | set(male):
            f, m = female.get(name, 0.0), male.get(name, 0.0)
            p_female = f / (f + m) if f + m else 0.5
            label = "F" if p_female >= 0.8 else "M" if p_female <= 0.2 else "U"
            gender[fold_name(name)] = label
    display: dict[str, str] = {}
    for name, tag in iter_word_list(bundled_data_path("surrogates", "first_names_gender.tsv")):
        if tag in ("F", "M", "U"):
            gender[fold_name(name)] = tag
            display[fold_name(name)] = name

    local = providers[-1]
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
    surnames = tuple(sorted({str(n) for n in getattr(local, "last_names", ()) if str(n).isalpha()}))
    given = {k: tuple(sorted(v)) for k, v in pools.items()}
    if not given["F"] or not given["M"] or not surnames:
        raise ValueError(f"Faker's names for locale {locale!r} are incomplete")

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
    return NamePools(
        given=given,
        surnames=surnames,
        by_letter={k: tuple(v) for k, v in by_letter.items()},
        by_letter_len={k: tuple(v) for k, v in by_letter_len.items()},
        rich=rich,
        gender=gender,
    )


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
    order = sorted(rich, key=lambda c: (seed[ord(c) - 65], extra[ord(c) - 65], c))
    n = len(order)
    mapping = {order[i]: order[(i + 1) % n] for i in range(n)}
    for c in LETTERS:
        if c not in mapping:
            mapping[c] = rich[extra[ord(c) - 65] % n]
    return mapping


# --- parsing -------------------------------------------------------------------------------------

_TITLES = {
    "dr": None, "doctor": None, "prof": None, "professor": None, "mx": None, "rev": None,
    "mr": "M", "sir": "M", "mrs": "F", "ms": "F", "miss": "F", "madam": "F",
}  # fmt: skip
_TITLE_RE = re.compile(r"(?:(dr|doctor|prof|professor|mx|rev|mr|sir|mrs|ms|miss|madam)\b\.?\s*)+", re.IGNORECASE)
_ONE_TITLE = re.compile(r"(dr|doctor|prof|professor|mx|rev|mr|sir|mrs|ms|miss|madam)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_TAIL = re.compile(r"(?:\s*,\s*|\s+)([A-Za-z][A-Za-z.()/\-]*)[\s,.]*$")
_CRED_STRIP = re.compile(r"[.()/\-]")

# Credentials and suffixes that end a name (normalised: no dots/dashes, upper case).
_STRONG = frozenset(
    """MD DO PAC RN NP PHD MBBS MBCHB FACR FRCR FRCPC FRCP FACP FACC FACS DNP APRN CRNA DDS DMD
    PHARMD LPN FNP FNPBC ANP ANPBC CNP CRNP DVM RTR RT ARRT RDMS RVT RDCS CNMT MPH MSN BSN DPT
    LCSW JR SR II III IV ESQ RRA RPA AGACNP ACNP MSCE MHS""".split()
)
_WEAK = frozenset("PA MS MA BS BA PT OD MBA MSW CNM OT V".split())  # only after a comma
_MIXED_OK = frozenset({"jr", "jr.", "sr", "sr.", "phd", "ph.d.", "pharmd", "mbchb", "esq", "esq."})
_PARTICLES = frozenset("van von der den de del della da di du la le st ter ten dos das bin ibn al el mac".split())


@dataclass(slots=True)
class NameWord:
    """One replaceable word of a mention; `role` is given, surname, initial or particle."""

    start: int  # offsets into the mention text
    end: int
    role: str
    norm: str
    style: str
    letter: str


@dataclass(slots=True)
class NameMention:
    """A parsed person-name span; the words to replace plus what tells its gender."""

    text: str
    words: list[NameWord]
    title_gender: str | None
    has_title: bool
    compounds: int  # number of name compounds (hyphenated words count once)
    gender: str = ""
    ambiguous_role: bool = False


def _strip_credentials(text: str, start: int, end: int) -> int:
    """End of the name proper: trailing credentials and suffixes (", MD", " PA-C", " Jr.")."""
    while True:
        m = _TAIL.search(text, start, end)
        if m is None or not any(ch.isalpha() for ch in text[start : m.start()]):
            return end
        token = m.group(1)
        key = _CRED_STRIP.sub("", token).upper()
        after_comma = "," in text[m.start() : m.start(1)]
        strong = key in _STRONG and (token.isupper() or "." in token or token.casefold() in _MIXED_OK or after_comma)
        if strong or (after_comma and key in _WEAK and token.isupper()):
            end = m.start()
            continue
        return end


def title_before(before: str) -> tuple[bool, str | None]:
    """Whether the text just before a name ends with a title ("Dr. ", "(Mrs "), and its gender."""
    if not before or not (before[-1].isspace() or before[-1] == "."):
        return False, None
    words = before.split()
    if not words:
        return False, None
    last = words[-1].lstrip("([{\"'").rstrip(".").casefold()
    if last in _TITLES:
        return True, _TITLES[last]
    return False, None


def parse_name(text: str, before: str, pools: NamePools) -> NameMention:
    """Split a name span into titles (kept), credentials (kept) and name words (replaced).

    `before` is the text just before the span: detectors usually leave "Dr." outside the span,
    yet it still says the single word after it is a surname (and "Mrs." says female).
    Parses are cached per (text, title before): names repeat a lot in a corpus.
    """
    pre_title, pre_gender = title_before(before)
    key = (text, pre_gender, pre_title)
    proto = pools.parse_cache.get(key)
    if proto is None:
        if len(pools.parse_cache) > 1 << 16:
            pools.parse_cache.clear()
        mention = _parse_name(text, pre_gender, pre_title, pools)
        proto = pools.parse_cache[key] = (
            tuple((w.start, w.end, w.role, w.norm, w.style, w.letter) for w in mention.words),
            mention.title_gender,
            mention.has_title,
            mention.compounds,
            mention.ambiguous_role,
        )
    words, title_gender, has_title, compounds, ambiguous = proto
    return NameMention(
        text, [NameWord(*w) for w in words], title_gender, has_title, compounds, ambiguous_role=ambiguous
    )


def _parse_name(text: str, pre_gender: str | None, pre_title: bool, pools: NamePools) -> NameMention:
    start, end = 0, len(text)
    title_gender: str | None = None
    has_title = False
    m = _TITLE_RE.match(text)
    if m and m.end() < end and any(ch.isalpha() for ch in text[m.end() :]):
        has_title = True
        for t in _ONE_TITLE.finditer(m.group(0)):
            title_gender = _TITLES.get(t.group(1).casefold()) or title_gender
        start = m.end()
    if pre_title:
        has_title = True
        title_gender = title_gender or pre_gender
    end = _strip_credentials(text, start, end)

    matches = list(_WORD.finditer(text, start, end))
    spans: list[tuple[int, int]] = []
    for w in matches:
        s, e = w.span()
        if e - s > 3 and text[e - 2 : e].casefold() in ("'s", "’s"):
            e -= 2  # possessive: "Smith's" -> "Smith" + "'s"
        spans.append((s, e))
    if not spans:
        return NameMention(text, [], title_gender, has_title, 0)

    comma = text.find(",", start, end)
    inverted = comma != -1 and spans[0][0] < comma < spans[-1][0]
    words: list[NameWord] = []

    def word(s: int, e: int, role: str) -> NameWord:
        piece = text[s:e]
        if len(fold_name(piece)) == 1:
            role = "initial"
        return NameWord(s, e, role, fold_name(piece), case_style(piece), ascii_initial(piece))

    # compounds: words joined by a hyphen ("Smith-Jones", "Mary-Kate") act as one name
    compounds: list[list[tuple[int, int]]] = []
    for s, e in spans:
        if compounds and text[compounds[-1][-1][1] : s] in ("-", "‐", "–"):
            compounds[-1].append((s, e))
        else:
            compounds.append([(s, e)])

    ambiguous = False
    if inverted:
        left = [c for c in compounds if c[0][0] < comma]
        right = [c for c in compounds if c[0][0] > comma]
        for i, comp in enumerate(left):
            for s, e in comp:
                particle = i < len(left) - 1 and len(comp) == 1 and fold_name(text[s:e]) in _PARTICLES
                words.append(word(s, e, "particle" if particle else "surname"))
        for comp in right:
            words.extend(word(s, e, "given") for s, e in comp)
    elif len(compounds) == 1:
        ambiguous = True
        words.extend(word(s, e, "surname") for s, e in compounds[0])  # role settled later
    else:
        last = len(compounds) - 1
        first_particle = last
        while (
            first_particle - 1 >= 1
            and len(compounds[first_particle - 1]) == 1
            and fold_name(text[slice(*compounds[first_particle - 1][0])]) in _PARTICLES
        ):
            first_particle -= 1
        roles = ["given"] * len(compounds)
        for i in range(first_particle, last):
            roles[i] = "particle"
        roles[last] = "surname"
        for i in range(1, first_particle):  # middle names: unknown words read as surnames
            s, e = compounds[i][0]
            if len(compounds[i]) == 1 and fold_name(text[s:e]) not in pools.gender and e - s > 1:
                roles[i] = "surname"
        if (
            len(compounds) == 2
            and not has_title
            and all(len(c) == 1 for c in compounds)
            and fold_name(text[slice(*compounds[0][0])]) not in pools.gender
            and fold_name(text[slice(*compounds[1][0])]) in pools.gender
            and text[slice(*compounds[1][0])].isupper()
        ):
            roles = ["surname", "given"]  # "SMITH JANE": the list-header order, no comma
        for role, comp in zip(roles, compounds, strict=True):
            words.extend(word(s, e, role) for s, e in comp)
    return NameMention(text, words, title_gender, has_title, len(compounds), ambiguous_role=ambiguous)


def settle_roles(mentions: Sequence[NameMention], pools: NamePools) -> None:
    """Document memory for single-word mentions: "Smith" after "Jane Smith" is a surname,
    "Jane" after "Jane Smith" is a given name; otherwise a title means surname and a known
    first name means given."""
    seen: dict[str, str] = {}
    for mention in mentions:
        if not mention.ambiguous_role:
            for w in mention.words:
                if w.role in ("given", "surname"):
                    seen.setdefault(w.norm, w.role)
    for mention in mentions:
        if not mention.ambiguous_role:
            continue
        first = next((w for w in mention.words if w.role != "initial"), None)
        if first is None:
            continue
        if mention.has_title:
            role = "surname"
        elif first.norm in seen:
            role = seen[first.norm]
        else:
            role = "given" if first.norm in pools.gender else "surname"
        for w in mention.words:
            if w.role != "initial":
                w.role = role


def settle_genders(mentions: Sequence[NameMention], pools: NamePools, keyed: Keyed, scope: str) -> None:
    """Gender of each mention's given names: a clear first name wins, then a title (in the
    mention or on another mention of the same surname), then an ambiguous name stays
    ambiguous, and an unknown name gets a keyed coin (the same for that name everywhere)."""
    surname_hint: dict[str, str] = {}
    for mention in mentions:
        if mention.title_gender:
            for w in mention.words:
                if w.role == "surname":
                    surname_hint.setdefault(w.norm, mention.title_gender)
    for mention in mentions:
        first = next((w for w in mention.words if w.role == "given"), None)
        label = pools.gender.get(first.norm, "") if first else ""
        if label in ("F", "M"):
            mention.gender = label
            continue
        hint = mention.title_gender or next(
            (surname_hint[w.norm] for w in mention.words if w.role == "surname" and w.norm in surname_hint),
            None,
        )
        if hint:
            mention.gender = hint
        elif label == "U":
            mention.gender = "U"
        elif first is not None:
            mention.gender = "FM"[keyed.stream(scope, "gender", first.norm).below(2)]
        else:
            mention.gender = "U"


# --- choosing surrogate parts --------------------------------------------------------------------


def _probe(pool: Sequence[str], stream: KeyStream, excluded: set[str], taken: set[str]) -> str | None:
    """First free name from a keyed start, probing linearly: the first pick depends only on the
    key and the part, so a collision fix changes nothing for parts that did not collide."""
    if not pool:
        return None
    n = len(pool)
    start = stream.below(n)
    for i in range(n):
        name = pool[(start + i) % n]
        folded = fold_name(name)
        if folded not in excluded and folded not in taken:
            return name
    return None


def choose_part(
    pools: NamePools,
    pool_id: str,
    letter: str,
    length: int,
    stream: KeyStream,
    excluded: set[str],
    taken: set[str],
) -> str:
    """A fake name part from pool `pool_id` starting with `letter` (same length if asked)."""
    options: list[tuple[str, ...]] = []
    ids = [pool_id]
    if pool_id == "U":
        ids.append("FM"[stream.below(2)])  # no ambiguous name with that initial: keep the initial
    for pid in ids:
        if length:
            options.append(pools.by_letter_len.get((pid, letter, length), ()))
        options.append(pools.by_letter.get((pid, letter), ()))
    options.append(pools.pool(pool_id))
    for pool in options:
        found = _probe(pool, stream, excluded, taken)
        if found is not None:
            return found
    return stream.choice(pools.pool(pool_id))


@dataclass
class NamePlan:
    """The document's part mapping: (role, gender, norm) -> fake part."""

    parts: dict[tuple[str, str, str], str]
    letters: Mapping[str, str]


def plan_parts(
    requests: Iterable[tuple[str, str, str, str, int]],
    pools: NamePools,
    keyed: Keyed,
    scope: str,
    letters: Mapping[str, str],
    excluded: set[str],
) -> dict[tuple[str, str, str], str]:
    """Assign every distinct part of the document a fake, with no two parts sharing one.

    Requests are (role, gender, norm, letter, length). They are settled in sorted order, so
    collisions resolve the same way whatever order the mentions came in.
    """
    result: dict[tuple[str, str, str], str] = {}
    taken: set[str] = set()
    fallback = tuple(pools.rich) or tuple(LETTERS)
    for role, gender, norm, letter, length in sorted(set(requests), key=lambda r: (*r[:4], -r[4])):
        key = (role, gender, norm)
        if key in result:
            continue
        target = letters.get(letter) if letter else None
        if target is None and letters:
            target = fallback[keyed.stream(scope, "initial-other", norm[:1]).below(len(fallback))]
        stream = keyed.stream(scope, "name", role, gender, norm)
        pool_id = "L" if role == "surname" else gender
        fake = choose_part(pools, pool_id, target or "", length, stream, excluded, taken | {norm})
        taken.add(fold_name(fake))
        result[key] = fake
    return result


def part_request(word: NameWord, gender: str, length_preserving: bool) -> tuple[str, str, str, str, int]:
    return (
        word.role,
        gender if word.role == "given" else "",
        word.norm,
        word.letter,
        (word.end - word.start) if length_preserving else 0,
    )


def render_mention(
    mention: NameMention,
    parts: Mapping[tuple[str, str, str], str],
    letters: Mapping[str, str],
    fallback_letter: str,
) -> str:
    """The mention with each name word swapped for its fake, in the word's own case."""
    out: list[str] = []
    cursor = 0
    text = mention.text
    for w in mention.words:
        if w.role == "particle":
            continue
        out.append(text[cursor : w.start])
        original = text[w.start : w.end]
        if w.role == "initial":
            letter = letters.get(w.letter) or fallback_letter
            new = letter if w.style != "lower" else letter.lower()
        else:
            fake = parts[(w.role, mention.gender if w.role == "given" else "", w.norm)]
            new = apply_case(fake, w.style)
        out.append(new if new != original else original)
        cursor = w.end
    out.append(text[cursor:])
    return "".join(out)
