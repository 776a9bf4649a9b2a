"""Where the PHI and the prose of one HL7 v2 message are, as character ranges of its text.

HL7 libraries give values, not offsets; the pipeline needs offsets into the message exactly as
read (the vault, the audit and `reidentify` work on them), so this module walks the message's own
separators (taken from MSH-1 and MSH-2) and records, for every field it knows, the range of each
component. `radeid.io.hl7v2` checks each message with the `hl7` library before it gets here.

What is PHI is decided by field, from the field's HL7 data type: a person name (XPN) gives its
family, given and middle names, an extended composite ID (CX) its ID number, a time stamp (TS) its
date digits (`20240312153000`; the time-zone offset stays), an address (XAD) street, city, ZIP and
county (the state stays, as HIPAA's Safe Harbor allows), a phone (XTN) its number and e-mail. Every
value is one span per component (and sub-component), so a surrogate keeps the `^` structure.
Which fields are PHI, and of which kind, is data: `radeid.io.hl7_map` reads the bundled map
(`radeid/data/hl7/fields.toml`) and a site's own over it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from radeid.io.hl7_map import FieldMap, Part, bundled_field_map
from radeid.replace.surrogate.dates import FIXED_FORM

__all__ = ["FIELDS", "MessageMap", "Part", "map_message"]

_SEGMENT_END = re.compile(r"\r\n|\r|\n")
#: OBX value types whose OBX-5 is prose for the pipeline (CE/CWE: only the text component).
_TEXT_TYPES = frozenset({"TX", "FT", "ST"})
_CODED_TYPES = frozenset({"CE", "CWE"})
#: A time stamp's date (and time) digits: `YYYYMMDD[HHMM[SS]]`; shorter values (a year) are kept.
_TS_DIGITS = re.compile(r"\d{8}(?:\d{4}(?:\d{2})?)?")


#: The bundled field map (`radeid/data/hl7/fields.toml`); `map_message` takes another.
FIELDS: FieldMap = bundled_field_map()


@dataclass
class MessageMap:
    """What `map_message` found: ranges into the message text (see `radeid.core.metakeys`)."""

    narrative: list[list[int]] = field(default_factory=list)
    structured: list[list[object]] = field(default_factory=list)
    verbatim: list[list[int]] = field(default_factory=list)
    reserved: dict[str, str] = field(default_factory=dict)
    patient_id: str | None = None
    control_id: str | None = None


@dataclass(frozen=True)
class _Seps:
    field: str
    component: str
    repetition: str
    escape: str
    sub: str

    def escape_pattern(self) -> re.Pattern[str]:
        e = re.escape(self.escape)
        stops = re.escape(self.field + self.component + self.repetition + self.sub + self.escape)
        return re.compile(f"{e}[^{stops}\\r\\n]{{1,32}}{e}")


def _separators(text: str) -> _Seps:
    """MSH-1 and MSH-2 (`|`, `^~\\&`), with HL7's defaults for any character MSH-2 leaves out."""
    sep = text[3]
    enc = text[4:].split(sep, 1)[0]
    chars = [enc[i] if i < len(enc) else d for i, d in enumerate("^~\\&")]
    return _Seps(sep, *chars)


def _split(text: str, start: int, end: int, sep: str) -> list[tuple[int, int]]:
    """The ranges of `text[start:end]` between the separators `sep`."""
    ranges: list[tuple[int, int]] = []
    cursor = start
    while (found := text.find(sep, cursor, end)) >= 0:
        ranges.append((cursor, found))
        cursor = found + 1
    ranges.append((cursor, end))
    return ranges


def _segments(text: str) -> Iterator[tuple[int, int]]:
    cursor = 0
    for m in _SEGMENT_END.finditer(text):
        if m.start() > cursor:
            yield cursor, m.start()
        cursor = m.end()
    if cursor < len(text):
        yield cursor, len(text)


def map_message(text: str, fields: FieldMap | None = None) -> MessageMap:
    """The narrative regions, structured PHI spans, escapes, patient id and control id of `text`
    (one message, starting with its MSH segment); `fields` is the field map (default `FIELDS`)."""
    chosen = FIELDS if fields is None else fields
    seps = _separators(text)
    found = MessageMap(reserved=_reserved(seps))
    escapes = seps.escape_pattern()
    for seg_start, seg_end in _segments(text):
        ranges = _split(text, seg_start, seg_end, seps.field)
        name = text[ranges[0][0] : ranges[0][1]]
        numbered = list(enumerate(ranges))[1:]
        if name == "MSH":  # MSH-1 is the separator itself, so MSH-2 is the first value
            numbered = [(i + 1, r) for i, r in numbered]
        for number, (start, end) in numbered:
            if name == "MSH" and number == 2:
                continue
            found.verbatim.extend([m.start(), m.end()] for m in escapes.finditer(text, start, end))
            _note_field(text, chosen.get(name, {}), (name, number), (start, end), ranges, seps, found)
    found.verbatim.sort()
    return found


def _reserved(seps: _Seps) -> dict[str, str]:
    """What a replacement writes instead of each separator: HL7's escapes, or a space for a line end."""
    e = seps.escape
    pairs = {seps.field: "F", seps.component: "S", seps.sub: "T", seps.repetition: "R", seps.escape: "E"}
    return {char: f"{e}{code}{e}" for char, code in pairs.items()} | {"\r": " ", "\n": " "}


def _note_field(
    text: str,
    phi: Mapping[int, tuple[Part, ...]],
    named: tuple[str, int],
    where: tuple[int, int],
    fields: list[tuple[int, int]],
    seps: _Seps,
    found: MessageMap,
) -> None:
    """Record one field: its narrative region, its PHI parts, the ids it holds."""
    start, end = where
    segment, number = named
    if segment == "MSH" and number == 10:
        found.control_id = text[start:end].strip() or None
    if segment == "PID" and number == 3 and found.patient_id is None:
        first = _split(text, *_split(text, start, end, seps.repetition)[0], seps.component)[0]
        found.patient_id = text[first[0] : first[1]].strip() or None
    if (segment, number) == ("NTE", 3) or (segment, number) == ("OBX", 5):
        _note_narrative(text, segment, where, fields, seps, found)
    for part in phi.get(number, ()):
        for rep in _split(text, start, end, seps.repetition):
            for s, e in _part_ranges(text, rep, part, seps):
                found.structured.extend(_spans(text, s, e, part))


def _note_narrative(
    text: str, segment: str, where: tuple[int, int], fields: list[tuple[int, int]], seps: _Seps, found: MessageMap
) -> None:
    """NTE-3 and OBX-5 of a text type are prose; of a coded type, the text component (CE.2) is.
    Repetitions are lines: their separators are kept verbatim."""
    kind = ""
    if segment == "OBX":
        if len(fields) <= 2:
            return
        kind = text[fields[2][0] : fields[2][1]].strip().upper()
        if kind not in _TEXT_TYPES | _CODED_TYPES:
            return
    for rep in _split(text, *where, seps.repetition):
        components = _split(text, *rep, seps.component) if kind in _CODED_TYPES else [rep, rep]
        if len(components) >= 2:
            found.narrative.append(list(components[1] if kind in _CODED_TYPES else rep))
    found.verbatim.extend([r[1], r[1] + 1] for r in _split(text, *where, seps.repetition)[:-1])


def _part_ranges(text: str, rep: tuple[int, int], part: Part, seps: _Seps) -> list[tuple[int, int]]:
    components = _split(text, *rep, seps.component)
    chosen = components if part.component == 0 else components[part.component - 1 : part.component]
    ranges: list[tuple[int, int]] = []
    for comp in chosen:
        subs = _split(text, *comp, seps.sub)
        ranges.extend(subs if part.sub == 0 else subs[part.sub - 1 : part.sub])
    return ranges


def _spans(text: str, start: int, end: int, part: Part) -> list[list[object]]:
    """The span of one value (trimmed; none for an empty value or HL7's null `""`)."""
    value = text[start:end]
    stripped = value.strip()
    if not stripped or stripped == '""':
        return []
    start += len(value) - len(value.lstrip())
    end = start + len(stripped)
    if part.date:
        m = _TS_DIGITS.match(text, start, end)
        if m is None:
            return []
        # a time stamp keeps its YYYYMMDD form whatever `[surrogate] date_format` says: a reader of
        # the message expects HL7's form in that field
        return [[start, m.end(), part.category.value, part.subtype or FIXED_FORM]]
    return [[start, end, part.category.value, part.subtype]]
