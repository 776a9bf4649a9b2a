"""Dates in Spanish and German are read and their surrogates written in the same language (issue 30)."""

from __future__ import annotations

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer

KEY = bytes(range(32))


def _replace(text: str, dates: list[str], day_first: bool = True) -> str:
    spans = [Span(text.index(d), text.index(d) + len(d), Category.DATE) for d in dates]
    replacer = SurrogateReplacer(KEY, SurrogateOptions(date_shift="fixed:10", day_first=day_first))
    return replacer.replace(Document(id="d", text=text, patient_id="p"), spans).text


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("3 de marzo de 2024", "13 de marzo de 2024"),
        ("25 de diciembre de 2023", "4 de enero de 2024"),
        ("Lunes 5 de Febrero de 2024", "Jueves 15 de Febrero de 2024"),
        ("12 de setiembre de 2019", "22 de septiembre de 2019"),
        ("12. März 2019", "22. März 2019"),
        ("28. Februar 2019", "10. März 2019"),
        ("Montag, 25. Dezember 2023", "Donnerstag, 4. Januar 2024"),
        ("3 ene 2024", "13 ene 2024"),
        ("30 Okt 2024", "9 Nov 2024"),
        ("14/02/1951", "24/02/1951"),
    ],
)
def test_local_dates_shift_in_their_own_language(original: str, expected: str) -> None:
    assert _replace(f"Fecha: {original}.", [original]) == f"Fecha: {expected}."


def test_english_dates_are_unchanged_by_the_local_tables() -> None:
    assert _replace("Seen March 3, 2024 and 3 weeks ago.", ["March 3, 2024"], day_first=False) == (
        "Seen March 13, 2024 and 3 weeks ago."
    )
