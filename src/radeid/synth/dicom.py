"""Synthetic DICOM structured reports (Basic Text SR) with PHI in the header and in the report text.

For tests and benchmarks of the `dicom` format: every report names its patient in PatientName and
again in its content tree (a findings `TextValue`, and an impression in a nested container that
gives the surname alone), carries the MRN in PatientID and the accession number in
AccessionNumber and the text, dates as DICOM `DA`/`DT` values and in prose, a referring physician,
a verifying observer, a PNAME item, a private element and a reference to an image's UIDs. The
values come from `radeid.synth.fakes`, so nothing is a real person; UIDs are drawn from pydicom's
root with the seed as entropy, so a run is reproducible. `edge_case_sr` is one hand-made file with
a non-ASCII name (ISO_IR 192), empty values, a multi-valued PN and containers three deep.
Needs pydicom (`radeid[dicom]`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from radeid.synth.fakes import Fakes, Person, patient_series

__all__ = ["BASIC_TEXT_SR", "SynthSR", "edge_case_sr", "sr_report", "sr_reports", "write_sr"]

BASIC_TEXT_SR = "1.2.840.10008.5.1.4.1.1.88.11"
_FINDINGS = (
    "No acute cardiopulmonary process.",
    "Stable 4 mm nodule in the right upper lobe.",
    "Small left pleural effusion, unchanged.",
    "No fracture or dislocation.",
)


@dataclass(frozen=True)
class SynthSR:
    """One report and the truth about it."""

    dataset: Any  # pydicom.Dataset (with file_meta)
    patient: Person
    mrn: str
    birth: date
    accession: str
    exam: date


def _code(value: str, meaning: str) -> Any:
    from pydicom.dataset import Dataset

    code = Dataset()
    code.CodeValue, code.CodingSchemeDesignator, code.CodeMeaning = value, "DCM", meaning
    return code


def _item(value_type: str, concept: tuple[str, str], relationship: str = "CONTAINS", **values: Any) -> Any:
    """One content item (`TEXT`, `PNAME`, `DATE`, `DATETIME`, `CONTAINER`)."""
    from pydicom.dataset import Dataset

    item = Dataset()
    item.RelationshipType = relationship
    item.ValueType = value_type
    item.ConceptNameCodeSequence = [_code(*concept)]
    for keyword, value in values.items():
        setattr(item, keyword, value)
    return item


def _base(uid: Any, seed: str) -> Any:
    """A Basic Text SR dataset with its file meta group and instance UIDs (no PHI yet)."""
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import UID, ExplicitVRLittleEndian

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = UID(BASIC_TEXT_SR)
    meta.MediaStorageSOPInstanceUID = uid(seed, "sop")
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.preamble = b"\0" * 128
    ds.SpecificCharacterSet = "ISO_IR 192"
    ds.SOPClassUID = BASIC_TEXT_SR
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = "SR"
    ds.SeriesNumber, ds.InstanceNumber = 1, 1
    ds.ValueType, ds.ContinuityOfContent = "CONTAINER", "SEPARATE"
    ds.CompletionFlag, ds.VerificationFlag = "COMPLETE", "VERIFIED"
    ds.ConceptNameCodeSequence = [_code("121144", "Document Title")]
    return ds


def sr_report(fakes: Fakes, number: int, previous: SynthSR | None = None) -> SynthSR:
    """One report; pass a `previous` report for its patient's next one (same study history)."""
    from pydicom.dataset import Dataset
    from pydicom.uid import generate_uid

    def uid(seed: str, what: str) -> Any:
        return generate_uid(entropy_srcs=[seed, what])

    rng, seed = fakes.rng, f"{fakes.rng.random()}-{number}"
    patient = previous.patient if previous else fakes.person()
    mrn = previous.mrn if previous else fakes.mrn()
    birth = previous.birth if previous else date(1940, 1, 1) + timedelta(days=rng.randrange(60 * 365))
    doctor, reader = fakes.person(), fakes.person()
    exam = fakes.day(date(2023, 1, 1), 700)
    accession, hospital = fakes.accession(), fakes.hospital()
    street, (city, state, zipcode) = fakes.street(), fakes.city_state_zip()
    ds = _base(uid, seed)
    ds.StudyDate = ds.ContentDate = f"{exam:%Y%m%d}"
    ds.StudyTime, ds.ContentTime = "153000", "160512"
    ds.AccessionNumber, ds.StudyID = accession, fakes.digits(6)
    ds.InstitutionName, ds.InstitutionAddress = hospital, f"{street}, {city}, {state} {zipcode}"
    ds.ReferringPhysicianName = f"{doctor.last}^{doctor.first}^^Dr"
    ds.StudyDescription = "CT CHEST WITH CONTRAST"
    ds.PatientName = f"{patient.last.upper()}^{patient.first.upper()}^{patient.middle[0]}"
    ds.PatientID, ds.PatientBirthDate, ds.PatientSex = mrn, f"{birth:%Y%m%d}", "F" if patient.female else "M"
    ds.PatientAddress = f"{street}, {city}, {state} {zipcode}"
    ds.StudyInstanceUID, ds.SeriesInstanceUID = uid(seed, "study"), uid(seed, "series")
    observer = Dataset()
    observer.VerifyingObserverName = f"{reader.last}^{reader.first}"
    observer.VerificationDateTime = f"{exam:%Y%m%d}170200"
    observer.VerifyingOrganization = hospital
    observer.VerifyingObserverIdentificationCodeSequence = []
    ds.VerifyingObserverSequence = [observer]
    image = Dataset()
    image.ReferencedSOPClassUID, image.ReferencedSOPInstanceUID = "1.2.840.10008.5.1.4.1.1.2", uid(seed, "image")
    series = Dataset()
    series.SeriesInstanceUID, series.ReferencedSOPSequence = uid(seed, "image-series"), [image]
    evidence = Dataset()
    evidence.StudyInstanceUID, evidence.ReferencedSeriesSequence = ds.StudyInstanceUID, [series]
    ds.CurrentRequestedProcedureEvidenceSequence = [evidence]
    block = ds.private_block(0x0011, "RADEID SYNTH", create=True)
    block.add_new(0x01, "LO", f"{patient.last} {mrn}")  # a private element with PHI: removed
    ds.ContentSequence = _content(fakes, patient, doctor, exam, accession)
    return SynthSR(ds, patient, mrn, birth, accession, exam)


def _content(fakes: Fakes, patient: Person, doctor: Person, exam: date, accession: str) -> list[Any]:
    """Findings (full name, date, accession), a PNAME, a DATE, a DATETIME, and an impression in a
    nested container that names the patient by surname alone."""
    title = "Ms." if patient.female else "Mr."
    findings = (
        f"Patient: {patient.first} {patient.last}, exam of {fakes.date_text(exam)}, accession {accession}.\r\n"
        f"{fakes.rng.choice(_FINDINGS)}"
    )
    impression = (
        f"{title} {patient.last} was compared with the study of {fakes.date_text(exam - timedelta(days=90))}; "
        f"discussed with Dr. {doctor.last}."
    )
    inner = _item("TEXT", ("121073", "Impression"), TextValue=impression)
    return [
        _item("TEXT", ("121071", "Finding"), TextValue=findings),
        _item(
            "PNAME", ("121008", "Person Observer Name"), "HAS OBS CONTEXT", PersonName=f"{doctor.last}^{doctor.first}"
        ),
        _item("DATE", ("111060", "Study Date"), Date=f"{exam:%Y%m%d}"),
        _item("DATETIME", ("111526", "DateTime Started"), DateTime=f"{exam:%Y%m%d}152959.000000"),
        _item("CONTAINER", ("121076", "Conclusions"), ContinuityOfContent="SEPARATE", ContentSequence=[inner]),
    ]


def sr_reports(count: int, seed: int = 0, *, per_patient: int = 1) -> list[SynthSR]:
    """`count` reports; `per_patient` > 1 gives each patient that many reports in a row."""
    return patient_series(count, seed, per_patient, sr_report)


def edge_case_sr() -> Any:
    """A hand-made report: a non-ASCII patient (UTF-8), empty values, two performing physicians,
    two other patient IDs, and a text three containers deep."""
    from pydicom.uid import generate_uid

    ds = _base(lambda seed, what: generate_uid(entropy_srcs=[seed, what]), "edge")
    ds.PatientName = "ÖZTÜRK^ÇAĞLA=Öztürk^Çağla"
    ds.PatientID, ds.OtherPatientIDs = "TR-4471", ["H-99812", "H-77120"]
    ds.PatientBirthDate = ""  # empty: nothing to replace
    ds.ReferringPhysicianName = ""
    ds.PerformingPhysicianName = ["NAKAMURA^KENJI", "O'NEILL^MÁIRE"]
    ds.StudyDate, ds.AccessionNumber = "20240401", "A-5521"
    ds.StudyInstanceUID, ds.SeriesInstanceUID = (
        generate_uid(entropy_srcs=["edge-study"]),
        generate_uid(entropy_srcs=["edge-series"]),
    )
    deep = _item("TEXT", ("121073", "Impression"), TextValue="Çağla Öztürk: Öztürk agrees; seen 01.04.2024.")
    middle = _item("CONTAINER", ("121076", "Conclusions"), ContinuityOfContent="SEPARATE", ContentSequence=[deep])
    outer = _item("CONTAINER", ("121070", "Findings"), ContinuityOfContent="SEPARATE", ContentSequence=[middle])
    empty = _item("TEXT", ("121071", "Finding"), TextValue="")
    ds.ContentSequence = [outer, empty]
    return ds


def write_sr(dataset: Any, path: Path) -> None:
    """Write `dataset` as a DICOM file (preamble and file meta group)."""
    dataset.save_as(path, enforce_file_format=True)
