"""Hard negatives: text that looks like PHI but is not, mixed into every generated document.

Eponyms read like surnames, vertebral levels and scores look like IDs, fractions like dates, and
times without a date are not PHI. A detector trained or tuned on these sees them unlabelled.
"""

from __future__ import annotations

import random

__all__ = ["EPONYM_WORDS", "dose", "fill", "hard_negative", "level", "measurement", "series_image", "size"]

#: Single words that must never be labelled when they occur in these phrases (tests check this).
EPONYM_WORDS = (
    "Parkinson", "Hodgkin", "Crohn", "Graves", "Foley", "Swan-Ganz", "Monteggia", "Bankart", "Baker",
    "Ewing", "Wilms", "Hashimoto", "Paget", "Schmorl", "Kerley", "Chiari", "Dandy-Walker", "Tornwaldt",
    "Morison", "Hill-Sachs", "Segond", "Osgood-Schlatter", "Barrett", "Zenker", "Klatskin", "Virchow",
)  # fmt: skip

_EPONYM_PHRASES = (
    "History of Parkinson disease.", "Known Hodgkin lymphoma, status post chemotherapy.",
    "Crohn disease with prior ileocecal resection.", "Graves disease, on methimazole.",
    "A Foley catheter is present in the bladder.", "Swan-Ganz catheter tip in the right main pulmonary artery.",
    "No Monteggia fracture-dislocation.", "Bankart lesion of the anteroinferior glenoid.",
    "Small Baker cyst in the popliteal fossa.", "Differential includes Ewing sarcoma.",
    "Wilms tumor resected in childhood.", "Background Hashimoto thyroiditis.",
    "Paget disease of the right hemipelvis.", "Schmorl nodes at multiple levels.",
    "Kerley B lines suggest interstitial edema.", "Chiari I malformation with 7 mm tonsillar ectopia.",
    "No Dandy-Walker malformation.", "Incidental Tornwaldt cyst.", "Fluid in Morison pouch.",
    "Hill-Sachs deformity of the humeral head.", "Segond fracture is not seen.",
    "Sequelae of Osgood-Schlatter disease.", "Barrett esophagus on prior endoscopy.",
    "Small Zenker diverticulum.", "Hilar mass concerning for Klatskin tumor.", "Prominent Virchow node.",
)  # fmt: skip

_SCORES = (
    "BI-RADS {b}.", "Gleason score {g1}+{g2}={gs}.", "PI-RADS {p}.", "LI-RADS LR-{p}.", "TI-RADS TR{p}.",
    "GCS 15.", "Bosniak category II.", "Fleischner category {p} follow-up.", "Lung-RADS 2.", "NIHSS {n}.",
)  # fmt: skip


def level(rng: random.Random) -> str:
    """A vertebral level or disc space: `T12`, `L4-L5`, `C5-6`, `L5-S1`."""
    region, top = rng.choice((("C", 7), ("T", 12), ("L", 5)))
    n = rng.randrange(1, top + 1)
    if rng.random() < 0.4:
        return f"{region}{n}"
    if n == top:
        nxt = {"C": "T1", "T": "L1", "L": "S1"}[region]
        return f"{region}{n}-{nxt}"
    return rng.choice((f"{region}{n}-{region}{n + 1}", f"{region}{n}-{n + 1}"))


def measurement(rng: random.Random) -> str:
    """A size, dose or attenuation, the numbers reports are full of."""
    a, b, c = (round(rng.uniform(0.3, 9.9), 1) for _ in range(3))
    return rng.choice(
        (
            f"{a} x {b} cm",
            f"{a} x {b} x {c} cm",
            f"{rng.randrange(2, 40)} mm",
            f"{rng.randrange(-20, 80)} HU",
            f"CTDIvol {rng.randrange(3, 30)}.{rng.randrange(10)} mGy",
            f"DLP {rng.randrange(100, 1500)} mGy-cm",
            f"{rng.choice((50, 75, 100, 125))} mL of Omnipaque {rng.choice((300, 350))}",
            f"{rng.randrange(5, 25)} mCi Tc-99m MDP",
            f"SUV max {rng.randrange(2, 20)}.{rng.randrange(10)}",
            f"{rng.randrange(1, 9)}/{rng.randrange(2, 10)} of the distance",
        )
    )


def size(rng: random.Random) -> str:
    """A lesion or organ size: `1.2 x 0.8 cm`, `7 mm`."""
    a, b, c = (round(rng.uniform(0.3, 9.9), 1) for _ in range(3))
    return rng.choice((f"{a} x {b} cm", f"{a} x {b} x {c} cm", f"{rng.randrange(2, 40)} mm", f"{a} cm"))


def dose(rng: random.Random) -> str:
    """A contrast, radiotracer or radiation dose."""
    return rng.choice(
        (
            f"CTDIvol {rng.randrange(3, 30)}.{rng.randrange(10)} mGy",
            f"DLP {rng.randrange(100, 1500)} mGy-cm",
            f"{rng.choice((50, 75, 100, 125))} mL of Omnipaque {rng.choice((300, 350))}",
            f"{rng.randrange(5, 25)} mCi Tc-99m MDP",
            f"{rng.randrange(8, 15)}.{rng.randrange(10)} mCi F-18 FDG",
        )
    )


def series_image(rng: random.Random) -> str:
    return rng.choice(
        (
            f"(series {rng.randrange(2, 12)}, image {rng.randrange(1, 300)})",
            f"(image {rng.randrange(1, 300)} of series {rng.randrange(2, 12)})",
            f"(se {rng.randrange(2, 12)}/im {rng.randrange(1, 300)})",
        )
    )


def hard_negative(rng: random.Random) -> str:
    """One sentence with a look-alike: an eponym, a score, a level, a measurement or a bare time."""
    pick = rng.randrange(6)
    if pick <= 1:
        return rng.choice(_EPONYM_PHRASES)
    if pick == 2:
        n = rng.randrange(1, 6)
        return rng.choice(_SCORES).format(b=rng.randrange(0, 7), g1=3, g2=4, gs=7, p=n, n=rng.randrange(0, 20))
    if pick == 3:
        return (
            f"Mild disc bulge at {level(rng)} without canal stenosis; {level(rng)} vertebral body height is preserved."
        )
    if pick == 4:
        return f"Nodule measures {measurement(rng)} {series_image(rng)}."
    return f"Patient was scanned at {rng.randrange(1, 12)}:{rng.randrange(60):02d} following premedication."


_GAPS = (("{m}", measurement), ("{size}", size), ("{dose}", dose), ("{lv}", level), ("{si}", series_image))


def fill(template: str, rng: random.Random) -> str:
    """Fill `{m}`, `{size}`, `{dose}`, `{lv}` and `{si}` in a template sentence of `kinds.py`
    (each kind of gap in turn, left to right: the order of the draws is part of a seed's output)."""
    for gap, make in _GAPS:
        while gap in template:
            template = template.replace(gap, make(rng), 1)
    return template
