"""A DICOM dataset as text: the elements radeid de-identifies, one entry each, and where their PHI is.

DICOM values are not a text with offsets, but the pipeline, the vault, the audit and `reidentify`
work on offsets into one text. So a file's document text is a *rendering* built here, one entry
per value that may hold PHI, in the dataset's own order (the file meta group first, then every
element, depth first through sequences, items in order):

    \\x1e0010,0010 PatientName: OYELARAN^VANCE
    \\x1e0040,A730/0/0040,A160 TextValue: Vance Oyelaran was seen ...

Each entry starts with the record separator `\\x1e` (a character no value may hold), then the
element's path (tags and item indexes, `#n` for the n-th value of a multi-valued element), its
keyword, `: ` and the value exactly as pydicom gives it; it ends in a line end. The writer finds
each value again in the replaced text by the same separators (`parse_rendering`), so a restored
text (`reidentify`, which has no replacement offsets) is written back as well as a de-identified
one, and reading the written file renders the written text again, character for character.

What is PHI is decided by the element (PS3.15 Annex E, basic profile): names (PN) by component,
IDs, institution, address and phone values whole, dates (DA, and the date digits of DT) for a date
shift, instance UIDs for a consistent surrogate; free text (the SR content tree's `TextValue`,
descriptions, comments) goes through the pipeline. Times (TM) stay: a date shift moves whole days.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from radeid.core.categories import Category
from radeid.replace.surrogate.dates import FIXED_FORM

__all__ = ["RS", "Entry", "Rendering", "Rule", "parse_rendering", "render", "rule_for"]

#: The character that starts every entry; no value may hold it, no replacement writes it.
RS = "\x1e"
_ENTRY = re.compile(r"\x1e([^ \x1e]+) ([A-Za-z0-9]*): ([^\x1e]*)\n", re.DOTALL)
_DATE = re.compile(r"\d{8}")
#: UIDs defined by the standard itself (SOP classes, transfer syntaxes, coding schemes): never PHI.
DICOM_ROOT = "1.2.840.10008."


@dataclass(frozen=True)
class Rule:
    """How one element's values are de-identified."""

    kind: str  # "prose" | "name" | "date" | "value" | "uid"
    category: Category | None = None
    subtype: str | None = None


def _rules(kind: str, category: Category | None, subtype: str | None, *keywords: str) -> dict[str, Rule]:
    return dict.fromkeys(keywords, Rule(kind, category, subtype))


#: The elements radeid renders, by keyword (wherever they are: header, sequences, content items).
RULES: dict[str, Rule] = {
    **_rules(
        "prose",
        None,
        None,
        "TextValue",
        "StudyDescription",
        "SeriesDescription",
        "AdditionalPatientHistory",
        "PatientComments",
        "ImageComments",
        "RequestedProcedureDescription",
        "PerformedProcedureStepDescription",
        "ReasonForTheRequestedProcedure",
        "RequestedProcedureComments",
    ),
    **_rules("name", Category.PATIENT, None, "PatientName", "OtherPatientNames", "PatientBirthName"),
    **_rules("name", Category.PATIENT, None, "PatientMotherBirthName", "ResponsiblePerson"),
    **_rules(
        "name",
        Category.HCW,
        None,
        "ReferringPhysicianName",
        "PerformingPhysicianName",
        "OperatorsName",
        "NameOfPhysiciansReadingStudy",
        "PhysiciansOfRecord",
        "RequestingPhysician",
        "VerifyingObserverName",
        "ScheduledPerformingPhysicianName",
        "PersonName",  # an SR PNAME item: the patient when its words are the patient's (see `_person`)
    ),
    **_rules("value", Category.ID, "MRN", "PatientID", "OtherPatientIDs"),
    **_rules(
        "value",
        Category.ID,
        None,
        "AccessionNumber",
        "StudyID",
        "RequestedProcedureID",
        "PerformedProcedureStepID",
        "AdmissionID",
        "PlacerOrderNumberImagingServiceRequest",
        "FillerOrderNumberImagingServiceRequest",
    ),
    **_rules(
        "value", Category.HOSPITAL, None, "InstitutionName", "InstitutionalDepartmentName", "VerifyingOrganization"
    ),
    **_rules("value", Category.LOCATION, None, "InstitutionAddress", "PatientAddress", "ReferringPhysicianAddress"),
    **_rules("value", Category.PHONE, None, "PatientTelephoneNumbers", "ReferringPhysicianTelephoneNumbers"),
    **_rules(
        "date",
        Category.DATE,
        None,
        "PatientBirthDate",
        "StudyDate",
        "SeriesDate",
        "AcquisitionDate",
        "ContentDate",
        "InstanceCreationDate",
        "PerformedProcedureStepStartDate",
        "PerformedProcedureStepEndDate",
        "ScheduledProcedureStepStartDate",
        "Date",  # an SR DATE item
        "AcquisitionDateTime",
        "ObservationDateTime",
        "VerificationDateTime",
        "DateTime",  # an SR DATETIME item
    ),
    **_rules(
        "uid",
        Category.ID,
        "UID",
        "StudyInstanceUID",
        "SeriesInstanceUID",
        "SOPInstanceUID",
        "MediaStorageSOPInstanceUID",
        "ReferencedSOPInstanceUID",
        "FrameOfReferenceUID",
        "ReferencedFrameOfReferenceUID",
        "InstanceCreatorUID",
        "IrradiationEventUID",
        "ObservationUID",
        "TrackingUID",
        "ConcatenationUID",
    ),
}


def rule_for(keyword: str) -> Rule | None:
    return RULES.get(keyword)


@dataclass(frozen=True)
class Entry:
    """One rendered value: its path (as written in the text) and the value."""

    path: str
    keyword: str
    value: str


@dataclass
class Rendering:
    """A dataset's text and where its prose and PHI are (see `radeid.core.metakeys`)."""

    text: str = ""
    narrative: list[list[int]] = field(default_factory=list)
    structured: list[list[object]] = field(default_factory=list)
    problem: str | None = None


def _tag(tag: Any) -> str:
    return f"{tag.group:04X},{tag.element:04X}"


def entries(dataset: Any, prefix: str = "") -> Iterator[tuple[Entry, Rule]]:
    """Every rendered value of `dataset` (sequences depth first), in the dataset's order."""
    for elem in dataset:
        if elem.tag.is_private:
            continue  # removed by the writer ("retain safe private": none is known safe here)
        path = f"{prefix}{_tag(elem.tag)}"
        if elem.VR == "SQ":
            for n, item in enumerate(elem.value or ()):
                yield from entries(item, f"{path}/{n}/")
            continue
        rule = rule_for(elem.keyword)
        if rule is None or elem.is_empty:
            continue
        if rule.kind == "uid" and all(str(v).startswith(DICOM_ROOT) for v in _values(elem)):
            continue
        values = _values(elem)
        for n, value in enumerate(values):
            yield Entry(f"{path}#{n}" if len(values) > 1 else path, elem.keyword, value), rule


def _values(elem: Any) -> list[str]:
    value = elem.value
    if isinstance(value, (list, tuple)) or type(value).__name__ == "MultiValue":
        return ["" if v is None else str(v) for v in value]
    return [str(value)]


def render(dataset: Any, file_meta: Any = None) -> Rendering:
    """The text of a dataset (with its file meta group) and its PHI ranges."""
    patient = _name_words(str(dataset.get("PatientName", "") or ""))
    out = Rendering()
    parts: list[str] = []
    cursor = 0
    found = [*(entries(file_meta, "meta/") if file_meta is not None else ()), *entries(dataset)]
    for entry, rule in found:
        if RS in entry.value:
            out.problem = f"element {entry.path} holds the control character 0x1E"
            return out
        head = f"{RS}{entry.path} {entry.keyword}: "
        start = cursor + len(head)
        parts.append(f"{head}{entry.value}\n")
        cursor = start + len(entry.value) + 1
        _note(entry, rule, start, patient, out)
    out.text = "".join(parts)
    return out


def _name_words(pn: str) -> set[str]:
    return {w.casefold() for w in re.split(r"[\^= ]+", pn) if w}


def _note(entry: Entry, rule: Rule, start: int, patient: set[str], out: Rendering) -> None:
    """The narrative range or the structured spans of one value starting at `start`."""
    value = entry.value
    if not value.strip():
        return
    if rule.kind == "prose":
        out.narrative.append([start, start + len(value)])
        return
    assert rule.category is not None
    if rule.kind == "name":
        category = rule.category
        if entry.keyword == "PersonName" and _name_words(value) and _name_words(value) <= patient:
            category = Category.PATIENT
        out.structured.extend(_name_spans(value, start, category))
    elif rule.kind == "date":
        found = [m for m in (_DATE.finditer(value) if entry.keyword.endswith("Date") else [_DATE.match(value)]) if m]
        for m in found:
            out.structured.append([start + m.start(), start + m.end(), Category.DATE.value, FIXED_FORM])
        if not found:  # not a DICOM date ("1956041", "12/03/2024"): the whole value, as text
            lead = len(value) - len(value.lstrip())
            out.structured.append([start + lead, start + lead + len(value.strip()), Category.DATE.value, FIXED_FORM])
    else:
        lead = len(value) - len(value.lstrip())
        stripped = value.strip()
        out.structured.append([start + lead, start + lead + len(stripped), rule.category.value, rule.subtype])


def _name_spans(value: str, start: int, category: Category) -> list[list[object]]:
    """Family, given and middle name of each component group (`=`): one span each, so a
    surrogate keeps the `^` structure; prefix and suffix (`Dr`, `Jr`) stay."""
    spans: list[list[object]] = []
    offset = 0
    for group in value.split("="):
        cursor = offset
        for n, component in enumerate(group.split("^")):
            stripped = component.strip()
            if n < 3 and stripped:
                lead = cursor + len(component) - len(component.lstrip())
                spans.append([start + lead, start + lead + len(stripped), category.value, None])
            cursor += len(component) + 1
        offset += len(group) + 1
    return spans


def parse_rendering(text: str) -> list[Entry] | None:
    """The entries of a (replaced) rendering, or None when it is not one."""
    found: list[Entry] = []
    cursor = 0
    for m in _ENTRY.finditer(text):
        if m.start() != cursor:
            return None
        found.append(Entry(m.group(1), m.group(2), m.group(3)))
        cursor = m.end()
    return found if cursor == len(text) else None
