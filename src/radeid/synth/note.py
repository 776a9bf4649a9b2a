"""The clinical note templates: consult letter, discharge summary and progress note.

Split from `generate.py` (issue 11): the notes share the report's header and signature
(`report.py`) but nothing else.
"""

from __future__ import annotations

from datetime import timedelta

from radeid.core.categories import Category as C
from radeid.synth import extras as xs
from radeid.synth.builder import DocBuilder
from radeid.synth.kinds import KindSpec
from radeid.synth.negatives import hard_negative
from radeid.synth.parts import Ctx, age_text, date_phi, dr, sentences
from radeid.synth.report import header, signature

__all__ = ["note"]


def note(b: DocBuilder, ctx: Ctx, kind: str, spec: KindSpec) -> None:
    """A clinical note of `kind`: a consult letter, a discharge summary or a progress note."""
    if kind == "consult_letter":
        _consult_letter(b, ctx, spec)
        return
    header(b, ctx, kind, spec)
    if kind == "discharge_summary":
        _discharge_summary(b, ctx, spec)
    else:
        _progress_note(b, ctx, spec)
    signature(b, ctx, note=True)


def _consult_letter(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    """A letter to the referrer: letterhead, salutation, findings, sign-off (no report header)."""
    r, f = ctx.rng, ctx.fakes
    b.line((ctx.hospital, C.HOSPITAL))
    city, state, zip_ = f.city_state_zip()
    b.line((f.street(), C.LOCATION, "STREET"))
    b.line((city, C.LOCATION, "CITY"), ", ", (state, C.LOCATION, "STATE"), " ", (zip_, C.LOCATION, "ZIP"))
    b.newline()
    date_phi(b, ctx, ctx.exam)
    b.newline(2)
    b.text("Dear ")
    dr(b, ctx, ctx.referrer, cred=False)
    b.text(",\n\nThank you for referring ")
    b.phi(f.doctor_name(ctx.patient, titled=True), C.PATIENT)
    b.text(", a ")
    age_text(b, ctx)
    noun = ("girl" if ctx.patient.female else "boy") if ctx.age < 18 else ("woman" if ctx.patient.female else "man")
    b.text(noun + " whom I saw in clinic on ")
    date_phi(b, ctx, ctx.exam)
    b.text(" for " + r.choice(spec.indications) + ". ")
    sentences(b, ctx, spec.findings, r.randrange(2, 5))
    b.text(" ")
    b.negative(hard_negative(r))
    if ctx.x is not None:
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 3) if ctx.more(1.0) else 0)
    b.text("\n\nAssessment: ")
    b.negative(r.choice(spec.impressions))
    b.text(" I will see the patient again in 3 months. Please call me at ")
    b.phi(f.phone(), C.PHONE)
    b.text(" with any questions.\n\nSincerely,\n\n")
    dr(b, ctx, ctx.reader, title=False, cred=True)
    b.newline()
    if r.random() < 0.5:
        b.negative(f.department())  # a department on its own is not PHI
        b.newline()


def _discharge_summary(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    """The discharge summary's sections after the header: HPI, course, diagnoses, follow-up."""
    r, f = ctx.rng, ctx.fakes
    b.text("DISCHARGE SUMMARY\n\nDischarge Date: ")
    date_phi(b, ctx, ctx.exam + timedelta(days=r.randrange(1, 12)))
    b.newline(2)
    b.text("HISTORY OF PRESENT ILLNESS: ")
    b.text(r.choice(("Ms. " if ctx.patient.female else "Mr. ", "")))
    b.phi(ctx.patient.last, C.PATIENT)
    b.text(" is a ")
    age_text(b, ctx)
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
    sentences(b, ctx, spec.findings, r.randrange(3, 6))
    if ctx.x is not None:
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
    b.text("\n\nDISCHARGE DIAGNOSES: ")
    b.negative(r.choice(spec.impressions))
    b.text("\n\nFOLLOW-UP: with ")
    dr(b, ctx, ctx.referrer, cred=False)
    b.text(" in 1-2 weeks, phone ")
    b.phi(f.phone(), C.PHONE)
    b.text(".\n\n")


def _progress_note(b: DocBuilder, ctx: Ctx, spec: KindSpec) -> None:
    """A SOAP progress note after the header."""
    r, f = ctx.rng, ctx.fakes
    b.text("PROGRESS NOTE\n\nS: ")
    b.text("Patient reports " + r.choice(("feeling better", "ongoing pain 4/10", "poor sleep")) + ". ")
    b.text("\nO: ")
    sentences(b, ctx, spec.findings, r.randrange(2, 4))
    b.text("\nA: ")
    b.negative(r.choice(spec.impressions))
    b.text(" ")
    b.negative(hard_negative(r))
    if ctx.x is not None:
        xs.negatives(b, ctx.x, ctx.x.rng.randrange(1, 4) if ctx.more(1.0) else 0)
    b.text("\nP: Continue current management. Discussed with ")
    dr(b, ctx, ctx.referrer, cred=False)
    b.text(". Family contact: ")
    b.phi(f.phone(), C.PHONE)
    b.text(".\n\n")
