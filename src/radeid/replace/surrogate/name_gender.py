"""The gender of each person-name mention, so that a surrogate first name never contradicts the
report around it ("a 92-year-old woman", "she", "Ms.").

What decides, first hit wins (issue 13):

1. a title in or next to the mention: "Mrs. Jordan Smith", "LEE, SOO-JIN (Ms)", "Smith, Mr.";
2. the first-name tables: the bundled hand table and Faker's lists for the locale
   (`NamePools.gender`), then Faker's lists over all its locales (`NamePools.world`), then the
   World Gender Name Dictionary 2.0 (`name_pools.wgnd_gender`), both built by
   scripts/build_name_genders.py; a name the locales disagree on is ambiguous (U) there;
3. a cue right next to the mention: "Eleanor Quist, a 92-year-old woman", "Quist is a man";
4. what another mention of the same person (same surname or same first name) got from 1 or 3;
5. for patient mentions only, and only when the document names one patient: the document's own
   words. She/her/hers/herself, woman/female/lady/girl against he/him/his/himself,
   man/male/gentleman/boy (lower or title case only: "HIS" is a system), and a "Sex: F" field.
   One side wins when it has all the votes, or at least three times the other side's (pronouns
   may also point at a clinician or a relative, hence the margin). Relatives' words (daughter,
   son, mother, father) say nothing about the patient ("the daughter called") and do not count;
   "patient's wife" / "patient's husband" do;
6. a name the tables call ambiguous stays ambiguous (U: an ambiguous surrogate);
7. an unknown name with a telling ending ("-ko", "-ova", "-esh", learned from the same tables by
   scripts/build_name_genders.py) takes its gender;
8. any other name gets a keyed coin on the name, the same for that name everywhere in the scope.

The document cues (3 to 5) may differ between two reports of one patient, and then so may the
surrogate first name; titles and tables are the same everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.replace.surrogate.keyed import Keyed
from radeid.replace.surrogate.name_parse import NameMention, NameWord
from radeid.replace.surrogate.name_pools import NamePools, ending_gender

__all__ = ["document_gender", "settle_genders"]

_NOUN_GENDER = {
    "woman": "F", "female": "F", "lady": "F", "girl": "F",
    "man": "M", "male": "M", "gentleman": "M", "boy": "M",
}  # fmt: skip
_NOUNS = "woman|female|lady|girl|gentleman|male|man|boy"
_AFTER_CUE = re.compile(  # "Quist, a 92-year-old woman", "Quist is a man": an article after is/was
    rf"(?:\s*,\s*(?:an?\s+|the\s+)?|\s+(?:is|was)\s+an?\s+)(?:[\w-]+\s+){{0,3}}?({_NOUNS})\b", re.IGNORECASE
)
_AFTER_TITLE = re.compile(r"\s*(?:,\s*|\(\s*)?(mrs|ms|miss|mr)\b\.?\s*\)?", re.IGNORECASE)
_AFTER_TITLES = {"mrs": "F", "ms": "F", "miss": "F", "mr": "M"}
_BEFORE_CUE = re.compile(rf"\b({_NOUNS})\b\s*(?:,|:|-|named|called)?\s*$", re.IGNORECASE)
_DOC_WORDS = re.compile(  # pronouns in lower or title case only: "HIS" is a system, "HE" a stain
    r"\b(?:([Ss]he|[Hh]er|[Hh]ers|[Hh]erself|[Ww]oman|[Ff]emale|[Ll]ady|[Gg]irl)"
    r"|([Hh]e|[Hh]im|[Hh]is|[Hh]imself|[Mm]an|[Mm]ale|[Gg]entleman|[Bb]oy))\b"
    r"|\b(?i:sex|gender)\s*[:=]\s*((?i:f|female|m|male))\b"
    r"|\b(?i:patient|pt)['’]s\s+((?i:wife|husband))\b"
)
_AFTER_WINDOW = 60
_BEFORE_WINDOW = 24


def _local_cue(text: str, span: Span) -> str:
    """A title or a sex noun attached to the mention in the text: F, M or ""."""
    after = text[span.end : span.end + _AFTER_WINDOW]
    m = _AFTER_TITLE.match(after)
    if m and not (m.group(1) == "MS" and "(" not in m.group(0)):  # ", MS" is a degree
        return _AFTER_TITLES[m.group(1).casefold()]
    m = _AFTER_CUE.match(after)
    if m:
        return _NOUN_GENDER[m.group(1).casefold()]
    m = _BEFORE_CUE.search(text, max(0, span.start - _BEFORE_WINDOW), span.start)
    if m:
        return _NOUN_GENDER[m.group(1).casefold()]
    return ""


def document_gender(text: str) -> str:
    """F or M when the document's words clearly point one way (rule 5 above), else ""."""
    female = male = 0
    for m in _DOC_WORDS.finditer(text):
        f_word, m_word, sex, spouse = m.groups()
        if f_word:
            female += 1
        elif m_word:
            male += 1
        elif sex:
            return "F" if sex[0] in "fF" else "M"
        elif spouse:
            if spouse.casefold() == "wife":
                male += 1
            else:
                female += 1
    if female and (not male or female >= 3 * male):
        return "F"
    if male and (not female or male >= 3 * female):
        return "M"
    return ""


def _one_patient(mentions: Sequence[NameMention], patient: Sequence[bool]) -> bool:
    """Whether the patient mentions name one person: one surname at most, and no first name
    that is not seen next to that surname."""
    surnames: set[str] = set()
    with_surname: set[str] = set()
    lone: set[str] = set()
    for mention, is_patient in zip(mentions, patient, strict=True):
        if not is_patient:
            continue
        sur = {w.norm for w in mention.words if w.role == "surname"}
        given = {w.norm for w in mention.words if w.role == "given"}
        surnames |= sur
        (with_surname if sur else lone).update(given)
    return len(surnames) <= 1 and bool(surnames or lone) and len(lone - with_surname) <= (0 if surnames else 1)


def _first_name(mention: NameMention, pools: NamePools) -> tuple[NameWord | None, str]:
    """The mention's first given word and the tables' label for it ("" when unknown); a
    hyphenated first name is looked up whole too ("Soo-Jin" as "soojin")."""
    given = [w for w in mention.words if w.role == "given"]
    if not given:
        return None, ""
    first = given[0]
    label = pools.gender_of(first.norm)
    if not label and len(given) > 1 and mention.text[first.end : given[1].start] in ("-", "‐", "–"):
        label = pools.gender_of(first.norm + given[1].norm)
    return first, label


def settle_genders(
    mentions: Sequence[NameMention],
    pools: NamePools,
    keyed: Keyed,
    scope: str,
    text: str = "",
    spans: Sequence[Span] | None = None,
) -> None:
    """Set `gender` (F, M or U) on every mention, by the rules of the module docstring.
    `text` and `spans` (the mentions' spans, same order) give the document cues; without them
    only titles, tables and the keyed coin decide."""
    n = len(mentions)
    if spans is None or len(spans) != n:
        spans = None
    cue: list[str] = []
    firsts = [_first_name(mention, pools) for mention in mentions]  # read again below: roles do not change
    for i, mention in enumerate(mentions):
        local = mention.title_gender or ""
        first, label = firsts[i]
        if not local and label not in ("F", "M") and spans is not None:
            local = _local_cue(text, spans[i])
        cue.append(local)
    # rule 4: what a mention's title or cue says spreads to the same surname and first name
    hint: dict[tuple[str, str], str] = {}
    for mention, c in zip(mentions, cue, strict=True):
        if c:
            for w in mention.words:
                if w.role in ("surname", "given"):
                    hint.setdefault((w.role, w.norm), c)
    doc: str | None = None
    patient_category = Category.PATIENT  # a local: an enum member costs a lookup per span
    patient = [s.category is patient_category for s in spans] if spans is not None else [False] * n
    single: bool | None = None
    for i, mention in enumerate(mentions):
        first, label = firsts[i]
        if mention.title_gender:
            mention.gender = mention.title_gender
            continue
        if label in ("F", "M"):
            mention.gender = label
            continue
        decided = cue[i] or next(
            (hint[(w.role, w.norm)] for w in mention.words if (w.role, w.norm) in hint),
            "",
        )
        if not decided and patient[i] and first is not None:
            if single is None:
                single = _one_patient(mentions, patient)
            if single:
                if doc is None:
                    doc = document_gender(text)
                decided = doc
        if decided:
            mention.gender = decided
        elif label == "U" or first is None:
            mention.gender = "U"
        else:
            mention.gender = ending_gender(first.norm) or "FM"[keyed.stream(scope, "gender", first.norm).below(2)]
