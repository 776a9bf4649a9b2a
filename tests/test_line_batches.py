"""Parallel runs over JSONL whose workers parse the lines (radeid.run.chunks.LineChunk): the coordinator
reads no record, and reports exactly what a single-process run reports, in the same order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_parallel import same_files, small_reports, spec_for

from radeid.io import jsonl
from radeid.io.readers import ReadOptions
from radeid.run import chunks
from radeid.run.batch import DuplicateIdError, RunAborted
from radeid.run.parallel import RunPlan, run
from radeid.run.serial import deidentify_path


def test_the_coordinator_parses_no_record_of_a_streamed_jsonl_run(
    tmp_path: Path, write_jsonl, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", small_reports(300, seed=3))
    parsed: list[int] = []
    real = jsonl._parse

    def counting(raw: bytes, encoding: str):  # type: ignore[no-untyped-def]
        parsed.append(1)
        return real(raw, encoding)

    monkeypatch.setattr(jsonl, "_parse", counting)  # this process only: workers are forked fresh
    spec = spec_for("mask", batch_size=16)
    ref = tmp_path / "ref.jsonl"
    deidentify_path(RunPlan(spec, source, ref))
    parsed.clear()
    run(RunPlan(spec, source, tmp_path / "par.jsonl", workers=2))
    same_files(ref, tmp_path / "par.jsonl")
    assert len(parsed) <= 1  # the up-front check of the field names reads the first record only


def _rows_with_problems() -> list[dict | str]:
    rows: list[dict | str] = list(small_reports(30, seed=8))
    rows.insert(2, "{not json")
    rows.insert(9, {"id": "empty", "text": ""})
    rows.insert(14, {"id": "no-text"})
    rows.insert(22, "")  # a blank line: not a record
    rows.insert(25, {"id": "big", "text": "x" * 400})
    return rows


@pytest.mark.parametrize("workers", [1, 2])
def test_issues_are_reported_as_a_single_process_reports_them(tmp_path: Path, write_jsonl, workers: int) -> None:
    source = write_jsonl(tmp_path / "bad.jsonl", _rows_with_problems())
    spec, options = spec_for("mask", batch_size=4), ReadOptions(max_chars=300)
    ref = deidentify_path(RunPlan(spec, source, tmp_path / "ref.jsonl", options=options, on_error="skip"))
    out = tmp_path / "par.jsonl"
    summary = run(RunPlan(spec, source, out, workers=workers, options=options, on_error="skip"))
    same_files(tmp_path / "ref.jsonl", out)
    assert [e.describe() for e in summary.errors] == [e.describe() for e in ref.errors]
    assert [w.describe() for w in summary.warnings] == [w.describe() for w in ref.warnings]
    assert len(summary.errors) == 3 and len(summary.warnings) == 1
    assert (summary.documents, summary.read, summary.spans) == (ref.documents, ref.read, ref.spans)


def test_the_first_bad_record_stops_a_failing_run_with_the_same_error(tmp_path: Path, write_jsonl) -> None:
    source = write_jsonl(tmp_path / "bad.jsonl", _rows_with_problems())
    spec = spec_for("mask", batch_size=4)
    with pytest.raises(RunAborted) as single:
        deidentify_path(RunPlan(spec, source, tmp_path / "ref.jsonl"))
    out = tmp_path / "par.jsonl"
    with pytest.raises(RunAborted) as parallel:
        run(RunPlan(spec, source, out, workers=2))
    assert str(parallel.value) == str(single.value)
    assert not out.exists() and not Path(f"{out}.audit.jsonl").exists()


def test_a_duplicate_id_in_a_later_batch_names_the_same_line(tmp_path: Path, write_jsonl) -> None:
    rows = small_reports(40, seed=2)
    rows.insert(33, dict(rows[5]))  # the id of line 6 again, on line 34, many batches later
    source = write_jsonl(tmp_path / "dup.jsonl", rows)
    spec = spec_for("mask", batch_size=4)
    with pytest.raises(DuplicateIdError) as single:
        deidentify_path(RunPlan(spec, source, tmp_path / "ref.jsonl"))
    with pytest.raises(DuplicateIdError) as parallel:
        run(RunPlan(spec, source, tmp_path / "par.jsonl", workers=2))
    assert str(parallel.value) == str(single.value)
    assert "line 34" in str(parallel.value)


def test_an_input_of_blank_lines_warns_as_a_single_process_does(tmp_path: Path) -> None:
    source = tmp_path / "blank.jsonl"
    source.write_text("\n  \n\n", encoding="utf-8")
    spec = spec_for("mask")
    ref = deidentify_path(RunPlan(spec, source, tmp_path / "ref.jsonl"))
    summary = run(RunPlan(spec, source, tmp_path / "par.jsonl", workers=1))
    assert [w.describe() for w in summary.warnings] == [w.describe() for w in ref.warnings]
    assert summary.warnings and "no documents found" in summary.warnings[0].describe()


def test_a_read_error_midway_is_reported_after_the_lines_read_before_it(
    tmp_path: Path, write_jsonl, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", small_reports(12, seed=4))
    real = jsonl.raw_lines

    def failing(path: Path) -> Iterator[tuple[int, bytes]]:
        for lineno, raw in real(path):
            if lineno == 8:
                raise OSError("device gone")
            yield lineno, raw

    monkeypatch.setattr(chunks, "raw_lines", failing)
    out = tmp_path / "par.jsonl"
    summary = run(RunPlan(spec_for("mask", batch_size=3), source, out, workers=1, on_error="skip"))
    assert [e.describe() for e in summary.errors] == [f"{source} line 8: cannot read the rest of the file: device gone"]
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [
        f"r{i:05d}" for i in range(7)
    ]
    with pytest.raises(RunAborted):
        run(RunPlan(spec_for("mask", batch_size=3), source, tmp_path / "b.jsonl", workers=1))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_label_map_is_applied_where_the_lines_are_parsed(tmp_path: Path, write_jsonl, workers: int) -> None:
    rows = small_reports(12, seed=6)
    for row in rows:  # gold spans in Presidio's labels: the reader maps them (and checks them)
        start = row["text"].index(":") + 2
        row["spans"] = [{"start": start, "end": row["text"].index("\n"), "label": "PERSON"}]
    rows[4]["spans"] = [{"start": 0, "end": 3, "label": "NOT_A_LABEL"}]
    source = write_jsonl(tmp_path / "gold.jsonl", rows)
    spec, options = spec_for("mask", batch_size=4), ReadOptions(label_map="presidio")
    ref = deidentify_path(RunPlan(spec, source, tmp_path / "ref.jsonl", options=options, on_error="skip"))
    out = tmp_path / "par.jsonl"
    summary = run(RunPlan(spec, source, out, workers=workers, options=options, on_error="skip"))
    same_files(tmp_path / "ref.jsonl", out)
    assert [i.describe() for i in summary.errors + summary.warnings] == [
        i.describe() for i in ref.errors + ref.warnings
    ]
    assert summary.documents == ref.documents
