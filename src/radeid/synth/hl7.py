"""Synthetic HL7 v2 result messages (`ORU^R01`) with PHI in the header and in the report text.

For tests and benchmarks of the `hl7` format: every message names its patient in PID-5 and again in
its OBX text (after a label, after a title, and once with no cue at all: the full name or the
surname alone), carries the MRN in PID-3 and the
accession number in OBR-3 and the text, and dates in HL7 time-stamp form and in prose. The values
come from `radeid.synth.fakes`, so nothing is a real person. `mentions` says where the patient's
name is written in the text, for recall measurements; `phi` is every PHI value, header and text,
and `write_oru_files` writes the messages with that gold as JSONL (`radeid synth --format hl7`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from radeid.core import metakeys
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.synth.fakes import REPORT_FINDINGS, Fakes, Person, patient_series

__all__ = ["GOLD_KIND", "SynthMessage", "gold_document", "oru_message", "oru_messages", "write_oru_files"]

#: What frames one message in an MLLP stream (a file an interface engine logs).
MLLP_START, MLLP_END = "\x0b", "\x1c\r"


@dataclass(frozen=True)
class SynthMessage:
    """One message and the truth about it."""

    text: str
    patient: Person
    mrn: str
    birth: date
    accession: str
    #: `(start, end)` of each mention of the patient's name in the text (offsets into `text`).
    mentions: tuple[tuple[int, int], ...]
    #: Every PHI value of the message, header fields and report text, as gold spans into `text`:
    #: one per component of a header field, as the `hl7` reader's field map splits them.
    phi: tuple[Span, ...] = ()
    #: MSH-10, the message control id: the record id the `hl7` reader gives the message.
    control_id: str = ""


C = Category
#: A piece of a message: literal text, or a PHI value with its category and subtype.
_Piece = str | tuple[str, Category, str | None]


class _Builder:
    """A message written piece by piece, with the span of every PHI piece."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.spans: list[Span] = []

    def add(self, *pieces: _Piece) -> list[Span]:
        """Append `pieces`; the spans of the PHI among them."""
        added: list[Span] = []
        for piece in pieces:
            text = piece if isinstance(piece, str) else piece[0]
            if not isinstance(piece, str) and text:
                added.append(Span(self.size, self.size + len(text), piece[1], piece[2]))
            self.parts.append(text)
            self.size += len(text)
        self.spans.extend(added)
        return added


def _ts(day: date, hour: int, minute: int) -> str:
    return f"{day:%Y%m%d}{hour:02d}{minute:02d}"


def _phi(value: str, category: Category, subtype: str | None = None) -> _Piece:
    return (value, category, subtype)


def _header(out: _Builder, fakes: Fakes, number: int, said: _Said) -> None:
    """MSH, PID, PV1, ORC and OBR (each ending in CR), in the generator's order of draws."""
    exam, hospital, patient, doctor = said.exam, _phi(said.hospital, C.HOSPITAL), said.patient, said.doctor
    city, state, zipcode = said.place
    out.add("MSH|^~\\&|RIS|", hospital, "|EHR|", hospital, "|", _phi(_ts(exam, 16, 5), C.DATE))
    out.add(f"||ORU^R01|MSG{number:06d}|P|2.5\r")  # MSH-10: `SynthMessage.control_id`
    out.add("PID|1||", _phi(said.mrn, C.ID, "MRN"), "^^^HOSP^MR||", *_name(patient, C.PATIENT, middle=True))
    out.add("||", _phi(f"{said.birth:%Y%m%d}", C.DATE), f"|{'F' if patient.female else 'M'}|||")
    out.add(_phi(said.street, C.LOCATION, "STREET"), "^^", _phi(city, C.LOCATION, "CITY"), f"^{state}^")
    out.add(_phi(zipcode, C.LOCATION, "ZIP"), "||", _phi(fakes.phone(), C.PHONE), "\r")
    out.add("PV1|1|O|RAD^^^", hospital, "||||", _phi(fakes.digits(4), C.ID), "^", *_name(doctor, C.HCW), "\r")
    accession = _phi(said.accession, C.ID, "ACCESSION")
    out.add("ORC|RE|", _phi(f"P{fakes.digits(6)}", C.ID), "|", accession, "\r")
    out.add("OBR|1|", _phi(f"P{fakes.digits(6)}", C.ID), "|", accession, "|71020^CHEST XRAY|||")
    out.add(_phi(_ts(exam, 15, 30), C.DATE), "\r")


def _name(person: Person, category: Category, *, middle: bool = False) -> tuple[_Piece, ...]:
    """`FAMILY^GIVEN[^M]`, each component a PHI piece."""
    pieces: tuple[_Piece, ...] = (_phi(person.last.upper(), category), "^", _phi(person.first.upper(), category))
    return (*pieces, "^", _phi(person.middle[0], category)) if middle else pieces


@dataclass(frozen=True)
class _Said:
    """What one message says about its patient, exam and places (drawn before it is written)."""

    patient: Person
    mrn: str
    doctor: Person
    exam: date
    birth: date
    accession: str
    hospital: str
    street: str
    place: tuple[str, str, str]


def _draw(fakes: Fakes, previous: SynthMessage | None) -> _Said:
    rng = fakes.rng
    patient = previous.patient if previous else fakes.person()
    mrn = previous.mrn if previous else fakes.mrn()
    doctor = fakes.person()
    exam = fakes.day(date(2023, 1, 1), 700)
    birth = previous.birth if previous else date(1940, 1, 1) + timedelta(days=rng.randrange(60 * 365))
    accession, hospital = fakes.accession(), fakes.hospital().upper()
    street, place = fakes.street(), fakes.city_state_zip()
    # "&" separates sub-components in HL7: "BAYLOR SCOTT & WHITE" is written with "AND"
    return _Said(patient, mrn, doctor, exam, birth, accession, hospital.replace("&", "AND"), street, place)


def oru_message(fakes: Fakes, number: int, previous: SynthMessage | None = None) -> SynthMessage:
    """One `ORU^R01` message (segments end in CR); pass a `previous` message for its patient's next one."""
    said = _draw(fakes, previous)
    patient, exam, doctor = said.patient, said.exam, said.doctor
    out = _Builder()
    _header(out, fakes, number, said)
    title = "Ms." if patient.female else "Mr."
    full = f"{patient.first} {patient.last}"
    named = fakes.rng.choice((full, patient.last))
    accession = _phi(said.accession, C.ID, "ACCESSION")
    lines: list[tuple[_Piece, ...]] = [
        ("Patient: ", _phi(full, C.PATIENT), ", exam of ", _phi(fakes.date_text(exam), C.DATE), ", accession ",
         accession, "."),
        (f"{title} ", _phi(patient.last, C.PATIENT), " was compared with the study of ",
         _phi(fakes.date_text(exam - timedelta(days=90)), C.DATE), "."),
        ("Findings: ", fakes.rng.choice(REPORT_FINDINGS)),
        (_phi(named, C.PATIENT), " tolerated the examination well; discussed with Dr. ", _phi(doctor.last, C.HCW),
         " on ", _phi(fakes.date_text(exam), C.DATE), "."),
    ]  # fmt: skip
    mentions: list[tuple[int, int]] = []
    for n, pieces in enumerate(lines, 1):
        out.add(f"OBX|{n}|TX|IMP^Impression||")
        added = out.add(*pieces)
        mentions.extend((s.start, s.end) for s in added if s.category is C.PATIENT)
        out.add("||||||F\r")
    text = "".join(out.parts)
    return SynthMessage(
        text, patient, said.mrn, said.birth, said.accession, tuple(mentions), tuple(out.spans), f"MSG{number:06d}"
    )


def oru_messages(count: int, seed: int = 0, *, per_patient: int = 1) -> list[SynthMessage]:
    """`count` messages; `per_patient` > 1 gives each patient that many messages in a row."""
    return patient_series(count, seed, per_patient, oru_message)


#: `kind` of the gold records.
GOLD_KIND = "hl7_oru_r01"


def gold_document(message: SynthMessage) -> Document:
    """`message` as the `hl7` reader reads it (id MSH-10, patient PID-3, the whole message as its
    text), with its PHI as gold spans: a record of the JSONL gold format."""
    metadata = {metakeys.KIND: GOLD_KIND, metakeys.SOURCE: "radeid-synth"}
    return Document(message.control_id, message.text, message.mrn, metadata, message.phi)


def write_oru_files(messages: Iterable[SynthMessage], output: Path, gold: Path, *, mllp: bool = False) -> int:
    """Write the messages to `output` (MLLP-framed, or one after another) and their gold JSONL to
    `gold`, each through a temporary beside it, both renamed only when both are whole; the count."""
    from radeid.io.atomic import AtomicTextFile
    from radeid.io.commit import apply_moves
    from radeid.synth.goldio import gold_record

    files: list[AtomicTextFile] = []
    count = 0
    try:
        for target in (output, gold):  # one by one: a failure discards the temporaries made so far
            files.append(AtomicTextFile(target, overwrite=None))
        for message in messages:
            files[0].handle.write(f"{MLLP_START}{message.text}{MLLP_END}" if mllp else message.text)
            files[1].handle.write(json.dumps(gold_record(gold_document(message)), ensure_ascii=False) + "\n")
            count += 1
        moves = [move for file in files for move in file.stage()]
    except BaseException:
        for file in files:
            file.abort()
        raise
    apply_moves(moves)
    return count
