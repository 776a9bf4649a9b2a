"""Word-list detection: hospitals, vendors and user deny lists, matched with an Aho-Corasick automaton.

Why an automaton: a deployment may load tens of thousands of institution-specific names; one pass
over the text finds all of them, where a loop of regular expressions would scale with the list.

Matching rules (every choice here is tested in `tests/detect/test_lexicon.py`):

- **Case**: case-insensitive by default. A term written with a leading `=` in a list file (or a
  `LexiconEntry(case_sensitive=True)`) matches only with exactly that capitalisation: `=Epic`
  fires on "Epic" but not on "epic" or "EPIC". Use it for vendor/product names that are also
  ordinary words and for short acronyms ("MGH").
- **Folding** (length-preserving, so offsets stay exact into the original text): letters are
  lower-cased one character at a time (`"İ".lower()` is two characters; we keep its first),
  curly quotes match straight ones and en/em dashes match "-". Accents fold one way: text
  written without an accent matches an accented term ("Charite" finds "Charité"), but an
  accented letter in the text must be the term's own ("vítrea" is not the product "Vitrea").
- **Whitespace**: one space in a term matches any run of whitespace in the text that holds at
  most one line break ("Massachusetts General\\nHospital" matches; a blank line never does).
- **Word boundaries**: where a term begins (ends) with a letter or digit, the character before
  (after) the match must not be a letter, a digit or a combining mark, so "GE" cannot fire in
  "GEL" or "aGE".
- **Overlaps**: only maximal matches are returned: a match inside a longer match is dropped
  ("GE Healthcare", not also "GE"); partially overlapping matches are all returned and left to the
  resolver. At identical offsets one span is returned, from the entry added last (in
  `from_files`: bundled < hospital < vendor < deny lists), so user lists override bundled ones.

List files use the format of `radeid.core.resources` (one term per line, `#` comments, optional TAB +
label). The label is `CATEGORY` or `CATEGORY/SUBTYPE`; hospital and vendor lists default to
HOSPITAL and VENDOR, while every deny-list line must carry a label (a missing one is an error
naming the file and line, because guessing PATIENT for an ID would make the wrong surrogate).
A leading backslash escapes a literal `=`, `#` or `\\` at the start of a term.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import ahocorasick

from radeid.core.categories import Category, split_label
from radeid.core.document import Document, Span
from radeid.core.resources import bundled_data_path, list_lines
from radeid.patterns.gazetteer import GAZETTEER_SOURCE, find_places

__all__ = [
    "LexiconDetector",
    "LexiconEntry",
    "LexiconFormatError",
    "read_lexicon_file",
    "spelling_variants",
]

#: Bundled lists loaded by `from_files(include_bundled=True)`, with their default category.
BUNDLED_LISTS: tuple[tuple[str, Category], ...] = (
    ("hospitals.txt", Category.HOSPITAL),
    ("vendors.txt", Category.VENDOR),
    ("places.txt", Category.LOCATION),
)

DEFAULT_SCORE = 0.9
DENY_SCORE = 0.95
#: Score of a gazetteer place the text marks as a place ("City: Independence", "Temple, TX").
PLACE_SCORE = 0.8

_CASE_MARKER = "="
_ESCAPE = "\\"

# Characters folded to an ASCII look-alike of the same length (quotes, dashes).
_PUNCT_FOLD = {
    "\u2018": "'",
    "\u2019": "'",
    "\u02bc": "'",
    "\u2032": "'",
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
}
# ASCII whitespace other than space and line feed becomes a space; "`" an apostrophe.
_ASCII_TABLE = str.maketrans(
    {"\t": " ", "\r": " ", "\x0b": " ", "\x0c": " ", "\x1c": " ", "\x1d": " ", "\x1e": " ", "\x1f": " ", "`": "'"}
)
# The same table for bytes: on ASCII text, bytes.lower() and bytes.translate() are a few times
# faster than their str counterparts (a table lookup per byte, no per-character dict lookups).
_ASCII_BYTES = bytes(ord(chr(i).translate(_ASCII_TABLE)) for i in range(128)) + bytes(range(128, 256))
# After folding, all whitespace is " " or "\n"; runs of two or more are collapsed.
# Found as "  " in the text with line breaks made spaces: `str.find` skips the many single spaces
# in C, where a regex such as `[ \n]{2,}` tries (and fails) a match at every one of them.
_SPACE_RUN = re.compile(r" +")
# Stands for a blank line in the collapsed text: no term contains it, so no match crosses it.
_BARRIER = "\x00"
_LINE_BREAKS = frozenset("\n\x85\u2028\u2029")


class LexiconFormatError(ValueError):
    """A list file line that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class LexiconEntry:
    """One term of a word list.

    `list_name` ends up in `Span.source` as `lexicon/<list_name>` so the resolver and the audit
    can tell which list fired; `score` lets deny lists (asserted by a person) outrank guesses.
    """

    term: str
    category: Category
    subtype: str | None = None
    case_sensitive: bool = False
    list_name: str = ""
    score: float = DEFAULT_SCORE

    def __post_init__(self) -> None:
        if not isinstance(self.category, Category):
            object.__setattr__(self, "category", Category.parse(self.category))
        if not self.term.strip():
            raise ValueError("empty lexicon term")

    @property
    def source(self) -> str:
        return f"lexicon/{self.list_name}" if self.list_name else "lexicon"


# --------------------------------------------------------------------------------------- folding


def _fold_char(char: str, lower: bool) -> str:
    """Fold one non-ASCII character to exactly one character (the length invariant)."""
    if char in _PUNCT_FOLD:
        return _PUNCT_FOLD[char]
    if char.isspace():
        return "\n" if char in _LINE_BREAKS else " "
    out = (char.lower() if lower else char)[0]  # "İ".lower() is 2 chars: keep the base letter
    return unicodedata.normalize("NFD", out)[0]  # drop accents of precomposed letters


class _CharFolds(dict[str, str]):
    """Memo of `_fold_char` for one case mode; a dict subclass so a lookup is a C call."""

    def __init__(self, lower: bool) -> None:
        super().__init__()
        self.lower = lower

    def __missing__(self, char: str) -> str:
        if char.isascii():
            out = (char.lower() if self.lower else char).translate(_ASCII_TABLE)
        else:
            out = _fold_char(char, self.lower)
        if len(self) < 65536:
            self[char] = out
        return out


_FOLD_LOWER = _CharFolds(lower=True)
_FOLD_KEEP = _CharFolds(lower=False)


def _fold(text: str, lower: bool = True) -> str:
    """Length-preserving fold: the result has the length of `text`; position i folds char i."""
    if text.isascii():  # the fast path: C-level lower() and translate(), on bytes
        data = text.encode("ascii")
        return (data.lower() if lower else data).translate(_ASCII_BYTES).decode("ascii")
    folds = _FOLD_LOWER if lower else _FOLD_KEEP
    return "".join(map(folds.__getitem__, text))


class _Normalized:
    """A folded text with whitespace runs collapsed, and the map back to original offsets.

    Every whitespace run becomes one character: a space if it holds at most one line break
    (wrapped lines still match multi-word terms), else `_BARRIER`, which no term contains, so a
    match never crosses a blank line.
    """

    __slots__ = ("text", "_points", "_shifts")

    def __init__(self, original: str) -> None:
        folded = _fold(original)
        flat = folded.replace("\n", " ")  # a lone line break: a wrapped line
        self._points: list[int] = []  # collapsed positions from which `shift` applies
        self._shifts: list[int] = []  # original = collapsed + shift
        start = flat.find("  ")  # the first run of two or more spaces / line breaks
        if start < 0:  # nothing to collapse, no map
            self.text = flat
            return
        pieces: list[str] = []
        cursor = 0
        removed = 0
        while start >= 0:
            end = _SPACE_RUN.match(flat, start).end()  # type: ignore[union-attr]
            pieces.append(flat[cursor:start])
            pieces.append(_BARRIER if folded.count("\n", start, end) >= 2 else " ")
            cursor = end
            self._points.append(start - removed + 1)
            removed += end - start - 1
            self._shifts.append(removed)
            start = flat.find("  ", end)
        pieces.append(flat[cursor:])
        self.text = "".join(pieces)

    def to_original(self, index: int) -> int:
        """Original offset of collapsed position `index`."""
        k = bisect.bisect_right(self._points, index)
        return index + (self._shifts[k - 1] if k else 0)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char).startswith("M")


# ------------------------------------------------------------------------------------- list files


def _parse_term(raw: str) -> tuple[str, bool]:
    """Strip the case marker / escape from a list-file term: returns (term, case_sensitive)."""
    if raw.startswith(_ESCAPE) and len(raw) > 1:
        return raw[1:], False
    if raw.startswith(_CASE_MARKER) and len(raw) > 1:
        if raw[1:].startswith(_ESCAPE) and len(raw) > 2:
            return raw[2:], True
        return raw[1:], True
    return raw, False


# Spelling variants of institution names: (pattern, alternatives). Each rule rewrites every
# occurrence at once, so a term yields at most a few dozen variants.
_VARIANT_RULES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:St\.?|Saint)(?= )"), ("St.", "St", "Saint")),
    (re.compile(r"\b(?:Mt\.?|Mount)(?= )"), ("Mount", "Mt.", "Mt")),
    (re.compile(r" (?:&|and) "), (" & ", " and ")),
    (re.compile(r"(?<=\w)['\u2019](?=s\b)"), ("'", "")),
)


def spelling_variants(term: str) -> list[str]:
    """`term` first, then its St./Saint, Mt./Mount, &/and and possessive-apostrophe variants."""
    variants = [term]
    for pattern, alternatives in _VARIANT_RULES:
        grown: list[str] = []
        for variant in variants:
            if pattern.search(variant):
                grown.extend(pattern.sub(alt, variant) for alt in alternatives)
            else:
                grown.append(variant)
        variants = grown
    seen: dict[str, None] = {term: None}
    seen.update(dict.fromkeys(variants))
    return list(seen)


def read_lexicon_file(
    path: str | Path,
    default_category: Category | None,
    list_name: str | None = None,
    score: float = DEFAULT_SCORE,
    variants: bool = False,
) -> list[LexiconEntry]:
    """Read a list file into entries; `default_category=None` makes the label column mandatory.

    `variants=True` adds `spelling_variants` of each term (used for hospital lists, whose
    names are written with and without "St."/"Saint", "&"/"and", "Children's"/"Childrens").
    Reads lines itself (rather than via `radeid.core.resources.iter_word_list`) to name the line
    number in errors; the accepted format is the same.
    """
    path = Path(path)
    name = list_name if list_name is not None else path.stem
    entries: list[LexiconEntry] = []
    for lineno, raw in list_lines(path):
        line = raw.rstrip("\n").rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        raw_term, _, label = line.partition("\t")
        term, case_sensitive = _parse_term(raw_term.strip())
        label = label.strip()
        if not term.strip():
            raise LexiconFormatError(f"{path}:{lineno}: empty term")
        if label:
            try:
                category, subtype = split_label(label)
            except ValueError as err:
                raise LexiconFormatError(f"{path}:{lineno}: {err}") from None
        elif default_category is None:
            raise LexiconFormatError(
                f"{path}:{lineno}: deny-list line has no category label (expected: term<TAB>CATEGORY[/SUBTYPE])"
            )
        else:
            category, subtype = default_category, None
        for form in spelling_variants(term) if variants else (term,):
            entries.append(LexiconEntry(form, category, subtype, case_sensitive, list_name=name, score=score))
    return entries


# ---------------------------------------------------------------------------------------- detector


@dataclass(frozen=True, slots=True)
class _Key:
    """What the automaton stores for one folded term: its entries, last-added first."""

    length: int  # in the collapsed text
    first_is_word: bool
    last_is_word: bool
    entries: tuple[tuple[LexiconEntry, str], ...]  # (entry, term with whitespace collapsed)


class LexiconDetector:
    """Finds list terms in documents; see the module docstring for the exact matching rules."""

    name = "lexicon"

    def __init__(self, entries: Iterable[LexiconEntry], *, places_in_context: bool = False) -> None:
        #: Propose GeoNames places the text marks as places (`radeid.patterns.gazetteer.find_places`).
        self.places_in_context = places_in_context
        grouped: dict[str, list[tuple[LexiconEntry, str]]] = {}
        for entry in entries:
            key = " ".join(_fold(entry.term).split())
            grouped.setdefault(key, []).append((entry, " ".join(entry.term.split())))
        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
        for key, items in grouped.items():
            self._automaton.add_word(
                key,
                _Key(
                    length=len(key),
                    first_is_word=_is_word_char(key[0]),
                    last_is_word=_is_word_char(key[-1]),
                    entries=tuple(reversed(items)),
                ),
            )
        self._size = len(grouped)
        if self._size:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        """Number of distinct folded terms."""
        return self._size

    @classmethod
    def from_files(
        cls,
        hospital_lists: Iterable[str | Path] = (),
        vendor_lists: Iterable[str | Path] = (),
        deny_lists: Iterable[str | Path] = (),
        include_bundled: bool = True,
        places_in_context: bool | None = None,
    ) -> LexiconDetector:
        """Build from the bundled lists plus user lists (later lists win at identical offsets).

        Sources name the list: `lexicon/hospitals` and `lexicon/vendors` (bundled),
        `lexicon/hospital/<file stem>`, `lexicon/vendor/<file stem>` and
        `lexicon/deny/<file stem>` (user lists), so resolver priorities can key on any prefix;
        `lexicon/deny` is the prefix the resolver never allow-lists away.
        """
        entries: list[LexiconEntry] = []
        if include_bundled:
            for filename, category in BUNDLED_LISTS:
                bundled = bundled_data_path("lexicons", filename)
                entries.extend(read_lexicon_file(bundled, category, variants=category is Category.HOSPITAL))
        for path in hospital_lists:
            name = f"hospital/{Path(path).stem}"
            entries.extend(read_lexicon_file(path, Category.HOSPITAL, list_name=name, variants=True))
        for path in vendor_lists:
            name = f"vendor/{Path(path).stem}"
            entries.extend(read_lexicon_file(path, Category.VENDOR, list_name=name))
        for path in deny_lists:
            name = f"deny/{Path(path).stem}"
            entries.extend(read_lexicon_file(path, None, list_name=name, score=DENY_SCORE))
        return cls(entries, places_in_context=include_bundled if places_in_context is None else places_in_context)

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        return [self.find(doc.text) for doc in docs]

    def find(self, text: str) -> list[Span]:
        """Spans in one text, sorted by offsets."""
        if not text:
            return []
        places = self._places(text)
        if not self._size:
            return places
        norm = _Normalized(text)
        found: dict[tuple[int, int], Span] = {}
        for end_index, key in self._automaton.iter(norm.text):
            start = norm.to_original(end_index - key.length + 1)
            end = norm.to_original(end_index) + 1
            if key.first_is_word and start > 0 and _is_word_char(text[start - 1]):
                continue
            if key.last_is_word and end < len(text) and _is_word_char(text[end]):
                continue
            entry = _pick(key, text, start, end)
            if entry is not None and (start, end) not in found:
                found[(start, end)] = Span(start, end, entry.category, entry.subtype, entry.score, entry.source)
        for place in places:
            found.setdefault((place.start, place.end), place)
        return _maximal(found.values())

    def _places(self, text: str) -> list[Span]:
        if not self.places_in_context:
            return []
        return [
            Span(start, end, Category.LOCATION, "CITY", PLACE_SCORE, GAZETTEER_SOURCE)
            for start, end in find_places(text)
        ]

    def iter_terms(self) -> Iterator[str]:
        """The folded terms (for diagnostics; never document text)."""
        yield from self._automaton.keys()


def _pick(key: _Key, text: str, start: int, end: int) -> LexiconEntry | None:
    """The last-added entry whose case and accent rules accept `text[start:end]`."""
    surface = " ".join(text[start:end].split())
    for entry, form in key.entries:
        if _accepts(surface, form, entry.case_sensitive):
            return entry
    return None


def _accepts(surface: str, form: str, case_sensitive: bool) -> bool:
    """Check a match character by character; the automaton already matched the folded forms.

    Accents fold one way only: an unaccented letter in the text may stand for an accented one in
    the term ("Charite" for "Charité"), but a text letter carrying an accent must carry the same
    one in the term, so Spanish "vítrea" is not the product "Vitrea".
    """
    if surface.isascii() and not case_sensitive:
        return True
    if len(surface) != len(form):  # cannot happen for folded-equal strings; be safe
        return False
    for t, f in zip(surface, form, strict=True):
        if t == f:
            continue
        if t.isascii():
            if case_sensitive and _FOLD_KEEP[t] != _FOLD_KEEP[f]:
                return False
        elif t not in _PUNCT_FOLD and (case_sensitive or t.lower() != f.lower()):
            return False
    return True


def _maximal(spans: Iterable[Span]) -> list[Span]:
    """Drop spans nested inside a longer span; keep partial overlaps for the resolver."""
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    kept: list[Span] = []
    reach = -1  # furthest end among kept spans so far
    for span in ordered:
        if span.end <= reach:
            continue  # nested in an earlier, longer-or-equal span that starts no later
        kept.append(span)
        reach = span.end
    return kept
