"""Synthetic FHIR Bundles (a radiology report with its patient, physician, organization and
encounter) with PHI in the resources' elements and in the report text.

For tests and benchmarks of the `fhir` format: every Bundle names its patient in `Patient.name` and
again in `DiagnosticReport.conclusion`, its XHTML narrative and an Observation's `valueString` (after
a label, after a title, and once with no cue: the full name or the surname alone), carries the MRN
in `Patient.identifier` and the accession number in `DiagnosticReport.identifier` and the text, and
dates as FHIR dates and in prose. Resources refer to each other by relative references
(`Patient/pat-...`). The values come from `radeid.synth.fakes`, so nothing is a real person.
`mentions` says where the patient's name is written in the report text, for recall measurements.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from radeid.synth.fakes import REPORT_FINDINGS, Fakes, Person, patient_series

__all__ = ["SynthBundle", "bundle", "bundles", "write_bulk_export"]


@dataclass(frozen=True)
class SynthBundle:
    """One Bundle (JSON text, one line when `indent` is None) and the truth about it."""

    text: str
    patient: Person
    patient_id: str
    mrn: str
    birth: date
    accession: str
    #: `(start, end)` of each mention of the patient's name in the report text (offsets into `text`).
    mentions: tuple[tuple[int, int], ...]


def _name(person: Person) -> dict[str, Any]:
    return {"use": "official", "family": person.last, "given": [person.first, person.middle]}


def _prose(fakes: Fakes, patient: Person, doctor: Person, exam: date, accession: str) -> list[tuple[str, str, str]]:
    """The report's sentences as (before, name, after): `name` is a mention of the patient."""
    title = "Ms." if patient.female else "Mr."
    said = fakes.rng.choice((f"{patient.first} {patient.last}", patient.last))
    return [
        ("Patient: ", f"{patient.first} {patient.last}", f", exam of {fakes.date_text(exam)}, accession {accession}."),
        (f"{title} ", patient.last, f" was compared with the study of {fakes.date_text(exam - timedelta(days=90))}."),
        ("Findings: ", "", fakes.rng.choice(REPORT_FINDINGS)),
        ("", said, f" tolerated the examination well; discussed with Dr. {doctor.last} on {fakes.date_text(exam)}."),
    ]


def _patient(fakes: Fakes, patient: Person, pid: str, mrn: str, birth: date) -> dict[str, Any]:
    street, (city, state, zipcode) = fakes.street(), fakes.city_state_zip()
    return {
        "resourceType": "Patient",
        "id": pid,
        "identifier": [{"type": {"coding": [{"code": "MR"}]}, "system": "urn:oid:1.2.3.4", "value": mrn}],
        "name": [_name(patient)],
        "telecom": [{"system": "phone", "value": fakes.phone()}],
        "gender": "female" if patient.female else "male",
        "birthDate": birth.isoformat(),
        "address": [{"line": [street], "city": city, "state": state, "postalCode": zipcode}],
    }


def bundle(fakes: Fakes, number: int, previous: SynthBundle | None = None, *, indent: int | None = 2) -> SynthBundle:
    """One `collection` Bundle; pass a `previous` Bundle for its patient's next report."""
    rng = fakes.rng
    patient = previous.patient if previous else fakes.person()
    mrn = previous.mrn if previous else fakes.mrn()
    pid = previous.patient_id if previous else f"pat-{fakes.digits(6)}"
    birth = previous.birth if previous else date(1940, 1, 1) + timedelta(days=rng.randrange(60 * 365))
    doctor, exam, accession = fakes.person(), fakes.day(date(2023, 1, 1), 700), fakes.accession()
    hospital = fakes.hospital()
    doc_id, org_id = f"prac-{fakes.digits(5)}", f"org-{fakes.digits(4)}"
    sentences = _prose(fakes, patient, doctor, exam, accession)
    conclusion = " ".join(f"{a}{b}{c}" for a, b, c in sentences[:2])
    observation = " ".join(f"{a}{b}{c}" for a, b, c in sentences[2:])
    patient_resource = _patient(fakes, patient, pid, mrn, birth)
    report = {
        "resourceType": "DiagnosticReport",
        "id": f"rep-{number}",
        "identifier": [{"system": "urn:oid:1.2.3.5", "value": accession}],
        "status": "final",
        "code": {"text": "XR CHEST 2 VIEWS"},
        "subject": {"reference": f"Patient/{pid}", "display": f"{patient.first} {patient.last}"},
        "effectiveDateTime": f"{exam.isoformat()}T15:30:00-05:00",
        "issued": f"{exam.isoformat()}T16:05:00-05:00",
        "performer": [{"reference": f"Practitioner/{doc_id}"}],
        "result": [{"reference": f"Observation/obs-{number}"}],
        "conclusion": conclusion,
        "text": {"status": "generated", "div": f'<div xmlns="http://www.w3.org/1999/xhtml"><p>{conclusion}</p></div>'},
    }
    resources = [
        patient_resource,
        {"resourceType": "Practitioner", "id": doc_id, "name": [_name(doctor)]},
        {"resourceType": "Organization", "id": org_id, "name": hospital},
        {
            "resourceType": "Encounter",
            "id": f"enc-{number}",
            "status": "completed",
            "subject": {"reference": f"Patient/{pid}"},
            "serviceProvider": {"reference": f"Organization/{org_id}"},
            "actualPeriod": {"start": f"{exam.isoformat()}T15:00:00-05:00"},
        },
        report,
        {
            "resourceType": "Observation",
            "id": f"obs-{number}",
            "status": "final",
            "code": {"text": "Impression"},
            "subject": {"reference": f"Patient/{pid}"},
            "valueString": observation,
        },
    ]
    entries = [{"fullUrl": f"https://fhir.example.org/{r['resourceType']}/{r['id']}", "resource": r} for r in resources]
    body = {"resourceType": "Bundle", "id": f"bundle-{number}", "type": "collection", "entry": entries}
    text = json.dumps(body, indent=indent, ensure_ascii=False)
    return SynthBundle(text, patient, pid, mrn, birth, accession, tuple(_mentions(text, sentences)))


def _mentions(text: str, sentences: list[tuple[str, str, str]]) -> list[tuple[int, int]]:
    """Where each sentence's name is written in the `conclusion` and `valueString` values."""
    out: list[tuple[int, int]] = []
    for key, chosen in (('"conclusion": "', sentences[:2]), ('"valueString": "', sentences[2:])):
        cursor = text.index(key) + len(key)
        for before, name, after in chosen:
            if name:
                out.append((cursor + len(before), cursor + len(before) + len(name)))
            cursor += len(before) + len(name) + len(after) + 1
    return out


def bundles(count: int, seed: int = 0, *, per_patient: int = 1, indent: int | None = 2) -> list[SynthBundle]:
    """`count` Bundles; `per_patient` > 1 gives each patient that many reports in a row."""
    return patient_series(count, seed, per_patient, partial(bundle, indent=indent))


def write_bulk_export(items: list[SynthBundle], output: Path) -> int:
    """Write the Bundles one a line (a bulk export, `.ndjson`) through a temporary beside `output`,
    renamed only when whole; the count. Each Bundle must have been made with `indent=None`."""
    from radeid.io.atomic import AtomicTextFile
    from radeid.io.commit import apply_moves

    file = AtomicTextFile(output, overwrite=None)
    try:
        for item in items:
            file.handle.write(item.text + "\n")
        moves = file.stage()
    except BaseException:
        file.abort()
        raise
    apply_moves(moves)
    return len(items)
