"""`radeid explain` end to end: JSON and tables from --text, text files and row files, the user's
lists and config, and the error paths (exit 2, naming the file or id, never the text).

Cases rest on behaviour that does not move while the resolver is tuned: the user's own deny,
vendor and allow lists, the credential drop after a person's name, and a vital sign claimed by
protected content; every run is rules-only (`--no-model`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

TEXT = "Signed by Reuben Castellanos, MD on 03/04/2019. Temp 98.6 F. Seen at Mercy Hospital."
#       0         10        20        30        40        50        60        70        80


def _run(*args: str | Path, columns: int | None = None) -> Result:
    from radeid.cli.main import app

    env = {"COLUMNS": str(columns)} if columns else None
    return CliRunner().invoke(app, ["explain", *map(str, args)], env=env)


@pytest.fixture
def lists(tmp_path: Path) -> list[str]:
    """The user's lists: "MD" denied as a place, "98.6" a vendor, "Mercy Hospital" both a hospital
    and allowed (the options of `radeid deid`)."""
    (tmp_path / "deny.tsv").write_text("MD\tLOCATION\n", encoding="utf-8")
    (tmp_path / "vendors.txt").write_text("98.6\n", encoding="utf-8")
    (tmp_path / "hospitals.txt").write_text("Mercy Hospital\n", encoding="utf-8")
    (tmp_path / "allow.txt").write_text("Mercy Hospital\n", encoding="utf-8")
    options = {"--deny-list": "deny.tsv", "--vendor-list": "vendors.txt", "--hospital-list": "hospitals.txt",
               "--allow-list": "allow.txt"}  # fmt: skip
    return [part for option, name in options.items() for part in (option, str(tmp_path / name))]


def _json(result: Result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _at(items: list[dict], start: int, end: int) -> list[dict]:
    return [i for i in items if (i["start"], i["end"]) == (start, end)]


def test_offsets(lists: list[str]) -> None:
    assert (TEXT[30:32], TEXT[53:57], TEXT[69:83]) == ("MD", "98.6", "Mercy Hospital")


def test_json_of_the_users_lists(lists: list[str]) -> None:
    found = _json(_run("--text", TEXT, "--no-model", "--json", *lists))
    assert set(found) == {"version", "id", "proposals", "decisions", "spans", "verdicts"}
    assert found["id"] == "text" and found["version"] == 1
    detectors = {p["detector"] for p in found["proposals"]}
    assert detectors <= {"rules", "lexicon"}  # --no-model
    assert _at(found["proposals"], 30, 32) == [
        {"detector": "lexicon", "start": 30, "end": 32, "category": "LOCATION", "source": "lexicon/deny/deny",
         "score": 0.95, "text": "MD"}
    ]  # fmt: skip
    steps = {(d["step"], d["action"], d["reason"], d["before"]["start"], d["before"]["end"])
             for d in found["decisions"]}  # fmt: skip
    assert ("credential", "dropped", "", 30, 32) in steps  # a degree after a person's name
    assert ("allow_list", "dropped", "mercy hospital", 69, 83) in steps
    vital = [d for d in found["decisions"] if d["before"]["text"] == "98.6"]
    assert [(d["step"], d["action"], d["after"]) for d in vital] == [("protected", "dropped", [])]
    assert {r.split("/")[0] for r in vital[0]["reason"].split(",")} == {"vitals"}
    spans = found["spans"]
    assert not _at(spans, 30, 32) and not _at(spans, 53, 57) and not _at(spans, 69, 83)
    assert [s["text"] for s in spans if s["start"] < 30] == ["Reuben Castellanos"]
    verdicts = {v["text"]: v for v in found["verdicts"]}
    assert verdicts["MD"]["checks"] == ["credential"] and verdicts["MD"]["source"] == "lexicon/deny/deny"
    assert verdicts["98.6"]["verdict"].startswith("vetoed by protected content vitals/")
    assert verdicts["Mercy Hospital"]["checks"] == ["allow_list:mercy hospital"]
    assert verdicts["Mercy Hospital"]["verdict"] == 'dropped by the allow list (term "mercy hospital")'


def test_a_config_file_names_the_lists(tmp_path: Path, lists: list[str]) -> None:
    config = tmp_path / "site.toml"
    config.write_text(
        f'[pipeline]\ndetectors = ["rules", "lexicon"]\n'
        f"[detectors.lexicon]\nhospital_lists = [{json.dumps(str(tmp_path / 'hospitals.txt'))}]\n"
        f"[resolver]\nallow_lists = [{json.dumps(str(tmp_path / 'allow.txt'))}]\n",
        encoding="utf-8",
    )
    found = _json(_run("--text", TEXT, "--config", config, "--json"))
    hospital = [p for p in _at(found["proposals"], 69, 83) if p["source"].startswith("lexicon/hospital")]
    assert hospital and all(p["detector"] == "lexicon" for p in hospital)
    assert any(v["checks"] == ["allow_list:mercy hospital"] for v in _at(found["verdicts"], 69, 83))


def test_a_text_file_is_one_document(tmp_path: Path, lists: list[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(TEXT, encoding="utf-8")
    result = _run(note, "--no-model", "--json", *lists)
    found = _json(result)
    assert found["id"] == "note" and any(v["text"] == "MD" for v in found["verdicts"])
    assert "first" not in result.stderr  # one document: no choice to speak of


def test_row_files_and_ids(tmp_path: Path, write_jsonl, lists: list[str]) -> None:
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"id": "a", "text": "Nothing here."}, {"id": "b", "text": TEXT}])
    first = _run(rows, "--no-model", "--json", *lists)
    assert _json(first)["id"] == "a" and "'a'" in first.stderr and "--id" in first.stderr
    assert _json(_run(rows, "--id", "b", "--no-model", "--json", *lists))["verdicts"]
    csv = tmp_path / "notes.csv"
    csv.write_text(f'note_id,body\n1,"Nothing"\n2,"{TEXT}"\n', encoding="utf-8")
    found = _json(_run(csv, "--id", "2", "--id-col", "note_id", "--text-col", "body", "--no-model", "--json", *lists))
    assert found["id"] == "2" and _at(found["verdicts"], 30, 32)


def test_parquet(tmp_path: Path, lists: list[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": ["x", "y"], "text": ["Nothing.", TEXT]}), path)
    assert _json(_run(path, "--id", "y", "--no-model", "--json", *lists))["id"] == "y"


@pytest.mark.parametrize("columns", [40, 200])
def test_tables_at_any_width(columns: int, lists: list[str]) -> None:
    result = _run("--text", TEXT, "--no-model", *lists, columns=columns)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= columns
    for part in ("Proposals", "Resolver decisions", "Final spans", "Not removed", "credential", "30-32", "53-57"):
        assert part in result.stdout
    if columns == 200:  # one row per decision, the verdict on one line
        assert any(line.split()[:3] == ["0", "allow_list", "dropped"] for line in lines)
        assert any(line.strip().startswith('30-32 LOCATION "MD" (lexicon/deny/deny): dropped as a credential')
                   for line in lines)  # fmt: skip


# ------------------------------------------------------------------------------- errors


def _fails(result: Result, *named: str) -> None:
    assert result.exit_code == 2, result.output
    assert "error" in result.stderr and result.stdout == ""
    for part in named:
        assert part in result.stderr
    for secret in ("Reuben", "Castellanos", "Mercy", "Hidden"):
        assert secret not in result.output


def test_unknown_id(tmp_path: Path, write_jsonl) -> None:
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"id": "a", "text": TEXT}, '{"id": "b", "text": Hidden}'])
    _fails(_run(rows, "--id", "zz", "--no-model"), "'zz'", "rows.jsonl", "line 2")


def test_unreadable_document(tmp_path: Path, write_jsonl) -> None:
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"id": "a", "text": TEXT}, {"id": "b"}])
    _fails(_run(rows, "--id", "b", "--no-model"), "'b'", "rows.jsonl")


def test_bad_format_missing_file_and_usage(tmp_path: Path, write_jsonl) -> None:
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"id": "a", "text": TEXT}])
    _fails(_run(rows, "--format", "parquet", "--no-model"), "rows.jsonl")
    _fails(_run(rows, "--text-col", "body", "--no-model"), "body")
    _fails(_run(tmp_path / "missing.txt", "--no-model"), "missing.txt")
    _fails(_run("--no-model"), "FILE or --text")
    _fails(_run(rows, "--text", TEXT, "--no-model"), "FILE or --text")
    _fails(_run("--text", TEXT, "--deny-list", tmp_path / "nope.tsv", "--no-model"), "nope.tsv")
