"""Extra hard negatives (`SynthOptions.extras`): PHI-free sentences of clinical values that look like PHI.

`negative(rng)` writes one sentence of a class in `NEGATIVE_CLASSES` (vitals, doses, grades, labs,
measurements, levels, scores, imaging parameters, codes, times, ages up to 89, eponyms, exam
titles, departments/services, holidays, workstation names), sometimes as an upper-case heading or
hard-wrapped.

Split from `extras.py` (issue 11): the negatives here, the PHI contexts and the `Extra` generator
in `extras.py` (which re-exports these names). The first generator's own look-alikes are in
`negatives.py`; the two sets of sentence tables are alike in form only, and stay apart: their
draws define the documents of a seed, so merging them would change every generated corpus.
"""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["DEPARTMENTS", "NEGATIVE_CLASSES", "negative"]

#: Departments, specialties and services: not PHI on their own (no facility name with them).
DEPARTMENTS = (
    "Emergency Department", "Neurology", "Hematology/Oncology", "Vascular and General Surgery", "Cardiology",
    "Internal Medicine", "Family Medicine", "Orthopedic Surgery", "Radiology", "Nuclear Medicine", "Urology",
    "Gastroenterology", "Pulmonology", "Critical Care", "Medical ICU", "Surgical ICU", "Neurosurgery",
    "Obstetrics and Gynecology", "Pediatrics", "Interventional Radiology", "Infectious Disease", "Nephrology",
    "Physical Therapy", "Hospital Medicine", "Trauma Surgery", "Cardiothoracic Surgery", "Rheumatology",
    "Endocrinology", "Palliative Care", "Plastic Surgery", "ENT", "Otolaryngology", "Dermatology", "Psychiatry",
)  # fmt: skip
_HOLIDAYS = (
    "Christmas", "Thanksgiving", "New Year's Eve", "New Year's Day", "Easter", "the Fourth of July",
    "Labor Day weekend", "Memorial Day", "Halloween", "Christmas Eve", "the holidays", "Independence Day",
)  # fmt: skip
_EPONYMS = (
    "Recommend follow-up per Fleischner Society guidelines.", "Jackson-Pratt drain in the surgical bed.",
    "JP drain output 30 mL serosanguinous.", "Glasgow Coma Scale 14 on arrival.",
    "Positive Murphy sign on sonographic examination.", "Negative McMurray test.", "Virchow triad risk factors.",
    "Graves disease on methimazole.", "Bosniak IIF cyst per Bosniak criteria.", "Meets Light criteria for exudate.",
    "Swan-Ganz catheter tip in the right pulmonary artery.", "Hounsfield units measure 12.",
    "Hodgkin lymphoma in remission.", "Kerley B lines at the bases.", "Duchenne muscular dystrophy.",
    "Seldinger technique was used.", "Valsalva maneuver was performed.", "Tanner stage 4.",
    "Wells score is low.", "Ranson criteria 2.", "Crohn disease of the terminal ileum.",
    "Chiari I malformation.", "Schatzki ring at the GE junction.", "Baker cyst measures 2 cm.",
    "Lisfranc injury is not seen.", "Salter-Harris II fracture of the distal radius.",
    "Essex-Lopresti injury excluded.", "Monro-Kellie doctrine.", "Foley catheter in place.",
    "Hartmann pouch is intact.", "Whipple procedure in the past.", "Nissen fundoplication changes.",
    "Roux-en-Y gastric bypass anatomy.", "Pfannenstiel incision.", "Morgagni hernia.",
    "Meckel diverticulum is suspected.", "Hirschsprung disease excluded.", "Alzheimer disease.",
    "Parkinson disease.", "Bell palsy.", "Cushing syndrome.", "Addison disease.", "Sjogren syndrome.",
    "Wegener granulomatosis.", "Kaposi sarcoma.", "Ewing sarcoma.", "Wilms tumor.", "Pancoast tumor.",
    "Fleischner Society recommendations do not apply.", "Greulich and Pyle bone age 10 years.",
)  # fmt: skip
_EXAM_TITLES = (
    "CHEST PA AND LATERAL", "XRAY CHEST 2 VIEWS", "Xray Chest PA and Lateral", "X-RAY LEFT KNEE 3 VIEWS",
    "XR ABDOMEN 1 VIEW", "CT HEAD WO CONTRAST", "MRI L-SPINE W/O", "US RUQ", "CXR PORTABLE",
    "Chest Xray", "Xray Hand Right", "XRAY PELVIS AP", "DX CHEST 1V", "CR CHEST PA/LAT", "MAMMO SCREEN BILAT",
    "NM BONE SCAN", "FLUORO UGI", "ECHO TTE COMPLETE", "CTA HEAD AND NECK", "XRAY C-SPINE 5 VIEWS",
)  # fmt: skip
_HEADINGS = (
    "FINDINGS", "IMPRESSION", "HISTORY", "TECHNIQUE", "COMPARISON", "CLINICAL INDICATION", "VITAL SIGNS",
    "MEDICATIONS", "ASSESSMENT AND PLAN", "PHYSICAL EXAMINATION", "LABORATORY DATA", "HOSPITAL COURSE",
    "REVIEW OF SYSTEMS", "ALLERGIES", "SOCIAL HISTORY", "PROCEDURE", "RECOMMENDATIONS", "DISPOSITION",
)  # fmt: skip
_DOSES = (
    "sacubitril-valsartan 24/26 mg twice daily", "sacubitril-valsartan 49/51 mg BID", "Entresto 97/103 mg BID",
    "amoxicillin-clavulanate 875/125 mg", "Percocet 5/325 one tablet q6h PRN", "Norco 10/325",
    "piperacillin-tazobactam 3.375 g IV q8h", "lisinopril 20 mg daily", "metoprolol succinate 50 mg",
    "heparin 5000 units SC q8h", "fentanyl 50 mcg IV", "insulin glargine 22 units at bedtime",
    "Bactrim DS 800/160 mg", "Advair 250/50 one puff BID", "ondansetron 4 mg IV", "atorvastatin 40 mg",
    "furosemide 40 mg IV", "apixaban 5 mg BID", "levothyroxine 88 mcg", "prednisone 40 mg taper",
)  # fmt: skip
_ICD = (
    "ICD-9 786.2", "ICD-9: 786.50", "ICD9 428.0", "ICD-10 R05.9", "ICD-10: I50.9", "ICD-10 M54.5", "ICD-10 J18.9",
    "Dx code 786.05", "diagnosis 780.6", "CPT 71046", "CPT 74177", "CPT: 70450", "ICD-10-CM C34.11", "DX: V72.83",
)  # fmt: skip


def _score(r: random.Random) -> str:
    g1 = r.choice((3, 3, 4, 4, 5))
    g2 = r.choice((3, 4, 5))
    return r.choice(
        (
            f"BI-RADS {r.randrange(0, 7)}.",
            f"BI-RADS category {r.choice(('4A', '4B', '4C', '3', '2'))}.",
            f"ACR TI-RADS TR{r.randrange(1, 6)} ({r.randrange(0, 12)} points).",
            f"LI-RADS LR-{r.choice(('3', '4', '5', 'M', 'TIV'))}.",
            f"PI-RADS {r.randrange(1, 6)} lesion in the peripheral zone.",
            f"Gleason {g1}+{g2}={g1 + g2}, grade group {r.randrange(1, 6)}.",
            f"NYHA class {r.choice(('I', 'II', 'III', 'IV'))} heart failure.",
            f"GCS {r.randrange(3, 16)} (E{r.randrange(1, 5)} V{r.randrange(1, 6)} M{r.randrange(1, 7)}).",
            f"CHA2DS2-VASc score {r.randrange(0, 10)}.",
            f"HAS-BLED {r.randrange(0, 6)}.",
            f"Agatston calcium score {r.randrange(0, 1200)}.",
            f"MELD {r.randrange(6, 40)}.",
            f"APGARs {r.randrange(6, 10)}/{r.randrange(7, 10)}.",
            f"Lung-RADS {r.choice(('1', '2', '3', '4A', '4B'))}.",
            f"ASA class {r.choice(('II', 'III', 'IV'))}.",
            f"Modified Rankin Scale {r.randrange(0, 6)}.",
            f"NIHSS {r.randrange(0, 25)}.",
            f"Kellgren-Lawrence grade {r.randrange(1, 5)}.",
            f"ECOG {r.randrange(0, 5)}.",
        )
    )


def _vitals(r: random.Random) -> str:
    t_f = f"{r.randrange(96, 103)}.{r.randrange(10)}"
    bp = f"{r.randrange(90, 190)}/{r.randrange(50, 110)}"
    return r.choice(
        (
            f"BP {bp}, HR {r.randrange(48, 130)}, RR {r.randrange(10, 30)}, Temp {t_f} F, "
            f"SpO2 {r.randrange(86, 101)}% on RA.",
            f"Vitals: T {t_f}, P {r.randrange(50, 120)}, BP {bp}, R {r.randrange(12, 24)}, "
            f"O2 sat {r.randrange(88, 101)}%.",
            f"Temp {t_f}. Pulse {r.randrange(50, 120)}. Blood pressure {bp}.",
            f"Temperature {r.randrange(36, 40)}.{r.randrange(10)} C, heart rate {r.randrange(50, 130)} bpm.",
            f"Weight {r.randrange(40, 140)}.{r.randrange(10)} kg, height {r.randrange(140, 200)} cm, "
            f"BMI {r.randrange(17, 45)}.{r.randrange(10)}.",
            f"Wt {r.randrange(90, 300)} lbs. Ht 5'{r.randrange(0, 12)}\". BMI {r.randrange(17, 45)}.",
            f"BP {bp} mmHg; HR {r.randrange(48, 130)}; SpO2 {r.randrange(86, 101)}% on {r.randrange(1, 6)} L NC.",
        )
    )


def _fraction(r: random.Random) -> str:
    return r.choice(
        (
            f"{r.randrange(1, 5)}/6 systolic ejection murmur at the left sternal border.",
            f"Grade {r.randrange(1, 5)}/6 holosystolic murmur.",
            f"Visual acuity 20/{r.choice((20, 25, 30, 40, 50, 70, 100, 200))} OD, 20/{r.choice((20, 25, 40))} OS.",
            "Vision 20/20 both eyes.",
            f"Strength {r.randrange(3, 6)}/5 in the upper and lower extremities.",
            f"Motor {r.randrange(3, 6)}/5 bilaterally, reflexes {r.randrange(1, 4)}+ and symmetric.",
            f"ANA positive at 1:{r.choice((40, 80, 160, 320, 640))}.",
            f"Epinephrine 1:{r.choice((100000, 200000))} with lidocaine 1%.",
            f"Pain {r.randrange(0, 11)}/10.",
            f"Titer 1:{r.choice((8, 16, 32, 64, 100))}.",
            f"Ratio 1:{r.randrange(2, 5)} dilution.",
            f"Fluid balance {r.randrange(1, 3)}/{r.randrange(1, 4)} L.",
            f"Ejection fraction {r.randrange(20, 70)}%; E/A ratio {r.randrange(5, 20) / 10:.1f}.",
        )
    )


def _labs(r: random.Random) -> str:
    return r.choice(
        (
            f"Hgb {r.randrange(7, 17)}/{r.randrange(7, 17)}.",
            f"H/H {r.randrange(7, 16)}.{r.randrange(10)}/{r.randrange(21, 48)}.{r.randrange(10)}.",
            f"INR {r.randrange(1, 4)}.{r.randrange(10)}.",
            f"Cr {r.randrange(0, 4)}.{r.randrange(10)}, BUN {r.randrange(6, 60)}.",
            f"WBC {r.randrange(3, 25)}.{r.randrange(10)}, platelets {r.randrange(50, 450)}.",
            f"Na {r.randrange(128, 148)}, K {r.randrange(3, 6)}.{r.randrange(10)}, Cl {r.randrange(95, 110)}.",
            f"Troponin {r.choice(('<0.01', '0.04', '0.12', '1.3'))} ng/mL.",
            f"A1c {r.randrange(5, 13)}.{r.randrange(10)}%.",
            f"PSA {r.randrange(0, 30)}.{r.randrange(10)} ng/mL.",
            f"Lactate {r.randrange(0, 8)}.{r.randrange(10)}; pH 7.{r.randrange(10, 50)}.",
            f"LDL {r.randrange(50, 200)} mg/dL, TSH {r.randrange(0, 9)}.{r.randrange(10)}.",
        )
    )


def _measure(r: random.Random) -> str:
    a, b, c = (round(r.uniform(0.2, 12.0), 1) for _ in range(3))
    return r.choice(
        (
            f"Mass measures {a} x {b} cm.",
            f"Lesion {a} x {b} x {c} cm.",
            f"Nodule {r.randrange(2, 40)} MM.",
            f"Measures {r.randrange(2, 60)} mm in greatest dimension.",
            f"Aortic root {r.randrange(25, 50)} mm.",
            f"Common duct {r.randrange(2, 12)} mm.",
            f"Effusion depth {a} cm.",
        )
    )


def _level(r: random.Random) -> str:
    lv = r.choice(("L4/5", "L5/S1", "C5-C6", "C6-7", "T12", "L1", "T4-T5", "C3/4", "L3-L4", "S1", "C2", "T11-12"))
    return r.choice(
        (
            f"Disc herniation at {lv}.",
            f"Mild canal stenosis at {lv}.",
            f"Compression fracture of {lv}.",
            f"Fusion hardware at {lv} without loosening.",
            f"Facet arthropathy at {lv} and {r.choice(('L3-4', 'C4-5', 'T10-11'))}.",
        )
    )


def _imaging(r: random.Random) -> str:
    return r.choice(
        (
            f"{r.choice((80, 100, 120, 140))} kVp, {r.randrange(50, 400)} mAs.",
            f"CTDIvol {r.randrange(2, 40)}.{r.randrange(10)} mGy; DLP {r.randrange(80, 1600)} mGy*cm.",
            f"Slice thickness {r.choice(('0.625', '1.25', '2.5', '3', '5'))} mm.",
            f"Series {r.randrange(2, 12)}, image {r.randrange(1, 400)}.",
            f"(series {r.randrange(2, 12)} image {r.randrange(1, 400)})",
            f"Fluoroscopy time {r.randrange(0, 30)}.{r.randrange(10)} min, {r.randrange(5, 900)} mGy.",
            f"TR/TE {r.randrange(400, 6000)}/{r.randrange(8, 120)}.",
            f"{r.choice(('1.5', '3'))} T magnet.",
            f"Effective dose {r.randrange(1, 20)}.{r.randrange(10)} mSv.",
        )
    )


def _time(r: random.Random) -> str:
    h, m = r.randrange(24), r.randrange(60)
    return r.choice(
        (
            f"Medication given at {h:02d}:{m:02d}.",
            f"Study started at {h:02d}{m:02d} hours.",
            f"Symptoms began at {(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}.",
            f"Next dose due at {(h % 12) or 12} {'a.m.' if h < 12 else 'p.m.'}",
        )
    )


def _age(r: random.Random) -> str:
    age = r.randrange(1, 90)
    return r.choice(
        (
            f"{age}-year-old {r.choice(('male', 'female', 'man', 'woman'))}.",
            f"{age} yo {r.choice(('M', 'F'))} with pain.",
            f"Age {age}.",
            f"Patient is {age} years of age.",
            f"{age}F with cough.",
            f"{age} y/o with fever.",
        )
    )


def _dept(r: random.Random) -> str:
    d = r.choice(DEPARTMENTS)
    return r.choice(
        (
            f"Seen in the {d}.",
            f"Consult: {d}.",
            f"Service: {d}",
            f"Admitted to {d}.",
            f"Follow up with {d} in 2 weeks.",
            f"{d} was consulted.",
            f"Referred by {d}.",
            "Patient presented to the Emergency Department with chest pain.",
            f"Discussed with {d} team.",
        )
    )


def _holiday(r: random.Random) -> str:
    h = r.choice(_HOLIDAYS)
    return r.choice(
        (
            f"Symptoms started around {h}.",
            f"Plans to travel for {h}.",
            f"Fell at home over {h}.",
            f"Family visiting for {h}.",
            f"Wishes to be home for {h}.",
        )
    )


def _code(r: random.Random) -> str:
    c = r.choice(_ICD)
    return r.choice((f"{c}.", f"Diagnosis: {c} cough.", f"Billing: {c}", f"Indication code {c}."))


def _title(r: random.Random) -> str:
    t = r.choice(_EXAM_TITLES)
    return r.choice((f"{t}", f"EXAM: {t}", f"Procedure: {t}", f"{r.choice(_HEADINGS)}: {t}"))


def _workstation(r: random.Random) -> str:
    return r.choice(
        (
            f"Workstation: PACS{r.randrange(1, 9)}",
            f"Reading station: RR{r.randrange(1, 9)}-WS{r.randrange(1, 9)}",
            f"Modality: CT{r.randrange(1, 5)}",
            f"Room: XR{r.randrange(1, 6)}",
            f"Protocol: {r.choice(('CHEST ROUTINE', 'PE STUDY', 'ABD PELVIS W', 'HEAD WO'))}",
        )
    )


def _dose(r: random.Random) -> str:
    return r.choice(("Continue ", "Started ", "Home medications: ", "Discharged on ", "")) + r.choice(_DOSES) + "."


def _eponym(r: random.Random) -> str:
    s = r.choice(_EPONYMS)
    if r.random() < 0.25:
        return f"Patient was evaluated in the ED. {s}"
    return s


#: Negative classes and their sentence makers (the names are for tests and reports).
NEGATIVE_CLASSES: dict[str, Callable[[random.Random], str]] = {
    "vitals": _vitals,
    "dose": _dose,
    "fraction": _fraction,
    "labs": _labs,
    "measurement": _measure,
    "level": _level,
    "score": _score,
    "imaging": _imaging,
    "code": _code,
    "time": _time,
    "age": _age,
    "eponym": _eponym,
    "title": _title,
    "department": _dept,
    "holiday": _holiday,
    "workstation": _workstation,
}


def negative(rng: random.Random, kind: str | None = None) -> str:
    """One PHI-free sentence; sometimes under an upper-case heading, in capitals or hard-wrapped."""
    kind = kind or rng.choice(tuple(NEGATIVE_CLASSES))
    s = NEGATIVE_CLASSES[kind](rng)
    roll = rng.random()
    if roll < 0.12:
        s = s.upper()
    elif roll < 0.22:
        s = f"{rng.choice(_HEADINGS)}: {s}"
    elif roll < 0.3 and " " in s:
        cut = [i for i, ch in enumerate(s) if ch == " "]
        i = rng.choice(cut)
        s = s[:i] + "\n" + s[i + 1 :]
    return s
