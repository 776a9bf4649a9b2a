"""The gate (`[detectors.transformer] gate`): which model windows can hold PHI at all.

Radiology prose is mostly findings with no PHI, and the model is most of the cost of a run. The
gate looks for cheap signals of PHI in the text of each window and lets the model skip a window
with none; the skipped window's tokens are predicted `O`. A window is kept when its text has:

- a digit (dates, IDs, phones, ages, times, addresses), except a list marker such as `1.`;
- `@` or `#`, or `http`/`www` (e-mail, URLs, numbers written `#123`);
- a capitalised word that does not start a sentence, line, list item or labelled field and is
  not a common report word (`COMMON_CAPITALISED`: headings, views, acronyms, function words in
  all-caps headings); names, places, hospitals and vendors are capitalised;
- a title (`Dr`, `Mr`, `Ms`...) or a field cue followed by a colon or `by` (`Name:`, `Patient:`,
  `Signed by`, `Dictated by`, `Referring physician:`), in any case;
- a run of `X` (a redaction placeholder such as `XXXX`) is not a signal.

The signals are found once per document with a few regular expressions; a window is kept when a
signal overlaps its characters. Tokens of a kept window are scored exactly as without the gate, and
a token that a kept window scores best keeps that score, so the gate can only remove spans that
lie wholly in windows with no signal. The recall cost is measured by `benchmarks/gate.py`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from radeid.detect.chunking import Window

__all__ = ["COMMON_CAPITALISED", "gate_windows", "signal_spans"]

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
)

# Words that begin a sentence, line, list item or field are capitalised anyway.
_OPENERS = " \t\"'([“‘"
_SENTENCE_END = ".!?:;"
_LIST_ITEM = re.compile(r"\s*(?:\(?\d{1,2}[.)]|[-*•])")
_CAPITALISED = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*")
_PLACEHOLDER = re.compile(r"X+(?:[-'’]\w*)?", re.IGNORECASE)
_LIST_MARKER = re.compile(r"(?:^|(?<=[.!?:;]\s)|(?<=[.!?:;]\s\s))\s*\(?\d{1,2}[.)](?=\s)(?!\d)", re.MULTILINE)
_DIGIT = re.compile(r"\d+")
_SYMBOL_OR_CUE = re.compile(
    r"[@#]|(?i:\b(?:https?|www)\b)"
    r"|\b(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sr|Jr)\b"
    r"|(?i:\b(?:name|patient|pt|mrn|dob|birth|signed|dictated|referring|referred|physician|attending"
    r"|radiologist|transcribed|transcriptionist|accession|ordered|ordering|provider|doctor|address"
    r"|phone|tel|fax|e-?mail|hospital|clinic|facility|location|read|reviewed|approved|verified|cc)\b"
    r"(?:\s*:|\s+by\b))"
)


def signal_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the gate's signals in `text`, sorted by start."""
    spans: list[tuple[int, int]] = []
    markers = {m.end() for m in _LIST_MARKER.finditer(text)}
    for m in _DIGIT.finditer(text):
        # a list marker "1." is not a signal; the digits end where the marker's "." starts
        if m.end() + 1 not in markers:
            spans.append(m.span())
    spans.extend(m.span() for m in _SYMBOL_OR_CUE.finditer(text))
    for m in _CAPITALISED.finditer(text):
        word = m.group()
        if word.upper() in COMMON_CAPITALISED or _PLACEHOLDER.fullmatch(word):
            continue
        if _initial(text, m.start()):
            continue
        spans.append(m.span())
    spans.sort()
    return spans


def _initial(text: str, start: int) -> bool:
    """Whether the word at `start` begins a sentence, line, list item or labelled field."""
    i = start
    while i > 0 and text[i - 1] in _OPENERS:
        i -= 1
    if i == 0 or text[i - 1] in "\n\r" or text[i - 1] in _SENTENCE_END:
        return True
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
