"""Synthetic radiology reports with exact gold PHI spans, for benchmarks and tests.

    from synthetic import generate_reports          # benchmarks/ on sys.path
    docs = generate_reports(2000, seed=0)           # list[radeid.Document], spans = gold

Deterministic (one `random.Random(seed)`, no clock, no global state) and light: the only
dependency besides radeid is Faker's bundled name lists, read as data (no Faker instance).
Reports are 150-600 words with the usual headers (patient, MRN, DOB, accession, exam date,
referring physician), COMPARISON dates, FINDINGS, IMPRESSION, a call-back sentence with a phone
number and an "Electronically signed by Dr. X on <date>" line. Patients have one to several
reports (`patient_id` set), so cross-document consistency can be checked. Titles ("Dr.",
"Ms.") are outside name spans, credentials (", MD") too, as most annotation guides have it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from faker.providers.person.en_US import Provider as _Names

from radeid import Category, Document, Span

__all__ = ["generate_reports"]

_FEMALE = tuple(sorted(_Names.first_names_female))
_MALE = tuple(sorted(_Names.first_names_male))
_LAST = tuple(sorted(_Names.last_names))
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

_HOSPITALS = (
    "Riverside General Hospital", "St. Agnes Medical Center", "Lakeview Community Hospital",
    "Northgate Regional Medical Center", "Mercy Valley Hospital", "Cedar Hills Imaging Center",
    "Harborview University Hospital", "Pine Ridge Clinic", "Eastbrook Children's Hospital",
    "Summit Health System",
)  # fmt: skip
_VENDORS = (
    "Siemens SOMATOM Force", "GE Revolution CT", "Philips Ingenuity CT", "Canon Aquilion ONE",
    "Siemens MAGNETOM Vida", "GE Signa Premier", "Philips Achieva 3.0T", "Hologic Selenia Dimensions",
    "Fujifilm FDR Go", "Carestream DRX-Evolution",
)  # fmt: skip

_EXAMS = {
    "CT CHEST WITH CONTRAST": (
        "CT of the chest was performed after intravenous administration of 75 mL of contrast.",
        (
            "The lungs are clear without focal consolidation, pleural effusion or pneumothorax.",
            "There is a 4 mm solid nodule in the right upper lobe, unchanged.",
            "Mild centrilobular emphysema is present in both upper lobes.",
            "The central airways are patent.",
            "The heart is normal in size and there is no pericardial effusion.",
            "Coronary artery calcifications are noted in the left anterior descending artery.",
            "No mediastinal, hilar or axillary lymphadenopathy is identified.",
            "The thoracic aorta is normal in caliber.",
            "The visualized upper abdomen is unremarkable.",
            "Degenerative changes of the thoracic spine are seen without acute fracture.",
            "There is bibasilar dependent atelectasis.",
            "A small hiatal hernia is present.",
            "The thyroid gland is unremarkable.",
            "Subsegmental atelectasis is seen in the lingula.",
        ),
        (
            "No acute cardiopulmonary process.",
            "Stable 4 mm right upper lobe nodule.",
            "Mild emphysema.",
            "Coronary artery calcifications.",
        ),
    ),
    "MRI BRAIN WITHOUT AND WITH CONTRAST": (
        "Multiplanar multisequence MR images of the brain were obtained before and after gadolinium.",
        (
            "There is no acute infarct on diffusion-weighted imaging.",
            "No intracranial hemorrhage, mass effect or midline shift is seen.",
            "The ventricles and sulci are normal in size for age.",
            "Scattered T2 hyperintensities in the periventricular white matter are nonspecific.",
            "There is no abnormal enhancement.",
            "The major intracranial flow voids are preserved.",
            "The paranasal sinuses and mastoid air cells are clear.",
            "The orbits are unremarkable.",
            "The pituitary gland is normal in size.",
            "Mild chronic microvascular ischemic changes are present.",
        ),
        ("No acute intracranial abnormality.", "Mild chronic small vessel ischemic disease."),
    ),
    "XR CHEST 2 VIEWS": (
        "Frontal and lateral views of the chest were obtained.",
        (
            "The cardiomediastinal silhouette is within normal limits.",
            "The lungs are clear.",
            "There is no pleural effusion or pneumothorax.",
            "No acute osseous abnormality is seen.",
            "There is mild blunting of the left costophrenic angle.",
            "Surgical clips project over the right upper quadrant.",
            "The trachea is midline.",
        ),
        ("No acute cardiopulmonary abnormality.", "Trace left pleural effusion."),
    ),
    "US ABDOMEN COMPLETE": (
        "Grayscale and color Doppler sonography of the abdomen was performed.",
        (
            "The liver is normal in size with increased echogenicity compatible with steatosis.",
            "The gallbladder contains multiple mobile shadowing gallstones without wall thickening.",
            "The common bile duct measures 4 mm.",
            "The pancreas is partially obscured by bowel gas.",
            "The spleen measures 10 cm and is normal in echotexture.",
            "The right kidney measures 10.8 cm without hydronephrosis.",
            "The left kidney measures 11.2 cm without hydronephrosis.",
            "A simple cyst is seen in the upper pole of the left kidney.",
            "The abdominal aorta is normal in caliber.",
            "There is no ascites.",
        ),
        ("Cholelithiasis without sonographic evidence of cholecystitis.", "Hepatic steatosis."),
    ),
}
_HISTORIES = (
    "Shortness of breath", "Follow-up of pulmonary nodule", "Headache and dizziness", "Cough and fever",
    "Right upper quadrant pain", "Abnormal liver function tests", "Syncope", "Weight loss",
    "Chest pain", "Staging of known malignancy",
)  # fmt: skip


@dataclass(frozen=True)
class _Person:
    first: str
    last: str
    female: bool


@dataclass(frozen=True)
class _Patient:
    person: _Person
    mrn: str
    dob: date
    pid: str


class _Builder:
    """Text assembled piece by piece; PHI pieces record their exact offsets."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.spans: list[Span] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)

    def phi(self, text: str, category: Category, subtype: str | None = None) -> None:
        start = self.pos
        self.add(text)
        self.spans.append(Span(start, self.pos, category, subtype, 1.0, "gold"))

    def text(self) -> str:
        return "".join(self.parts)


def _person(rng: random.Random) -> _Person:
    female = rng.random() < 0.5
    return _Person(rng.choice(_FEMALE if female else _MALE), rng.choice(_LAST), female)


def _fmt_date(rng: random.Random, d: date, style: int | None = None) -> str:
    style = rng.randrange(8) if style is None else style
    if style == 0:
        return f"{d.month:02d}/{d.day:02d}/{d.year}"
    if style == 1:
        return f"{d.month}/{d.day}/{d.year}"
    if style == 2:
        return d.isoformat()
    if style == 3:
        return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"
    if style == 4:
        return f"{_MONTHS[d.month - 1][:3]} {d.day}, {d.year}"
    if style == 5:
        return f"{d.day:02d}-{_MONTHS[d.month - 1][:3].upper()}-{d.year}"
    if style == 6:
        return f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}"
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _phone(rng: random.Random) -> str:
    area = f"{rng.randint(2, 9)}{rng.randint(0, 8)}{rng.randint(0, 9)}"
    exchange = f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}"
    line = f"{rng.randint(0, 9999):04d}"
    style = rng.randrange(3)
    if style == 0:
        return f"({area}) {exchange}-{line}"
    if style == 1:
        return f"{area}-{exchange}-{line}"
    return f"{area}.{exchange}.{line}"


def _time(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"


def _report(rng: random.Random, index: int, patient: _Patient, doctors: list[_Person]) -> Document:
    b = _Builder()
    exam_name, (technique, findings_pool, impressions) = rng.choice(list(_EXAMS.items()))
    exam_date = date(2015, 1, 1) + timedelta(days=rng.randrange(9 * 365))
    referring, reader = rng.sample(doctors, 2)
    p = patient.person
    target_words = rng.randint(165, 575)

    b.phi(rng.choice(_HOSPITALS), Category.HOSPITAL)
    b.add("\nDEPARTMENT OF RADIOLOGY\n\n")
    b.add("PATIENT NAME: ")
    if rng.random() < 0.5:
        b.phi(f"{p.last.upper()}, {p.first.upper()}", Category.PATIENT)
    else:
        b.phi(f"{p.last}, {p.first}", Category.PATIENT)
    b.add("    MRN: ")
    b.phi(patient.mrn, Category.ID, "MRN")
    b.add("\nDOB: ")
    b.phi(_fmt_date(rng, patient.dob, rng.choice((0, 1, 6))), Category.DATE)
    age = (exam_date - patient.dob).days // 365
    b.add(f"    SEX: {'F' if p.female else 'M'}    AGE: ")
    if age > 89:
        b.phi(str(age), Category.AGE)
        b.add("Y")
    else:
        b.add(f"{age}Y")
    b.add("\nACCESSION #: ")
    b.phi(f"{rng.choice(('CT', 'MR', 'XR', 'US'))}{exam_date.year % 100:02d}-{rng.randint(0, 999999):06d}", Category.ID)
    b.add("\nEXAM DATE: ")
    b.phi(_fmt_date(rng, exam_date), Category.DATE)
    b.add(f" {_time(rng)}\nEXAM: {exam_name}\nREFERRING PHYSICIAN: Dr. ")
    b.phi(f"{referring.first} {referring.last}", Category.HCW)
    b.add(", MD    PHONE: ")
    b.phi(_phone(rng), Category.PHONE)
    b.add(f"\n\nCLINICAL HISTORY: {rng.choice(_HISTORIES)}.\n\nTECHNIQUE: {technique} Images were acquired on a ")
    b.phi(rng.choice(_VENDORS), Category.VENDOR)
    b.add(" scanner.\n\nCOMPARISON: ")
    comparisons = rng.randrange(3)
    if comparisons == 0:
        b.add("None.")
    else:
        prior = exam_date
        for k in range(comparisons):
            prior = prior - timedelta(days=rng.randint(30, 900))
            b.add("Prior examination dated " if k == 0 else " and ")
            b.phi(_fmt_date(rng, prior), Category.DATE)
        b.add(".")
    b.add("\n\nFINDINGS:\n")
    words = len(b.text().split()) + 40  # header so far + impression/signature
    sentences: list[str] = []
    while words < target_words:
        sentence = rng.choice(findings_pool)
        sentences.append(sentence)
        words += len(sentence.split())
        if rng.random() < 0.04:
            title = "Ms." if p.female else "Mr."
            sentences.append(f"{title} \x00 tolerated the examination well.")
            words += 5
    for k, sentence in enumerate(sentences):
        if "\x00" in sentence:
            before, after = sentence.split("\x00")
            b.add(before)
            b.phi(p.last, Category.PATIENT)
            b.add(after)
        else:
            b.add(sentence)
        b.add("\n" if k % 4 == 3 else " ")
    b.add("\n\nIMPRESSION:\n")
    for k, line in enumerate(rng.sample(impressions, min(len(impressions), rng.randint(1, 3))), 1):
        b.add(f"{k}. {line}\n")
    if rng.random() < 0.5:
        b.add("\nFindings were discussed with Dr. ")
        b.phi(referring.last, Category.HCW)
        b.add(" by telephone at ")
        b.phi(_phone(rng), Category.PHONE)
        b.add(" on ")
        b.phi(_fmt_date(rng, exam_date), Category.DATE)
        b.add(f" at {_time(rng)}.\n")
    b.add("\nDictated by: ")
    b.phi(f"{reader.first} {reader.last}", Category.HCW)
    b.add(", MD\nElectronically signed by Dr. ")
    b.phi(f"{reader.first[0]}. {reader.last}" if rng.random() < 0.3 else f"{reader.first} {reader.last}", Category.HCW)
    b.add(" on ")
    b.phi(_fmt_date(rng, exam_date + timedelta(days=rng.randrange(2))), Category.DATE)
    b.add(f" at {_time(rng)}.\n")
    return Document(
        id=f"rpt-{index:06d}",
        text=b.text(),
        patient_id=patient.pid,
        metadata={"exam": exam_name, "synthetic": True},
        spans=tuple(b.spans),
    )


def generate_reports(n: int, seed: int = 0) -> list[Document]:
    """`n` synthetic radiology reports with exact gold spans, the same for the same seed."""
    rng = random.Random(seed)
    doctors = [_person(rng) for _ in range(max(4, n // 40))]
    n_patients = max(1, round(n / 1.6))
    patients = []
    for k in range(n_patients):
        dob = date(1920, 1, 1) + timedelta(days=rng.randrange(85 * 365))
        mrn = f"{rng.randint(0, 99_999_999):08d}"
        patients.append(_Patient(_person(rng), mrn, dob, f"PT{seed:03d}{k:07d}"))
    docs = []
    for i in range(n):
        patient = patients[i] if i < n_patients else rng.choice(patients)
        docs.append(_report(rng, i, patient, doctors))
    return docs
