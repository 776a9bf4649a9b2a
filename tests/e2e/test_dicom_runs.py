"""DICOM SR through the whole pipeline: one identity in header and text and across files, only PHI
elements changed (a structural diff with pydicom), every original value restored by `reidentify`."""

from __future__ import annotations

import re
import warnings
from datetime import date
from pathlib import Path
from typing import Any

import pydicom
import pytest
from pydicom.dataset import Dataset

from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.dicom_fields import rule_for
from radeid.io.readers import read_documents
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.dicom import edge_case_sr, sr_reports, write_sr

#: What radeid itself adds to every de-identified file.
MARKS = {"PatientIdentityRemoved", "DeidentificationMethod", "DeidentificationMethodCodeSequence"}


def _report(tmp_path: Path, text: str, name: str = "r.dcm") -> Path:
    """A minimal SR: Vance Oyelaran, MRN12345, accession ACC99881, exam and birth dates, one text item."""
    ds = edge_case_sr()
    ds.PatientName, ds.PatientID, ds.OtherPatientIDs = "OYELARAN^VANCE", "MRN12345", ""
    ds.PatientBirthDate, ds.StudyDate, ds.AccessionNumber = "19560412", "20240312", "ACC99881"
    ds.PerformingPhysicianName = "HOUSE^GREGORY"
    item = Dataset()
    item.RelationshipType, item.ValueType, item.TextValue = "CONTAINS", "TEXT", text
    ds.ContentSequence = [item]
    path = tmp_path / name
    write_sr(ds, path)
    return path


def _docs(path: Path) -> list[Document]:
    return [d for d in read_documents(path, "dicom") if isinstance(d, Document)]


@pytest.fixture(scope="module")
def keyed(rules_only_config) -> Deidentifier:
    return Deidentifier(rules_only_config, key=b"\x07" * 32)


def _written(tmp_path: Path, keyed: Deidentifier, src: Path) -> Dataset:
    from radeid.io.writers import open_writer

    out = tmp_path / f"out_{src.name}"
    with open_writer(out, "dicom", input_path=src) as writer:
        for result in keyed.deidentify(_docs(src)):
            writer.write(result)
    return pydicom.dcmread(out)


def test_one_identity_in_header_and_text(tmp_path: Path, keyed: Deidentifier) -> None:
    text = "Vance Oyelaran, MRN12345, seen 03/12/2024 (accession ACC99881). Mr. Oyelaran is stable."
    ds = _written(tmp_path, keyed, _report(tmp_path, text))
    family, given = ds.PatientName.family_name, ds.PatientName.given_name
    prose = ds.ContentSequence[0].TextValue
    assert f"{given.title()} {family.title()}" in prose and f"Mr. {family.title()} is stable" in prose
    assert "Oyelaran" not in prose and "OYELARAN" not in str(ds.PatientName)
    assert ds.PatientID != "MRN12345" and f"{ds.PatientID}, seen" in prose
    assert ds.AccessionNumber != "ACC99881" and f"accession {ds.AccessionNumber})" in prose
    shift = _day(ds.PatientBirthDate) - date(1956, 4, 12)
    assert _day(ds.StudyDate) - date(2024, 3, 12) == shift != date.resolution * 0
    written = re.search(r"seen (\d\d)/(\d\d)/(\d{4})", prose)
    assert written is not None
    month, day, year = map(int, written.groups())
    assert date(year, month, day) - date(2024, 3, 12) == shift


def _day(da: str) -> date:
    return date(int(da[:4]), int(da[4:6]), int(da[6:8]))


def test_a_name_only_in_the_header_is_caught_in_the_text(tmp_path: Path, keyed: Deidentifier) -> None:
    """The rules alone do not know "Oyelaran"; PatientName seeds it (fails without the structured seeds)."""
    (doc,) = _docs(_report(tmp_path, "Oyelaran tolerated the procedure; Oyelaran to return."))
    (spans,) = keyed.detect([doc])
    start = doc.text.index("Oyelaran tolerated")
    assert [s.text_in(doc.text) for s in spans if s.start >= start] == ["Oyelaran", "Oyelaran"]
    unseeded = Document(doc.id, doc.text, metadata={**doc.metadata, metakeys.STRUCTURED_SPANS: []})
    assert not [s for s in keyed.detect([unseeded])[0] if s.text_in(doc.text) == "Oyelaran"]


def _flat(ds: Any, prefix: str = "") -> dict[str, tuple[str, Any]]:
    """Every element by path (`0040A730/0/0040A160`), with its keyword and value; private ones left out."""
    out: dict[str, tuple[str, Any]] = {}
    for elem in ds:
        if elem.tag.is_private:
            continue
        path = f"{prefix}{elem.tag:08X}"
        if elem.VR == "SQ":
            out[path] = (elem.keyword, len(elem.value))
            for n, item in enumerate(elem.value):
                out |= _flat(item, f"{path}/{n}/")
        else:
            out[path] = (elem.keyword, elem.value)
    return out


def test_only_phi_changes_and_every_value_comes_back(tmp_path: Path, cli, key_file: Path) -> None:
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    src = tmp_path / "sr"
    src.mkdir()
    reports = sr_reports(4, seed=3, per_patient=2)
    for n, report in enumerate(reports):
        write_sr(report.dataset, src / f"r{n}.dcm")
    write_sr(edge_case_sr(), src / "edge.dcm")
    out, back, vault = tmp_path / "out", tmp_path / "back", tmp_path / "v.parquet"
    code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "--vault", vault, "-q")
    assert code == 0, log
    code, log = cli("reidentify", out, "-o", back, "--format", "dicom", "--vault", vault, "--key-file", key_file, "-q")
    assert code == 0, log
    for file in sorted(src.iterdir()):
        original, restored = pydicom.dcmread(file), pydicom.dcmread(back / file.name)
        original.remove_private_tags()
        assert restored == original and restored.file_meta == original.file_meta  # every value restored
        before, after = _flat(pydicom.dcmread(file)), _flat(pydicom.dcmread(out / file.name))
        assert set(after) - set(before) == {"00120062", "00120063", "00120064", *_codes(after)}
        changed = {before[p][0] for p in before if p in after and after[p] != before[p]}
        assert all(rule_for(k) is not None for k in changed), changed  # nothing but PHI elements changed
        assert {"PatientName", "PatientID", "SOPInstanceUID"} <= changed
    # one patient in two files: one surrogate name, MRN and birth date (one shift); the next patient another
    ids = [_identity(pydicom.dcmread(out / f"r{n}.dcm")) for n in range(4)]
    assert ids[0] == ids[1] and ids[2] == ids[3] and ids[0] != ids[2]
    assert not any(reports[0].patient.last.upper() in str(pydicom.dcmread(f).PatientName) for f in out.iterdir())
    study = pydicom.dcmread(out / "r0.dcm")
    evidence = study.CurrentRequestedProcedureEvidenceSequence[0]
    assert evidence.StudyInstanceUID == study.StudyInstanceUID != pydicom.dcmread(src / "r0.dcm").StudyInstanceUID
    assert study.file_meta.MediaStorageSOPInstanceUID == study.SOPInstanceUID
    assert all(_valid_uid(str(u)) for u in (study.StudyInstanceUID, study.SeriesInstanceUID, study.SOPInstanceUID))


def _codes(flat: dict[str, tuple[str, Any]]) -> set[str]:
    return {p for p in flat if p.startswith("00120064/")}


def _identity(ds: Dataset) -> tuple[str, str, str]:
    return str(ds.PatientName), str(ds.PatientID), str(ds.PatientBirthDate)


def _valid_uid(uid: str) -> bool:
    return len(uid) <= 64 and all(p.isdigit() and (p == "0" or not p.startswith("0")) for p in uid.split("."))


@pytest.mark.parametrize("mode", ["mask", "tag"])
def test_mask_and_tag_modes_write_files_pydicom_reads(tmp_path: Path, cli, mode: str) -> None:
    src = _report(tmp_path, "Vance Oyelaran was seen on 03/12/2024.")
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    out = tmp_path / f"{mode}.dcm"
    code, log = cli("deid", src, "-o", out, "--config", config, "--mode", mode, "-q")
    assert code == 0, log
    ds = pydicom.dcmread(out)
    assert "OYELARAN" not in str(ds.PatientName) and "Oyelaran" not in ds.ContentSequence[0].TextValue
    assert ds.PatientIdentityRemoved == "YES"
    assert (str(ds.PatientName) == "[PATIENT]^[PATIENT]") if mode == "tag" else "*" in str(ds.PatientName)


def test_a_bad_file_is_skipped_and_named(tmp_path: Path, cli, key_file: Path) -> None:
    src = tmp_path / "sr"
    src.mkdir()
    _report(src, "Vance Oyelaran was seen.", "good.dcm")
    (src / "bad.dcm").write_bytes(b"OYELARAN VANCE 19560412")
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    out = tmp_path / "out"
    code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "--on-error", "skip")
    assert code == 0, log
    assert sorted(p.name for p in out.iterdir()) == ["good.dcm"]
    assert "bad.dcm" in log and "not a DICOM file" in log and "OYELARAN" not in log


def test_a_malformed_date_is_replaced_and_never_logged(tmp_path: Path, cli, key_file: Path, caplog) -> None:
    """pydicom warns about an invalid DA quoting it, and "1956041" is no 8-digit date: the value must
    still be replaced, and the warning silenced (failed before: the value was kept and printed)."""
    src = _report(tmp_path, "Vance Oyelaran was seen.")
    ds = pydicom.dcmread(src)
    ds.PatientBirthDate = "1956041"
    ds.save_as(src)
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    out = tmp_path / "out.dcm"
    caplog.clear()  # (setting the value above warned)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file)
    assert code == 0, log
    said = [log, *(str(w.message) for w in caught), *(r.getMessage() for r in caplog.records)]
    assert not [m for m in said if "1956041" in m]
    assert pydicom.dcmread(out).PatientBirthDate != "1956041"


def test_files_without_the_dcm_suffix_round_trip_and_rerun(tmp_path: Path, cli, key_file: Path) -> None:
    """PACS exports name files `IM0001` or by UID; the output ends in `.dcm`, reads back with the same
    ids, and a second run may replace it (failed before: `--overwrite` refused the folder, whose
    files had no `.dcm`, and `1.2.3.4` read back as `1.2.3`, not in the vault)."""
    src = tmp_path / "export"
    src.mkdir()
    _report(src, "Vance Oyelaran was seen.", "IM0001")
    _report(src, "Mr. Oyelaran again.", "1.2.3.4")
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    out, back, vault = tmp_path / "out", tmp_path / "back", tmp_path / "v.parquet"
    args = ("--config", config, "--key-file", key_file, "--vault", vault, "-q")
    code, log = cli("deid", src, "-o", out, "--format", "dicom", *args)
    assert code == 0, log
    assert sorted(p.name for p in out.iterdir()) == ["1.2.3.4.dcm", "IM0001.dcm"]
    code, log = cli("deid", src, "-o", out, "--format", "dicom", "--overwrite", *args)
    assert code == 0, log
    code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
    assert code == 0, log
    for name in ("IM0001", "1.2.3.4"):
        original = pydicom.dcmread(src / name)
        original.remove_private_tags()
        assert pydicom.dcmread(back / f"{name}.dcm") == original


def test_date_format_leaves_dicom_dates_in_their_form(tmp_path: Path, cli, key_file: Path) -> None:
    """`[surrogate] date_format` rewrites the dates of the text, never a DA value (failed before:
    StudyDate became `2025-04-10`, no valid DA)."""
    src = _report(tmp_path, "Vance Oyelaran was seen on 03/12/2024.")
    config = tmp_path / "df.toml"
    config.write_text(
        '[pipeline]\ndetectors = ["rules", "lexicon"]\n[surrogate]\ndate_format = "%Y-%m-%d"\n', encoding="utf-8"
    )
    out = tmp_path / "out.dcm"
    code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-q")
    assert code == 0, log
    ds = pydicom.dcmread(out)
    assert re.fullmatch(r"\d{8}", ds.StudyDate) and re.fullmatch(r"\d{8}", ds.PatientBirthDate)
    shifted = _day(ds.StudyDate)
    assert f"seen on {shifted:%Y-%m-%d}." in ds.ContentSequence[0].TextValue
