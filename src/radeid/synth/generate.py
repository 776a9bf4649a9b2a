"""Assemble labelled synthetic radiology reports and clinical notes.

`generate(n, options)` yields `Document`s whose `spans` are gold PHI. Document `i` depends only on
(seed, i): its own `random.Random` and a re-seeded Faker, so any prefix of a run is reproducible
and documents can be generated in any order or in parallel.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from radeid.categories import Category as C
from radeid.document import Document
from radeid.synth import extras as xs
from radeid.synth.builder import SYNTH_SOURCE, DocBuilder, Piece, wrap_lines
from radeid.synth.fakes import Fakes, Person
from radeid.synth.kinds import KINDS, NOTE_KINDS, REPORT_KINDS, KindSpec
from radeid.synth.negatives import EPONYM_WORDS, fill, hard_negative

__all__ = ["SYNTH_SOURCE", "SynthOptions", "generate", "generate_one"]

_AVOID = frozenset(w.split("-")[0].casefold() for w in EPONYM_WORDS)


@dataclass(frozen=True)
class SynthOptions:
    """What to generate. Rates are per document; `openi_path` enables the `openi_chest_xray` kind
    (research-only text: read at run time, never bundled)."""

    seed: int = 0
    kinds: tuple[str, ...] = ()
    upper_rate: float = 0.08
    wrap_rate: float = 0.15
    typo_rate: float = 0.2
    openi_path: Path | None = None
    locale: str = "en_US"
    id_prefix: str = "synth"
    #: Extra hard negatives and PHI contexts (`extras.py`), 0 = none (the first generator's output,
    #: byte for byte), 1 = the full dose. Extras draw from their own generator, so the main content
    #: of a document stays the same; department lines become plain text (not PHI) when on.
    extras: float = 0.0
    _kinds: tuple[str, ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("upper_rate", "wrap_rate", "typo_rate", "extras"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        chosen = tuple(self.kinds) or tuple(k for k in KINDS if k != "openi_chest_xray" or self.openi_path)
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
        if "openi_chest_xray" in chosen and self.openi_path is None:
            raise ValueError("kind openi_chest_xray needs the Open-i carrier file (--openi-carrier PATH)")
        object.__setattr__(self, "_kinds", chosen)

    @property
    def chosen_kinds(self) -> tuple[str, ...]:
        return self._kinds


@dataclass
class _Ctx:
    """One document's cast: who, where, when."""

    rng: random.Random
    fakes: Fakes
    patient: Person
    age: int
    exam: datetime
    referrer: Person
    reader: Person
    hospital: str
    domain: str
    upper: bool
    x: xs.Extra | None = None
    extras: float = 0.0

    def more(self, p: float) -> bool:
        """An extra's coin (from the extra generator; always False without extras)."""
        return self.x is not None and self.x.rng.random() < p * self.extras


def _person(fakes: Fakes, female: bool | None = None) -> Person:
    for _ in range(20):
        p = fakes.person(female)
        if p.last.casefold() not in _AVOID and p.first.casefold() not in _AVOID:
            return p
    return p


def _dr(b: DocBuilder, ctx: _Ctx, who: Person, title: bool = True, cred: bool | None = None) -> DocBuilder:
    """`Dr. NAME, MD` with the title and credential outside the span (annotation-guide style)."""
    r = ctx.rng
    titled = title and r.random() < 0.7
    if titled:
        b.text(r.choice(("Dr. ", "Dr. ", "Dr ", "Doctor ")))
    b.phi(ctx.fakes.doctor_name(who, titled), C.HCW)
    if cred if cred is not None else r.random() < 0.4:
        b.text(f", {ctx.fakes.credential()}")
    return b


def _date(b: DocBuilder, ctx: _Ctx, day: date | datetime, with_time: bool = False) -> DocBuilder:
    b.phi(ctx.fakes.date_text(day if isinstance(day, date) else day.date()), C.DATE)
    if with_time:
        b.text(" ")
        b.negative(ctx.fakes.time_text())
    return b


def _age_text(b: DocBuilder, ctx: _Ctx) -> DocBuilder:
    """`93-year-old`: the number is PHI only when over 89 (HIPAA)."""
    if ctx.age > 89:
        b.phi(str(ctx.age), C.AGE)
    else:
        b.text(str(ctx.age))
    return b.text(ctx.rng.choice(("-year-old ", " year old ", " y/o ", " yo ")))


def _address(f: Fakes, city_state_zip: tuple[str, str, str]) -> list[Piece]:
    """Street, city, state and ZIP pieces of one address line, each its own LOCATION span."""
    city, state, zip_ = city_state_zip
    return [
        (f.street(), C.LOCATION, "STREET"),
        ", ",
        (city, C.LOCATION, "CITY"),
        ", ",
        (state, C.LOCATION, "STATE"),
        " ",
        (zip_, C.LOCATION, "ZIP"),
    ]


def _header(b: DocBuilder, ctx: _Ctx, kind: str, spec: KindSpec) -> None:
    r, f = ctx.rng, ctx.fakes
    if r.random() < 0.6:
        b.line((ctx.hospital, C.HOSPITAL))
        if r.random() < 0.5:
            # a department on its own is not PHI (HIPAA; issue 10): plain text, recorded as a hard negative
            b.negative(f.department()).newline()
        if r.random() < 0.35:
            b.line(*_address(f, f.city_state_zip()))
        if r.random() < 0.3:
            b.line("Tel ", (f.phone(), C.PHONE), "  Fax ", (f.phone(), C.PHONE, "FAX"))
        b.newline()
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
        lines.append([r.choice(("Address: ", "Patient address: ")), *_address(f, city_state_zip)])
    if r.random() < 0.1:
        lines.append([r.choice(("Home phone: ", "Contact: ", "Phone: ")), (f.phone(), C.PHONE)])
    if r.random() < 0.2:
        lines.append(
            ["Location: " + r.choice(("Room ", "Bed ", "Ward ")), (f"{r.randrange(100, 999)}", C.LOCATION, "ROOM")]
        )
    head = lines[:2]
    rest = lines[2:]
    r.shuffle(rest)
    for row in [*head, *rest]:
        label, *items = row
        b.text(str(label))
        for item in items:
            if item == "DOB":
                _date(b, ctx, f.dob(ctx.exam.date(), ctx.age))
            elif item == "AGE":
                if ctx.age > 89:
                    b.phi(f"{ctx.age}", C.AGE)
                else:
                    b.text(f"{ctx.age}")
                b.text(r.choice(("", " Y", " years", "Y")))
            elif item in ("EXAM", "ADMIT"):
                _date(b, ctx, ctx.exam, with_time=item == "EXAM" and r.random() < 0.6)
            elif item == "REFERRER":
                _dr(b, ctx, ctx.referrer)
            elif item == "READER":
                _dr(b, ctx, ctx.reader)
            elif isinstance(item, tuple):
                b.phi(*item)
            else:
                b.text(str(item))
        b.newline()
    if ctx.x is not None:
        for p, kinds in ((0.35, ("name_no_title", "intl_address", "compact_date", "tel")), (0.2, None)):
            if ctx.more(p):
                xs.phi_sentence(b, ctx.x, ctx.x.rng.choice(kinds) if kinds else None)
                b.newline()
        if ctx.more(0.3):
            b.negative(ctx.x.rng.choice(("Service: ", "Department: ", "Ordering department: ", "Consulting service: ")))
            b.negative(ctx.x.rng.choice(xs.DEPARTMENTS)).newline()
    b.newline()


def _section(b: DocBuilder, ctx: _Ctx, name: str) -> None:
    r = ctx.rng
    style = r.randrange(3)
    b.text(name.upper() + ":" if style < 2 else name.title() + ":")
    b.text(" " if r.random() < 0.6 else "\n")


def _sentences(b: DocBuilder, ctx: _Ctx, pool: Sequence[str], k: int) -> None:
    r = ctx.rng
    picks = r.sample(list(pool), min(k, len(pool)))
    for i, s in enumerate(picks):
        b.negative(fill(s, r))
        b.text(" " if i < len(picks) - 1 else "")


def _comparison(b: DocBuilder, ctx: _Ctx) -> None:
    r = ctx.rng
    _section(b, ctx, "Comparison")
    if r.random() < 0.2:
        b.text(r.choice(("None.", "None available.", "No prior studies.")))
    else:
        prior = ctx.exam - timedelta(days=r.randrange(20, 2000))
        b.text(r.choice(("Prior study dated ", "CT of ", "Radiograph from ", "Comparison is made to the exam of ")))
        _date(b, ctx, prior)
        if r.random() < 0.3:
            b.text(" performed at ")
            b.phi(ctx.fakes.hospital(), C.HOSPITAL)
        if r.random() < 0.3:
            b.text(" and ")
            _date(b, ctx, prior - timedelta(days=r.randrange(30, 900)))
        b.text(".")
    b.newline(2)


def _indication(b: DocBuilder, ctx: _Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    _section(b, ctx, r.choice(("History", "Indication", "Clinical history", "Clinical information", "Reason for exam")))
    if r.random() < 0.5:
        _age_text(b, ctx)
        b.text(("female" if ctx.patient.female else "male") + " with ")
    b.text(r.choice(spec.indications) + ".")
    if r.random() < 0.35:
        b.text(" ")
        b.negative(hard_negative(r))
    if ctx.x is not None and ctx.more(0.6):
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 3))
    b.newline(2)


def _technique(b: DocBuilder, ctx: _Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    _section(b, ctx, "Technique")
    b.negative(fill(r.choice(spec.techniques), r))
    if r.random() < 0.45:
        b.text(r.choice((" Images were acquired on a ", " Scanner: ", " Performed on ")))
        b.phi(ctx.fakes.vendor("DEVICE"), C.VENDOR, "DEVICE")
        b.text(".")
    if ctx.x is not None and ctx.more(0.5):
        b.text(" ")
        b.negative(xs.negative(ctx.x.rng, "imaging"))
    b.newline(2)


def _findings(b: DocBuilder, ctx: _Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    _section(b, ctx, "Findings")
    _sentences(b, ctx, spec.findings, r.randrange(3, 7))
    for _ in range(r.randrange(1, 3)):
        b.text(" ")
        b.negative(hard_negative(r))
    if ctx.x is not None:
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
        if ctx.more(0.3):
            b.text(" ")
            xs.phi_sentence(b, ctx.x, ctx.x.rng.choice(("facility", "possessive", "company", "compact_date")))
    b.newline(2)


def _impression(b: DocBuilder, ctx: _Ctx, spec: KindSpec) -> None:
    r = ctx.rng
    _section(b, ctx, r.choice(("Impression", "Conclusion", "Assessment")))
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


def _critical(b: DocBuilder, ctx: _Ctx) -> None:
    r, f = ctx.rng, ctx.fakes
    b.text(r.choice(("These findings were discussed with ", "Critical result communicated to ", "Findings called to ")))
    _dr(b, ctx, ctx.referrer if r.random() < 0.7 else _person(f), cred=False)
    b.text(r.choice((" by telephone at ", " at ", " via phone at ")))
    b.negative(f.time_text())
    b.text(" on ")
    _date(b, ctx, ctx.exam + timedelta(days=r.choice((0, 0, 1))))
    b.text(r.choice((" with read back.", ", and read back was performed.", ".", " and acknowledged.")))
    if r.random() < 0.3:
        b.text(" Callback number ")
        b.phi(f.phone(), C.PHONE)
        b.text(".")
    b.newline(2)


def _signature(b: DocBuilder, ctx: _Ctx, note: bool = False) -> None:
    r, f = ctx.rng, ctx.fakes
    last = "Attending physician: " if note else "Attending radiologist: "
    if r.random() < 0.5:
        b.text("Dictated by: ")
        _dr(b, ctx, ctx.reader if r.random() < 0.6 else _person(f))
        b.newline()
    if r.random() < 0.4:
        b.text(r.choice(("Dictated using ", "Transcribed with ", "Report created in ")))
        b.phi(f.vendor("SOFTWARE"), C.VENDOR, "SOFTWARE")
        b.newline()
    b.text(r.choice(("Electronically signed by: ", "Electronically signed by ", "Signed: ", last)))
    _dr(b, ctx, ctx.reader, cred=r.random() < 0.6)
    b.text(r.choice((" on ", " ", " Date: ")))
    _date(b, ctx, ctx.exam + timedelta(days=r.choice((0, 0, 0, 1))), with_time=r.random() < 0.5)
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


def _addendum(b: DocBuilder, ctx: _Ctx) -> None:
    r = ctx.rng
    b.text(r.choice(("ADDENDUM: ", "Addendum ", "*** ADDENDUM *** ")))
    b.text(
        r.choice(("Additional views reviewed. ", "Correction: laterality is left. ", "Outside images were reviewed. "))
    )
    b.text("Addended by ")
    _dr(b, ctx, ctx.reader, cred=False)
    b.text(" on ")
    _date(b, ctx, ctx.exam + timedelta(days=r.randrange(0, 4)), with_time=r.random() < 0.5)
    b.text(".")
    b.newline(2)


def _report(b: DocBuilder, ctx: _Ctx, kind: str, spec: KindSpec) -> None:
    r = ctx.rng
    _header(b, ctx, kind, spec)
    _section(b, ctx, r.choice(("Exam", "Examination", "Procedure", "Study")))
    b.text(r.choice(spec.exams))
    b.newline(2)
    _indication(b, ctx, spec)
    if kind == "interventional" and r.random() < 0.7:
        b.text("Operators: ")
        _dr(b, ctx, ctx.reader, cred=False)
        b.text(" and ")
        _dr(b, ctx, _person(ctx.fakes), cred=False)
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
    _signature(b, ctx)


def _note(b: DocBuilder, ctx: _Ctx, kind: str, spec: KindSpec) -> None:
    r, f = ctx.rng, ctx.fakes
    if kind == "consult_letter":
        b.line((ctx.hospital, C.HOSPITAL))
        city, state, zip_ = f.city_state_zip()
        b.line((f.street(), C.LOCATION, "STREET"))
        b.line((city, C.LOCATION, "CITY"), ", ", (state, C.LOCATION, "STATE"), " ", (zip_, C.LOCATION, "ZIP"))
        b.newline()
        _date(b, ctx, ctx.exam)
        b.newline(2)
        b.text("Dear ")
        _dr(b, ctx, ctx.referrer, cred=False)
        b.text(",\n\nThank you for referring ")
        b.phi(f.doctor_name(ctx.patient, titled=True), C.PATIENT)
        b.text(", a ")
        _age_text(b, ctx)
        noun = ("girl" if ctx.patient.female else "boy") if ctx.age < 18 else ("woman" if ctx.patient.female else "man")
        b.text(noun + " whom I saw in clinic on ")
        _date(b, ctx, ctx.exam)
        b.text(" for " + r.choice(spec.indications) + ". ")
        _sentences(b, ctx, spec.findings, r.randrange(2, 5))
        b.text(" ")
        b.negative(hard_negative(r))
        if ctx.x is not None:
            xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 3) if ctx.more(1.0) else 0)
        b.text("\n\nAssessment: ")
        b.negative(r.choice(spec.impressions))
        b.text(" I will see the patient again in 3 months. Please call me at ")
        b.phi(f.phone(), C.PHONE)
        b.text(" with any questions.\n\nSincerely,\n\n")
        _dr(b, ctx, ctx.reader, title=False, cred=True)
        b.newline()
        if r.random() < 0.5:
            b.negative(f.department())  # a department on its own is not PHI
            b.newline()
        return
    _header(b, ctx, kind, spec)
    if kind == "discharge_summary":
        b.text("DISCHARGE SUMMARY\n\nDischarge Date: ")
        _date(b, ctx, ctx.exam + timedelta(days=r.randrange(1, 12)))
        b.newline(2)
        b.text("HISTORY OF PRESENT ILLNESS: ")
        b.text(r.choice(("Ms. " if ctx.patient.female else "Mr. ", "")))
        b.phi(ctx.patient.last, C.PATIENT)
        b.text(" is a ")
        _age_text(b, ctx)
        b.text("patient who presented to ")
        b.phi(ctx.hospital, C.HOSPITAL)
        b.text(" with " + r.choice(spec.indications) + ". ")
        b.negative(hard_negative(r))
        if ctx.x is not None:
            if ctx.more(0.5):
                b.text(" ")
                xs.phi_sentence(b, ctx.x, "surname_is_a")
            xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 3) if ctx.more(1.0) else 0)
        b.text("\n\nHOSPITAL COURSE: ")
        _sentences(b, ctx, spec.findings, r.randrange(3, 6))
        if ctx.x is not None:
            xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
        b.text("\n\nDISCHARGE DIAGNOSES: ")
        b.negative(r.choice(spec.impressions))
        b.text("\n\nFOLLOW-UP: with ")
        _dr(b, ctx, ctx.referrer, cred=False)
        b.text(" in 1-2 weeks, phone ")
        b.phi(f.phone(), C.PHONE)
        b.text(".\n\n")
    else:
        b.text("PROGRESS NOTE\n\nS: ")
        b.text("Patient reports " + r.choice(("feeling better", "ongoing pain 4/10", "poor sleep")) + ". ")
        b.text("\nO: ")
        _sentences(b, ctx, spec.findings, r.randrange(2, 4))
        b.text("\nA: ")
        b.negative(r.choice(spec.impressions))
        b.text(" ")
        b.negative(hard_negative(r))
        if ctx.x is not None:
            xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
        b.text("\nP: Continue current management. Discussed with ")
        _dr(b, ctx, ctx.referrer, cred=False)
        b.text(". Family contact: ")
        b.phi(f.phone(), C.PHONE)
        b.text(".\n\n")
    _signature(b, ctx, note=True)


def generate_one(
    index: int, options: SynthOptions, fakes: Fakes | None = None, extra_fakes: Fakes | None = None
) -> Document:
    """Document number `index` of the run described by `options` (a pure function of both)."""
    rng = random.Random(f"radeid-synth:{options.seed}:{index}")
    fakes = fakes or Fakes(options.locale)
    fakes.reset(rng.getrandbits(64))
    fakes.rng = rng
    kind = rng.choice(options.chosen_kinds)
    exam = fakes.now()
    roll = rng.random()
    age = rng.randrange(90, 104) if roll < 0.12 else rng.randrange(1, 18) if roll < 0.16 else rng.randrange(18, 90)
    ctx = _Ctx(
        rng=rng,
        fakes=fakes,
        patient=_person(fakes, True if kind == "mammography" else None),
        age=age,
        exam=exam,
        referrer=_person(fakes),
        reader=_person(fakes),
        hospital=fakes.hospital(),
        domain=fakes.domain(),
        upper=rng.random() < options.upper_rate,
    )
    if options.extras > 0:
        xrng = random.Random(f"radeid-synth-extra:{options.seed}:{index}")
        xfakes = extra_fakes or Fakes(options.locale)
        xfakes.reset(xrng.getrandbits(64))
        xfakes.rng = xrng
        ctx.x = xs.Extra(xrng, xfakes, exam)
        ctx.extras = options.extras
    typo_rate = rng.uniform(0.01, 0.05) if rng.random() < options.typo_rate else 0.0
    b = DocBuilder(rng, upper=ctx.upper, typo_rate=typo_rate)
    if kind in REPORT_KINDS:
        _report(b, ctx, kind, REPORT_KINDS[kind])
    elif kind in NOTE_KINDS:
        _note(b, ctx, kind, NOTE_KINDS[kind])
    else:
        from radeid.synth.openi import openi_report

        assert options.openi_path is not None
        openi_report(b, ctx, options.openi_path)
    text, spans = b.build()
    if rng.random() < options.wrap_rate:
        text = wrap_lines(text, spans, rng.randrange(60, 90))
    doc_id = f"{options.id_prefix}-{options.seed}-{index:06d}"
    return Document(
        id=doc_id,
        text=text,
        patient_id=f"{doc_id}-p",
        metadata={"kind": kind, "source": SYNTH_SOURCE, "negatives": tuple(b.negatives), "upper": ctx.upper},
        spans=spans,
    )


def generate(n: int, options: SynthOptions | None = None, start: int = 0) -> Iterator[Document]:
    """`n` documents, numbers `start` .. `start + n - 1`."""
    options = options or SynthOptions()
    fakes = Fakes(options.locale)
    extra_fakes = Fakes(options.locale) if options.extras > 0 else None
    for i in range(start, start + n):
        yield generate_one(i, options, fakes, extra_fakes)
