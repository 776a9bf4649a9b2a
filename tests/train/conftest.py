"""Shared data for the training tests: short synthetic reports with PATIENT/ID/DATE (+HOSPITAL/PHONE)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Span

FIRST = ["Anna", "Marcus", "Priya", "Tom", "Helena", "Jane", "Omar", "Lena"]
LAST = ["Holloway", "Raman", "Nguyen", "Kowalski", "Schmidt", "Doe", "Haddad", "Berg"]
PLACES = ["Riverside General Hospital", "St. Agnes Medical Center", "Lakeview Community Hospital"]


def make_doc(i: int, rng: random.Random) -> Document:
    """A short report with a patient, a date, an ID and (every third one) a hospital and phone."""
    parts: list[tuple[str, Category | None]] = [
        ("PATIENT: ", None),
        (f"{rng.choice(FIRST)} {rng.choice(LAST)}", Category.PATIENT),
        ("\nMRN: ", None),
        (str(rng.randrange(10**6, 10**7)), Category.ID),
        ("\nEXAM DATE: ", None),
        (f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/20{rng.randint(10, 24)}", Category.DATE),
        ("\nFINDINGS: No acute cardiopulmonary process. The heart is normal in size.", None),
    ]
    if i % 3 == 0:
        parts += [
            ("\nPerformed at ", None),
            (rng.choice(PLACES), Category.HOSPITAL),
            (". Call ", None),
            (f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}", Category.PHONE),
            (".", None),
        ]
    text, spans = "", []
    for piece, cat in parts:
        if cat is not None:
            spans.append(Span(len(text), len(text) + len(piece), cat))
        text += piece
    return Document(f"d{i}", text, spans=tuple(spans))


@pytest.fixture(scope="session")
def docs() -> list[Document]:
    rng = random.Random(7)
    return [make_doc(i, rng) for i in range(24)]


@pytest.fixture(scope="session", name="make_doc")
def make_doc_fixture() -> Callable[[int, random.Random], Document]:
    return make_doc
