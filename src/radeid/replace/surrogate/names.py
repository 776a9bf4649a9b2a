"""Person names: parse each mention into parts, map every part with a key, render in place.

Why parts and not whole names: "Dr. Jane Smith" in one report and "Smith" alone in the next
report of the same patient must agree. Each part ("jane" as a given name, "smith" as a surname)
is mapped on its own, seeded by a keyed hash of (scope, role, gender, part), so every mention
of a part gets the same fake in every document of the scope, whatever the mention's form.
Initials use a keyed letter permutation per scope, and a fake part always starts with the
permuted letter of its original, so "J. Smith" agrees with "Jane Smith" even when they sit in
different documents.

Rendering replaces only the name words in the mention's own text: titles, credentials,
punctuation, order, spacing and the case of each word stay as they were. Surname particles
("van der", "de la", "von", "di", "ter") are replaced together with their surname: "Dr. Van der
Berg" becomes "Dr. Lang" (the surname keys the fake, so "Berg" alone agrees), never "Dr. Bob der
Lang"; particles written into the word ("O'Brien", "McDonald", "MacArthur") are part of it.

The pools are in `name_pools.py` and the parsing of a mention in `name_parse.py` (split in
issue 11); this module chooses and renders the surrogate parts and re-exports the other two.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from radeid.replace.surrogate.keyed import Keyed, KeyStream, fold_name
from radeid.replace.surrogate.name_gender import settle_genders
from radeid.replace.surrogate.name_parse import (
    NameMention,
    NameWord,
    parse_name,
    settle_roles,
    title_before,
)
from radeid.replace.surrogate.name_pools import LETTERS, NamePools, length_pools, letter_map, name_pools
from radeid.replace.surrogate.name_shapes import KEEP

__all__ = [
    "LETTERS",
    "NameMention",
    "NamePlan",
    "NamePools",
    "NameWord",
    "choose_part",
    "length_pools",
    "letter_map",
    "name_pools",
    "parse_name",
    "mention_requests",
    "plan_parts",
    "render_mention",
    "settle_genders",
    "settle_roles",
    "title_before",
]


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
    by_length: Mapping[tuple[str, str, int], tuple[str, ...]] | None = None,
) -> str:
    """A fake name part from pool `pool_id` starting with `letter`.

    With a `length` (`--length-preserving`) the part has that length whenever any pool has one:
    the locale's names with the initial, then `by_length` (more Latin-script locales) with the
    initial, then any initial (the initial agreement with "J. Smith" gives way to the length),
    and only then a name of another length, which the engine pads or cuts as a last resort."""
    ids = (pool_id, "FM"[stream.below(2)]) if pool_id == "U" else (pool_id,)  # "U": keep the initial
    options: list[tuple[str, ...]] = []
    if length:
        wide = by_length or {}
        options += [pools.by_letter_len.get((pid, letter, length), ()) for pid in ids]
        options += [wide.get((pid, letter, length), ()) for pid in ids]
        options += [wide.get((pid, "", length), ()) for pid in ids]
    by_letter = pools.by_letter
    options += [by_letter.get((pid, letter), ()) for pid in ids]
    for pool in options:
        found = _probe(pool, stream, excluded, taken)
        if found is not None:
            return found
    whole = pools.pool(pool_id)  # looked up last: a name with the initial is nearly always found
    return _probe(whole, stream, excluded, taken) or stream.choice(whole)


#: (role, gender, norm, initial, length): one name part to map (length 0: any length)
PartRequest = tuple[str, str, str, str, int]


@dataclass
class NamePlan:
    """The document's part mapping: (role, gender, norm) -> fake part."""

    parts: dict[tuple[str, str, str], str]
    letters: Mapping[str, str]


def plan_parts(
    requests: Iterable[PartRequest],
    pools: NamePools,
    keyed: Keyed,
    scope: str,
    letters: Mapping[str, str],
    excluded: set[str],
    by_length: Mapping[tuple[str, str, int], tuple[str, ...]] | None = None,
) -> dict[tuple[str, str, str], str]:
    """Assign every distinct part of the document a fake, with no two parts sharing one.

    Requests are (role, gender, norm, letter, length). They are settled in sorted order, so
    collisions resolve the same way whatever order the mentions came in. A part asked for with
    two lengths (`--length-preserving`: "Berg" alone and "van der Berg") takes the shorter, so
    the longer mention is padded rather than the shorter one cut.
    """
    result: dict[tuple[str, str, str], str] = {}
    taken: set[str] = set()
    fallback = tuple(pools.rich) or tuple(LETTERS)
    for role, gender, norm, letter, length in sorted(set(requests)):  # the shortest length wins
        key = (role, gender, norm)
        if key in result:
            continue
        target = letters.get(letter) if letter else None
        if target is None and letters:
            target = fallback[keyed.stream(scope, "initial-other", norm[:1]).below(len(fallback))]
        stream = keyed.stream(scope, "name", role, gender, norm)
        pool_id = "L" if role == "surname" else gender
        mine = norm not in taken  # the part itself is taken while its fake is chosen (no set copy)
        if mine:
            taken.add(norm)
        fake = choose_part(pools, pool_id, target or "", length, stream, excluded, taken, by_length)
        if mine:
            taken.discard(norm)
        taken.add(fold_name(fake))
        result[key] = fake
    return result


def mention_requests(mention: NameMention, length_preserving: bool) -> list[PartRequest]:
    """The part requests of a mention's given names and surnames. With `--length-preserving` a
    fake has its word's length, or, for a surname after particles ("van der Berg"), the length from
    the first particle: the particles are dropped with their spaces and the fake fills their room."""
    out: list[PartRequest] = []
    particle: int | None = None
    gender = mention.gender
    for w in mention.words:
        role = w.role
        if role == "particle":
            particle = w.start if particle is None else particle
            continue
        if role == "given":
            out.append((role, gender, w.norm, w.letter, (w.end - w.start) if length_preserving else 0))
        elif role == "surname":
            begin = w.start if particle is None else particle
            out.append((role, "", w.norm, w.letter, (w.end - begin) if length_preserving else 0))
        particle = None
    return out


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
        if w.role == KEEP:  # a particle of a language's name shapes ("de la", "von"): kept as written
            continue
        if w.role == "particle":  # replaced together with its surname: dropped, with its space
            out.append(text[cursor : w.start])
            cursor = w.end
            while cursor < len(text) and text[cursor] in " \t":
                cursor += 1
            continue
        out.append(text[cursor : w.start])
        original = text[w.start : w.end]
        if w.role == "initial":
            letter = letters.get(w.letter) or fallback_letter
            new = letter if w.style != "lower" else letter.lower()
        else:
            fake = parts[(w.role, mention.gender if w.role == "given" else "", w.norm)]
            style = w.style  # `apply_case`, inline
            new = fake.upper() if style == "upper" else fake.lower() if style == "lower" else fake
        out.append(new if new != original else original)
        cursor = w.end
    out.append(text[cursor:])
    return "".join(out)
