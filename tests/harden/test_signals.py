"""Issue 12, point 16: SIGTERM, a second run on the same output, an unwritable vault, bad config
with one worker or two."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from radeid.run.journal import work_folder_for

ROOT = Path(__file__).resolve().parents[2]


def corpus(path: Path, n: int = 4000) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            text = f"PATIENT: Alan Grant MRN: {1000000 + i}\nDATE: 3/{i % 28 + 1}/2019. Dr. Sattler paged."
            handle.write(json.dumps({"id": f"n{i}", "text": text}) + "\n")
    return path


def journaled(output: Path) -> int:
    try:
        return (work_folder_for(output) / "journal.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with open(log, "ab") as sink:
        return subprocess.Popen([sys.executable, "-m", "radeid", *args], stdout=sink, stderr=sink, env=env)


def wait_for_batches(proc: subprocess.Popen, output: Path, log: Path, n: int = 2) -> None:
    deadline = time.monotonic() + 120
    while journaled(output) < n:
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c_and_a_second_run_is_told_one_is_in_progress(tmp_path: Path, cli) -> None:
    src, out, log = corpus(tmp_path / "in.jsonl"), tmp_path / "out.jsonl", tmp_path / "log.txt"
    args = ["deid", str(src), "-o", str(out), "--mode", "tag", "--no-model", "-w", "1", "--batch-size", "4", "-q"]
    proc = start(args, log)
    wait_for_batches(proc, out, log)
    code, output = cli(*args)  # a second run while the first holds the lock
    assert code == 2, output
    assert "in progress" in output and "--resume to continue" not in output
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 143, log.read_text()
    text = log.read_text()
    assert "SIGTERM" in text and "--resume" in text and "Traceback" not in text
    assert work_folder_for(out).exists() and not out.exists()
    code, output = cli(*args, "--resume")
    assert code == 0, output
    assert out.read_text().count("\n") == 4000


def test_unwritable_vault_is_refused_before_any_work(
    tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        key = key_file
        out = tmp_path / "out.jsonl"
        code, output = cli("deid", src, "-o", out, "--key-file", key, "--vault", locked / "v.parquet", "--no-model")
        assert code == 2, output
        assert "v.parquet" in output.replace("\n", "")
        assert not work_folder_for(out).exists()
    finally:
        locked.chmod(0o700)


def test_vault_path_that_is_a_folder_is_refused_before_any_work(
    tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    (tmp_path / "v").mkdir()
    key = key_file
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--key-file", key, "--vault", tmp_path / "v", "--no-model", "-w", "1")
    assert code == 2, output
    assert not work_folder_for(out).exists() and not out.exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_bad_rule_file_is_a_usage_error_with_any_worker_count(
    tmp_path: Path, workers: str, write_jsonl, reports: list[dict], cli
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    config = tmp_path / "c.toml"
    config.write_text('[detectors.rules]\nextra_files = ["missing-rules.toml"]\n')
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--mode", "tag", "--no-model", "-c", config,
                          "-w", workers)  # fmt: skip
    assert code == 2, output
    assert "missing-rules.toml" in output and "Traceback" not in output


def test_disk_full_during_the_merge_names_the_path_and_says_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_jsonl, reports: list[dict], cli
) -> None:
    import errno

    from radeid.io.writers import AuditWriter

    appended: list[bytes] = []
    append = AuditWriter.append

    def full(self, result):  # noqa: ANN001, ANN202
        raise OSError(errno.ENOSPC, "No space left on device")

    def full_after_one(self, data):  # noqa: ANN001, ANN202
        if appended:
            full(self, data)
        appended.append(data)
        return append(self, data)

    monkeypatch.setattr(AuditWriter, "write", full)  # a merged run (parts)
    monkeypatch.setattr(AuditWriter, "append", full_after_one)  # a streamed run (JSONL output, as here)
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out = tmp_path / "deep" / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--mode", "tag", "--no-model", "-w", "1", "--batch-size", "1")
    flat = output.replace("\n", "")
    assert code == 2, output
    assert "No space left on device" in flat and str(out.parent.resolve()) in flat and "--resume" in flat
    assert "Traceback" not in output
    monkeypatch.undo()
    code, output = cli("deid", src, "-o", out, "--mode", "tag", "--no-model", "-w", "1", "--batch-size", "1",
                          "--resume", "-q")  # fmt: skip
    assert code == 0, output
