"""Complete a model's piece of an entity to the whole entity, instead of judging the piece.

A token classifier often tags part of an entity: `9` of `9-9-14`, `Aug 10,` without its `'23`,
`General` of `St. Mary's General`, two dates as one span (`12-11-09. 9-16-07`). Judged alone, such
a piece fails its form check ("9" is no date, "General" is a common word) and the whole entity is
left visible. The resolver therefore grows a model's DATE piece to the date-shaped text around it
(or splits a span holding several dates into them) and a HOSPITAL piece to the capitalised facility
name around it, and then form-checks the result. Pieces with no such shape around them are left
as they are, so the form checks still drop "rounds" or "Society".
"""

from __future__ import annotations

import re

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.edges import CREDENTIALS
from radeid.patterns.forms import MONTHS, looks_like_date, only_function_words

__all__ = ["complete"]

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    # the month names `looks_like_date` knows in Spanish, German, French, Italian and Portuguese
    + "|".join(sorted((m for m in MONTHS if len(m) > 3 and m.isalpha()), key=len, reverse=True))
    + ")"
)
_YEAR_TAIL = r"(?:,?[ \t]+(?:(?:de|del)[ \t]+)?(?:'\d{2}|\d{4}))?"
#: Date-shaped text: a month and a year (3/2019), years of a range (2010-2015, 2015 to 2019),
#: numeric dates with one separator (4-25-10, 11/22, 2019-07-04; "4/20-8/20" is two), month first
#: (Aug 10, '23; March 3rd, 2019), day first (3 March 2019, 3rd of March) and a season ("Fall 2019").
#: Every alternative starts a word (no word character before, a digit or letter first), so the
#: pattern begins with that test: at the other positions `re` fails at once instead of trying each
#: alternative (a third less time; the matches are the same).
_DATE_SHAPE = re.compile(
    r"\b(?=\w)(?:"
    r"(?<![\w/.])\d{1,2}[/.-](?:18|19|20)\d\d(?![\w/]|\.\d)"
    r"|(?<![\w/.-])(?:18|19|20)\d\d(?=[ \t]*(?:-|–|to|through|until)[ \t]*(?:(?:18|19|20)\d\d|present|now|current)\b)"
    r"|(?<=[-–])(?:18|19|20)\d\d(?![\w/]|\.\d)"
    r"|(?<=to[ ])(?:18|19|20)\d\d(?![\w/]|\.\d)"
    # not after a bare number and a hyphen: "8-1/2 months" is a mixed number, "4/20-8/20" a range
    r"|(?<![\w/.])(?<![^\d/.-]\d-)(?<![^\d/.-]\d\d-)(?<!^\d-)(?<!^\d\d-)"
    r"\d{1,4}(?P<sep>[/.-])\d{1,4}(?:(?P=sep)\d{1,4})?(?![\w/]|\.\d)"
    rf"|(?i:(?<![\w]){_MONTH}\.?(?:[ \t]+\d{{1,2}}(?:st|nd|rd|th)?(?![\w]))?{_YEAR_TAIL})(?![\w])"
    rf"|(?i:(?<![\w])\d{{1,2}}[-/.]{_MONTH}[-/.](?:\d{{4}}|\d{{2}}))(?![\w])"
    rf"|(?i:(?<![\w])\d{{1,2}}(?:st|nd|rd|th|\.)?[ \t]+(?:(?:of|de)[ \t]+)?{_MONTH}\.?{_YEAR_TAIL})(?![\w])"
    r"|(?i:(?<![\w])(?:spring|summer|fall|autumn|winter)[ \t]+(?:of[ \t]+)?(?:18|19|20)\d\d)(?![\w])"
    r"|(?<![\w/.-])(?:18|19|20)\d\d(?![\w/]|[.-]\d)"
    r")"
)
#: Words that make a run of capitalised words a facility or organisation name.
_FACILITY_HEADS = frozenset(
    """hospital hospitals health healthcare medical center centre clinic clinics general county memorial
    regional infirmary institute university college system network associates group partners imaging
    radiology diagnostics laboratories laboratory labs pharmacy rehabilitation rehab hospice lines inc
    llc corp corporation company foundation sanatorium care physicians practice surgery surgical
    specialists service services dialysis living nursing pediatrics cardiology orthopedics oncology neurology
    dermatology urology wellness hospitalists logistics management properties property transport
    trucking construction manufacturing industries technologies solutions systems enterprises
    holdings finance capital bank insurance consulting ltd plc gmbh""".split()
)
_NAME_WORD = re.compile(r"(?:St\.|Mt\.|Ste\.|[A-Z][\w'’&-]*|&)")
_CONNECTORS = frozenset({"of", "the", "and", "for", "&"})
#: At most this many words are added on each side of the piece.
_MAX_WORDS = 5


def complete(text: str, span: Span, *, model: bool = True) -> list[Span]:
    """`span` grown to the whole entity its category's shape finds around it (possibly several
    dates), or `[span]` unchanged. Dates and facilities are completed for a model's pieces
    (`model`); a person's name gets its initials from every source ("D. Oyelowo", "Chen, W. T.")."""
    if span.category in (Category.PATIENT, Category.HCW):
        return [_complete_initials(text, span)]
    if not model:
        return [span]
    if span.category is Category.DATE:
        return _complete_date(text, span)
    shape = _SHAPES.get(span.category)
    if shape is not None:
        return [_complete_shape(text, span, shape)]
    if span.category is Category.HOSPITAL:
        return [_complete_facility(text, span)]
    if span.category is Category.LOCATION:
        # "Maple Grove" + "Skilled Nursing", "Boston" + "Medical Center": a place that begins a
        # facility's name is that facility
        whole = _complete_facility(text, span)
        added = text[span.end : whole.end].split()
        if whole.end > span.end and any(_is_head(w) for w in added):
            return [whole.with_(category=Category.HOSPITAL, subtype=None)]
        return [_complete_house_number(text, span)]
    return [span]


#: Words that make a place a street: English street types and the street words of other languages.
_STREET_WORDS = frozenset(
    """street st avenue ave road rd lane ln drive dr boulevard blvd way court ct place pl terrace
    circle parkway highway calle c avda avenida av paseo plaza pza ronda carrer rua travesía
    travesia camino ctra carretera via viale rue strasse straße str weg gasse platz""".split()
)
#: A house number after a street: ", 23", " 129", ", nº 3", "19B".
_HOUSE_NUMBER = re.compile(
    r",?[ \t]*(?:n[º°o]\.?[ \t]*)?\d{1,5}[A-Za-z]?(?![\w/]|[.,]\d)"
    r"(?![ \t]*(?i:years?|yrs?|months?|mos?|weeks?|days?|hours?|minutes?|times|am|pm|a\.m|p\.m|%|mg|ml|cm|mm)\b)"
)


def _complete_house_number(text: str, span: Span) -> Span:
    """A street the model found without its number ("Calle Manuel Bertrand" + ", 23") takes it."""
    words = {w.lower().strip(".,/") for w in re.findall(r"[\w/.]+", text[span.start : span.end])}
    if not words & _STREET_WORDS:
        return span
    match = _HOUSE_NUMBER.match(text, span.end)
    if match is None:
        return span
    return span.with_(end=match.end())


#: The whole token a model's piece of an e-mail, URL, IP or phone number belongs to
#: ("urología" of "urología.saneloy@hsel.osakidetza.net").
_SHAPES = {
    Category.EMAIL: re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)+"),
    Category.URL: re.compile(
        r"(?i:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:)]|[\w-]+(?:\.[\w-]+)+/[^\s<>\"']*[^\s<>\"'.,;:)]"
    ),
    Category.IP: re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.]\d)"),
    Category.PHONE: re.compile(r"(?<![\w+])\+?\(?\d[\d ().-]{5,}\d(?![\w])"),
}


def _complete_shape(text: str, span: Span, shape: re.Pattern[str]) -> Span:
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    for match in shape.finditer(text, max(line_start, span.start - 80), min(line_end, span.end + 80)):
        if match.start() <= span.start and span.end <= match.end() and match.span() != (span.start, span.end):
            if span.category is Category.PHONE and sum(ch.isdigit() for ch in match.group()) < 7:
                return span
            return span.with_(start=match.start(), end=match.end())
        if match.start() < span.end and span.start < match.end() and match.start() <= span.start:
            # the piece runs past the token's end ("example.com," with its comma): leave it to the edges
            return span
    return span


#: Initials before a name ("D. ", "L. M. ", "J.R. ") and after a surname (", W. T.", ", B.").
_INITIALS_BEFORE = re.compile(r"(?<![\w.])(?:[A-Z]\.[ \t]?)+[ \t]*\Z")
_INITIALS_AFTER = re.compile(r",[ \t]*(?:[A-Z]\.[ \t]?)*[A-Z]\.(?![\w])")


def _complete_initials(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    # initials before end with a period and blanks, after begin with a comma: most names have
    # neither, and then no pattern runs
    if text[max(0, start - 12) : start].rstrip(" \t").endswith("."):
        before = _INITIALS_BEFORE.search(text, max(0, start - 12), start)
        if before is not None and before.end() == start:
            start = before.start()
    after = _INITIALS_AFTER.match(text, end) if text.startswith(",", end) else None
    if after is not None and after.group().replace(".", "").replace(",", "").replace(" ", "") not in CREDENTIALS:
        end = after.end()
    if (start, end) == (span.start, span.end):
        return span
    return span.with_(start=start, end=end)


_WORD_RUN = re.compile(r"\w+")
#: The first three letters of every month and season `_DATE_SHAPE` knows: a match that starts with a
#: letter starts with one of them (every month alternative has three letters or more).
_DATE_WORD_PREFIXES = frozenset(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    + [m[:3].lower() for m in MONTHS if len(m) > 3 and m.isalpha()]
    + ["spr", "sum", "fal", "aut", "win"]
)


def _complete_date(text: str, span: Span) -> list[Span]:
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end < 0 else line_end
    scan_from = max(line_start, span.start - 24)
    # `_DATE_SHAPE.finditer` from `scan_from`, tried only where a match can start (the first
    # character of a number, month or season) and only before the span's end: the same matches,
    # without trying the regex at every position of the window
    stop = min(line_end, span.end + 24)
    dates = []
    resume = scan_from
    for word in _WORD_RUN.finditer(text, scan_from, span.end):
        if word.start() < resume:
            continue
        first = word.group()
        if first[0].isascii() and not first[0].isdigit() and first[:3].lower() not in _DATE_WORD_PREFIXES:
            continue  # a word that is no number, month or season ("DOB", "on", "dated")
        m = _DATE_SHAPE.match(text, word.start(), stop)
        if m is None:
            continue
        resume = m.end()
        if span.start < m.end() and looks_like_date(m.group()):
            dates.append(m)
    if not dates:
        return [span]
    piece = text[span.start : span.end]
    inside_one = any(m.start() <= span.start and span.end <= m.end() and m.span() != span_range(span) for m in dates)
    if len(dates) == 1 and not inside_one and looks_like_date(piece):
        return [span]  # already a whole date
    pieces = [span.with_(start=m.start(), end=m.end()) for m in dates]
    # the dates replace the span only where what they leave out is punctuation or a function word
    # ("on 5/26", "2015 to 2019", "4/20-8/20"); else the span only grows ("12 de marzo de 2019"
    # keeps its words: a piece is completed, never cut)
    left_out = _outside(text, span, pieces)
    if all(only_function_words(part) for part in left_out):
        return pieces
    start, end = min(span.start, pieces[0].start), max(span.end, pieces[-1].end)
    return [span] if (start, end) == (span.start, span.end) else [span.with_(start=start, end=end)]


def _outside(text: str, span: Span, pieces: list[Span]) -> list[str]:
    """The parts of `span`'s text that no piece holds."""
    parts, cursor = [], span.start
    for piece in pieces:
        if piece.start > cursor:
            parts.append(text[cursor : min(piece.start, span.end)])
        cursor = max(cursor, piece.end)
    if cursor < span.end:
        parts.append(text[cursor : span.end])
    return parts


def _complete_facility(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    words = 0
    # leftwards: capitalised words (and "of"/"the" between them) on the same line
    while words < _MAX_WORDS:
        match = re.search(r"(\S+)[ \t]+\Z", text[max(0, start - 40) : start])
        if match is None:
            break
        word = match.group(1)
        connector = word.lower() in _CONNECTORS and _left_cap(text, start - len(match.group(0)))
        if not _name_word(word) and not connector:
            break
        start -= len(match.group(0))
        words += 1
    words = 0
    # rightwards: capitalised words up to the name's head word, then only further head words
    # ("Mercy General Hospital"; not "Cedar Hollow Community Hospital Outpatient Imaging")
    while words < _MAX_WORDS:
        match = re.match(r"[ \t]+(\S+)", text[end : end + 40])
        if match is None:
            break
        word = match.group(1).rstrip(",;:)")
        if word.endswith(".") and word not in ("St.", "Mt.", "Ste."):
            word = word[:-1]  # the last word of a sentence ("at Valley View Dialysis.")
        if _is_head(_last_word(text, start, end)) and not _is_head(word):
            break
        if not _name_word(word) and not (word.lower() in _CONNECTORS and _right_cap(text, end + len(match.group(0)))):
            break
        end += match.start(1) + len(word)
        words += 1
    start, end = _trim_connectors(text, start, end)
    if (start, end) == (span.start, span.end):
        return span
    name_words = re.findall(r"[\w'’]+", text[start:end])
    if not any(_is_head(w) for w in name_words) or not any(_proper(w) for w in name_words):
        return span  # no facility word, or nothing but facility words and abbreviations ("Medical ICU")
    return span.with_(start=start, end=end)


def _is_head(word: str) -> bool:
    return word.lower().removesuffix("'s").removesuffix("’s").strip(".,") in _FACILITY_HEADS


def _last_word(text: str, start: int, end: int) -> str:
    words = text[start:end].split()
    return words[-1] if words else ""


def _proper(word: str) -> bool:
    """A word that names this facility ("Mary's", "Cook", "Open Sky"): capitalised, not a facility
    word, not an all-caps abbreviation (ICU, MICU: "Medical ICU" is a unit, not a facility)."""
    bare = word.removesuffix("'s").removesuffix("’s")
    return bare[:1].isupper() and not _is_head(bare) and not (bare.isupper() and len(bare) <= 5)


def span_range(span: Span) -> tuple[int, int]:
    return (span.start, span.end)


def _name_word(word: str) -> bool:
    """A capitalised word of a name ("Mary's", "St.", "County"), not a sentence's last word."""
    if not _NAME_WORD.fullmatch(word):
        return False
    return not word.endswith(".") or word in ("St.", "Mt.", "Ste.")


def _left_cap(text: str, offset: int) -> bool:
    match = re.search(r"(\S+)[ \t]+\Z", text[max(0, offset - 40) : offset])
    return match is not None and _name_word(match.group(1))


def _right_cap(text: str, offset: int) -> bool:
    match = re.match(r"[ \t]+(\S+)", text[offset : offset + 40])
    return match is not None and _name_word(match.group(1).rstrip(",;:)"))


def _trim_connectors(text: str, start: int, end: int) -> tuple[int, int]:
    words = list(re.finditer(r"\S+", text[start:end]))
    while words and words[0].group().lower() in _CONNECTORS:
        words.pop(0)
    while words and words[-1].group().lower() in _CONNECTORS:
        words.pop()
    if not words:
        return start, end
    return start + words[0].start(), start + words[-1].end()
