"""The fork server's warm-up and the workers' garbage-collector settings (run in child processes,
so this test process keeps its own)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from radeid.run import worker_start
from radeid.run.worker_start import will_start_workers

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

CHECK = """
import gc
from radeid.run.worker_start import GC_YOUNG_THRESHOLD, fewer_collections, warm
default = gc.get_threshold()
fewer_collections()
assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *default[1:]), gc.get_threshold()
assert gc.get_freeze_count() == 0
warm()
assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()  # the loaded pipeline is frozen
import threading
assert threading.active_count() == 1, threading.enumerate()  # nothing runs when the server forks
from radeid.replace.surrogate import name_pools
assert name_pools._wgnd is not None  # read by the background thread, before the fork
print("ok")
"""


def test_workers_collect_less_often_and_the_warm_state_is_frozen() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


# After `warm()`, de-identifying varied texts must read no file: a table the warm-up misses is
# loaded again by every worker, on its first batch (0.1-0.3 CPU-seconds each).
NO_READS = """
import builtins, io, json, os, sys
from pathlib import Path
from radeid.run.worker_start import warm
warm()
from radeid.config.config import Config
from radeid.core.document import Document
from radeid.pipeline.spec import PipelineSpec
from radeid.synth import SynthOptions, generate
config = Config.load()
config = config.with_section("pipeline", detectors=[d for d in config.pipeline.detectors if d != "transformer"])
deid = PipelineSpec.surrogates(os.urandom(32), config).build()
texts = [p.read_text(encoding="utf-8") for p in sorted(Path(sys.argv[1]).glob("*.txt"))]
texts += [doc.text for doc in generate(150, SynthOptions(seed=5))]
opened = []
real_open = builtins.open
def spy(path, *args, **kwargs):
    opened.append(os.path.basename(str(path)))
    return real_open(path, *args, **kwargs)
builtins.open = io.open = spy
for i, text in enumerate(texts):
    deid.deidentify([Document(str(i), text)])
builtins.open = io.open = real_open
assert len(texts) > 150, len(texts)
print(json.dumps(sorted(set(opened))))
"""


def test_after_the_warm_up_no_document_reads_a_table() -> None:
    done = subprocess.run([sys.executable, "-c", NO_READS, str(EXAMPLES)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["deid", "in.jsonl", "-o", "out.jsonl", "-w", "2"], True),
        (["deid", "in.jsonl", "-o", "out.jsonl", "--workers", "4"], True),
        (["deid", "in.jsonl", "-o", "out.jsonl", "--workers=3"], True),
        (["deid", "in.jsonl", "-o", "out.jsonl", "-w2"], True),
        (["deid", "in.jsonl", "-o", "out.jsonl", "-w", "1"], False),
        (["deid", "in.jsonl", "-o", "out.jsonl", "--workers=1"], False),
        (["deid", "in.jsonl", "-o", "out.jsonl", "-w", "two"], False),
        (["deid", "--help"], False),
        (["detect", "in.jsonl", "-o", "spans.jsonl", "-w", "2"], False),
        ([], False),
    ],
)
def test_the_fork_server_starts_early_only_for_a_deid_run_with_workers(argv: list[str], expected: bool) -> None:
    assert will_start_workers(argv) is expected


def test_without_a_workers_option_the_core_count_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["deid", "in.jsonl", "-o", "out.jsonl"]
    monkeypatch.setattr(worker_start, "default_workers", lambda: 1)
    assert not will_start_workers(argv)
    monkeypatch.setattr(worker_start, "default_workers", lambda: 2)
    assert will_start_workers(argv)


def test_the_command_module_imports_nothing_heavy() -> None:
    """Every worker runs the `radeid` script (and so imports `radeid.__main__`) again."""
    check = (
        "import sys, radeid.__main__; "
        "print(sorted(m for m in ('radeid.cli.main', 'typer', 'rich') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


EARLY = """
import sys
from multiprocessing import forkserver
from pathlib import Path
from radeid.run.worker_start import start_early
start_early(["deid", "in.jsonl", "-o", "out.jsonl", "-w", "2"])
Path(sys.argv[1]).write_text(str(forkserver._forkserver._forkserver_pid))
"""


def test_an_early_fork_server_ends_with_the_command(tmp_path: Path) -> None:
    """A run that fails before any worker starts must not leave the server warming up for a second.
    (Not through pipes: the server inherits them, so reading them to the end would wait for it.)"""
    pid_file = tmp_path / "pid"
    done = subprocess.run(
        [sys.executable, "-c", EARLY, str(pid_file)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    assert done.returncode == 0
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 0.3
    while worker_start.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not worker_start.alive(pid)


def test_the_radeid_script_runs_a_parallel_job_as_one_process_does(
    tmp_path: Path, write_jsonl, reports: list[dict], key_file: Path
) -> None:
    """The installed `radeid` script (entry point `radeid.__main__:main`), with workers and the
    early fork server: the same bytes as a one-process run, and nothing left running."""
    script = Path(sys.executable).with_name("radeid")
    if not script.exists():
        pytest.skip("radeid is not installed as a script beside this Python")
    many = [{**report, "id": f"{report['id']}-{i}"} for i in range(40) for report in reports]
    src = write_jsonl(tmp_path / "in.jsonl", many)  # 120 documents: two batches at least
    for n, workers in ((1, "1"), (2, "2")):
        out, audit = tmp_path / f"out{n}.jsonl", tmp_path / f"audit{n}.jsonl"
        command = [str(script), "deid", str(src), "-o", str(out), "--no-model",
                   "--key-file", str(key_file), "--audit", str(audit), "-q", "-w", workers]  # fmt: skip
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "out1.jsonl").read_bytes() == (tmp_path / "out2.jsonl").read_bytes()
    assert (tmp_path / "audit1.jsonl").read_bytes() == (tmp_path / "audit2.jsonl").read_bytes()
    assert len((tmp_path / "out2.jsonl").read_text(encoding="utf-8").splitlines()) == 120
