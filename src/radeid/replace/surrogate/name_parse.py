"""Parsing a person-name mention: titles and credentials (kept), name words (replaced) with their
role (given, surname, initial, particle), case and initial; then, over a document's mentions,
settling the roles of single words (genders: `name_gender.py`).

Split from `names.py` (issue 11): reading a name is independent of choosing its surrogate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from radeid.replace.surrogate.keyed import ascii_initial, case_style, fold_name
from radeid.replace.surrogate.name_pools import NamePools
from radeid.replace.surrogate.name_shapes import KEEP, NameShapes, shape_roles

__all__ = ["NameMention", "NameWord", "parse_name", "settle_roles", "title_before"]

_TITLES = {
    "dr": None, "doctor": None, "prof": None, "professor": None, "mx": None, "rev": None,
    "mr": "M", "sir": "M", "mrs": "F", "ms": "F", "miss": "F", "madam": "F",
}  # fmt: skip
_TITLE_RE = re.compile(r"(?:(dr|doctor|prof|professor|mx|rev|mr|sir|mrs|ms|miss|madam)\b\.?\s*)+", re.IGNORECASE)
_ONE_TITLE = re.compile(r"(dr|doctor|prof|professor|mx|rev|mr|sir|mrs|ms|miss|madam)\b", re.IGNORECASE)
_TRAILING_TITLE = re.compile(r"(?:\s*,\s*|\s+)\(?\s*(mrs|ms|miss|mr)\b\.?\s*\)?[\s,.]*$", re.IGNORECASE)
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
_ORDINAL = re.compile(r"([ªº])\.?\s*")
_TITLE_WORD = re.compile(r"([^\W\d_]+)\.?(?:ª\.?)?\s*")  # "Dña. ", "Dr.ª ", "med. ": a language's titles


@dataclass(slots=True)
class NameWord:
    """One replaceable word of a mention; `role` is given, surname, initial or particle.

    Words come from a parse cache (`parse_name`) and are shared by every mention of the same
    name, except those of an ambiguous mention, whose role `settle_roles` sets: only those may
    be changed."""

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


def title_before(before: str, shapes: NameShapes | None = None) -> tuple[bool, str | None]:
    """Whether the text just before a name ends with a title ("Dr. ", "(Mrs ", with a language's
    name shapes "Dña. ", "Frau "), and its gender."""
    if not before or not (before[-1].isspace() or before[-1] == "."):
        return False, None
    words = before.split()
    if not words:
        return False, None
    last = words[-1].lstrip("([{\"'").rstrip(".").casefold()
    if last in _TITLES:
        return True, _TITLES[last]
    if shapes is not None:
        own = shapes.titles.get(fold_name(last))
        if own is not None:
            return True, own or None
    return False, None


def parse_name(text: str, before: str, pools: NamePools) -> NameMention:
    """Split a name span into titles (kept), credentials (kept) and name words (replaced).

    `before` is the text just before the span: detectors usually leave "Dr." outside the span,
    yet it still says the single word after it is a surname (and "Mrs." says female).
    Parses are cached per (text, title before): names repeat a lot in a corpus.
    """
    pre_title, pre_gender = title_before(before, pools.shapes)
    key = (text, pre_gender, pre_title)
    proto = pools.parse_cache.get(key)
    if proto is None:
        if len(pools.parse_cache) > 1 << 16:
            pools.parse_cache.clear()
        mention = _parse_name(text, pre_gender, pre_title, pools)
        proto = pools.parse_cache[key] = (
            tuple(mention.words),
            mention.title_gender,
            mention.has_title,
            mention.compounds,
            mention.ambiguous_role,
        )
    words, title_gender, has_title, compounds, ambiguous = proto
    # only an ambiguous mention's words change (`settle_roles` gives them their role): they are
    # copied; every other mention shares the cached words, which nothing changes
    own = [NameWord(w.start, w.end, w.role, w.norm, w.style, w.letter) for w in words] if ambiguous else list(words)
    return NameMention(text, own, title_gender, has_title, compounds, ambiguous_role=ambiguous)


def _parse_name(text: str, pre_gender: str | None, pre_title: bool, pools: NamePools) -> NameMention:
    """The uncached parse behind `parse_name`: titles and credentials set aside, then each word's role."""
    shapes = pools.shapes
    start, end, title_gender, has_title = _titles(text, pre_gender, pre_title, shapes)
    spans = _word_spans(text, start, end)
    if not spans:
        return NameMention(text, [], title_gender, has_title, 0)

    comma = text.find(",", start, end)
    inverted = comma != -1 and spans[0][0] < comma < spans[-1][0]
    compounds = _compounds(text, spans)
    ambiguous = False
    words: list[NameWord]
    if inverted:
        words = _inverted_words(text, compounds, comma, shapes)
    elif len(compounds) == 1:
        ambiguous = True
        words = [_word(text, s, e, "surname") for s, e in compounds[0]]  # role settled later
    else:
        if shapes is None:
            roles = _ordered_roles(text, compounds, has_title, pools)
        else:
            roles = shape_roles(_folded(text, compounds), pools.gender, shapes, has_title, _PARTICLES)
        words = [_word(text, s, e, role) for role, comp in zip(roles, compounds, strict=True) for s, e in comp]
    return NameMention(text, words, title_gender, has_title, len(compounds), ambiguous_role=ambiguous)


def _titles(
    text: str, pre_gender: str | None, pre_title: bool, shapes: NameShapes | None = None
) -> tuple[int, int, str | None, bool]:
    """The name words' bounds once titles and credentials are set aside; the titles' gender; whether one was seen."""
    start, end = 0, len(text)
    title_gender: str | None = None
    has_title = False
    m = _TITLE_RE.match(text)
    if m and m.end() < end and any(ch.isalpha() for ch in text[m.end() :]):
        has_title = True
        for t in _ONE_TITLE.finditer(m.group(0)):
            title_gender = _TITLES.get(t.group(1).casefold()) or title_gender
        start = m.end()
    if shapes is not None:
        start, title_gender, has_title = _shape_titles(text, start, shapes, title_gender, has_title)
    if pre_title:
        has_title = True
        title_gender = title_gender or pre_gender
    end = _strip_credentials(text, start, end)
    trailing = _TRAILING_TITLE.search(text, start, end)  # "LEE, SOO-JIN (Ms)", "Smith, Mrs."
    if trailing and trailing.group(1) == "MS" and "(" not in trailing.group(0):
        trailing = None  # "Kim Lee MS": a degree, not a title
    if trailing and any(ch.isalpha() for ch in text[start : trailing.start()]):
        has_title = True
        title_gender = title_gender or _TITLES[trailing.group(1).casefold()]
        end = _strip_credentials(text, start, trailing.start())
    return start, end, title_gender, has_title


def _shape_titles(
    text: str, start: int, shapes: NameShapes, gender: str | None, has_title: bool
) -> tuple[int, str | None, bool]:
    """A language's titles at `start` ("Dña. ", "Prof. Dr. med. ", "Frau Dr. "), English ones
    among them, set aside while a name word follows; the last one with a gender tells it."""
    while True:
        ordinal = _ORDINAL.match(text, start) if has_title else None
        if ordinal is not None:  # "Dr.ª": the English title read "Dr.", its feminine ending follows
            start, gender = ordinal.end(), "F" if ordinal.group(1) == "ª" else gender
        m = _TITLE_WORD.match(text, start)
        if m is None or not any(ch.isalpha() for ch in text[m.end() :]):
            return start, gender, has_title
        word = m.group(1).casefold()
        own = shapes.titles.get(fold_name(word))
        if own is None and word not in _TITLES:
            return start, gender, has_title
        gender = (own if own is not None else _TITLES[word]) or gender
        start, has_title = m.end(), True


def _folded(text: str, compounds: list[list[tuple[int, int]]]) -> list[str]:
    """Each compound folded ("" for a hyphenated one, never a particle or a known first name)."""
    return [fold_name(text[slice(*comp[0])]) if len(comp) == 1 else "" for comp in compounds]


def _word_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The name words between `start` and `end`, a possessive 's left outside."""
    spans: list[tuple[int, int]] = []
    for w in _WORD.finditer(text, start, end):
        s, e = w.span()
        if e - s > 3 and text[e - 2 : e].casefold() in ("'s", "’s"):
            e -= 2  # possessive: "Smith's" -> "Smith" + "'s"
        spans.append((s, e))
    return spans


def _compounds(text: str, spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Words joined by a hyphen ("Smith-Jones", "Mary-Kate") grouped: each group acts as one name."""
    compounds: list[list[tuple[int, int]]] = []
    for s, e in spans:
        if compounds and text[compounds[-1][-1][1] : s] in ("-", "‐", "–"):
            compounds[-1].append((s, e))
        else:
            compounds.append([(s, e)])
    return compounds


def _word(text: str, s: int, e: int, role: str) -> NameWord:
    """The word `text[s:e]` in `role` (a one-letter word is always an initial)."""
    piece = text[s:e]
    if len(fold_name(piece)) == 1 and role != KEEP:
        role = "initial"
    return NameWord(s, e, role, fold_name(piece), case_style(piece), ascii_initial(piece))


def _inverted_words(
    text: str, compounds: list[list[tuple[int, int]]], comma: int, shapes: NameShapes | None = None
) -> list[NameWord]:
    """Inverted "Surname, Given": before the comma surnames (and particles), after it given names."""
    words: list[NameWord] = []
    left = [c for c in compounds if c[0][0] < comma]
    right = [c for c in compounds if c[0][0] > comma]
    if shapes is not None:  # "Ramos de Madrid, Danilo": the particles kept, every other word a surname
        roles = shape_roles(_folded(text, left), {}, shapes, True, _PARTICLES)
        roles = ["surname" if r == "given" else r for r in roles]
        words.extend(_word(text, s, e, role) for role, comp in zip(roles, left, strict=True) for s, e in comp)
        left = []
    for i, comp in enumerate(left):
        for s, e in comp:
            particle = i < len(left) - 1 and len(comp) == 1 and fold_name(text[s:e]) in _PARTICLES
            words.append(_word(text, s, e, "particle" if particle else "surname"))
    for comp in right:
        words.extend(_word(text, s, e, "given") for s, e in comp)
    return words


def _ordered_roles(text: str, compounds: list[list[tuple[int, int]]], has_title: bool, pools: NamePools) -> list[str]:
    """Roles of "Given [Middle] [particles] Surname", one per compound (or the list-header "SMITH JANE")."""
    last = len(compounds) - 1
    first_particle = last
    while (
        first_particle - 1 >= 1
        and len(compounds[first_particle - 1]) == 1
        and fold_name(text[slice(*compounds[first_particle - 1][0])]) in _PARTICLES
    ):
        first_particle -= 1
    if (
        first_particle == 1
        and len(compounds[0]) == 1
        and fold_name(text[slice(*compounds[0][0])]) in _PARTICLES
        and (has_title or first_particle < last)
    ):
        first_particle = 0  # "Dr. Van der Berg", "van der Berg": no given name, all particles
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
    return roles


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
