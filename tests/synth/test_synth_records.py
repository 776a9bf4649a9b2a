"""`radeid synth --format fhir|dicom`: seeded FHIR Bundles (one a line, a bulk export) and DICOM SR
files (a new folder), each read back by radeid's own reader as one record per Bundle or file."""

from __future__ import annotations

import json
from pathlib import Path

import pydicom
from fhir.resources.bundle import Bundle

from radeid.core.document import Document
from radeid.io.readers import read_documents


def test_fhir_bulk_export_is_seeded_and_reads_back_bundle_by_bundle(tmp_path: Path, cli) -> None:
    """Failed before: --format took jsonl and hl7 only."""
    outs = []
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        out = tmp_path / f"{name}.ndjson"
        code, log = cli("synth", "--format", "fhir", "-n", "4", "--seed", seed, "--per-patient", "2", "-o", out, "-q")
        assert code == 0, log
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes() != outs[2].read_bytes()
    lines = outs[0].read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4
    for line in lines:
        Bundle.model_validate(json.loads(line))  # every line a valid Bundle
    docs = [d for d in read_documents(outs[0]) if isinstance(d, Document)]
    assert len(docs) == 4
    patients = [d.patient_id for d in docs]
    assert patients[0] == patients[1] != patients[2] == patients[3]  # two reports per patient


def test_dicom_writes_a_new_folder_of_sr_files_and_never_into_a_used_one(tmp_path: Path, cli) -> None:
    out = tmp_path / "srdir"
    code, log = cli("synth", "--format", "dicom", "-n", "3", "--per-patient", "3", "-o", out, "-q")
    assert code == 0, log
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["sr-00001.dcm", "sr-00002.dcm", "sr-00003.dcm"]
    datasets = [pydicom.dcmread(f) for f in files]
    assert {ds.SOPClassUID for ds in datasets} == {"1.2.840.10008.5.1.4.1.1.88.11"}
    assert len({ds.PatientID for ds in datasets}) == 1
    assert len([d for d in read_documents(out) if isinstance(d, Document)]) == 3
    before = {f.name: f.read_bytes() for f in files}
    code, log = cli("synth", "--format", "dicom", "-n", "2", "-o", out)
    assert code == 2 and "exists" in log
    assert {f.name: f.read_bytes() for f in sorted(out.iterdir())} == before  # nothing replaced


def test_hl7_options_are_refused_with_fhir(tmp_path: Path, cli) -> None:
    code, log = cli("synth", "--format", "fhir", "-n", "2", "--mllp", "-o", tmp_path / "x.ndjson")
    assert code == 2 and "--mllp applies to --format hl7 only, not fhir" in log
    assert not (tmp_path / "x.ndjson").exists()
