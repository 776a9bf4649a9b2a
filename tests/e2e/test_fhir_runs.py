"""FHIR through the whole pipeline: one identity in the elements and the text and across files, only PHI
changed (a structural diff, and every resource still validates with fhir.resources), every byte restored
(radeid.io.fhir, radeid.pipeline.structured)."""

from __future__ import annotations

import base64
import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from radeid.core import metakeys
from radeid.core.document import Document
from radeid.io.fhir import validation_problem
from radeid.io.readers import read_documents
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.fhir import bundles

DATA = Path(__file__).parent.parent / "data" / "fhir"


def _docs(path: Path) -> list[Document]:
    return [d for d in read_documents(path) if isinstance(d, Document)]


def _resources(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A Bundle's resources by type (the first of each)."""
    out: dict[str, dict[str, Any]] = {}
    for entry in body.get("entry", ()):
        out.setdefault(entry["resource"]["resourceType"], entry["resource"])
    return out


@pytest.fixture(scope="module")
def keyed(rules_only_config) -> Deidentifier:
    return Deidentifier(rules_only_config, key=b"\x07" * 32)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    return path


def _bundle(conclusion: str) -> str:
    patient = {
        "resourceType": "Patient",
        "id": "p1",
        "identifier": [{"value": "MRN12345"}],
        "name": [{"family": "Oyelaran", "given": ["Vance"]}],
        "birthDate": "1956-04-12",
    }
    report = {
        "resourceType": "DiagnosticReport",
        "id": "r1",
        "identifier": [{"value": "ACC99881"}],
        "status": "final",
        "code": {"text": "XR chest"},
        "subject": {"reference": "Patient/p1"},
        "effectiveDateTime": "2024-03-12T15:30:00+01:00",
        "conclusion": conclusion,
    }
    entries = [{"fullUrl": f"Patient/{r['id']}", "resource": r} for r in (patient, report)]
    return json.dumps({"resourceType": "Bundle", "type": "collection", "entry": entries}, indent=2)


def test_one_identity_in_elements_and_text(tmp_path: Path, keyed: Deidentifier) -> None:
    src = tmp_path / "b.json"
    text = "Vance Oyelaran, MRN12345, seen 03/12/2024 (accession ACC99881). Mr. Oyelaran is stable."
    src.write_text(_bundle(text), encoding="utf-8")
    (result,) = keyed.deidentify(_docs(src))
    out = _resources(json.loads(result.text))
    patient, report = out["Patient"], out["DiagnosticReport"]
    family, given = patient["name"][0]["family"], patient["name"][0]["given"][0]
    prose = report["conclusion"]
    assert f"{given} {family}, " in prose and f"Mr. {family} is stable" in prose and "Oyelaran" not in result.text
    mrn = patient["identifier"][0]["value"]
    assert mrn != "MRN12345" and f"{mrn}, seen" in prose
    accession = report["identifier"][0]["value"]
    assert accession != "ACC99881" and f"accession {accession})" in prose
    shift = date.fromisoformat(patient["birthDate"]) - date(1956, 4, 12)
    written = re.search(r"seen (\d\d)/(\d\d)/(\d{4})", prose)
    assert written is not None
    month, day, year = map(int, written.groups())
    assert date(year, month, day) - date(2024, 3, 12) == shift != date.resolution * 0
    assert date.fromisoformat(report["effectiveDateTime"][:10]) - date(2024, 3, 12) == shift
    assert report["effectiveDateTime"][10:] == "T15:30:00+01:00"  # the time and the zone stay
    pid = patient["id"]
    assert pid != "p1" and report["subject"]["reference"] == f"Patient/{pid}"  # references still resolve


def test_a_name_only_in_patient_name_is_caught_in_the_text(tmp_path: Path, keyed: Deidentifier) -> None:
    """The rules alone do not know "Oyelaran"; Patient.name seeds it (fails without the structured seeds)."""
    src = tmp_path / "b.json"
    src.write_text(_bundle("Oyelaran tolerated the procedure; Oyelaran to return."), encoding="utf-8")
    (doc,) = _docs(src)
    (spans,) = keyed.detect([doc])
    prose = [s.text_in(doc.text) for s in spans if s.source.startswith("propagate")]
    assert prose == ["Oyelaran", "Oyelaran"]
    unseeded = Document(doc.id, doc.text, metadata={**doc.metadata, metakeys.STRUCTURED_SPANS: []})
    assert not [s for s in keyed.detect([unseeded])[0] if s.text_in(doc.text) == "Oyelaran"]


_PHI_KEYS = frozenset(
    {
        "id",
        "fullUrl",
        "reference",
        "family",
        "given",
        "text",
        "value",
        "birthDate",
        "line",
        "city",
        "postalCode",
        "name",
        "display",
        "conclusion",
        "div",
        "valueString",
        "effectiveDateTime",
        "issued",
        "start",
    }
)


def _diff(before: Any, after: Any, path: str = "") -> list[str]:
    """Paths of the leaves that changed; raises when the structure differs."""
    if isinstance(before, dict):
        assert isinstance(after, dict) and list(before) == list(after), path
        return [p for k in before for p in _diff(before[k], after[k], f"{path}.{k}")]
    if isinstance(before, list):
        assert isinstance(after, list) and len(before) == len(after), path
        return [p for i, (b, a) in enumerate(zip(before, after, strict=True)) for p in _diff(b, a, f"{path}[{i}]")]
    assert type(before) is type(after), path
    return [] if before == after else [path]


def test_only_phi_changes_every_resource_validates_and_every_byte_comes_back(
    tmp_path: Path, cli, key_file: Path, config: Path
) -> None:
    synth = bundles(4, seed=3, per_patient=2)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(synth[0].text, encoding="utf-8")  # one patient's two reports, in two files
    b.write_text(synth[1].text, encoding="utf-8")
    outs = []
    for src in (a, b):
        out, vault = tmp_path / f"out_{src.name}", tmp_path / f"{src.stem}.vault.parquet"
        code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "--vault", vault, "-q")
        assert code == 0, log
        back = tmp_path / f"back_{src.name}"
        code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
        assert code == 0, log
        assert back.read_bytes() == src.read_bytes()
        before, after = json.loads(src.read_text(encoding="utf-8")), json.loads(out.read_text(encoding="utf-8"))
        changed = _diff(before, after)
        assert changed and all(p.rsplit(".", 1)[-1].split("[")[0] in _PHI_KEYS for p in changed), changed
        assert ".entry[0].resource.gender" not in changed
        assert all(validation_problem(e["resource"]) is None for e in after["entry"])
        outs.append(_resources(after))
    first, second = outs
    for kind, element in (("Patient", "name"), ("Patient", "identifier"), ("Patient", "birthDate"), ("Patient", "id")):
        assert first[kind][element] == second[kind][element]  # one patient: one surrogate identity
    assert first["Patient"]["name"][0]["family"] != synth[0].patient.last
    assert synth[0].patient.last not in (tmp_path / "out_a.json").read_text(encoding="utf-8")


def test_a_bulk_export_keeps_references_between_files(tmp_path: Path, cli, key_file: Path, config: Path) -> None:
    """A Practitioner line (no patient) and the reports that refer to it (two patients) get one
    pseudonym for its id, so references still resolve across lines and files."""
    synth = [json.loads(s.text) for s in bundles(2, seed=4)]
    lines = {kind: [_resources(b)[kind] for b in synth] for kind in ("Practitioner", "DiagnosticReport", "Patient")}
    lines["DiagnosticReport"][1]["performer"] = lines["DiagnosticReport"][0]["performer"]
    outs: dict[str, list[dict[str, Any]]] = {}
    for kind, resources in lines.items():
        src, out = tmp_path / f"{kind}.ndjson", tmp_path / f"out_{kind}.ndjson"
        src.write_text("".join(json.dumps(r) + "\n" for r in resources), encoding="utf-8")
        code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-q")
        assert code == 0, log
        outs[kind] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    practitioner = outs["Practitioner"][0]["id"]
    assert practitioner != lines["Practitioner"][0]["id"]
    assert [r["performer"][0]["reference"] for r in outs["DiagnosticReport"]] == [f"Practitioner/{practitioner}"] * 2
    assert [r["subject"]["reference"] for r in outs["DiagnosticReport"]] == [
        f"Patient/{p['id']}" for p in outs["Patient"]
    ]
    # the report's patient key is its subject: its dates move with its Patient's birth date
    for report, patient, old_report, old_patient in zip(
        outs["DiagnosticReport"], outs["Patient"], lines["DiagnosticReport"], lines["Patient"], strict=True
    ):
        shift = date.fromisoformat(patient["birthDate"]) - date.fromisoformat(old_patient["birthDate"])
        moved = date.fromisoformat(report["issued"][:10]) - date.fromisoformat(old_report["issued"][:10])
        assert moved == shift


def test_masks_keep_every_record_json(tmp_path: Path, cli, config: Path) -> None:
    src = DATA / "edge_bundle.json"
    for mode in ("mask", "tag"):
        out = tmp_path / f"{mode}.json"
        code, log = cli("deid", src, "-o", out, "--config", config, "--mode", mode, "-q")
        assert code == 0, log
        body = json.loads(out.read_text(encoding="utf-8"))
        patient = _resources(body)["Patient"]
        assert "Öztürk" not in out.read_text(encoding="utf-8")
        if mode == "tag":
            assert patient["name"][0]["family"] == "[PATIENT]"


def test_edge_cases_keep_escapes_and_restore_every_byte(tmp_path: Path, cli, key_file: Path, config: Path) -> None:
    for name in ("edge_bundle.json", "edge_ascii.ndjson"):
        src, out, back, vault = DATA / name, tmp_path / f"out_{name}", tmp_path / f"back_{name}", tmp_path / f"{name}.v"
        args = ("--config", config, "--key-file", key_file, "--vault", vault, "-q")
        code, log = cli("deid", src, "-o", out, *args)
        assert code == 0, log
        written = out.read_text(encoding="utf-8")
        records = (
            [json.loads(line) for line in written.splitlines()] if name.endswith("ndjson") else [json.loads(written)]
        )
        assert all(
            validation_problem(r) is None
            for body in records
            for r in [e["resource"] for e in body.get("entry", [])] or [body]
        )
        for secret in ("Öztürk", "Çağla", "Whitfield", "Ødegård", "Zoë", "MRN-557201", "1956-04-12"):
            assert secret not in written and json.dumps(secret)[1:-1] not in written, secret
        code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
        assert code == 0, log
        assert back.read_bytes() == src.read_bytes()
    assert (tmp_path / "out_edge_ascii.ndjson").read_bytes().isascii()  # escaped as it was read
    edge = json.loads((tmp_path / "out_edge_bundle.json").read_text(encoding="utf-8"))
    report = _resources(edge)["DiagnosticReport"]
    assert '"' in report["conclusion"] and "\n" in report["conclusion"]  # the escapes are kept
    assert report["text"]["div"].count("<p>") == 2 and "&amp; Dr." in report["text"]["div"]
    dictation = base64.b64decode(_resources(edge)["DocumentReference"]["content"][0]["attachment"]["data"])
    assert dictation.startswith(b"Radiology report for ") and dictation.endswith(b".\n")
    assert not any(
        secret.encode() in dictation for secret in ("Çağla", "Öztürk", "MRN-557201", "Whitfield", "03/12/2024")
    )


def test_pseudonymized_ids_and_parallel_runs(tmp_path: Path, cli, key_file: Path, config: Path) -> None:
    src = tmp_path / "export.ndjson"
    src.write_text("".join(s.text + "\n" for s in bundles(5, seed=8, indent=None)), encoding="utf-8")
    outs = []
    for workers in ("1", "2"):
        out, vault, back = tmp_path / f"w{workers}.ndjson", tmp_path / f"w{workers}.v", tmp_path / f"b{workers}.ndjson"
        args = ("--config", config, "--key-file", key_file, "--vault", vault, "--pseudonymize-ids", "-w", workers, "-q")
        assert cli("deid", src, "-o", out, *args)[0] == 0
        code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
        assert code == 0, log
        assert back.read_bytes() == src.read_bytes()
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") == 5


def test_a_short_given_name_next_to_a_found_surname_is_taken_in(tmp_path: Path, keyed: Deidentifier) -> None:
    """ "Zoë" is too short to be found again by itself; next to the patient's surname it is the patient's
    given name, as Patient.name says (failed before: "Zoë" stayed in the text)."""
    body = json.loads(_bundle("Zoë Ødegård was seen; Ødegård is well."))
    body["entry"][0]["resource"]["name"] = [{"family": "Ødegård", "given": ["Zoë"]}]
    src = tmp_path / "b.json"
    src.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    (doc,) = _docs(src)
    (spans,) = keyed.detect([doc])
    prose = doc.text.index("Zoë Ødegård was")
    assert [s.text_in(doc.text) for s in spans if s.start >= prose and s.category.value == "PATIENT"][:1] == [
        "Zoë Ødegård"
    ]
    (result,) = keyed.deidentify([doc])
    assert "Zoë" not in result.text and "Ødegård" not in result.text
