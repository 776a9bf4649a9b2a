"""A folder of one patient's reports keeps one identity: `--patients`, `[io] patient_pattern` and
`[io] patient_from = "mrn"` (issue 28). The bundled examples hold two reports of one man (Vance
Oyelaran, MRN 4471920): chest_xray.txt and progress_note.txt."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HIS = ("chest_xray", "progress_note")
_FULL_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _run(cli, tmp_path: Path, key_file: Path, *extra: str | Path, source: Path = EXAMPLES) -> Path:  # noqa: ANN001
    out = tmp_path / "out"
    code, output = cli("deid", source, "-o", out, "--no-model", "--key-file", key_file, "-w", "1", "-q", *extra)
    assert code == 0, output
    return out


def _surrogates(out: Path, source: Path = EXAMPLES, prefix: str = "") -> dict[str, list[tuple[str, str, str]]]:
    """His doc ids -> [(category, original, surrogate)] read back from the audit and the output."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    audit = out.with_name(out.name + ".audit.jsonl")
    for line in audit.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        doc = row["doc_id"]
        if doc.removeprefix(prefix) not in HIS:
            continue
        original = (source / f"{doc}.txt").read_text(encoding="utf-8")[row["start"] : row["end"]]
        new = (out / f"{doc}.txt").read_text(encoding="utf-8")[row["out_start"] : row["out_end"]]
        found.setdefault(doc.removeprefix(prefix), []).append((row["category"], original, new))
    return found


def _one_identity(found: dict[str, list[tuple[str, str, str]]]) -> None:
    """Same fake name and MRN in both reports, and one date shift for every full date of both."""
    for original in ("Vance Oyelaran", "4471920"):
        fakes = {doc: {new for _, old, new in rows if old == original} for doc, rows in found.items()}
        assert len(fakes["chest_xray"]) == 1 and fakes["chest_xray"] == fakes["progress_note"], original
        assert original not in fakes["chest_xray"]
    shifts = set()
    for rows in found.values():
        for category, old, new in rows:
            a, b = _FULL_DATE.search(old), _FULL_DATE.search(new)
            if category == "DATE" and a and b:
                was = date(int(a[3]), int(a[1]), int(a[2]))
                shifts.add((date(int(b[3]), int(b[1]), int(b[2])) - was).days)
    assert len(shifts) == 1 and 0 not in shifts  # every interval between his dates is kept


def test_without_a_patient_his_two_reports_are_two_people(cli, tmp_path: Path, key_file: Path) -> None:  # noqa: ANN001
    found = _surrogates(_run(cli, tmp_path, key_file))
    names = {doc: {new for _, old, new in rows if old == "Vance Oyelaran"} for doc, rows in found.items()}
    assert names["chest_xray"] != names["progress_note"]


def test_a_patient_map_keeps_one_identity_across_the_folder(cli, tmp_path: Path, key_file: Path) -> None:  # noqa: ANN001
    patients = tmp_path / "patients.csv"
    # a document id, and a file name: both match
    patients.write_text("id,patient_id\nchest_xray,P-0001\nprogress_note.txt,P-0001\n", encoding="utf-8")
    _one_identity(_surrogates(_run(cli, tmp_path, key_file, "--patients", patients)))


def test_patient_from_mrn_keeps_one_identity_across_the_folder(cli, tmp_path: Path, key_file: Path) -> None:  # noqa: ANN001
    config = tmp_path / "radeid.toml"
    config.write_text('[io]\npatient_from = "mrn"\n', encoding="utf-8")
    _one_identity(_surrogates(_run(cli, tmp_path, key_file, "--config", config)))


def test_a_patient_pattern_on_file_names_keeps_one_identity(cli, tmp_path: Path, key_file: Path) -> None:  # noqa: ANN001
    source = tmp_path / "in"
    source.mkdir()
    for doc in HIS:
        shutil.copy(EXAMPLES / f"{doc}.txt", source / f"P0001_{doc}.txt")
    config = tmp_path / "radeid.toml"
    config.write_text("[io]\npatient_pattern = '^(?P<patient>[^_]+)_'\n", encoding="utf-8")
    out = _run(cli, tmp_path, key_file, "--config", config, source=source)
    _one_identity(_surrogates(out, source, "P0001_"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("doc,patient\na,1\n", "patients file {path}, line 1: the header must be exactly 'id,patient_id'"),
        ("id,patient_id\na,1\nb\n", "patients file {path}, line 3: expected 2 fields (id, patient_id), found 1"),
        ("id,patient_id\na,1\nb,2\na,3\n", "patients file {path}, line 4: this id is listed before with a different"),
        ("id,patient_id\na,\n", "patients file {path}, line 2: id and patient_id must not be empty"),
    ],
)
def test_a_bad_patients_file_is_a_usage_error_naming_file_and_line(
    cli,
    tmp_path: Path,
    key_file: Path,
    write_jsonl,
    content: str,
    message: str,  # noqa: ANN001
) -> None:
    patients = tmp_path / "patients.csv"
    patients.write_text(content, encoding="utf-8")
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "Seen 01/02/2020."}])
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--patients", patients, "--key-file", key_file, "-q")
    assert code == 2
    assert message.format(path=patients) in " ".join(output.split())
    assert not (tmp_path / "o.jsonl").exists()


def test_a_pattern_without_a_patient_group_is_a_usage_error(cli, tmp_path: Path, write_jsonl) -> None:  # noqa: ANN001
    config = tmp_path / "radeid.toml"
    config.write_text("[io]\npatient_pattern = '^([^_]+)_'\n", encoding="utf-8")
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x"}])
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--config", config, "--mode", "tag", "-q")
    assert code == 2
    assert "[io] patient_pattern needs a named group `patient`" in " ".join(output.split())


def test_spark_deid_refuses_the_folder_patient_options(cli, tmp_path: Path, write_jsonl) -> None:  # noqa: ANN001
    config = tmp_path / "radeid.toml"
    config.write_text("[io]\npatient_pattern = '^(?P<patient>[^_]+)_'\n", encoding="utf-8")
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x"}])
    code, output = cli("spark-deid", src, tmp_path / "out", "--config", config, "--mode", "tag")
    assert code == 2
    assert "io.patients and io.patient_pattern are for files without a patient column" in " ".join(output.split())
