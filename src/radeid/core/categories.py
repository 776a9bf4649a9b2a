"""The PHI taxonomy shared by every component.

A `Category` is coarse on purpose: surrogate generators, masks and metrics work per category.
Finer detail (MRN vs accession, fax vs phone) travels in `Span.subtype` as a free string.
"""

from __future__ import annotations

from enum import Enum


class Category(str, Enum):
    """Coarse PHI categories; the value is the canonical upper-case name used in files."""

    DATE = "DATE"
    PATIENT = "PATIENT"
    HCW = "HCW"
    HOSPITAL = "HOSPITAL"
    LOCATION = "LOCATION"
    VENDOR = "VENDOR"
    ID = "ID"
    PHONE = "PHONE"
    EMAIL = "EMAIL"
    URL = "URL"
    IP = "IP"
    AGE = "AGE"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: str | Category) -> Category:
        """Accept `Category`, `"date"`, `"DATE"` or `"ID/MRN"` (subtype ignored)."""
        if isinstance(name, Category):
            return name
        head = str(name).strip().split("/", 1)[0].upper()
        try:
            return cls(head)
        except ValueError:
            known = ", ".join(c.value for c in cls)
            raise ValueError(f"unknown PHI category {name!r}; known: {known}") from None


#: The subtype of a record's own resource id (FHIR `Patient/abc`): its surrogate is keyed on the
#: value alone, not the patient, so one id gets one pseudonym in every record of a run.
RESOURCE_ID = "RESOURCE_ID"


def split_label(label: str) -> tuple[Category, str | None]:
    """Split `"ID/MRN"` into `(Category.ID, "MRN")`; a bare `"DATE"` has no subtype."""
    head, _, tail = label.partition("/")
    return Category.parse(head), (tail or None)
