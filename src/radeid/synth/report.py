"""The radiology report template: header block, exam, indication, technique, comparison,
findings, impression, critical-result call, addendum and signature.

Split from `generate.py` (issue 11): one module per document family (reports here, clinical notes
in `note.py`); `header` and `signature` are shared with the notes and the Open-i carrier.
"""

from __future__ import annotations

from datetime import timedelta

from radeid.core.categories import Category as C
from radeid.synth import extras as xs
from radeid.synth.builder import DocBuilder
from radeid.synth.kinds import NOTE_KINDS, KindSpec
from radeid.synth.negatives import fill, hard_negative
from radeid.synth.parts import Ctx, address, age_text, date_phi, dr, person, section, sentences

__all__ = ["header", "report", "signature"]


def header(b: DocBuilder, ctx: Ctx, kind: str, spec: KindSpec) -> None:
    """The document's header: maybe a letterhead, the patient rows (shuffled after the first two), extras."""
    r = ctx.rng
    if r.random() < 0.6:
        _letterhead(b, ctx)
    lines = _header_lines(ctx, kind)
    head = lines[:2]
    rest = lines[2:]
    r.shuffle(rest)
    for row in [*head, *rest]:
        _header_row(b, ctx, row)
    if ctx.x is not None:
        for p, kinds in ((0.35, ("name_no_title", "intl_address", "compact_date", "tel")), (0.2, None)):
            if ctx.more(p):
                xs.phi_sentence(b, ctx.x, ctx.x.rng.choice(kinds) if kinds else None)
                b.newline()
        if ctx.more(0.3):
            b.negative(ctx.x.rng.choice(("Service: ", "Department: ", "Ordering department: ", "Consulting service: ")))
            b.negative(ctx.x.rng.choice(xs.DEPARTMENTS)).newline()
    b.newline()


def _letterhead(b: DocBuilder, ctx: Ctx) -> None:
    """The hospital line, then maybe a department, an address and phone/fax lines."""
    r, f = ctx.rng, ctx.fakes
    b.line((ctx.hospital, C.HOSPITAL))
    if r.random() < 0.5:
        # a department on its own is not PHI (HIPAA; issue 10): plain text, recorded as a hard negative
        b.negative(f.department()).newline()
    if r.random() < 0.35:
        b.line(*address(f, f.city_state_zip()))
    if r.random() < 0.3:
        b.line("Tel ", (f.phone(), C.PHONE), "  Fax ", (f.phone(), C.PHONE, "FAX"))
    b.newline()


def _header_lines(ctx: Ctx, kind: str) -> list[list[object]]:
    """The header's rows, each a label then items (PHI tuples, text, or a marker like "DOB" drawn when written)."""
    r, f = ctx.rng, ctx.fakes
    lines: list[list[object]] = [
        [r.choice(("PATIENT: ", "Patient Name: ", "Name: ", "PT NAME: ")), (f.patient_name(ctx.patient), C.PATIENT)],
        [r.choice(("MRN: ", "MR#: ", "Medical Record Number: ", "Unit No: ")), (f.mrn(), C.ID, "MRN")],
        [r.choice(("DOB: ", "Date of Birth: ", "D.O.B.: ")), "DOB"],
        [r.choice(("Sex: ", "Gender: ")), r.choice(("F", "Female") if ctx.patient.female else ("M", "Male"))],
    ]
    if r.random() < 0.5:
        lines.append([r.choice(("Age: ", "AGE: ")), "AGE"])
    if kind in NOTE_KINDS:
        lines.append([r.choice(("Admission Date: ", "Date of Admission: ")), "ADMIT"])
        lines.append([r.choice(("Attending: ", "Attending Physician: ")), "READER"])
        if r.random() < 0.5:
            lines.append(["Account #: ", (f.account(), C.ID, "ACCOUNT")])
    else:
        lines.append([r.choice(("Accession #: ", "ACC: ", "Accession Number: ")), (f.accession(), C.ID, "ACCESSION")])
        lines.append([r.choice(("Exam Date: ", "Date of Service: ", "Study Date: ", "DATE: ")), "EXAM"])
        lines.append([r.choice(("Referring Physician: ", "Ordering Provider: ", "Referred by: ")), "REFERRER"])
    if r.random() < 0.15:
        city_state_zip = f.city_state_zip()  # before the label's draw: same documents for a seed as before
        lines.append([r.choice(("Address: ", "Patient address: ")), *address(f, city_state_zip)])
    if r.random() < 0.1:
        lines.append([r.choice(("Home phone: ", "Contact: ", "Phone: ")), (f.phone(), C.PHONE)])
    if r.random() < 0.2:
        lines.append(
            ["Location: " + r.choice(("Room ", "Bed ", "Ward ")), (f"{r.randrange(100, 999)}", C.LOCATION, "ROOM")]
        )
    return lines


def _header_row(b: DocBuilder, ctx: Ctx, row: list[object]) -> None:
    """One header row written; its markers become dates, ages and doctors' names here."""
    r, f = ctx.rng, ctx.fakes
    label, *items = row
    b.text(str(label))
    for item in items:
        if item == "DOB":
            date_phi(b, ctx, f.dob(ctx.exam.date(), ctx.age))
        elif item == "AGE":
            if ctx.age > 89:
                b.phi(f"{ctx.age}", C.AGE)
            else:
                b.text(f"{ctx.age}")
            b.text(r.choice(("", " Y", " years", "Y")))
        elif item in ("EXAM", "ADMIT"):
            date_phi(b, ctx, ctx.exam, with_time=item == "EXAM" and r.random() < 0.6)
        elif item == "REFERRER":
            dr(b, ctx, ctx.referrer)
        elif item == "READER":
            dr(b, ctx, ctx.reader)
        elif isinstance(item, tuple):
            b.phi(*item)
        else:
            b.text(str(item))
    b.newline()


def _comparison(b: DocBuilder, ctx: Ctx) -> None:
    r = ctx.rng
    section(b, ctx, "Comparison")
    if r.random() < 0.2:
        b.text(r.choice(("None.", "None available.", "No prior studies.")))
    else:
        prior = ctx.exam - timedelta(days=r.randrange(20, 2000))
        b.text(r.choice(("Prior study dated ", "CT of ", "Radiograph from ", "Comparison is made to the exam of ")))
        date_phi(b, ctx, prior)
        if r.random() < 0.3:
            b.text(" performed at ")
            b.phi(ctx.fakes.hospital(), C.HOSPITAL)
        if r.random() < 0.3:
            b.text(" and ")
            date_phi(b, ctx, prior - timedelta(days=r.randrange(30, 900)))
        b.text(".")
    b.newline(2)


def _indication(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    section(b, ctx, r.choice(("History", "Indication", "Clinical history", "Clinical information", "Reason for exam")))
    if r.random() < 0.5:
        age_text(b, ctx)
        b.text(("female" if ctx.patient.female else "male") + " with ")
    b.text(r.choice(spec.indications) + ".")
    if r.random() < 0.35:
        b.text(" ")
        b.negative(hard_negative(r))
    if ctx.x is not None and ctx.more(0.6):
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 3))
    b.newline(2)


def _technique(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    section(b, ctx, "Technique")
    b.negative(fill(r.choice(spec.techniques), r))
    if r.random() < 0.45:
        b.text(r.choice((" Images were acquired on a ", " Scanner: ", " Performed on ")))
        b.phi(ctx.fakes.vendor("DEVICE"), C.VENDOR, "DEVICE")
        b.text(".")
    if ctx.x is not None and ctx.more(0.5):
        b.text(" ")
        b.negative(xs.negative(ctx.x.rng, "imaging"))
    b.newline(2)


def _findings(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    section(b, ctx, "Findings")
    sentences(b, ctx, spec.findings, r.randrange(3, 7))
    for _ in range(r.randrange(1, 3)):
        b.text(" ")
        b.negative(hard_negative(r))
    if ctx.x is not None:
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
        if ctx.more(0.3):
            b.text(" ")
            xs.phi_sentence(b, ctx.x, ctx.x.rng.choice(("facility", "possessive", "company", "compact_date")))
    b.newline(2)


def _impression(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    section(b, ctx, r.choice(("Impression", "Conclusion", "Assessment")))
    count = 1 if spec.impressions[0].startswith("BI-RADS") else r.randrange(1, 4)  # one final category
    items = r.sample(list(spec.impressions), min(len(spec.impressions), count))
    numbered = len(items) > 1 and r.random() < 0.6
    for i, item in enumerate(items, 1):
        if numbered:
            b.text(f"\n{i}. ")
        elif i > 1:
            b.text(" ")
        b.negative(fill(item, r))
    b.newline(2)


def _critical(b: DocBuilder, ctx: Ctx) -> None:
    r, f = ctx.rng, ctx.fakes
    b.text(r.choice(("These findings were discussed with ", "Critical result communicated to ", "Findings called to ")))
    dr(b, ctx, ctx.referrer if r.random() < 0.7 else person(f), cred=False)
    b.text(r.choice((" by telephone at ", " at ", " via phone at ")))
    b.negative(f.time_text())
    b.text(" on ")
    date_phi(b, ctx, ctx.exam + timedelta(days=r.choice((0, 0, 1))))
    b.text(r.choice((" with read back.", ", and read back was performed.", ".", " and acknowledged.")))
    if r.random() < 0.3:
        b.text(" Callback number ")
        b.phi(f.phone(), C.PHONE)
        b.text(".")
    b.newline(2)


def signature(b: DocBuilder, ctx: Ctx, note: bool = False) -> None:
    r, f = ctx.rng, ctx.fakes
    last = "Attending physician: " if note else "Attending radiologist: "
    if r.random() < 0.5:
        b.text("Dictated by: ")
        dr(b, ctx, ctx.reader if r.random() < 0.6 else person(f))
        b.newline()
    if r.random() < 0.4:
        b.text(r.choice(("Dictated using ", "Transcribed with ", "Report created in ")))
        b.phi(f.vendor("SOFTWARE"), C.VENDOR, "SOFTWARE")
        b.newline()
    b.text(r.choice(("Electronically signed by: ", "Electronically signed by ", "Signed: ", last)))
    dr(b, ctx, ctx.reader, cred=r.random() < 0.6)
    b.text(r.choice((" on ", " ", " Date: ")))
    date_phi(b, ctx, ctx.exam + timedelta(days=r.choice((0, 0, 0, 1))), with_time=r.random() < 0.5)
    b.newline()
    if r.random() < 0.3:
        b.text(r.choice(("Pager ", "Pgr: ", "pager #")))
        b.phi(f.pager(), C.PHONE, "PAGER")
        b.newline()
    if r.random() < 0.25:
        b.text("Reading room: ")
        b.phi(f.phone(), C.PHONE)
        b.newline()
    if r.random() < 0.15:
        b.text("Questions: ")
        b.phi(f.email(ctx.reader, ctx.domain), C.EMAIL)
        b.newline()
    if r.random() < 0.12:
        b.text("Images available at ")
        b.phi(f.url(ctx.domain), C.URL)
        b.newline()
    if r.random() < 0.06:
        b.text(r.choice(("Workstation IP: ", "Sent from modality AE at ", "Host ")))
        b.phi(f.ip(), C.IP)
        b.newline()
    if ctx.x is not None:
        if ctx.more(0.4):
            xs.phi_sentence(
                b, ctx.x, ctx.x.rng.choice(("iso_datetime", "tel", "company", "compact_date", "possessive"))
            )
            b.newline()
        if ctx.more(0.3):
            b.negative(xs.negative(ctx.x.rng, "workstation")).newline()


def _addendum(b: DocBuilder, ctx: Ctx) -> None:
    r = ctx.rng
    b.text(r.choice(("ADDENDUM: ", "Addendum ", "*** ADDENDUM *** ")))
    b.text(
        r.choice(("Additional views reviewed. ", "Correction: laterality is left. ", "Outside images were reviewed. "))
    )
    b.text("Addended by ")
    dr(b, ctx, ctx.reader, cred=False)
    b.text(" on ")
    date_phi(b, ctx, ctx.exam + timedelta(days=r.randrange(0, 4)), with_time=r.random() < 0.5)
    b.text(".")
    b.newline(2)


def report(b: DocBuilder, ctx: Ctx, kind: str, spec: KindSpec) -> None:
    r = ctx.rng
    header(b, ctx, kind, spec)
    section(b, ctx, r.choice(("Exam", "Examination", "Procedure", "Study")))
    b.text(r.choice(spec.exams))
    b.newline(2)
    _indication(b, ctx, spec)
    if kind == "interventional" and r.random() < 0.7:
        b.text("Operators: ")
        dr(b, ctx, ctx.reader, cred=False)
        b.text(" and ")
        dr(b, ctx, person(ctx.fakes), cred=False)
        b.text(" (fellow).")
        b.newline(2)
    _technique(b, ctx, spec)
    _comparison(b, ctx)
    _findings(b, ctx, spec)
    _impression(b, ctx, spec)
    if r.random() < 0.3:
        _critical(b, ctx)
    if r.random() < 0.12:
        _addendum(b, ctx)
    signature(b, ctx)
