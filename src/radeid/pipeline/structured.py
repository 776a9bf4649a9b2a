"""Structured records (HL7 v2, FHIR): the pipeline's prose detection inside the free-text fields only, the
record's own PHI fields by their type, one identity across both.

A structured record's reader (`radeid.io.hl7v2`, `radeid.io.fhir`) keeps the whole record as the document's text and
says in its metadata (`radeid.core.metakeys`) where the prose is (`NARRATIVE`), which values are PHI
by their field (`STRUCTURED_SPANS`), which characters must stay byte for byte (`VERBATIM`: escape
sequences) and which characters a replacement must not write (`RESERVED`: the separators).

- The detectors see a *view* of the same length: the prose and the structured values as they are,
  everything else blanked (segment ends become line ends, escapes become a line end), so a model is
  not misled by segment syntax and a name never runs across an escape.
- The resolver gets the structured values as proposals: its propagation finds a name written only in
  PID-5 (`OYELARAN^VANCE`) again in the report text (`Vance Oyelaran`).
- Values known from other records of the run (`KNOWN_VALUES`: a bulk export's Patient names and MRNs,
  for the reports that refer to that Patient) are found in the prose as whole words, under the forms
  propagation looks for (`known_mentions`), and proposed to the resolver the same way.
- Then `impose` keeps the resolved spans inside the prose, cut at verbatim ranges and widened over
  the atomic ranges they touch (`ATOMIC`: a JSON `\\u00e9` is replaced whole or not at all), and adds
  the structured spans exactly as the reader gave them (they always win: they are known, not guessed).
- After replacement, `escape_reserved` writes each separator a surrogate happens to contain as its
  escape, so every output still parses.

Documents without these keys go through the pipeline untouched.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from radeid.core import metakeys
from radeid.core.categories import Category
from radeid.core.document import Document, Result, Span
from radeid.resolve.propagation import find_known

__all__ = [
    "KNOWN_SOURCE",
    "STRUCTURED_SOURCE",
    "detection_view",
    "escape_reserved",
    "impose",
    "is_structured",
    "known_mentions",
    "seeds",
]

#: The source of a span a record's structure gave (a PHI field), not a detector.
STRUCTURED_SOURCE = "structured"
#: The source of a mention of a value another record's structure gave (`KNOWN_VALUES`).
KNOWN_SOURCE = "structured/known"


def is_structured(doc: Document) -> bool:
    return metakeys.NARRATIVE in doc.metadata


def _pairs(metadata: Mapping[str, Any], key: str) -> list[tuple[int, int]]:
    return sorted((int(r[0]), int(r[1])) for r in metadata.get(key) or ())


def seeds(doc: Document) -> list[Span]:
    """The record's structured PHI as spans, cut at its verbatim ranges."""
    verbatim = _pairs(doc.metadata, metakeys.VERBATIM)
    spans: list[Span] = []
    for item in doc.metadata.get(metakeys.STRUCTURED_SPANS) or ():
        start, end, category, subtype = item
        span = Span(int(start), int(end), Category(category), subtype, 1.0, STRUCTURED_SOURCE)
        spans.extend(_cut(doc.text, span, verbatim))
    return sorted(spans, key=lambda s: (s.start, s.end))


def known_mentions(doc: Document, view: Document | None = None) -> list[Span]:
    """The whole-word mentions in the record's prose of the values other records gave it
    (`KNOWN_VALUES`), looked for in its detection view (`view`, made when not given: escapes are
    word breaks there) and cut at its verbatim ranges: proposals, which the allow list and
    protected content still judge ("Baker cyst" stays for a patient named Baker)."""
    known = doc.metadata.get(metakeys.KNOWN_VALUES)
    if not known:
        return []
    text = (view or detection_view(doc)).text
    entities = [Span(0, 1, Category(category), subtype, 1.0, KNOWN_SOURCE) for _value, category, subtype in known]
    regions = _pairs(doc.metadata, metakeys.NARRATIVE)
    verbatim = _pairs(doc.metadata, metakeys.VERBATIM)
    spans: list[Span] = []
    for span in find_known(text, entities, [str(item[0]) for item in known]):
        if any(start <= span.start and span.end <= end for start, end in regions):
            spans.extend(_cut(doc.text, span, verbatim))
    return spans


def detection_view(doc: Document) -> Document:
    """`doc` with a text of the same length showing only its prose and structured values."""
    shown = bytearray(len(doc.text))
    for start, end in _pairs(doc.metadata, metakeys.NARRATIVE):
        shown[start:end] = b"\x01" * (end - start)
    for item in doc.metadata.get(metakeys.STRUCTURED_SPANS) or ():
        shown[int(item[0]) : int(item[1])] = b"\x01" * (int(item[1]) - int(item[0]))
    # a line end after each structured value: the resolver never merges two (`OYELARAN` and `VANCE`
    # stay two names, each propagated on its own), and segment ends stay line ends
    chars = [c if shown[i] else ("\n" if c in "\r\n" or (i and shown[i - 1]) else " ") for i, c in enumerate(doc.text)]
    for start, end in _pairs(doc.metadata, metakeys.VERBATIM):
        chars[start:end] = ["\n"] + [" "] * (end - start - 1)
    return replace(doc, text="".join(chars))


def impose(doc: Document, resolved: Iterable[Span]) -> list[Span]:
    """The final spans of a structured record: resolved spans within its prose (cut at verbatim
    ranges), then its structured spans, which replace anything they overlap."""
    regions = _pairs(doc.metadata, metakeys.NARRATIVE)
    verbatim = _pairs(doc.metadata, metakeys.VERBATIM)
    structured = seeds(doc)
    kept: list[Span] = []
    for span in resolved:
        for start, end in regions:
            if span.start < end and start < span.end:
                clipped = span.with_(start=max(span.start, start), end=min(span.end, end))
                kept.extend(_cut(doc.text, clipped, verbatim))
    kept = _widen(kept, _pairs(doc.metadata, metakeys.ATOMIC))
    kept = [s for s in kept if not any(s.start < t.end and t.start < s.end for t in structured)]
    words = _person_words(doc, structured)
    kept = _as_known_persons(doc.text, kept, words)
    kept = _with_known_neighbours(doc.text, kept, words)
    return sorted([*kept, *structured], key=lambda s: (s.start, s.end))


_PERSONS = (Category.PATIENT, Category.HCW)


def _person_words(doc: Document, structured: list[Span]) -> dict[Category, set[str]]:
    """The words of each person category's values: the record's own fields and `KNOWN_VALUES`."""
    words: dict[Category, set[str]] = {c: set() for c in _PERSONS}
    for span in structured:
        if span.category in words:
            words[span.category].update(w.casefold() for w in span.text_in(doc.text).split())
    for value, category, _subtype in doc.metadata.get(metakeys.KNOWN_VALUES) or ():
        if Category(category) in words:
            words[Category(category)].update(w.casefold() for w in str(value).split())
    return words


def _widen(spans: list[Span], atomic: Sequence[tuple[int, int]]) -> list[Span]:
    """Each span over the whole of every atomic range it touches; spans that then overlap become one."""
    if not atomic:
        return spans
    out: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        first = bisect.bisect_left(atomic, (span.start - 16, 0))  # escapes are short: look a little back
        start, end = span.start, span.end
        for a_start, a_end in atomic[first:]:
            if a_start >= end:
                break
            if a_end > start:
                start, end = min(start, a_start), max(end, a_end)
        if out and start < out[-1].end:
            out[-1] = out[-1].with_(end=max(end, out[-1].end))
        else:
            out.append(span if (start, end) == (span.start, span.end) else span.with_(start=start, end=end))
    return out


def _as_known_persons(text: str, spans: list[Span], words: Mapping[Category, set[str]]) -> list[Span]:
    """A name in the prose made only of one person field's words takes that field's category: the
    patient of PID-5 is the patient even where a rule took "Discussed with Vance Oyelaran" for a
    clinician, so header and text get one surrogate identity."""
    out: list[Span] = []
    for span in spans:
        if span.category in _PERSONS:
            mine = {w.casefold().strip(".,") for w in span.text_in(text).split()} - {""}
            known = [c for c in _PERSONS if mine and mine <= words[c]]
            if len(known) == 1 and known[0] is not span.category:
                span = span.with_(category=known[0], subtype=None)
        out.append(span)
    return out


_BEFORE = re.compile(r"([^\W\d_][\w'’-]*) \Z")
_AFTER = re.compile(r" ([^\W\d_][\w'’-]*)")


def _with_known_neighbours(text: str, spans: list[Span], words: Mapping[Category, set[str]]) -> list[Span]:
    """A person span in the prose takes in the word just before or after it when that word is one of
    the same person field's words, written like a name: "Zoë" of "Zoë Ødegård" is too short to be
    found again on its own (propagation needs four letters), but the structure says it is the
    patient's given name ("Oyelaran will return" stays as it is for a patient named Will)."""
    out: list[Span] = []
    for n, span in enumerate(spans):
        if span.category in _PERSONS:
            low = max(out[-1].end if out else 0, span.start - 40)
            high = min(spans[n + 1].start if n + 1 < len(spans) else len(text), span.end + 40)
            before = _BEFORE.search(text, low, span.start)
            after = _AFTER.match(text, span.end, high)
            known = words[span.category]
            if before and before.group(1)[:1].isupper() and before.group(1).casefold() in known:
                span = span.with_(start=before.start(1))
            if after and after.group(1)[:1].isupper() and after.group(1).casefold() in known:
                span = span.with_(end=after.end(1))
        out.append(span)
    return out


def _cut(text: str, span: Span, verbatim: Sequence[tuple[int, int]]) -> list[Span]:
    """`span` without the verbatim ranges it overlaps, each piece trimmed of spaces (none empty)."""
    pieces: list[tuple[int, int]] = []
    cursor = span.start
    first = bisect.bisect_left(verbatim, (span.start - 64, 0))  # escapes are short: look a little back
    for start, end in verbatim[first:]:
        if start >= span.end:
            break
        if end <= cursor:
            continue
        pieces.append((cursor, start))
        cursor = max(cursor, end)
    pieces.append((cursor, span.end))
    out: list[Span] = []
    for start, end in pieces:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            out.append(span if (start, end) == (span.start, span.end) else span.with_(start=start, end=end))
    return out


def escape_reserved(result: Result) -> Result:
    """`result` with each reserved character of a replacement written as the record asks."""
    reserved: Mapping[str, str] = result.document.metadata.get(metakeys.RESERVED) or {}
    if not reserved or not any(ch in r.new_text for r in result.replacements for ch in reserved):
        return result
    table = str.maketrans(dict(reserved))
    fixed = [replace(r, new_text=r.new_text.translate(table)) for r in result.replacements]
    return Result.build(result.document, fixed)
