"""`kill -9` a real `radeid deid --workers 2` mid-run (mask mode: and its resumed run too), then
`--resume`: the output must be byte-identical to an uninterrupted run (every document exactly
once, in input order), and the killed run's workers must not linger.

The command is `python -m radeid deid ... --workers 2 [--resume]` once the CLI has those options;
until then the same runner is driven through `python -c` (the code path under test is the same:
`radeid.run.parallel.run`).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from radeid.config.config import Config
from radeid.pipeline.spec import PipelineSpec
from radeid.run.journal import work_folder_for
from radeid.run.plan import RunPlan
from radeid.run.serial import deidentify_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and SIGKILL"),
]

KEY = bytes(range(100, 132))
BATCH = 16
DOCS = 2000

try:
    from radeid.replace.surrogate import SurrogateReplacer  # noqa: F401

    HAVE_SURROGATES = True
except ImportError:  # pragma: no cover
    HAVE_SURROGATES = False

DRIVER = """
import sys
from pathlib import Path
from radeid.config.config import Config
from radeid.run.parallel import RunPlan, run
from radeid.pipeline.spec import PipelineSpec
source, output, mode, key, resume, batch = sys.argv[1:7]
config = Config.load(overrides={"pipeline": {"batch_size": int(batch)}})
if mode == "surrogate":
    spec = PipelineSpec.surrogates(bytes.fromhex(key), config)
else:
    spec = PipelineSpec.masking(config, mode)
run(RunPlan(spec, Path(source), Path(output), workers=2, resume=resume == "1"))
"""


def _cli_params() -> tuple[set[str], set[str]]:
    """The `deid` options of the current CLI, and its --mode choices."""
    import typer.main

    from radeid.cli.main import app
    from radeid.config.modes import REPLACERS

    command = typer.main.get_command(app).commands["deid"]  # type: ignore[attr-defined]
    names = {p.name for p in command.params if p.name}
    modes = set(REPLACERS.names())
    return names, modes


def command(source: Path, output: Path, mode: str, key_file: Path, resume: bool) -> list[str]:
    names, modes = _cli_params()
    cli_ok = {"workers", "resume"} <= names and (mode != "surrogate" or ("key_file" in names and mode in modes))
    if not cli_ok:
        return [sys.executable, "-c", DRIVER, str(source), str(output), mode, KEY.hex(), "1" if resume else "0",
                str(BATCH)]  # fmt: skip
    args = [sys.executable, "-m", "radeid", "deid", str(source), "-o", str(output), "--workers", "2"]
    args += ["--batch-size", str(BATCH), "--mode", mode, "-q"]
    if mode == "surrogate":
        args += ["--key-file", str(key_file)]
    return args + (["--resume"] if resume else [])


def corpus(path: Path) -> Path:
    rng = random.Random(11)
    names = ["Alan Grant", "Ellie Sattler", "Ian Malcolm", "John Hammond", "Sarah Harding", "Wei Chen"]
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(DOCS):
            text = (
                f"PATIENT: {rng.choice(names)}  MRN: {rng.randint(1000000, 9999999)}\n"
                f"DATE: {rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2000, 2023)}. "
                f"No acute findings; {i % 9} mm nodule. Dr. {rng.choice(names).split()[1]} paged."
            )
            handle.write(json.dumps({"id": f"n{i}", "patient_id": f"p{i % 400}", "text": text}) + "\n")
    return path


def journaled(output: Path) -> int:
    try:
        return (work_folder_for(output) / "journal.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def kill_after(args: list[str], output: Path, at_least: int, log: Path) -> int:
    """Start the run, SIGKILL its main process once `at_least` batches are journaled."""
    with open(log, "ab") as sink:
        proc = subprocess.Popen(args, stdout=sink, stderr=sink, start_new_session=True)
    deadline = time.monotonic() + 120
    while journaled(output) < at_least:
        assert proc.poll() is None, f"the run ended (rc={proc.returncode}) before it could be killed: {log.read_text()}"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.01)
    workers = children(proc.pid)  # spawned workers, or the fork server and its workers
    workers += [grandchild for child in workers for grandchild in children(child)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = journaled(output)
    assert not output.exists(), "the run finished before the kill; make the corpus larger"
    # the workers notice their coordinator is gone and exit instead of lingering as orphans
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers), "orphaned workers kept running"
    return done


@pytest.mark.parametrize(
    "mode", ["mask", pytest.param("surrogate", marks=pytest.mark.skipif(not HAVE_SURROGATES, reason="no engine"))]
)
def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path: Path, mode: str) -> None:
    source = corpus(tmp_path / "notes.jsonl")
    key_file = tmp_path / "radeid.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    config = Config.load(overrides={"pipeline": {"batch_size": BATCH}})
    spec = PipelineSpec.surrogates(KEY, config) if mode == "surrogate" else PipelineSpec.masking(config, mode)
    expected = tmp_path / "uninterrupted.jsonl"
    deidentify_path(RunPlan(spec, source, expected))

    output = tmp_path / "out" / "deid.jsonl"
    output.parent.mkdir()
    log = tmp_path / "runs.log"
    first = kill_after(command(source, output, mode, key_file, resume=False), output, 8, log)
    total = -(-DOCS // BATCH)
    assert 8 <= first < total
    if mode == "mask":  # kill the resumed run too: a resume must itself be resumable
        second = kill_after(command(source, output, mode, key_file, resume=True), output, first + 8, log)
        assert first + 8 <= second < total

    final = subprocess.run(command(source, output, mode, key_file, resume=True), capture_output=True, timeout=300)
    assert final.returncode == 0, final.stderr.decode(errors="replace")[-3000:]
    assert output.read_bytes() == expected.read_bytes()
    assert Path(f"{output}.audit.jsonl").read_bytes() == Path(f"{expected}.audit.jsonl").read_bytes()
    ids = [json.loads(line)["id"] for line in output.read_text(encoding="utf-8").splitlines()]
    assert ids == [f"n{i}" for i in range(DOCS)]  # every document exactly once, in input order
    assert sorted(p.name for p in output.parent.iterdir()) == [
        "deid.jsonl",
        "deid.jsonl.audit.jsonl",
        "deid.jsonl.report.json",
    ]
    # a killed run (kill -9) writes no entry; the resume that completes writes its own
    runs = json.loads(Path(f"{output}.report.json").read_text(encoding="utf-8"))["runs"]
    assert [(r["status"], r["resumed"], r["documents"]) for r in runs] == [("completed", True, DOCS)]
