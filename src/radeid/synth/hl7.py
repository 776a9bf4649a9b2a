"""Synthetic HL7 v2 result messages (`ORU^R01`) with PHI in the header and in the report text.

For tests and benchmarks of the `hl7` format: every message names its patient in PID-5 and again in
its OBX text (after a label, after a title, and once with no cue at all: the full name or the
surname alone), carries the MRN in PID-3 and the
accession number in OBR-3 and the text, and dates in HL7 time-stamp form and in prose. The values
come from `radeid.synth.fakes`, so nothing is a real person. `mentions` says where the patient's
name is written in the text, for recall measurements.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from radeid.synth.fakes import Fakes, Person

__all__ = ["SynthMessage", "oru_message", "oru_messages"]

_FINDINGS = (
    "No acute cardiopulmonary process.",
    "Stable 4 mm nodule in the right upper lobe.",
    "Mild degenerative change of the lumbar spine.",
    "No fracture or dislocation.",
    "Small left pleural effusion, unchanged.",
)


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


def _ts(day: date, hour: int, minute: int) -> str:
    return f"{day:%Y%m%d}{hour:02d}{minute:02d}"


def oru_message(fakes: Fakes, number: int, previous: SynthMessage | None = None) -> SynthMessage:
    """One `ORU^R01` message (segments end in CR); pass a `previous` message for its patient's next one."""
    rng = fakes.rng
    patient = previous.patient if previous else fakes.person()
    mrn = previous.mrn if previous else fakes.mrn()
    doctor = fakes.person()
    exam = fakes.day(date(2023, 1, 1), 700)
    birth = previous.birth if previous else date(1940, 1, 1) + timedelta(days=rng.randrange(60 * 365))
    accession, hospital = fakes.accession(), fakes.hospital().upper()
    street, (city, state, zipcode) = fakes.street(), fakes.city_state_zip()
    hl7_name = f"{patient.last.upper()}^{patient.first.upper()}^{patient.middle[0]}"
    head = [
        f"MSH|^~\\&|RIS|{hospital}|EHR|{hospital}|{_ts(exam, 16, 5)}||ORU^R01|MSG{number:06d}|P|2.5",
        f"PID|1||{mrn}^^^HOSP^MR||{hl7_name}||{birth:%Y%m%d}|{'F' if patient.female else 'M'}|||"
        f"{street}^^{city}^{state}^{zipcode}||{fakes.phone()}",
        f"PV1|1|O|RAD^^^{hospital}||||{fakes.digits(4)}^{doctor.last.upper()}^{doctor.first.upper()}",
        f"ORC|RE|P{fakes.digits(6)}|{accession}",
        f"OBR|1|P{fakes.digits(6)}|{accession}|71020^CHEST XRAY|||{_ts(exam, 15, 30)}",
    ]
    title = "Ms." if patient.female else "Mr."
    said = rng.choice((f"{patient.first} {patient.last}", patient.last))
    lines = [
        ("Patient: ", f"{patient.first} {patient.last}", f", exam of {fakes.date_text(exam)}, accession {accession}."),
        (f"{title} ", patient.last, f" was compared with the study of {fakes.date_text(exam - timedelta(days=90))}."),
        ("Findings: ", "", rng.choice(_FINDINGS)),
        ("", said, f" tolerated the examination well; discussed with Dr. {doctor.last} on {fakes.date_text(exam)}."),
    ]
    text = "\r".join(head) + "\r"
    mentions: list[tuple[int, int]] = []
    for n, (before, name, after) in enumerate(lines, 1):
        obx = f"OBX|{n}|TX|IMP^Impression||{before}"
        if name:
            mentions.append((len(text) + len(obx), len(text) + len(obx) + len(name)))
        text += f"{obx}{name}{after}||||||F\r"
    return SynthMessage(text, patient, mrn, birth, accession, tuple(mentions))


def oru_messages(count: int, seed: int = 0, *, per_patient: int = 1) -> list[SynthMessage]:
    """`count` messages; `per_patient` > 1 gives each patient that many messages in a row."""
    fakes = Fakes()
    out: list[SynthMessage] = []
    for number in range(count):
        fakes.reset(seed * 1_000_003 + number)
        previous = out[-1] if out and number % per_patient else None
        out.append(oru_message(fakes, number + 1, previous))
    return out
