"""Label maps are data files translating other schemes to radeid categories."""

from __future__ import annotations

import pytest

from radeid import Category
from radeid.core.labelmaps import available_label_maps, load_label_map, map_label


def test_bundled_maps_exist() -> None:
    assert {"stanford", "i2b2_2014", "presidio", "meddocan"} <= set(available_label_maps())


@pytest.mark.parametrize(
    ("scheme", "label", "expected"),
    [
        ("stanford", "HCW", (Category.HCW, None)),
        ("stanford", "VENDOR", (Category.VENDOR, None)),
        ("stanford", "O", None),
        ("i2b2_2014", "DOCTOR", (Category.HCW, None)),
        ("i2b2_2014", "MEDICALRECORD", (Category.ID, "MRN")),
        ("i2b2_2014", "fax", (Category.PHONE, "FAX")),
        ("i2b2_2014", "PROFESSION", None),
        ("presidio", "PERSON", (Category.PATIENT, None)),
        ("presidio", "US_SSN", (Category.ID, "SSN")),
        ("presidio", "TITLE", None),
        ("meddocan", "NOMBRE_PERSONAL_SANITARIO", (Category.HCW, None)),
        ("meddocan", "CORREO_ELECTRONICO", (Category.EMAIL, None)),
    ],
)
def test_map_label(scheme: str, label: str, expected: tuple[Category, str | None] | None) -> None:
    assert map_label(label, load_label_map(scheme)) == expected


def test_bio_prefixes_and_native_labels() -> None:
    assert map_label("B-DATE") == (Category.DATE, None)
    assert map_label("I-ID/MRN") == (Category.ID, "MRN")
    assert map_label("O") is None
    assert map_label("B-HCW", load_label_map("stanford")) == (Category.HCW, None)
    assert map_label("NOT_A_LABEL") is None


def test_unknown_map_names_the_bundled_ones() -> None:
    with pytest.raises(ValueError, match="stanford"):
        load_label_map("nope")
