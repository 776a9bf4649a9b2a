"""Issue 12, points 4, 5, 8, 16: the input changing mid-run, the three-file commit, per-document
pipeline errors, signals, locks and leftovers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radeid.config.config import Config
from radeid.pipeline.spec import PipelineSpec
from radeid.run.journal import JournalError, work_folder_for
from radeid.run.parallel import RunPlan, run
from radeid.secure.vault import read_vault, reidentify_text

KEY = bytes(range(32))


def spec(batch_size: int = 4) -> PipelineSpec:
    cfg = Config.load(overrides={"pipeline": {"batch_size": batch_size, "detectors": ["rules", "lexicon"]}})
    return PipelineSpec.surrogates(KEY, cfg)


def rows(n: int, tag: str = "Grant") -> list[dict]:
    return [
        {"id": f"d{i:03d}", "text": f"Seen by Dr. Alan {tag} on 03/04/2019. MRN: {4455000 + i}. Call (555) 201-3344."}
        for i in range(n)
    ]


def test_input_changed_during_the_run_is_refused(tmp_path: Path, write_jsonl) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(12))
    out, vault = tmp_path / "out.jsonl", tmp_path / "v.parquet"
    calls = []

    def change_input(n: int) -> None:
        calls.append(n)
        if len(calls) == 1:  # same ids, same count, other text
            write_jsonl(src, rows(12, tag="Grunt"))

    with pytest.raises(JournalError, match="changed"):
        run(RunPlan(spec(), src, out, workers=1, vault_path=vault, vault_key=KEY), on_batch=change_input)
    assert not out.exists() and not vault.exists()


def check_agree(src: Path, out: Path, vault: Path, read_jsonl) -> None:
    originals = {r["id"]: r["text"] for r in read_jsonl(src)}
    opened = read_vault(vault, KEY)
    got = read_jsonl(out)
    assert [r["id"] for r in got] == list(originals)
    for row in got:
        assert reidentify_text(row["text"], opened[row["id"]]) == originals[row["id"]]
    audit = [json.loads(x) for x in Path(f"{out}.audit.jsonl").read_text().split("\n") if x]
    assert len(audit) == sum(len(v) for v in opened.values())


SECRET = "Zebulon Quixote-Vantablack"


@pytest.fixture
def exploding(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """The pipeline raises, quoting the text, on any document that holds BOOM (as a site rule's
    validator raising on an odd character would)."""
    from radeid.pipeline.deidentifier import Deidentifier

    real = Deidentifier.deidentify

    def deidentify(self, docs):  # noqa: ANN001, ANN202
        for doc in docs:
            if "BOOM" in doc.text:
                raise ValueError(f"cannot parse {doc.text!r}")
        return real(self, docs)

    monkeypatch.setattr(Deidentifier, "deidentify", deidentify)


def test_pipeline_error_on_one_document_is_skipped_by_id(
    tmp_path: Path, exploding: None, write_jsonl, cli, read_jsonl
) -> None:
    data = rows(9)
    data[5]["text"] = f"BOOM {SECRET} seen on 03/04/2019."
    src = write_jsonl(tmp_path / "in.jsonl", data)
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--no-model", "-w", "1", "--on-error", "skip", "--batch-size", "4")
    assert code == 0, output
    assert "'d005'" in output and "ValueError" in output and SECRET not in output
    assert [r["id"] for r in read_jsonl(out)] == [r["id"] for r in data if r["id"] != "d005"]
    assert "8 documents" in output

    code, output = cli("deid", src, "-o", tmp_path / "o2.jsonl", "--no-model", "-w", "1", "--batch-size", "4")
    assert code == 1, output
    assert "'d005'" in output and "ValueError" in output and SECRET not in output
    assert "Traceback" not in output
    assert not (tmp_path / "o2.jsonl").exists()


class Killed(BaseException):
    """Stands for a kill: not an Exception, so nothing on the way "handles" it."""


@pytest.mark.parametrize("step", ["staged", "recorded", "moved:0", "moved:1", "moved:2"])
def test_a_crash_at_any_commit_step_is_finished_by_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, write_jsonl, read_jsonl
) -> None:
    import radeid.io.commit as commit

    src = write_jsonl(tmp_path / "in.jsonl", rows(10))
    out, vault = tmp_path / "out.jsonl", tmp_path / "v.parquet"
    # an older run's outputs are in place: after the crash they must never be mixed with the new ones
    run(RunPlan(spec(), write_jsonl(tmp_path / "old.jsonl", rows(3)), out, workers=1, vault_path=vault, vault_key=KEY))

    def fault(name: str) -> None:
        if name == step:
            raise Killed(name)

    monkeypatch.setattr(commit, "_after_step", fault)
    with pytest.raises(Killed):
        run(RunPlan(spec(), src, out, workers=1, vault_path=vault, vault_key=KEY))
    assert work_folder_for(out).exists()
    monkeypatch.setattr(commit, "_after_step", lambda name: None)
    summary = run(RunPlan(spec(), src, out, workers=1, vault_path=vault, vault_key=KEY, resume=True))
    assert summary.documents == 10
    check_agree(src, out, vault, read_jsonl)
    assert not work_folder_for(out).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["in.jsonl", "old.jsonl", "out.jsonl", "out.jsonl.audit.jsonl", "v.parquet"]
    )


def test_resume_removes_temporaries_of_a_killed_merge(tmp_path: Path, write_jsonl, read_jsonl) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(10))
    out, vault = tmp_path / "out.jsonl", tmp_path / "v.parquet"
    with pytest.raises(RuntimeError):
        run(RunPlan(spec(), src, out, workers=1, vault_path=vault, vault_key=KEY), on_batch=_crash_on(3))
    # a killed merge's temporaries carry the run's tag (issue 27, point 10: a resume deletes only those)
    tag = json.loads((work_folder_for(out) / "manifest.json").read_text())["temporaries_tag"]
    for name in (f".out.jsonl.radeid-{tag}.abc123.tmp", f".out.jsonl.audit.jsonl.radeid-{tag}.x.tmp",
                 f".v.parquet.radeid-{tag}.y.tmp"):  # fmt: skip
        (tmp_path / name).write_text("left by a kill during the merge")
    run(RunPlan(spec(), src, out, workers=1, vault_path=vault, vault_key=KEY, resume=True))
    check_agree(src, out, vault, read_jsonl)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _crash_on(n: int):  # noqa: ANN202
    seen: list[int] = []

    def on_batch(count: int) -> None:
        seen.append(count)
        if len(seen) == n:
            raise RuntimeError("simulated crash")

    return on_batch
