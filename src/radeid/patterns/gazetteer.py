"""Place names as positive evidence: "lives in Chicago" is a city, though "chicago" is a common word.

The form checks drop a model's single common English word ("rounds", "Society"); many cities are
such words too (Chicago, Miami, Buffalo, Mobile, Reading), and dropping them left one PHI span in a
hundred visible on unseen clinical questions. A name from the bundled GeoNames gazetteer
(`data/lexicons/gazetteer_places.txt`, built by scripts/build_gazetteer.py) in a place context
(after "in", "from", "lives in", ...; before ", NY" or a state or country) is evidence for a place
that no common-word rank outweighs. The gazetteer alone proposes nothing: the model, a rule or a
word list must have called the text PHI first, so "Buffalo hump" and "Rome IV criteria" stay.
"""

from __future__ import annotations

import re
from functools import lru_cache

from radeid.core.resources import bundled_data_path, read_word_list

__all__ = ["GAZETTEER_SOURCE", "find_places", "gazetteer_places", "is_place_name", "load_tables", "place_context"]

#: The source of a place the gazetteer proposes itself (in a strong place context).
GAZETTEER_SOURCE = "lexicon/gazetteer"

#: Words before a place: prepositions of place and movement, and verbs of living and travel.
_BEFORE = re.compile(
    r"(?i)(?:^|[^\w'’])(?:in|from|to|at|near|between|outside|around|visiting|visited|via|toward|towards|into|"
    r"lives|living|lived|resides|residing|resident|moved|born|native[ \t]+of|relocated|returned|"
    r"travel(?:l)?ed|traveling|travelling|flew|drove|trip|vacation(?:ed)?|city[ \t]+of|town[ \t]+of|"
    r"downtown|suburbs?[ \t]+of|area[ \t]+of|back)[ \t]+(?:the[ \t]+city[ \t]+of[ \t]+)?\Z"
)
#: After a place: " area", " suburbs", a ZIP code (", NY" and ", New York": `_region_after`).
_AFTER = re.compile(r"[ \t]+(?i:area|suburbs|metro|region)\b|[ \t]+\d{5}\b")
#: ", <capitalised words>" after a name: a place when those words are a state or country.
_COMMA_NAME = re.compile(r"[ \t]*,[ \t]*([A-Z][A-Za-z]+(?:[ \t]+[A-Z][A-Za-z]+)?)\b")
#: A place name is not followed by these (Rome IV criteria, Buffalo hump, Reading room).
_NOT_AFTER = re.compile(r"[ \t]+(?:[IVX]+\b|\d|(?i:criteria|hump|room|sign|unit|catheter|scale)\b)")


def load_tables() -> None:
    """Read every table this module uses (the fork server's warm-up: workers inherit them)."""
    gazetteer_places()
    _first_words()
    _regions()
    _person_names()
    _common_words()


@lru_cache(maxsize=1)
def _first_words() -> frozenset[str]:
    """The first word of every gazetteer name (case-folded); not the most frequent English words
    ("The" of "The Colony", "A" of "A Coruña": a text's every sentence). A possessive form is looked
    up without its 's (`_begins_place`): storing both forms of 44,000 words cost every run 40 ms."""
    from radeid.patterns.forms import function_words

    # the names are stripped and not empty: the first of `split()` is the first of `split(None, 1)`
    return frozenset({name.split(None, 1)[0] for name in gazetteer_places()} - function_words())


def _begins_place(key: str, firsts: frozenset[str]) -> bool:
    """A case-folded word, or the word before its possessive 's, is the first word of a place."""
    return key in firsts or (key[-2:] in ("'s", "’s") and key[:-2] in firsts)


@lru_cache(maxsize=1)
def gazetteer_places() -> frozenset[str]:
    """The bundled place names, case-folded."""
    # a plain list, one name per line after two comment lines: read directly (the general word-list
    # reader parses labels and case markers, ~0.15 CPU s for these 55,000 lines)
    path = bundled_data_path("lexicons", "gazetteer_places.txt")
    with open(path, encoding="utf-8") as handle:
        return frozenset(line.strip().casefold() for line in handle if line.strip() and not line.startswith("#"))


def is_place_name(piece: str) -> bool:
    """A capitalised (or all-caps) name the gazetteer holds: "Chicago", "BUFFALO", not "buffalo"."""
    stripped = piece.strip()
    if not stripped or not stripped[0].isupper():
        return False
    for suffix in ("'s", "’s"):
        stripped = stripped.removesuffix(suffix)
    return stripped.casefold() in gazetteer_places()


def place_context(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` stands where a place stands: after "in"/"from"/"lives in"/..., or
    before ", ST" / ", State" / " area", on the same line, and not before "IV", "hump", "room"."""
    if _NOT_AFTER.match(text, end):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - 40) : start]
    if _last_word(before) in _BEFORE_LAST and _BEFORE.search(before) is not None:
        return True
    if _AFTER.match(text, end) is not None:
        return True
    state = _STATE_AFTER.match(text, end)
    if state is not None and not _credential_after_name(text, start, text[start:end], state.group()):
        return True
    if _region_after(text, end):
        return True
    # "between Phoenix and Vegas", "Miami or Tampa": after another place and a conjunction
    listed = _LISTED.search(before) if _may_be_listed(before) else None
    return listed is not None and is_place_name(listed.group(1))


_LISTED = re.compile(r"([A-Z][\w'’.-]*)[ \t]*(?:,|[ \t]and|[ \t]or|[ \t]&)[ \t]+\Z")
#: A capitalised word and up to three capitalised words after it: the names `find_places` looks up.
#: (The lookbehind comes after the first letter, so that `re` can skip to the next capital letter in
#: C: a pattern that begins with a lookbehind is tried at every position.)
_CAPITALISED_WORD = re.compile(r"[A-Z](?<![\w'’.-][A-Z])[\w'’-]*")
_FOLLOWING_WORDS = re.compile(r"(?:\.?[ \t]+[A-Z][\w'’-]*){0,3}")
_NAME_WORD = re.compile(r"[A-Z][\w'’-]*")
#: A label or cue after which a name is a place whatever the word ("City: Independence", "moved
#: here from Reading", "flying in from Mobile").
_STRONG_BEFORE = re.compile(
    r"(?i)(?:(?:^|[^\w])(?:city|town|residence|hometown|birthplace|place[ \t]+of[ \t]+birth)[ \t]*:[ \t]*"
    r"|(?:^|[^\w])(?:lives|living|lived|resides|residing|resident|moved(?:[ \t]+(?:here|back|down|up))?|"
    r"relocated|transferred|transfer|flying[ \t]+in|flew[ \t]+in|drove[ \t]+in|visiting|returned|"
    r"born|native|originally|immigrated|emigrated|commutes?|travel(?:l)?ed|vacation(?:ed|ing)?)"
    r"[ \t]+(?:in|from|to|of|at|near)[ \t]+)\Z"
)
#: A workplace before a place ("works at the port in Mobile", "at the plant in Reading"): written in
#: lower case, so an all-caps report line ("PORT IN NORMAL POSITION") is no such cue.
_WORKPLACE_BEFORE = re.compile(
    r"(?:^|[^\w])(?:at|near|by|from|to|on)[ \t]+the[ \t]+"
    r"(?:port|harbor|harbour|docks|shipyard|refinery|factory|plant|mill|mine|airport|base)"
    r"[ \t]+(?:in|of|at|near)[ \t]+\Z"
)
#: A lower-case name is a place only when it is rare as an English word: absent from the frequency
#: list, or in its tail (rank 14,000 or later of 20,000: "vegas", "seattle"), never "normal" (943) or
#: "home" after "transferred" (the rules' `lower_place` and `facility_lower` validators).
LOWER_PLACE_RANK = 14_000
#: ", NY" / ", New York" after a name: a place (the states of `places.txt` and their codes).
_STATE_AFTER = re.compile(
    r"[ \t]*,[ \t]*(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|"
    r"T[NX]|UT|V[AT]|W[AIVY])\b"
)


def find_places(text: str) -> list[tuple[int, int]]:
    """Gazetteer names the text itself marks as places: after a place label or a cue of living or
    travel ("City: Independence", "moved here from Reading"), or before a state code ("Temple,
    TX"); a name that is not a common English word also after a plain "in"/"from"/"to"/... (the
    same place contexts the resolver uses). The longest name of a capitalised run wins."""
    found: list[tuple[int, int]] = []
    common = _common_words()
    taken = 0
    for word in _first_word_spans(text):
        # only a word that begins some gazetteer name is looked at (few words of a text are)
        if word[0] < taken:
            continue
        following = _FOLLOWING_WORDS.match(text, word[1])
        words = [word]
        if following is not None and following.group():
            words += [(word[1] + m.start(), word[1] + m.end()) for m in _NAME_WORD.finditer(following.group())]
        place = _place_at(text, words, 0, common)
        if place is not None:
            found.append(place)
            taken = place[1]
    return found


def _first_word_spans(text: str) -> list[tuple[int, int]]:
    """The `_CAPITALISED_WORD` matches that begin some gazetteer name, in text order. The words are
    collected and looked up once each (a report repeats most of its ~100 capitalised words), and
    only the few that begin a name are located again, with `str.find` and the pattern's own edges:
    no character of `[\\w'’.-]` before, none of `[\\w'’-]` after (where the greedy match ends)."""
    firsts = _first_words()
    hits = [w for w in set(_CAPITALISED_WORD.findall(text)) if _begins_place(w.casefold(), firsts)]
    if not hits:
        return []
    spans: list[tuple[int, int]] = []
    for word in hits:
        size = len(word)
        at = text.find(word)
        while at >= 0:
            end = at + size
            if (at == 0 or not _in_word(text[at - 1], ".")) and (end == len(text) or not _in_word(text[end], "")):
                spans.append((at, end))
            at = text.find(word, end)
    spans.sort()
    return spans


def _in_word(char: str, extra: str) -> bool:
    """`char` is in `[\\w'’-]` (plus the characters of `extra`)."""
    return char.isalnum() or char in "_'’-" or char in extra


def _last_word(before: str) -> str:
    """The run of word characters that ends `before` once its trailing blanks are stripped, lower
    case; "" when `before` does not end in a blank (every cue pattern ends in `[ \\t]+`)."""
    stripped = before.rstrip(" \t")
    if len(stripped) == len(before):
        return ""
    i = len(stripped)
    while i and (stripped[i - 1].isalnum() or stripped[i - 1] == "_"):
        i -= 1
    return stripped[i:].lower()


#: The last word of every `_BEFORE` cue ("native of", "the city of": "of"); `_BEFORE` is searched
#: only when the words before a name end with one of them.
_BEFORE_LAST = frozenset(
    """in from to at near between outside around visiting visited via toward towards into lives living
    lived resides residing resident moved born of relocated returned traveled travelled traveling
    travelling flew drove trip vacation vacationed downtown back""".split()
)
#: The prepositions that end `_STRONG_BEFORE`'s cues (and `_WORKPLACE_BEFORE`'s: in, of, at, near).
_STRONG_LAST = frozenset({"in", "from", "to", "of", "at", "near"})


def _may_follow_strong_cue(before: str) -> bool:
    """False only where `_STRONG_BEFORE` and `_WORKPLACE_BEFORE` cannot match `before`: it ends in
    neither a label colon nor a blank after one of their prepositions."""
    return before.rstrip(" \t").endswith(":") or _last_word(before) in _STRONG_LAST


def _may_be_listed(before: str) -> bool:
    """False only where `_LISTED` cannot match `before`: no ",", "and", "or" or "&" before its
    trailing blanks."""
    stripped = before.rstrip(" \t")
    if len(stripped) == len(before):
        return False
    return stripped.endswith((",", " and", "\tand", " or", "\tor", " &", "\t&"))


def _region_after(text: str, end: int) -> bool:
    """ ", New York" / ", Texas" / ", Canada" after a name (a state or country of `places.txt`)."""
    match = _COMMA_NAME.match(text, end)
    return match is not None and match.group(1).casefold() in _regions()


@lru_cache(maxsize=1)
def _regions() -> frozenset[str]:
    path = bundled_data_path("lexicons", "places.txt")
    return frozenset(term.lstrip("=").casefold() for term in read_word_list(path))


def _place_at(text: str, words: list[tuple[int, int]], first: int, common: frozenset[str]) -> tuple[int, int] | None:
    """The longest gazetteer name starting at word `first` of a capitalised run that the text
    marks as a place (see `find_places`), with a state code after it included."""
    for n in range(min(len(words) - first, 4), 0, -1):
        start, end = words[first][0], words[first + n - 1][1]
        piece = text[start:end]
        if not is_place_name(piece) or _NOT_AFTER.match(text, end):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        before = text[max(line_start, start - 40) : start]
        state = _STATE_AFTER.match(text, end)
        if state is not None and _credential_after_name(text, start, piece, state.group()):
            state = None
        listed = _LISTED.search(before) if _may_be_listed(before) else None
        cued = _may_follow_strong_cue(before)
        strong = (
            (cued and _STRONG_BEFORE.search(before) is not None)
            or (cued and not piece.isupper() and _WORKPLACE_BEFORE.search(before) is not None)
            or state is not None
            or (listed is not None and is_place_name(listed.group(1)) and place_context(text, start, end))
        )
        if strong or (piece.casefold() not in common and not piece.isupper() and place_context(text, start, end)):
            return (start, state.end() if state is not None else end)  # "Temple, TX" is one span
        return None  # the longest name here is no place in this context: no shorter one either
    return None


def _credential_after_name(text: str, start: int, piece: str, state: str) -> bool:
    """ ", MD" / ", PA" / ", MA" / ", MS" after a person's name is a degree, not a state: "Jane
    Smith, MD" (a first name before the candidate, or the candidate is a person's name)."""
    code = state.strip(" \t,").upper()
    if code not in {"MD", "PA", "MA", "MS"}:
        return False
    names = _person_names()
    before = re.search(r"([A-Z][a-z'’-]+)[ \t]+\Z", text[max(0, start - 30) : start])
    return piece.casefold() in names or (before is not None and before.group(1).casefold() in names)


@lru_cache(maxsize=1)
def _person_names() -> frozenset[str]:
    from radeid.patterns.forms import person_names

    return person_names()


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    from radeid.patterns.forms import common_words

    return common_words()
