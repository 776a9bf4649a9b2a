"""The parallel, resumable runner: same bytes as the single-process run, whatever happens.

Crashes are simulated in-process here (an exception from the progress callback or a writer);
`test_parallel_kill.py` kills a real subprocess with SIGKILL.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import stat
from pathlib import Path

import pytest

from radeid.config.config import Config, ConfigError
from radeid.io.formats import InputFormat
from radeid.io.readers import ReadOptions
from radeid.io.writers import AuditWriter
from radeid.pipeline.spec import PipelineSpec
from radeid.run.batch import RunAborted
from radeid.run.journal import JournalError, ResumeMismatchError, WorkFolderExistsError, work_folder_for
from radeid.run.parallel import ParallelRunError, RunPlan, run
from radeid.run.serial import deidentify_path

KEY = bytes(range(32))

try:
    from radeid.replace.surrogate import SurrogateReplacer  # noqa: F401

    HAVE_SURROGATES = True
except ImportError:  # pragma: no cover - the engine is being finished
    HAVE_SURROGATES = False

MODES = ["mask", pytest.param("surrogate", marks=pytest.mark.skipif(not HAVE_SURROGATES, reason="no surrogates"))]

FIRST = ["Alan", "Ellie", "Ian", "John", "Sarah", "Maria", "Wei", "Fatima", "Olga", "Pedro"]
LAST = ["Grant", "Sattler", "Malcolm", "Hammond", "Harding", "Lopez", "Chen", "Okafor", "Ivanova", "Silva"]


def small_reports(n: int, seed: int = 0) -> list[dict]:
    """Short reports with names, dates, MRNs and phones; patients have several reports."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        patient = f"p{rng.randrange(max(1, n // 3))}"
        day, month, year = rng.randint(1, 28), rng.randint(1, 12), rng.randint(2001, 2023)
        text = (
            f"PATIENT: {rng.choice(FIRST)} {rng.choice(LAST)}\nMRN: {rng.randint(1000000, 9999999)}\n"
            f"EXAM DATE: {month:02d}/{day:02d}/{year}\nFINDINGS: No acute abnormality. Stable {i % 7} mm nodule.\n"
            f"Discussed with Dr. {rng.choice(LAST)} at ({rng.randint(200, 999)}) 555-{rng.randint(1000, 9999)}."
        )
        rows.append({"id": f"r{i:05d}", "patient_id": patient, "text": text, "site": f"s{i % 3}"})
    return rows


def spec_for(mode: str, batch_size: int = 8, **config: object) -> PipelineSpec:
    cfg = Config.load(overrides={"pipeline": {"batch_size": batch_size}, **config})
    return PipelineSpec.surrogates(KEY, cfg) if mode == "surrogate" else PipelineSpec.masking(cfg, mode)


def reference(tmp_path: Path, spec: PipelineSpec, source: Path, name: str = "ref.jsonl", **kw: object) -> Path:
    """The single-process run (`serial.deidentify_path`) the parallel one must equal."""
    out = tmp_path / name
    deidentify_path(RunPlan(spec, source, out, **kw))  # type: ignore[arg-type]
    return out


def same_files(a: Path, b: Path) -> None:
    assert a.read_bytes() == b.read_bytes()
    assert Path(f"{a}.audit.jsonl").read_bytes() == Path(f"{b}.audit.jsonl").read_bytes()


class Crash(RuntimeError):
    pass


def crash_after(n: int):
    seen = []

    def on_batch(count: int) -> None:
        seen.append(count)
        if len(seen) == n:
            raise Crash("simulated crash")

    return on_batch


@pytest.fixture
def corpus(tmp_path: Path, write_jsonl) -> Path:
    return write_jsonl(tmp_path / "in.jsonl", small_reports(120))


# ------------------------------------------------------------------------------------ spec


def test_spec_pickles_builds_and_hides_the_key() -> None:
    for spec in (spec_for("tag"), *([spec_for("surrogate")] if HAVE_SURROGATES else [])):
        copy = pickle.loads(pickle.dumps(spec))
        assert copy == spec
        assert copy.fingerprint() == spec.fingerprint()
        result = copy.build().deidentify_text("MRN: 4455667 seen 03/04/2019", patient_id="p1")
        assert "4455667" not in result.text
        assert KEY.hex() not in repr(spec) and repr(KEY) not in repr(spec)
    assert pickle.loads(pickle.dumps(Config.load())) == Config.load()


def test_spec_mode_is_the_configs_and_validated() -> None:
    assert spec_for("tag").config.replace.mode == "tag" == spec_for("tag").mode
    assert PipelineSpec(Config.load(overrides={"replace": {"mode": "fixed"}})).mode == "fixed"
    with pytest.raises(ConfigError, match="mode must be one of"):
        PipelineSpec.masking(Config.load(), "shout")
    with pytest.raises(ConfigError, match="needs a key"):
        PipelineSpec(Config.load())  # the default mode is surrogate, as for `radeid deid`


def test_fingerprint_covers_config_and_named_files_but_not_the_key(tmp_path: Path) -> None:
    allow = tmp_path / "allow.txt"
    allow.write_text("Parkinson\n", encoding="utf-8")
    spec = spec_for("mask", resolver={"allow_lists": [str(allow)]})
    before = spec.fingerprint()
    assert spec_for("mask", resolver={"allow_lists": [str(allow)]}).fingerprint() == before
    assert spec_for("tag", resolver={"allow_lists": [str(allow)]}).fingerprint() != before
    assert spec_for("mask", batch_size=9, resolver={"allow_lists": [str(allow)]}).fingerprint() != before
    allow.write_text("Parkinson\nAlzheimer\n", encoding="utf-8")
    assert spec.fingerprint() != before
    keyed = PipelineSpec(spec.config.with_section("replace", mode="mask"), KEY)
    other = PipelineSpec(spec.config.with_section("replace", mode="mask"), b"another key, as long as the first")
    assert keyed.fingerprint() == other.fingerprint()
    check = keyed.key_check()
    assert check is not None and KEY.hex() not in json.dumps(check)
    assert keyed.key_matches(check) and not other.key_matches(check) and not spec.key_matches(check)
    assert keyed.cache_key() != other.cache_key()


# ------------------------------------------------------------------------------------ equality


@pytest.mark.parametrize("mode", MODES)
def test_two_workers_give_the_single_process_bytes(tmp_path: Path, corpus: Path, mode: str) -> None:
    spec = spec_for(mode)
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    counts: list[int] = []
    summary = run(RunPlan(spec, corpus, out, workers=2), on_batch=counts.append)
    same_files(ref, out)
    assert summary.documents == 120 and sum(counts) == 120 and summary.batches == 15
    assert summary.workers == 2 and not summary.resumed
    assert summary.spans > 0 and sum(summary.by_category.values()) == summary.spans
    assert not work_folder_for(out).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left


def test_formats_kept_columns_and_folders_match_the_single_process_run(tmp_path: Path) -> None:
    rows = small_reports(30, seed=3)
    csv_in = tmp_path / "in.csv"
    lines = ["id,text,site"] + [",".join([r["id"], '"' + r["text"].replace('"', '""') + '"', r["site"]]) for r in rows]
    csv_in.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    options = ReadOptions(keep_columns=("site",))
    spec = spec_for("numbered", batch_size=4)
    for source, name in ((csv_in, "out.csv"), (csv_in, "out.parquet")):
        ref = reference(tmp_path, spec, source, "ref-" + name, options=options)
        out = tmp_path / name
        run(RunPlan(spec, source, out, workers=1, options=options))
        same_files(ref, out)
    folder = tmp_path / "notes"
    folder.mkdir()
    for r in rows[:10]:
        (folder / f"{r['id']}.txt").write_text(r["text"], encoding="utf-8")
    ref_dir, out_dir = tmp_path / "ref-notes", tmp_path / "out-notes"
    deidentify_path(RunPlan(spec, folder, ref_dir, output_format=InputFormat.BRAT))
    run(RunPlan(spec, folder, out_dir, workers=1, output_format=InputFormat.BRAT))
    ref_files = sorted(p.relative_to(ref_dir) for p in ref_dir.rglob("*"))
    assert ref_files == sorted(p.relative_to(out_dir) for p in out_dir.rglob("*")) and len(ref_files) == 20
    for rel in ref_files:
        assert (ref_dir / rel).read_bytes() == (out_dir / rel).read_bytes()


@pytest.mark.parametrize("name", ["out.jsonl", "out.csv"])
def test_streamed_output_is_the_same_for_any_worker_count_and_batch_size(tmp_path: Path, name: str) -> None:
    """Workers serialize kept columns and pseudonymized ids themselves; the bytes must not change."""
    rows = small_reports(45, seed=11)
    rows[7]["text"] += "\u2028line separator\u0085and NEL"  # must not split a JSONL line
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    options = ReadOptions(keep_columns=("site", "patient_id"))
    ref = reference(tmp_path, spec_for("surrogate" if HAVE_SURROGATES else "mask", batch_size=8,
                    io={"pseudonymize_ids": True}), source, "ref-" + name, options=options)  # fmt: skip
    for workers, batch in ((2, 8), (2, 3), (3, 5), (1, 7)):
        spec = spec_for("surrogate" if HAVE_SURROGATES else "mask", batch_size=batch, io={"pseudonymize_ids": True})
        out = tmp_path / f"w{workers}-b{batch}-{name}"
        run(RunPlan(spec, source, out, workers=workers, options=options))
        same_files(ref, out)
        assert not list((work_folder_for(out)).parent.glob(".*.radeid-work"))


@pytest.mark.parametrize("name", ["par.csv", "par.tsv"])
def test_a_streamed_csv_resumes_after_its_header(tmp_path: Path, corpus: Path, name: str) -> None:
    """The header is written once: a resume continues the temporary after it, never repeats it."""
    spec = spec_for("mask")
    options = ReadOptions(keep_columns=("site",))
    ref = reference(tmp_path, spec, corpus, "ref-" + name, options=options)
    out = tmp_path / name
    with pytest.raises(Crash):
        run(RunPlan(spec, corpus, out, workers=1, options=options), on_batch=crash_after(3))
    with pytest.raises(Crash):  # a resume that crashes again is itself resumed
        run(RunPlan(spec, corpus, out, workers=1, options=options, resume=True), on_batch=crash_after(6))
    summary = run(RunPlan(spec, corpus, out, workers=1, options=options, resume=True))
    same_files(ref, out)
    assert (
        summary.resumed_batches == 6
        and out.read_bytes().count(b"id\ttext" if name.endswith("tsv") else b"id,text") == 1
    )


def test_a_lost_temporary_means_a_fresh_start_and_no_leftovers(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(spec, corpus, out, workers=1), on_batch=crash_after(4))
    output_tmp, audit_tmp = (
        Path(p) for p in json.loads((work_folder_for(out) / "spools.json").read_text())["temporaries"]
    )
    output_tmp.unlink()  # lost; the audit's temporary alone cannot be used
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True))
    same_files(ref, out)
    assert summary.resumed_batches == 0 and not audit_tmp.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_input_changed_during_a_streamed_run_is_refused(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "par.jsonl"
    original = corpus.read_bytes()

    def change(_n: int) -> None:  # same size, same ids, other text
        corpus.write_bytes(original.replace(b"No acute", b"No acuta", 1))

    with pytest.raises(JournalError, match="changed during the run"):
        run(RunPlan(spec_for("mask"), corpus, out, workers=1), on_batch=change)
    assert not out.exists() and not Path(f"{out}.audit.jsonl").exists()


# ------------------------------------------------------------------------------------ bad records


@pytest.fixture
def bad_corpus(tmp_path: Path, write_jsonl) -> Path:
    rows: list[dict | str] = list(small_reports(40, seed=5))
    rows.insert(3, "{not json")
    rows.insert(17, {"id": "no-text"})
    rows.insert(30, {"text": "no id here"})
    return write_jsonl(tmp_path / "bad.jsonl", rows)


def test_skipped_records_are_skipped_identically_before_and_after_resume(tmp_path: Path, bad_corpus: Path) -> None:
    source = bad_corpus
    spec = spec_for("mask", batch_size=4)
    ref_out = tmp_path / "ref.jsonl"
    ref = deidentify_path(RunPlan(spec, source, ref_out, on_error="skip"))
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(spec, source, out, workers=1, on_error="skip"), on_batch=crash_after(4))
    summary = run(RunPlan(spec, source, out, workers=1, on_error="skip", resume=True))
    same_files(ref_out, out)
    assert [e.describe() for e in summary.errors] == [e.describe() for e in ref.errors]
    assert len(summary.errors) == 3
    assert [w.describe() for w in summary.warnings] == [w.describe() for w in ref.warnings]
    assert (summary.documents, summary.spans, summary.by_category) == (ref.documents, ref.spans, ref.by_category)
    # A streamed JSONL run batches lines, which its workers parse (radeid.run.chunks): the first
    # 4 batches are lines 1-16, and line 4 is the broken record.
    assert summary.resumed and summary.resumed_batches == 4 and summary.resumed_documents == 15


def test_a_bad_record_with_on_error_fail_writes_nothing_and_leaves_no_work_folder(
    tmp_path: Path, bad_corpus: Path
) -> None:
    source = bad_corpus
    out = tmp_path / "par.jsonl"
    with pytest.raises(RunAborted) as caught:
        run(RunPlan(spec_for("mask", batch_size=2), source, out, workers=1))
    assert "malformed JSON" in str(caught.value) or "line 4" in str(caught.value)
    assert caught.value.summary.documents == 2
    assert not out.exists() and not work_folder_for(out).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------------------------ resume


@pytest.mark.parametrize("mode", MODES)
def test_resume_after_a_crash_gives_the_uninterrupted_bytes(tmp_path: Path, corpus: Path, mode: str) -> None:
    spec = spec_for(mode)
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(spec, corpus, out, workers=1), on_batch=crash_after(6))
    work = work_folder_for(out)
    assert work.is_dir() and not out.exists()
    assert work.parent == out.parent and work.name.startswith(".")
    assert stat.S_IMODE(work.stat().st_mode) == 0o700
    assert len((work / "journal.jsonl").read_text().splitlines()) == 6
    manifest = (work / "manifest.json").read_text()
    assert KEY.hex() not in manifest and "PATIENT" not in manifest
    spools = (work / "spools.json").read_text()
    assert all(Path(p).parent == out.parent for p in json.loads(spools)["temporaries"])
    journal = (work / "journal.jsonl").read_text()
    assert "abnormality" not in journal and "MRN" not in journal  # counts and hashes only, no text

    with pytest.raises(WorkFolderExistsError, match="--resume"):
        run(RunPlan(spec, corpus, out, workers=1))
    counts: list[int] = []
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True), on_batch=counts.append)
    same_files(ref, out)
    assert summary.resumed and summary.resumed_batches == 6 and sum(counts) == 120
    assert not work.exists()


def test_resume_without_a_work_folder_starts_a_new_run(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True))
    same_files(ref, out)
    assert not summary.resumed and summary.resumed_batches == 0


def test_a_crash_while_writing_the_output_is_resumed(tmp_path: Path, corpus: Path, monkeypatch) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    original = AuditWriter.append
    calls: list[int] = []

    def failing(self: AuditWriter, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 7:  # batch 6: its output bytes are appended, its audit bytes are not
            raise OSError(28, "No space left on device")
        return original(self, data)

    monkeypatch.setattr(AuditWriter, "append", failing)
    with pytest.raises(OSError, match="No space"):
        run(RunPlan(spec, corpus, out, workers=1))
    assert not out.exists() and work_folder_for(out).is_dir()
    temporaries = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp"))
    assert len(temporaries) == 2  # kept for the resume, which cuts them back to batch 5's end
    monkeypatch.setattr(AuditWriter, "append", original)
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True))
    same_files(ref, out)
    assert summary.resumed_batches == 6
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_torn_journal_orphans_and_damaged_parts_are_redone(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus, "ref.jsonl.gz")  # gzip output: stored as parts, merged
    out = tmp_path / "par.jsonl.gz"
    with pytest.raises(Crash):
        run(RunPlan(spec, corpus, out, workers=1), on_batch=crash_after(8))
    work = work_folder_for(out)
    parts = sorted((work / "parts").iterdir())
    assert len(parts) == 8
    parts[2].write_bytes(parts[2].read_bytes().replace(b"*", b"#", 1))  # damaged after the fact
    parts[7].unlink()  # lost
    with open(work / "journal.jsonl", "a", encoding="utf-8") as journal:
        journal.write('{"batch": 9, "docs": 8, "ids": "')  # torn by the crash
    (work / "parts" / "000000000011.jsonl").write_text("orphan: written, never journaled\n")
    (work / "parts" / ".000000000012.jsonl.999.tmp").write_text("half a part")
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True))
    same_files(ref, out)
    assert summary.resumed_batches == 6  # 8 journaled, one damaged, one lost


def test_a_streamed_run_resumes_from_its_longest_intact_prefix(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(spec, corpus, out, workers=1), on_batch=crash_after(8))
    work = work_folder_for(out)
    assert not list((work / "parts").iterdir())  # streamed: no parts
    spools = json.loads((work / "spools.json").read_text())["temporaries"]
    output_tmp, audit_tmp = (Path(p) for p in spools)
    assert output_tmp.parent == out.parent and audit_tmp.parent == out.parent
    records = [json.loads(line) for line in (work / "journal.jsonl").read_text().splitlines()]
    assert [r["batch"] for r in records] == list(range(8))
    # The output temporary holds the first 8 batches, exactly as the reference starts.
    assert output_tmp.read_bytes() == ref.read_bytes()[: output_tmp.stat().st_size]
    assert output_tmp.stat().st_size == sum(r["segments"][0][0] for r in records)
    # Damage batch 3's bytes, add an unjournaled tail and a torn journal line.
    third = sum(r["segments"][0][0] for r in records[:3])
    data = bytearray(output_tmp.read_bytes())
    data[third + 10] ^= 1
    output_tmp.write_bytes(bytes(data) + b'{"id": "never journaled"}\n')
    with open(work / "journal.jsonl", "a", encoding="utf-8") as journal:
        journal.write('{"batch": 8, "docs": 8, "ids": "')
    summary = run(RunPlan(spec, corpus, out, workers=1, resume=True))
    same_files(ref, out)
    assert summary.resumed_batches == 3  # batches 0-2; 3 was damaged, so 3 and after are redone
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("batch", "batch size changed \\(was 8, now 16\\)"),
        ("config", "pipeline changed"),
        ("mode", "pipeline changed"),
        ("input", "input changed"),
        ("read", "read differently"),
        ("key", "key differs"),
        ("nokey", "used a key, this one does not"),
    ],
)
def test_resume_refuses_what_changed(tmp_path: Path, corpus: Path, change: str, message: str) -> None:
    keyed = PipelineSpec(spec_for("tag").config.with_section("replace", mode="tag"), KEY)
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(keyed, corpus, out, workers=1), on_batch=crash_after(2))
    spec, options = keyed, ReadOptions()
    if change == "batch":
        spec = PipelineSpec(spec_for("tag", batch_size=16).config.with_section("replace", mode="tag"), KEY)
    elif change == "config":
        spec = PipelineSpec(spec_for("tag", detectors={"rules": {"age_threshold": 80}}).config, KEY)
    elif change == "mode":
        spec = PipelineSpec(keyed.config.with_section("replace", mode="numbered"), KEY)
    elif change == "input":
        with open(corpus, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"id": "late", "text": "added after the crash"}) + "\n")
    elif change == "read":
        options = ReadOptions(patient_col="site")
    elif change == "key":
        spec = PipelineSpec(keyed.config.with_section("replace", mode="tag"), b"a different key of enough length!")
    else:
        spec = PipelineSpec(keyed.config.with_section("replace", mode="tag"))
    with pytest.raises(ResumeMismatchError, match=message) as caught:
        run(RunPlan(spec, corpus, out, workers=1, resume=True, options=options))
    assert str(work_folder_for(out)) in str(caught.value)
    assert work_folder_for(out).is_dir()  # refusing never destroys the finished work


def test_a_worker_that_cannot_build_its_pipeline_reports_why(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask", pipeline={"detectors": ["rules", "no-such-detector"], "batch_size": 8})
    out = tmp_path / "par.jsonl"
    with pytest.raises(ConfigError, match="unknown detector 'no-such-detector'"):
        run(RunPlan(spec, corpus, out, workers=2))
    assert not out.exists() and not work_folder_for(out).exists()  # nothing finished: nothing to resume


def test_a_worker_killed_mid_run_is_reported_and_resumable(tmp_path: Path, corpus: Path) -> None:
    spec = spec_for("mask")
    ref = reference(tmp_path, spec, corpus)
    out = tmp_path / "par.jsonl"
    killed: list[int] = []

    def children(pid: int) -> list[int]:
        return [int(c) for t in Path(f"/proc/{pid}/task").iterdir() for c in (t / "children").read_text().split()]

    def kill_a_worker(_n: int) -> None:
        if not killed:
            cmdlines = {p: Path(f"/proc/{p}/cmdline").read_text(errors="replace") for p in children(os.getpid())}
            # spawned workers are this process's children; fork-server workers the fork server's
            workers = [p for p, cmd in cmdlines.items() if "spawn_main" in cmd and "resource_tracker" not in cmd]
            workers += [w for p, cmd in cmdlines.items() if "forkserver" in cmd for w in children(p)]
            os.kill(workers[0], 9)
            killed.append(workers[0])

    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("needs /proc")
    with pytest.raises(ParallelRunError, match="worker process died.*--resume"):
        run(RunPlan(spec, corpus, out, workers=2), on_batch=kill_a_worker)
    summary = run(RunPlan(spec, corpus, out, workers=2, resume=True))
    same_files(ref, out)
    assert summary.resumed_batches >= 1


def test_a_bad_output_is_refused_before_any_work(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.me").write_text("not ours")
    with pytest.raises(FileExistsError, match="holds files this writer did not make"):
        run(RunPlan(spec_for("mask"), corpus, out, workers=1, output_format=InputFormat.TXT))
    assert not work_folder_for(out).exists()
    assert sorted(os.listdir(out)) == ["keep.me"]


@pytest.mark.skipif(not HAVE_SURROGATES, reason="no surrogates")
def test_vault_and_replacer_stats_survive_a_resume(tmp_path: Path, corpus: Path, write_jsonl) -> None:
    from radeid.secure.vault import read_vault, reidentify_text

    rows = small_reports(40, seed=9)
    rows[5]["text"] += "\nPrior study dated 31/31/2019."  # a date the surrogate engine cannot parse
    source = write_jsonl(tmp_path / "v.jsonl", rows)
    spec = spec_for("surrogate")
    ref_vault, vault = tmp_path / "ref.vault.parquet", tmp_path / "vault.parquet"
    ref_deid = spec.build()
    ref_plan = RunPlan(spec, source, tmp_path / "ref.jsonl", vault_path=ref_vault, vault_key=KEY)
    deidentify_path(ref_plan, deidentifier=ref_deid)
    out = tmp_path / "par.jsonl"
    with pytest.raises(Crash):
        run(RunPlan(spec, source, out, workers=1, vault_path=vault, vault_key=KEY), on_batch=crash_after(2))
    summary = run(RunPlan(spec, source, out, workers=1, resume=True, vault_path=vault, vault_key=KEY))
    same_files(tmp_path / "ref.jsonl", out)
    opened = read_vault(vault, KEY)
    assert opened == read_vault(ref_vault, KEY)
    originals = {r["id"]: r["text"] for r in rows}
    for line in out.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        assert reidentify_text(doc["text"], opened.get(doc["id"], [])) == originals[doc["id"]]
    stats = {k: v for k, v in ref_deid.replacer.stats.items()}  # type: ignore[attr-defined]
    assert dict(summary.replacer_stats) == stats and stats["documents"] == 40
    assert not list(tmp_path.glob(".*"))


def test_with_threads_only_fills_in_an_automatic_thread_count() -> None:
    spec = spec_for("mask")
    assert spec.config.transformer.threads == 0
    narrowed = spec.with_threads(2)
    assert narrowed.config.transformer.threads == 2 and narrowed.fingerprint() == spec.fingerprint()
    fixed = spec_for("mask", detectors={"transformer": {"threads": 4}})
    assert fixed.with_threads(1) is fixed


def test_the_journal_is_flushed_per_batch_and_synced_at_most_twice_a_second(tmp_path: Path, monkeypatch) -> None:
    """A kill -9 needs only the flush; a sync per batch would cap a many-worker run."""
    from radeid.run import journal

    synced: list[int] = []
    monkeypatch.setattr(journal, "_fdatasync", lambda fd: synced.append(fd))
    clock = iter([100.0, 100.1, 100.2, 100.3, 100.7, 100.8])
    monkeypatch.setattr(journal.time, "monotonic", lambda: next(clock))
    work = journal.WorkFolder.open(tmp_path / "out.jsonl", {"format": 2}, resume=False, key_matches=lambda c: True)
    for batch in range(6):
        work.record(journal.BatchRecord(batch, 1, "d", 0, "", segments=((1, "h"),)))
        lines = (work.path / "journal.jsonl").read_text().splitlines()
        assert len(lines) == batch + 1  # on disk (in the kernel) at once: what a kill -9 leaves
    assert len(synced) == 2  # at 100.0 and 100.7 (0.5 s after the last sync); not at 100.1-100.3, 100.8
    work.close()
    assert len(synced) == 3  # closing syncs what is left
