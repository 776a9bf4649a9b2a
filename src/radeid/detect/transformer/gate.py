"""The gate (`[detectors.transformer] gate`): which model windows can hold PHI at all.

Radiology prose is mostly findings with no PHI, and the model is most of the cost of a run. The
gate looks for cheap signals of PHI in the text of each window and lets the model skip a window
with none; the skipped window's tokens are predicted `O`. A window is kept when its text has:

- a digit (dates, IDs, phones, ages, times, addresses), except a list marker such as `1.` and
  measurements, view counts and spine levels (`5 mm`, `2.1 x 3 cm`, `2 views`, `T11`, `L4-L5`);
- `@` or `#`, or `http`/`www` (e-mail, URLs, numbers written `#123`);
- a capitalised word that does not start a sentence, line, list item or labelled field and is
  not a common report word (`COMMON_CAPITALISED`: headings, views, acronyms, function words in
  all-caps headings, single letters); names, places, hospitals and vendors are capitalised;
- a first name (Faker's lists over all locales, less `COMMON_NAME_WORDS`) or one-word bundled place
  name in lower case or at a sentence start (`nora`, `Nora is...`, `from switzerland`);
- a title (`Dr`, `Mr`, `Ms`...; in lower case with its period, `dr.`) or a field cue followed by a
  colon or `by` (`Name:`, `Patient:`, `Signed by`, `Dictated by`, `Referring physician:`, `name is`,
  `call me`), in any case; an initial after a surname (`Singh, A.`), a spelled-out name
  (`O-Y-E-L-A-R-A-N`), `urgent care` and `medical center` in any case;
- a word with `XXX` in it (a redaction placeholder: `XXXX`, `XXXX-year-old`) is not a signal.

The signals are found once per document with a few regular expressions. With `gate_scope =
"window"` a window is kept when a signal overlaps its characters (`gate_windows`); with "sentence"
(the default) the model sees only the sentences with a signal plus some context (`sentence_plan`),
which on PHI-dense reports skips the findings prose that a whole window would carry along.

With the window scope, tokens of a kept window are scored exactly as without the gate, and a token
that a kept window scores best keeps that score, so the gate can only remove spans that lie wholly
in windows with no signal (int8 exports score one window per call, so their scores are
bit-identical; a batched fp32 or PyTorch scorer sees other batch compositions, as it does with any
change of batch). The sentence scope gives the model less context (its windows start and end at
other places), so it can also move spans near the regions' edges. The recall cost of both is
measured by `benchmarks/gate.py --variants window sentence:16`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache

from radeid.core.resources import bundled_data_path, iter_word_list
from radeid.detect.chunking import SENTENCE, Window, plan_windows
from radeid.patterns.names import fold_name, world_genders

__all__ = ["COMMON_CAPITALISED", "gate_windows", "sentence_plan", "signal_spans"]

#: Capitalised words that are common in reports and not PHI by themselves (compared upper-cased).
#: Words that can be names ("Jones", "Baker") must not be added here.
COMMON_CAPITALISED = frozenset(
    """
    A AN AND ARE AS AT BE BY FOR FROM IN IS IT NO NOT OF ON OR THE TO UP WITH WITHOUT
    AP PA LAT LATERAL FRONTAL PORTABLE UPRIGHT SUPINE VIEW VIEWS TWO THREE SINGLE XRAY X-RAY
    CHEST RADIOGRAPH RADIOGRAPHS CT MR MRI MRA CTA PET US SPECT DEXA IMAGING EXAM EXAMINATION
    AM PM AVAILABLE COMPARISON FINDINGS IMPRESSION INDICATION HISTORY TECHNIQUE CLINICAL REPORT
    RIGHT LEFT BILATERAL SHOULDER SPINE T-SPINE L-SPINE C-SPINE THORACIC LUMBAR CERVICAL ABDOMEN
    PELVIS HEAD NECK BRAIN HEART LUNG LUNGS DISEASE ACUTE CHRONIC STABLE NORMAL PAIN
    SVC IVC IJ IV PICC ICD AICD CABG COPD CHF PPD TB SOB MVA ORIF ICU ED ER ET NG OG ECG EKG
    CXR KUB DVT PE BCG ESR HU CM MM
    """.split()
) | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

#: Words of the first-name table that are common words in reports (never signals in lower case or
#: at a sentence start; capitalised mid-sentence they still are).
COMMON_NAME_WORDS = frozenset(
    """
    age ala all alma an and anna are art bone brain can carina case colon early else even ever
    faith gay general grace hope ivy joy less line long male mark may middle miss over per prior
    rose side star true unity will
    """.split()
)

# Words that begin a sentence, line, list item or field are capitalised anyway.
_OPENERS = " \t\"'([“‘"
_SENTENCE_END = ".!?:;"
_LIST_ITEM = re.compile(r"\s*(?:\(?\d{1,2}[.)]|[-*•])")
_CAPITALISED = re.compile(r"(?<![\w'’-])[^\W\d_][\w'’-]*")
#: `_CAPITALISED`'s matches that begin with a capital, for ASCII text (its letters are A-Z): the
#: pattern begins with a letter class, which `re` scans for in C.
_CAPITALISED_ASCII = re.compile(r"[A-Z](?<![\w'’-][A-Z])[\w'’-]*")
_PLACEHOLDER = re.compile(r"[\w'’-]*XXX[\w'’-]*")
# Numbers that are measurements, view counts or spine levels, never PHI: "5 mm", "2.1 x 3 cm",
# "2 views", "2V", "T11", "L4-L5". Ages, durations and times are not listed (they can be PHI).
# (Each pattern below that can only match at a word start tests that first, once, so that `re`
# fails at once elsewhere instead of trying every alternative at every position: the same matches
# in about half the time.)
_BENIGN_NUMBER = re.compile(
    r"\b(?=[\dTLCS])(?:(?i:\d+(?:\.\d+)?(?:\s*(?:x|by)\s*\d+(?:\.\d+)?)*\s*(?:mm|cm|views?|v|images?|films?)\b)"
    r"|[TLCS]\d{1,2}(?:-[TLCS]?\d{1,2})?\b)"
)
_LIST_MARKER = re.compile(r"(?:^|(?<=[.!?:;]\s)|(?<=[.!?:;]\s\s))\s*\(?\d{1,2}[.)](?=\s)(?!\d)", re.MULTILINE)
_DIGIT = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]{3,}")
_SYMBOL_OR_CUE = re.compile(
    r"[@#]|\b(?=\w)(?:(?i:(?:https?|www)\b)"
    r"|(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sr|Jr)\b"
    r"|(?i:(?:name|patient|pt|mrn|dob|birth|signed|dictated|referring|referred|physician|attending"
    r"|radiologist|transcribed|transcriptionist|accession|ordered|ordering|provider|doctor|address"
    r"|phone|tel|fax|e-?mail|hospital|clinic|facility|location|read|reviewed|approved|verified|cc)\b"
    r"(?:\s*:|\s+by\b))"
    r"|(?i:(?:name\s+is|call(?:s|ed)?\s+me)\b))"
)
# Rarer signals, each a pattern that begins with a literal (which `re` scans for in C) and looked
# for only when a cheap substring test finds its literal: a title in lower case with its period
# ("per dr. j. ramos"), an initial after a surname ("Singh, A."), a name spelled out
# ("O-Y-E-L-A-R-A-N"), a facility in lower case ("bayside urgent care").
_RARE_SIGNALS = (
    ("dr.", re.compile(r"(?<![\w.])dr\.")),
    ("mr", re.compile(r"(?<![\w.])(?:mr|mrs|ms|prof)\.")),
    (", ", re.compile(r",[ \t]*[A-Z]\.(?!\w)")),
    ("-", re.compile(r"-(?=[A-Z]-[A-Z]-)")),
    ("care", re.compile(r"(?i:urgent[ \t]+care)\b")),
    ("cent", re.compile(r"(?i:\b(?:medical|health|wellness)[ \t]+cent(?:er|re))\b")),
)
#: The whole spelled-out name around a hyphen `_RARE_SIGNALS` found.
_SPELLED = re.compile(r"(?<![\w-])(?:[A-Z]-){3,}[A-Z](?![\w-])")


def signal_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the gate's signals in `text`, sorted by start."""
    spans: list[tuple[int, int]] = []
    markers = {m.end() for m in _LIST_MARKER.finditer(text)}
    benign = {i for m in _BENIGN_NUMBER.finditer(text) for i in range(*m.span())}
    for m in _DIGIT.finditer(text):
        # a list marker "1." is not a signal; the digits end where the marker's "." starts
        if m.end() + 1 not in markers and m.start() not in benign:
            spans.append(m.span())
    spans.extend(m.span() for m in _SYMBOL_OR_CUE.finditer(text))
    spans.extend(_rare_signals(text))
    spans.extend(_name_words_in(text))
    for m in (_CAPITALISED_ASCII if text.isascii() else _CAPITALISED).finditer(text):
        word = m.group()
        if not word[0].isupper():
            continue
        if word.upper() in COMMON_CAPITALISED or _PLACEHOLDER.fullmatch(word):
            continue
        if _initial(text, m.start()):
            continue
        spans.append(m.span())
    spans.sort()
    return spans


def _name_words_in(text: str) -> list[tuple[int, int]]:
    """The `_WORD` matches that are a first name or place in lower case or at a sentence start
    ("nora", "Nora is reliable"). A report repeats most of its words: each distinct word is judged
    once, and the occurrences of the few that are names are found again with `str.find` and
    `_WORD`'s edges (a match is a whole run of letters: no letter before or after it)."""
    names = name_words()
    spans: list[tuple[int, int]] = []
    for word in set(_WORD.findall(text)):
        if not ((word.islower() or word.istitle()) and fold_name(word) in names):
            continue
        size = len(word)
        at = text.find(word)
        while at >= 0:
            end = at + size
            if (at == 0 or not _letter(text[at - 1])) and (end == len(text) or not _letter(text[end])):
                spans.append((at, end))
            at = text.find(word, at + 1)
    return spans


def _letter(char: str) -> bool:
    """`char` is in `[^\\W\\d_]`: a word character that is no decimal digit and no underscore."""
    return char.isalnum() and not char.isdecimal()


def _rare_signals(text: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    lower = None
    for literal, pattern in _RARE_SIGNALS:
        if literal in ("care", "cent"):
            lower = text.lower() if lower is None else lower
            if literal not in lower:
                continue
        elif literal not in text:
            continue
        if literal == "-":
            for m in pattern.finditer(text):
                spelled = _SPELLED.search(text, max(0, m.start() - 1), m.start() + 80)
                if spelled is not None:
                    found.append(spelled.span())
        else:
            found.extend(m.span() for m in pattern.finditer(text))
    return found


@lru_cache(maxsize=1)
def name_words() -> frozenset[str]:
    """Folded first names (Faker's lists over all locales) and one-word bundled place names."""
    places = {
        fold_name(term.lstrip("="))
        for term, _ in iter_word_list(bundled_data_path("lexicons", "places.txt"))
        if " " not in term
    }
    return frozenset((set(world_genders()) | places) - COMMON_NAME_WORDS)


def _initial(text: str, start: int) -> bool:
    """Whether the word at `start` begins a sentence, line, list item or labelled field."""
    i = start
    while i > 0 and text[i - 1] in _OPENERS:
        i -= 1
    if i == 0 or text[i - 1] in "\n\r":
        return True
    if text[i - 1] in _SENTENCE_END:
        # "K. Oddgeirsdottir": a period after an initial does not end a sentence
        return not (text[i - 1] == "." and i >= 2 and text[i - 2].isupper() and (i < 3 or not text[i - 3].isalnum()))
    line_start = max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1
    return i - line_start <= 6 and _LIST_ITEM.fullmatch(text, line_start, i) is not None


def gate_windows(
    text: str,
    offsets: Sequence[tuple[int, int]],
    windows: Sequence[Window],
    signals: Sequence[tuple[int, int]] | None = None,
) -> list[bool]:
    """For each window (token indices into `offsets`), whether its text holds a signal."""
    if signals is None:
        signals = signal_spans(text)
    starts = [s for s, _ in signals]
    ends: list[int] = []
    best = -1
    for _, e in signals:  # running maximum of ends, so one bisect answers "any overlap?"
        best = max(best, e)
        ends.append(best)
    keep: list[bool] = []
    for window in windows:
        if not len(window):
            keep.append(False)
            continue
        lo, hi = offsets[window.start][0], offsets[window.end - 1][1]
        # signals starting before hi; the last of them with the largest end reaching past lo
        i = bisect.bisect_left(starts, hi)
        keep.append(i > 0 and ends[i - 1] > lo)
    return keep


def sentence_plan(
    text: str,
    offsets: Sequence[tuple[int, int]],
    strengths: Sequence[int],
    max_tokens: int,
    stride: int,
    context: int,
    signals: Sequence[tuple[int, int]] | None = None,
) -> tuple[list[Window], list[bool]]:
    """Windows over the sentences that hold a signal, and the gaps between them, with keep flags.

    Why: on PHI-dense reports nearly every 256-piece window holds some signal (a header, a date, a
    signature), so the window gate skips little, while the findings prose between the signals is
    about half of the word pieces. Here each word piece under a signal pulls in its sentence (cuts
    of strength `SENTENCE` or more, see `boundary_strengths`) plus `context` pieces on both sides;
    regions that overlap or lie at most `context` pieces apart are joined, and each region is cut
    into windows exactly as a whole document is (`plan_windows`). The gaps become windows the model
    skips (kept False), so the windows still cover every piece once outside the regions and the
    merge rules of `merge_window_scores` hold unchanged.
    """
    n = len(offsets)
    if not n:
        return [], []
    if signals is None:
        signals = signal_spans(text)
    regions = _signal_regions(offsets, strengths, signals, context)
    return _region_windows(regions, n, strengths, max_tokens, stride)


def _signal_regions(
    offsets: Sequence[tuple[int, int]], strengths: Sequence[int], signals: Sequence[tuple[int, int]], context: int
) -> list[list[int]]:
    """The sorted, joined `[lo, hi)` piece ranges the model reads: each signal's sentences plus `context`."""
    n = len(offsets)
    ends = [e for _, e in offsets]
    cuts = [i for i, strength in enumerate(strengths) if strength >= SENTENCE]  # cuts[0] == 0
    regions: list[tuple[int, int]] = []
    for start, end in signals:
        first = bisect.bisect_right(ends, start)  # first piece ending after the signal starts
        last = first
        while last < n and offsets[last][0] < end:
            last += 1
        if last == first:  # a signal in the spaces between pieces
            continue
        lo = cuts[bisect.bisect_right(cuts, first) - 1] if cuts and cuts[0] <= first else 0
        k = bisect.bisect_right(cuts, last - 1)
        hi = cuts[k] if k < len(cuts) else n
        regions.append((max(0, lo - context), min(n, hi + context)))
    regions.sort()
    merged: list[list[int]] = []
    for lo, hi in regions:
        if merged and lo <= merged[-1][1] + context:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged


def _region_windows(
    regions: list[list[int]], n: int, strengths: Sequence[int], max_tokens: int, stride: int
) -> tuple[list[Window], list[bool]]:
    """Each region cut as a whole document is, and the gaps as skipped windows, so every piece is covered once."""
    windows: list[Window] = []
    keep: list[bool] = []
    cursor = 0
    for lo, hi in regions:
        if lo > cursor:
            windows.append(Window(cursor, lo))
            keep.append(False)
        for w in plan_windows(hi - lo, max_tokens, stride, strengths[lo:hi]):
            windows.append(Window(lo + w.start, lo + w.end))
            keep.append(True)
        cursor = hi
    if cursor < n:
        windows.append(Window(cursor, n))
        keep.append(False)
    return windows, keep
