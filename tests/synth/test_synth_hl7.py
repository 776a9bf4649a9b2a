"""`radeid synth --format hl7`: seeded ORU^R01 messages (MLLP-framed or one after another) and their
gold JSONL, with offsets into each message's text exactly as the `hl7` reader reads it."""

from __future__ import annotations

import json
from pathlib import Path

import hl7
import pytest

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.io.hl7_fields import map_message
from radeid.io.readers import read_documents
from radeid.synth.hl7 import oru_messages


def _synth(cli, tmp_path: Path, name: str, *args: object) -> tuple[bytes, list[dict]]:
    out, gold = tmp_path / f"{name}.hl7", tmp_path / f"{name}.gold.jsonl"
    code, log = cli("synth", "--format", "hl7", "-o", out, *args, "-q")
    assert code == 0, log
    lines = gold.read_bytes().decode("utf-8").splitlines()
    return out.read_bytes(), [json.loads(line) for line in lines]


def test_the_same_seed_writes_the_same_bytes(tmp_path: Path, cli) -> None:
    """Failed before: `radeid synth` had no --format."""
    first = _synth(cli, tmp_path, "a", "-n", "6", "--seed", "4", "--mllp")
    again = _synth(cli, tmp_path, "b", "-n", "6", "--seed", "4", "--mllp")
    other = _synth(cli, tmp_path, "c", "-n", "6", "--seed", "5", "--mllp")
    assert first == again and first[0] != other[0]
    messages = oru_messages(6, seed=4)
    assert first[0] == "".join(f"\x0b{m.text}\x1c\r" for m in messages).encode("utf-8")
    plain, gold = _synth(cli, tmp_path, "p", "-n", "6", "--seed", "4")
    assert plain == "".join(m.text for m in messages).encode("utf-8") and gold == first[1]
    assert [g["id"] for g in gold] == [f"MSG{n:06d}" for n in range(1, 7)]
    assert {g["kind"] for g in gold} == {"hl7_oru_r01"} and {g["source"] for g in gold} == {"radeid-synth"}


@pytest.mark.parametrize("framing", [(), ("--mllp",)])
def test_every_message_parses_and_reads_back_as_its_gold(tmp_path: Path, cli, framing: tuple[str, ...]) -> None:
    data, gold = _synth(cli, tmp_path, "m", "-n", "8", "--seed", "2", "--per-patient", "2", *framing)
    assert data.count(b"\x0bMSH") == (8 if framing else 0) and data.count(b"MSH|") == 8
    docs = [d for d in read_documents(tmp_path / "m.hl7") if isinstance(d, Document)]
    assert [(d.id, d.text, d.patient_id) for d in docs] == [(g["id"], g["text"], g["patient_id"]) for g in gold]
    for record in gold:
        message = hl7.parse(record["text"].rstrip("\r"))
        assert str(message.segment("MSH")[10]) == record["id"]
        assert str(message.segment("PID")[3][0][0]) == record["patient_id"]
    assert gold[0]["patient_id"] == gold[1]["patient_id"] != gold[2]["patient_id"]  # two messages per patient


def test_gold_offsets_point_at_the_phi_values(tmp_path: Path, cli) -> None:
    _, gold = _synth(cli, tmp_path, "g", "-n", "12", "--seed", "7")
    for record, message in zip(gold, oru_messages(12, seed=7), strict=True):
        text, spans = record["text"], record["spans"]
        assert all(text[s["start"] : s["end"]] == s["text"] != "" for s in spans)
        body = text.index("OBX|")
        header = sorted((s["start"], s["end"], s["category"]) for s in spans if s["start"] < body)
        found = map_message(text).structured  # what the hl7 reader replaces by field, exactly
        assert header == sorted((s, e, c) for s, e, c, _ in found)  # type: ignore[misc]
        prose = [(s["text"], s["label"]) for s in spans if s["start"] > body]
        person, doctor = message.patient, str(hl7.parse(text.rstrip("\r")).segment("PV1")[7][0][1]).title()
        names = [t for t, label in prose if label == "PATIENT"]
        assert names[:2] == [f"{person.first} {person.last}", person.last] and names[2] in names[:2]
        assert [t for t, label in prose if label == "ID/ACCESSION"] == [message.accession]
        assert [t for t, label in prose if label == "HCW"] == [doctor]
        assert len([t for t, label in prose if label == "DATE"]) == 3
        assert (message.mrn, "ID/MRN") in [(s["text"], s["label"]) for s in spans]


def test_hospital_names_never_write_a_separator() -> None:
    """ "BAYLOR SCOTT & WHITE HEALTH" in MSH-4 would be two sub-components: written with AND."""
    facilities = [m.text.split("|")[3] for m in oru_messages(40, seed=10, per_patient=2)]
    assert "BAYLOR SCOTT AND WHITE HEALTH" in facilities and not any("&" in f for f in facilities)


def test_detect_and_evaluate_score_against_the_gold(tmp_path: Path, cli) -> None:
    _synth(cli, tmp_path, "e", "-n", "5", "--seed", "1")
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    spans, report = tmp_path / "spans.jsonl", tmp_path / "eval.json"
    assert cli("detect", tmp_path / "e.hl7", "-o", spans, "--config", config, "-q")[0] == 0
    code, log = cli("evaluate", tmp_path / "e.gold.jsonl", spans, "--bootstrap", "0", "--json", report, "-q")
    assert code == 0, log
    token = json.loads(report.read_text("utf-8"))["evaluation"]["levels"]["token"]
    for category in ("HOSPITAL", "LOCATION", "PHONE"):  # header fields only: replaced by field, all found
        assert token[category]["recall"] == token[category]["precision"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--format", "hl7", "--kinds", "ct"), "--kinds applies to --format jsonl only, not hl7"),
        (("--format", "hl7", "--start", "3"), "--start applies to --format jsonl only, not hl7"),
        (("--mllp",), "--mllp applies to --format hl7 only, not jsonl"),
        (("--gold", "g.jsonl"), "--gold applies to --format hl7 only, not jsonl"),
        (("--format", "docx"), "unknown --format 'docx'; choose one of: jsonl, hl7, fhir, dicom"),
    ],
)
def test_options_of_another_format_are_usage_errors(tmp_path: Path, cli, args: tuple[str, ...], message: str) -> None:
    code, log = cli("synth", "-o", tmp_path / "x.out", *args)
    assert code == 2 and message in log and not (tmp_path / "x.out").exists()


def test_gold_and_output_must_differ_and_gold_defaults_beside_the_output(tmp_path: Path, cli) -> None:
    out = tmp_path / "same.hl7"
    code, log = cli("synth", "--format", "hl7", "-o", out, "--gold", out)
    assert code == 2 and "clash" in log and not out.exists()
    code, log = cli("synth", "--format", "hl7", "-n", "2", "-o", tmp_path / "msgs.hl7")
    assert code == 0, log
    assert sorted(p.name for p in tmp_path.iterdir()) == ["msgs.gold.jsonl", "msgs.hl7"]
    assert "wrote 2 HL7 messages (one after another) to" in " ".join(log.split())
    assert all(r["spans"] for r in map(json.loads, (tmp_path / "msgs.gold.jsonl").read_text("utf-8").splitlines()))
    assert Category.PATIENT.value in (tmp_path / "msgs.gold.jsonl").read_text("utf-8")
    (tmp_path / "folder").mkdir()
    code, log = cli("synth", "--format", "hl7", "-n", "2", "-o", tmp_path / "x.hl7", "--gold", tmp_path / "folder")
    assert code == 2 and "is a folder" in log
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "msgs.gold.jsonl", "msgs.hl7"]  # no x.hl7, no temp
