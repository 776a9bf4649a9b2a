"""The `dicom` format: each file rendered as a text of its PHI elements and content-tree text, written
back with pydicom, bad files reported one by one (radeid.io.dicom, radeid.io.dicom_fields)."""

from __future__ import annotations

from pathlib import Path

import pydicom
import pytest
from pydicom.dataset import Dataset

from radeid.core import metakeys
from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.dicom import RESERVED, apply_text, mark_deidentified, unmark
from radeid.io.dicom_fields import parse_rendering, render
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat, detect_format
from radeid.io.readers import estimate_total, read_documents
from radeid.io.writers import open_writer
from radeid.synth.dicom import edge_case_sr, sr_reports, write_sr


def _docs(path: Path, fmt: str | None = None) -> tuple[list[Document], list[ReadIssue]]:
    items = list(read_documents(path, fmt))
    return [d for d in items if isinstance(d, Document)], [i for i in items if isinstance(i, ReadIssue)]


@pytest.fixture
def srdir(tmp_path: Path) -> Path:
    folder = tmp_path / "sr"
    (folder / "sub").mkdir(parents=True)
    for n, report in enumerate(sr_reports(2, seed=4)):
        write_sr(report.dataset, folder / f"r{n}.dcm")
    write_sr(edge_case_sr(), folder / "sub" / "edge.dcm")
    return folder


def _text_of(doc: Document, keyword: str) -> list[str]:
    return [e.value for e in parse_rendering(doc.text) or [] if e.keyword == keyword]


def test_a_folder_reads_as_one_document_per_file(srdir: Path) -> None:
    assert detect_format(srdir) is InputFormat.DICOM
    assert detect_format(srdir / "r0.dcm") is InputFormat.DICOM
    assert estimate_total(srdir, InputFormat.DICOM) == 3
    docs, issues = _docs(srdir)
    assert not issues
    assert [d.id for d in docs] == ["r0", "r1", "sub/edge"]
    edge = docs[2]
    assert edge.patient_id == "TR-4471" and edge.metadata[metakeys.RELPATH] == "sub/edge.dcm"
    # the text three containers deep, two performing physicians, both other IDs; empty values left out
    assert _text_of(edge, "TextValue") == ["Çağla Öztürk: Öztürk agrees; seen 01.04.2024."]
    assert _text_of(edge, "PerformingPhysicianName") == ["NAKAMURA^KENJI", "O'NEILL^MÁIRE"]
    assert _text_of(edge, "OtherPatientIDs") == ["H-99812", "H-77120"]
    assert not _text_of(edge, "PatientBirthDate") and not _text_of(edge, "ReferringPhysicianName")
    assert "\x1e0040,A730/0/0040,A730/0/0040,A730/0/0040,A160 TextValue: " in edge.text


def test_phi_spans_by_element(srdir: Path) -> None:
    (edge,) = _docs(srdir / "sub" / "edge.dcm")[0]
    spans = {(edge.text[s:e], c, t) for s, e, c, t in edge.metadata[metakeys.STRUCTURED_SPANS]}
    assert {("ÖZTÜRK", "PATIENT", None), ("ÇAĞLA", "PATIENT", None), ("Öztürk", "PATIENT", None)} <= spans
    assert {("NAKAMURA", "HCW", None), ("O'NEILL", "HCW", None), ("TR-4471", "ID", "MRN")} <= spans
    assert ("20240401", "DATE", "DA") in spans and ("A-5521", "ID", None) in spans
    uids = [edge.text[s:e] for s, e, _, t in edge.metadata[metakeys.STRUCTURED_SPANS] if t == "UID"]
    assert len(uids) == 4 and uids[0] == uids[1]  # media storage = SOP instance; study; series
    narrative = [edge.text[s:e] for s, e in edge.metadata[metakeys.NARRATIVE]]
    assert narrative == ["Çağla Öztürk: Öztürk agrees; seen 01.04.2024."]
    (report,) = _docs(srdir / "r0.dcm")[0]
    found = {(report.text[s:e], c) for s, e, c, _ in report.metadata[metakeys.STRUCTURED_SPANS]}
    # a DT keeps its time (a date shift moves whole days); standard UIDs (SOP class) are no PHI
    assert any(len(text) == 8 and c == "DATE" for text, c in found)
    assert "1.2.840.10008.5.1.4.1.1.88.11" not in {t for t, _ in found}
    assert "0011," not in report.text  # private elements are not rendered (the writer drops them)


def test_a_pname_item_with_the_patients_words_is_the_patient() -> None:
    ds = Dataset()
    ds.PatientName = "OYELARAN^VANCE"
    item = Dataset()
    item.PersonName = "Oyelaran^Vance"
    other = Dataset()
    other.PersonName = "House^Gregory"
    ds.ContentSequence = [item, other]
    rendering = render(ds)
    cats = [(rendering.text[s:e], c) for s, e, c, _ in rendering.structured]
    assert cats == [
        ("OYELARAN", "PATIENT"),
        ("VANCE", "PATIENT"),
        ("Oyelaran", "PATIENT"),
        ("Vance", "PATIENT"),
        ("House", "HCW"),
        ("Gregory", "HCW"),
    ]


def test_unchanged_write_keeps_every_element_but_private_ones(srdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    docs, _ = _docs(srdir)
    with open_writer(out, InputFormat.DICOM, input_path=srdir) as writer:
        for doc in docs:
            writer.write(Result.build(doc, []))
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.dcm")) == ["r0.dcm", "r1.dcm", "sub/edge.dcm"]
    before, after = pydicom.dcmread(srdir / "r0.dcm"), pydicom.dcmread(out / "r0.dcm")
    assert any(e.tag.is_private for e in before) and not any(e.tag.is_private for e in after)
    assert after.PatientIdentityRemoved == "YES"
    assert after.DeidentificationMethod == "radeid: PS3.15 basic profile (was none, 0 codes)"
    codes = [c.CodeValue for c in after.DeidentificationMethodCodeSequence]
    assert codes == ["113100", "113104", "113105", "113107", "113108", "113111"]
    before.remove_private_tags()
    for keyword in ("PatientIdentityRemoved", "DeidentificationMethod", "DeidentificationMethodCodeSequence"):
        delattr(after, keyword)
    assert before == after and before.file_meta == after.file_meta
    # and the written file renders the same text again
    assert [d.text for d in _docs(out, "dicom")[0]] == [d.text for d in docs]


def test_replaced_values_land_in_their_elements(srdir: Path, tmp_path: Path) -> None:
    (doc,) = _docs(srdir / "sub" / "edge.dcm")[0]
    spans = [Span(s, e, Category(c), t) for s, e, c, t in doc.metadata[metakeys.STRUCTURED_SPANS]]
    family = next(s for s in spans if doc.text[s.start : s.end] == "ÖZTÜRK")
    second = next(s for s in spans if doc.text[s.start : s.end] == "O'NEILL")
    body = doc.text.index("Öztürk agrees")
    prose = Span(body, body + len("Öztürk"), Category.PATIENT)
    result = Result.build(doc, [Replacement(family, "LEE^X"), Replacement(second, "Ng"), Replacement(prose, "Lee")])
    from radeid.pipeline.structured import escape_reserved

    result = escape_reserved(result)  # the `^` of a surrogate would start a new component
    out = tmp_path / "one.dcm"
    with open_writer(out, InputFormat.DICOM) as writer:
        writer.write(result)
    ds = pydicom.dcmread(out)
    assert str(ds.PatientName) == "LEE X^ÇAĞLA=Öztürk^Çağla"
    assert [str(v) for v in ds.PerformingPhysicianName] == ["NAKAMURA^KENJI", "Ng^MÁIRE"]
    deep = ds.ContentSequence[0].ContentSequence[0].ContentSequence[0]
    assert deep.TextValue == "Çağla Öztürk: Lee agrees; seen 01.04.2024."
    assert RESERVED["^"] == " "


def test_a_non_ascii_surrogate_in_an_ascii_file_switches_it_to_utf8() -> None:
    ds = Dataset()
    ds.PatientName = "SMITH^JOHN"
    rendering = render(ds)
    apply_text(ds, rendering.text.replace("SMITH", "MÜLLER"), "doc")
    assert ds.SpecificCharacterSet == "ISO_IR 192" and str(ds.PatientName) == "MÜLLER^JOHN"


def test_an_edited_text_is_refused_without_its_values() -> None:
    ds = Dataset()
    ds.PatientName = "SMITH^JOHN"
    with pytest.raises(ValueError, match=r"^document 'd': its text no longer renders") as info:
        apply_text(ds, "\x1e0010,0020 PatientID: 123\n", "document 'd'")
    assert "SMITH" not in str(info.value)


def test_unmark_restores_what_the_file_said_before() -> None:
    ds = Dataset()
    ds.PatientIdentityRemoved = "NO"
    ds.DeidentificationMethod = "site tool"
    code = Dataset()
    code.CodeValue = "113100"
    ds.DeidentificationMethodCodeSequence = [code]
    mark_deidentified(ds)
    assert ds.PatientIdentityRemoved == "YES" and len(ds.DeidentificationMethodCodeSequence) == 7
    assert list(ds.DeidentificationMethod) == ["site tool", "radeid: PS3.15 basic profile (was NO, 1 codes)"]
    assert unmark(ds)
    assert ds.PatientIdentityRemoved == "NO" and ds.DeidentificationMethod == "site tool"
    assert len(ds.DeidentificationMethodCodeSequence) == 1
    assert not unmark(ds)


def test_bad_files_are_one_issue_each_and_never_spoil_the_others(srdir: Path) -> None:
    (srdir / "notes.dcm").write_bytes(b"OYELARAN VANCE was here")  # not DICOM
    image = pydicom.dcmread(srdir / "r1.dcm")
    image.add_new(0x7FE00010, "OB", b"\0" * 16)  # PixelData
    image.save_as(srdir / "image.dcm")
    broken = (srdir / "r0.dcm").read_bytes()
    (srdir / "broken.dcm").write_bytes(broken[: len(broken) // 2])
    marked = pydicom.dcmread(srdir / "r1.dcm")
    marked.ContentSequence[0].TextValue = "a\x1eb"
    marked.save_as(srdir / "rs.dcm")
    docs, issues = _docs(srdir)
    assert [d.id for d in docs] == ["r0", "r1", "sub/edge"]
    reasons = {Path(i.path).name: i.reason for i in issues}
    assert reasons["notes.dcm"] == "not a DICOM file (no DICM marker after the preamble)"
    assert reasons["image.dcm"] == ("holds pixel data (an image): radeid de-identifies structured reports, not images")
    assert reasons["rs.dcm"] == "element 0040,A730/0/0040,A160 holds the control character 0x1E"
    assert "broken.dcm" in reasons and "OYELARAN" not in " ".join(reasons.values())


class Boom(Exception):
    pass


def test_failure_leaves_no_output_and_no_temp(srdir: Path, tmp_path: Path) -> None:
    docs, _ = _docs(srdir)
    out = tmp_path / "out"
    with pytest.raises(Boom), open_writer(out, InputFormat.DICOM, input_path=srdir) as writer:
        writer.write(Result.build(docs[0], []))
        raise Boom
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sr"]
    with pytest.raises(ValueError, match="needs the file the document was read from"):
        with open_writer(tmp_path / "one.dcm", InputFormat.DICOM) as writer:
            writer.write(Result.build(Document("a", "Pt Zorblat"), []))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sr"]


def test_a_file_name_that_is_not_utf8_is_refused_before_any_work(srdir: Path) -> None:
    import os

    from radeid.io.errors import FormatError

    (srdir / "r0.dcm").rename(os.fsdecode(bytes(srdir) + b"/b\xe9"))
    with pytest.raises(FormatError, match=r"file name is not valid UTF-8: .*b\\xe9"):
        list(read_documents(srdir, "dicom"))
