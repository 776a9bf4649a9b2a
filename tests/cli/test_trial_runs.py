"""Trial runs: `--limit N`, `--sample N --seed S` and `--dry-run` on `deid` and `detect`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radeid.core.document import Document
from radeid.io.errors import ReadIssue
from radeid.io.readers import ReadOptions, read_documents
from radeid.io.select import first, sample

#: Ten documents; r0, r3, r6, r9 hold no PHI the rules find.
ROWS = [
    {"id": f"r{i}", "text": "No acute findings." if i % 3 == 0 else f"MRN: 44556{i:02d}. Seen on 03/04/2019."}
    for i in range(10)
]
#: What `--sample 4 --seed 3` draws from ROWS (reservoir sampling, `radeid.io.select`), pinned.
SAMPLE_4_SEED_3 = ["r0", "r3", "r4", "r7"]


def _docs(n: int) -> list[Document]:
    return [Document(id=f"d{i}", text="x") for i in range(n)]


def _ids(items) -> list[str]:
    return [i.id for i in items if isinstance(i, Document)]


@pytest.fixture
def src(tmp_path: Path, write_jsonl) -> Path:
    return write_jsonl(tmp_path / "in.jsonl", ROWS)


def test_first_stops_after_n_documents_and_passes_issues_before_them() -> None:
    issue = ReadIssue("f", 1, None, "bad")
    items = [issue, *_docs(5)]
    assert list(first(items, 2)) == [issue, *_docs(2)]
    assert list(first(_docs(3), 10)) == _docs(3)


def test_sample_is_reproducible_in_input_order_and_of_the_asked_size() -> None:
    docs = _docs(1000)
    drawn = _ids(sample(docs, 10, 42))
    assert drawn == _ids(sample(docs, 10, 42))  # same seed, same sample
    assert drawn != _ids(sample(docs, 10, 43))
    assert len(drawn) == len(set(drawn)) == 10
    assert drawn == sorted(drawn, key=lambda d: int(d[1:]))  # input order
    assert _ids(sample(docs[:3], 10, 1)) == ["d0", "d1", "d2"]  # fewer documents than asked: all of them


def test_sample_reports_every_issue_and_never_samples_a_bad_record() -> None:
    issues = [ReadIssue("f", n, f"bad{n}", "bad") for n in (1, 2)]
    out = list(sample([issues[0], *_docs(4), issues[1], *_docs(4)], 2, 0))
    assert out[:2] == issues and len(_ids(out)) == 2


def test_read_options_refuse_limit_with_sample() -> None:
    from radeid.io.errors import FormatError

    with pytest.raises(FormatError, match="contradict"):
        ReadOptions(limit=2, sample=2)


def test_the_reader_applies_the_sample(src: Path) -> None:
    assert _ids(read_documents(src, options=ReadOptions(sample=4, seed=3))) == SAMPLE_4_SEED_3
    assert _ids(read_documents(src, options=ReadOptions(limit=3))) == ["r0", "r1", "r2"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_deid_limit_writes_the_first_n_documents(tmp_path: Path, src: Path, cli, read_jsonl, workers: str) -> None:
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--mode", "tag", "--no-model", "--limit", "3", "-w", workers, "-q")
    assert code == 0, output
    assert [r["id"] for r in read_jsonl(out)] == ["r0", "r1", "r2"]
    assert {r["doc_id"] for r in read_jsonl(tmp_path / "out.jsonl.audit.jsonl")} == {"r1", "r2"}  # r0: no PHI
    report = json.loads((tmp_path / "out.jsonl.report.json").read_text())["runs"][0]
    assert report["documents"] == 3
    assert report["selection"] == {"limit": 3, "sample": 0, "seed": 0}
    assert report["input"]["records_exact"] is False and report["input"]["records"] == 10


def test_deid_sample_is_the_same_whatever_the_output_path(tmp_path: Path, src: Path, cli, key_file, read_jsonl) -> None:
    """Streamed output (JSONL) and parts merged at the end (a vault): the same documents."""
    streamed, merged = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    common = ["--key-file", key_file, "--no-model", "--sample", "4", "--seed", "3", "-q"]
    code, output = cli("deid", src, "-o", streamed, *common)
    assert code == 0, output
    code, output = cli("deid", src, "-o", merged, *common, "--vault", tmp_path / "v.parquet", "-w", "1")
    assert code == 0, output
    assert [r["id"] for r in read_jsonl(streamed)] == SAMPLE_4_SEED_3
    assert read_jsonl(merged) == read_jsonl(streamed)


def test_deid_limit_on_a_folder(tmp_path: Path, cli) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.txt").write_text(f"Seen on 03/04/2019 ({name}).", encoding="utf-8")
    out = tmp_path / "out"
    code, output = cli("deid", folder, "-o", out, "--mode", "tag", "--no-model", "--limit", "2", "-q")
    assert code == 0, output
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "b.txt"]


def test_limit_and_sample_together_are_a_usage_error(tmp_path: Path, src: Path, cli) -> None:
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--limit", "2", "--sample", "2")
    assert code == 2
    assert "contradict each other" in output
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.jsonl.report.json").exists()


def test_a_zero_limit_is_refused_by_the_option(tmp_path: Path, src: Path, cli) -> None:
    code, _ = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--limit", "0")
    assert code == 2


def test_deid_dry_run_writes_only_the_report(tmp_path: Path, src: Path, cli) -> None:
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--no-model", "--dry-run", "--vault", tmp_path / "v.parquet")
    assert code == 0, output
    # surrogates and a vault need a key: a dry run generates none
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl.report.json"]
    assert "dry run: would de-identify 10 documents, 12 spans" in output
    run = json.loads((tmp_path / "out.jsonl.report.json").read_text())["runs"][0]
    assert run["dry_run"] is True and run["status"] == "completed"
    assert (run["output"], run["audit"], run["vault"], run["key"]) == (None, None, None, None)
    assert run["documents"] == 10 and run["replacements"] == 12
    assert run["replacements_by_category"] == {"DATE": 6, "ID": 6}
    assert run["zero_replacement_ids"] == ["r0", "r3", "r6", "r9"]


def test_dry_run_with_resume_is_a_usage_error(tmp_path: Path, src: Path, cli) -> None:
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--dry-run", "--resume")
    assert code == 2 and "drop --resume" in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_dry_run_counts_what_the_run_replaces(tmp_path: Path, src: Path, cli) -> None:
    for name, extra in (("dry.jsonl", ["--dry-run"]), ("real.jsonl", [])):
        code, output = cli("deid", src, "-o", tmp_path / name, "--mode", "tag", "--no-model", "-q", *extra)
        assert code == 0, output
    dry, real = (json.loads((tmp_path / f"{n}.jsonl.report.json").read_text())["runs"][0] for n in ("dry", "real"))
    for field in ("documents", "replacements", "replacements_by_category", "zero_replacement_ids"):
        assert dry[field] == real[field], field


def test_dry_run_with_a_sample_draws_the_same_documents(tmp_path: Path, src: Path, cli) -> None:
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--dry-run", "--sample", "4",
                       "--seed", "3", "-q")  # fmt: skip
    assert code == 0, output
    run = json.loads((tmp_path / "o.jsonl.report.json").read_text())["runs"][0]
    assert run["documents"] == 4 and run["zero_replacement_ids"] == ["r0", "r3"]
    assert run["selection"] == {"limit": 0, "sample": 4, "seed": 3}


def test_detect_limit_and_sample(tmp_path: Path, src: Path, cli, read_jsonl) -> None:
    out = tmp_path / "spans.jsonl"
    code, output = cli("detect", src, "-o", out, "--no-model", "--limit", "2", "-q")
    assert code == 0, output
    assert [r["id"] for r in read_jsonl(out)] == ["r0", "r1"]
    code, output = cli("detect", src, "-o", out, "--no-model", "--sample", "4", "--seed", "3", "-q", "--overwrite")
    assert code == 0, output
    assert [r["id"] for r in read_jsonl(out)] == SAMPLE_4_SEED_3


def test_detect_dry_run_writes_nothing(tmp_path: Path, src: Path, cli) -> None:
    code, output = cli("detect", src, "-o", tmp_path / "spans.jsonl", "--no-model", "--dry-run", "--limit", "5")
    assert code == 0, output
    assert "dry run: detected 5 documents, 6 spans" in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
