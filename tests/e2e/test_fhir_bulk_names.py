"""A bulk export's Patient names seed the reports that refer to that Patient from other lines and
files (radeid.io.fhir_patients, radeid.pipeline.structured.known_mentions): the surname written in a
DiagnosticReport's conclusion with no cue is replaced, by the Patient line's own surrogate, in one
file, in a folder, with two workers and after a resume; a report about an unknown patient is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radeid.config.config import Config
from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.fhir_patients import MAX_VALUES, patient_values
from radeid.io.readers import read_documents
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.run.parallel import RunPlan, run

pytest.importorskip("fhir.resources")

CONCLUSION = "Oyelaran tolerated the procedure well. No pulmonary nodules."


def _patient(pid: str = "p1", family: str = "Oyelaran", given: str = "Vance") -> dict[str, Any]:
    return {
        "resourceType": "Patient",
        "id": pid,
        "identifier": [{"value": "MRN12345"}],
        "name": [{"family": family, "given": [given]}],
        "birthDate": "1956-04-12",
    }


def _report(rid: str, subject: str, conclusion: str = CONCLUSION) -> dict[str, Any]:
    return {
        "resourceType": "DiagnosticReport",
        "id": rid,
        "status": "final",
        "code": {"text": "CT chest"},
        "subject": {"reference": f"Patient/{subject}"},
        "conclusion": conclusion,
    }


def _ndjson(path: Path, resources: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in resources), encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    return path


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A bulk export: Patient.ndjson, and DiagnosticReport.ndjson with a report about that patient
    (its surname alone, no title or label) and one about a patient the export does not hold."""
    folder = tmp_path / "export"
    folder.mkdir()
    _ndjson(folder / "Patient.ndjson", [_patient()])
    _ndjson(folder / "DiagnosticReport.ndjson", [_report("r1", "p1"), _report("r2", "unknown")])
    return folder


def _fake_surname(out: Path) -> str:
    (patient,) = _lines(out / "Patient.ndjson")
    family: str = patient["name"][0]["family"]
    assert family != "Oyelaran"
    return family


def test_a_name_only_in_patient_ndjson_is_replaced_in_a_report_of_another_file(
    tmp_path: Path, cli, key_file: Path, config: Path, export: Path
) -> None:
    out = tmp_path / "out"
    code, log = cli("deid", export, "-o", out, "--config", config, "--key-file", key_file, "-q")
    assert code == 0, log
    assert sorted(p.name for p in out.iterdir()) == ["DiagnosticReport.ndjson", "Patient.ndjson"]
    fake = _fake_surname(out)
    known, unknown = _lines(out / "DiagnosticReport.ndjson")
    assert known["conclusion"] == CONCLUSION.replace("Oyelaran", fake)
    # a report about a patient the export does not hold is not touched by the memory
    assert unknown["conclusion"] == CONCLUSION
    assert known["subject"]["reference"] == f"Patient/{_lines(out / 'Patient.ndjson')[0]['id']}"


def test_a_report_about_an_unknown_patient_is_written_as_without_the_memory(
    tmp_path: Path, cli, key_file: Path, config: Path, export: Path
) -> None:
    """The report about a Patient the export does not hold comes out byte for byte as when its file
    is de-identified alone (no Patient to learn from)."""
    folder_out, alone = tmp_path / "out", tmp_path / "alone.ndjson"
    args = ("--config", config, "--key-file", key_file, "-q")
    assert cli("deid", export, "-o", folder_out, *args)[0] == 0
    assert cli("deid", export / "DiagnosticReport.ndjson", "-o", alone, *args)[0] == 0
    with_memory = (folder_out / "DiagnosticReport.ndjson").read_bytes().splitlines(keepends=True)
    without = alone.read_bytes().splitlines(keepends=True)
    assert with_memory[1] == without[1]
    assert with_memory[0] != without[0] and b"Oyelaran" in without[0] and b"Oyelaran" not in with_memory[0]


def test_one_export_file_with_patient_and_report_lines(tmp_path: Path, cli, key_file: Path, config: Path) -> None:
    src = _ndjson(tmp_path / "export.ndjson", [_patient(), _report("r1", "p1"), _report("r2", "unknown")])
    out = tmp_path / "out.ndjson"
    code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-q")
    assert code == 0, log
    patient, known, unknown = _lines(out)
    assert known["conclusion"] == CONCLUSION.replace("Oyelaran", patient["name"][0]["family"])
    assert unknown["conclusion"] == CONCLUSION


def test_two_workers_and_a_vault_give_the_same_folder_and_restore_it(
    tmp_path: Path, cli, key_file: Path, config: Path, export: Path
) -> None:
    outs = []
    for workers in ("1", "2"):
        out, vault, back = tmp_path / f"w{workers}", tmp_path / f"w{workers}.v", tmp_path / f"back{workers}"
        args = ("--config", config, "--key-file", key_file, "--vault", vault, "-w", workers, "-q")
        code, log = cli("deid", export, "-o", out, *args)
        assert code == 0, log
        assert _lines(out / "DiagnosticReport.ndjson")[0]["conclusion"] == CONCLUSION.replace(
            "Oyelaran", _fake_surname(out)
        )
        code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
        assert code == 0, log
        for name in ("Patient.ndjson", "DiagnosticReport.ndjson"):
            assert (back / name).read_bytes() == (export / name).read_bytes()
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1]


class Crash(RuntimeError):
    pass


def test_a_resumed_run_seeds_the_reports_it_had_not_done(tmp_path: Path, export: Path) -> None:
    """Batches of one record: the run stops after the first (a Patient-free report file comes
    first), and the resume, which reads the Patients again, still seeds the rest."""
    _ndjson(export / "DiagnosticReport.ndjson", [_report(f"r{n}", "p1") for n in range(4)])
    cfg = Config.load(overrides={"pipeline": {"batch_size": 1, "detectors": ["rules", "lexicon"]}})
    spec = PipelineSpec.surrogates(b"\x07" * 32, cfg)
    whole, out = tmp_path / "whole", tmp_path / "out"
    run(RunPlan(spec, export, whole, workers=1))

    def crash(count: int) -> None:
        raise Crash("simulated crash")

    with pytest.raises(Crash):
        run(RunPlan(spec, export, out, workers=1), on_batch=crash)
    summary = run(RunPlan(spec, export, out, workers=2, resume=True))
    assert summary.resumed_batches >= 1
    fake = _fake_surname(out)
    assert [r["conclusion"] for r in _lines(out / "DiagnosticReport.ndjson")] == [
        CONCLUSION.replace("Oyelaran", fake)
    ] * 4
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {p.name: p.read_bytes() for p in whole.iterdir()}


def test_only_records_about_a_known_patient_carry_its_values(export: Path) -> None:
    docs = {d.id: d for d in read_documents(export) if isinstance(d, Document)}
    assert sorted(docs) == [
        "DiagnosticReport/DiagnosticReport-1",
        "DiagnosticReport/DiagnosticReport-2",
        "Patient/Patient-1",
    ]
    assert docs["DiagnosticReport/DiagnosticReport-1"].metadata[metakeys.KNOWN_VALUES] == [
        ["Oyelaran", "PATIENT", None],
        ["Vance Oyelaran", "PATIENT", None],
        ["Vance", "PATIENT", None],
        ["MRN12345", "ID", "MRN"],
    ]
    assert metakeys.KNOWN_VALUES not in docs["DiagnosticReport/DiagnosticReport-2"].metadata


def test_known_names_go_through_the_allow_list_and_common_word_rules(rules_only_config: Config) -> None:
    """ "Baker cyst" stays for a patient named Baker; the common word "Fine" is a name only where it
    is written like one, not at a sentence start (the rules of in-record propagation)."""
    deid = Deidentifier(rules_only_config, key=b"\x07" * 32)
    conclusion = "Small Baker cyst. Fine margins; fine lines. Seen with Baker and Fine. Bakery closed."
    doc = _read_one(json.dumps(_report("r1", "p1", conclusion)))
    known = [["Baker", "PATIENT", None], ["Fine", "PATIENT", None]]
    doc = Document(doc.id, doc.text, doc.patient_id, {**doc.metadata, metakeys.KNOWN_VALUES: known})
    start = doc.text.index(conclusion)
    spans = [s for s in deid.detect([doc])[0] if s.start >= start and s.category.value == "PATIENT"]
    assert [(s.start - start, doc.text[s.start : s.end]) for s in spans] == [
        (conclusion.index("Baker and"), "Baker"),
        (conclusion.index("Fine."), "Fine"),
    ]


def _read_one(text: str) -> Document:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "one.ndjson"
        path.write_text(text + "\n", encoding="utf-8")
        (doc,) = [d for d in read_documents(path) if isinstance(d, Document)]
        return doc


def test_the_memory_is_bounded_per_patient(tmp_path: Path) -> None:
    many = _patient()
    many["name"] = [{"family": f"Family{n}", "given": [f"Given{n}"]} for n in range(40)]
    path = _ndjson(tmp_path / "Patient.ndjson", [many, {"resourceType": "Patient"}])
    (tmp_path / "broken.ndjson").write_bytes(b'{"resourceType": "Patient", "id": \n')
    known = patient_values([path, tmp_path / "broken.ndjson"], "utf-8")
    assert list(known) == ["p1"] and len(known["p1"]) == MAX_VALUES
