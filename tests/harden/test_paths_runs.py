"""Issue 27, points 8, 10, 12 and 14: what a run leaves beside its outputs, and which path an error
names: a resume deletes only its own temporaries, an input changed during the run leaves nothing,
an output that was a symlink to a folder leaves no backup link, a full disk is named where it is."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from radeid.config.config import Config
from radeid.io.errors import naming
from radeid.pipeline.spec import PipelineSpec
from radeid.run.journal import InputChangedError, JournalError, work_folder_for
from radeid.run.parallel import RunPlan, run

ROWS = [{"id": f"r{i}", "text": f"Seen on 03/0{1 + i % 9}/2019 for a stable {i} mm nodule."} for i in range(24)]


def _spec() -> PipelineSpec:
    cfg = Config.load(overrides={"pipeline": {"batch_size": 4, "detectors": ["rules"]}})
    return PipelineSpec.masking(cfg, "tag")


class Crash(RuntimeError):
    pass


def _crash_after(n: int):
    seen: list[int] = []

    def on_batch(count: int) -> None:
        seen.append(count)
        if len(seen) == n:
            raise Crash("simulated crash")

    return on_batch


@pytest.mark.parametrize("name", ["o.jsonl", "o.jsonl.gz"])  # streamed; parts merged at the end
def test_a_resume_deletes_only_its_own_temporaries(tmp_path: Path, write_jsonl, name: str) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / name
    with pytest.raises(Crash):
        run(RunPlan(_spec(), src, out, workers=1), on_batch=_crash_after(2))
    strangers = {
        f".{name}.mine.tmp": b"a user's file",
        f".{name}.key.tmp": b"ab" * 32,
        f".{name}.csv.x1y2.tmp": b"another run's live temporary of o.jsonl.csv",
        f".{name}.radeid-000000000000.abc.tmp": b"a temporary of another run",
    }
    for stranger, data in strangers.items():
        (tmp_path / stranger).write_bytes(data)
    run(RunPlan(_spec(), src, out, workers=1, resume=True))
    assert out.exists()
    for stranger, data in strangers.items():
        assert (tmp_path / stranger).read_bytes() == data
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp"))
    assert left == sorted(strangers)


def test_a_killed_merge_leaves_temporaries_the_resume_removes(tmp_path: Path, write_jsonl) -> None:
    from radeid.io import commit

    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "o.jsonl.gz"

    def die(step: str) -> None:
        if step == "staged":
            raise Crash("killed while committing")

    commit._after_step, before = die, commit._after_step
    try:
        with pytest.raises(Crash):
            run(RunPlan(_spec(), src, out, workers=1))
    finally:
        commit._after_step = before
    run(RunPlan(_spec(), src, out, workers=1, resume=True))
    assert out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("name", ["o.jsonl", "o.jsonl.gz"])
def test_an_input_changed_during_the_run_leaves_nothing_behind(tmp_path: Path, write_jsonl, name: str) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    original = src.read_bytes()
    out = tmp_path / name

    def change(_n: int) -> None:  # same size, same ids, other text
        src.write_bytes(original.replace(b"stable", b"stabel", 1))

    with pytest.raises(InputChangedError, match="changed during the run"):
        run(RunPlan(_spec(), src, out, workers=1), on_batch=change)
    assert issubclass(InputChangedError, JournalError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no temporaries, no work folder
    assert not work_folder_for(out).exists()


def test_an_output_symlinked_to_a_folder_leaves_no_backup_link(tmp_path: Path, cli, key_file: Path) -> None:
    folder = tmp_path / "kin"
    folder.mkdir()
    (folder / "a.txt").write_text("Seen on 03/04/2019.\n", encoding="utf-8")
    (tmp_path / "real").mkdir()
    link = tmp_path / "kout"
    os.symlink(tmp_path / "real", link)
    code, output = cli("deid", folder, "-o", link, "--key-file", key_file, "--no-model", "-q")
    assert code == 0, output
    assert (link / "a.txt").exists()
    assert not [p.name for p in tmp_path.iterdir() if "radeid-old" in p.name]


def _full_disk_for(marker: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fsync` of the file whose name holds `marker` fails as on a full disk (no file name)."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if marker in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
@pytest.mark.parametrize("which", ["audit", "vault"])
def test_a_full_disk_names_the_audit_or_vault_not_the_output_folder(
    tmp_path: Path, cli, write_jsonl, key_file: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    other = tmp_path / "elsewhere"
    other.mkdir()
    target = other / ("a.audit.jsonl" if which == "audit" else "v.parquet")
    _full_disk_for(f"{target.name}.", monkeypatch)  # its temporary: .NAME.XXXX.tmp
    extra = ["--audit", target] if which == "audit" else ["--vault", target]
    code, output = cli("deid", src, "-o", tmp_path / "out" / "o.jsonl", "--key-file", key_file, *extra, "--no-model")
    assert code == 2, output
    assert f"No space left on device: {target}" in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert errors and all(not line.endswith(str(tmp_path / "out")) for line in errors), output


def test_naming_keeps_a_named_error_and_names_an_unnamed_one(tmp_path: Path) -> None:
    with pytest.raises(OSError) as caught, naming(tmp_path / "a"):
        raise OSError(errno.ENOSPC, "No space left on device")
    assert caught.value.filename == str(tmp_path / "a") and caught.value.errno == errno.ENOSPC
    with pytest.raises(FileNotFoundError) as missing, naming(tmp_path / "a"):
        open(tmp_path / "b")  # noqa: SIM115
    assert missing.value.filename == str(tmp_path / "b")
