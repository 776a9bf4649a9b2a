"""`benchmarks/tree_cpu.run_tree`, the instrument behind the CPU figures of cpu_ab, model_speed and
throughput: it must count processes that outlive the command (a fork server and its workers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from tree_cpu import run_tree  # noqa: E402

# Starts a grandchild that burns 0.3 CPU-seconds, then exits at once: the grandchild is orphaned,
# as radeid's fork server is when the command ends.
ORPHAN = """
import subprocess, sys
burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3:\\n    pass\\n"
subprocess.Popen([sys.executable, "-c", burn])
"""


def test_the_cpu_of_an_orphaned_grandchild_is_counted() -> None:
    _wall, cpu = run_tree([sys.executable, "-c", ORPHAN])
    assert cpu >= 0.3


def test_a_failing_command_raises() -> None:
    with pytest.raises(subprocess.CalledProcessError):
        run_tree([sys.executable, "-c", "raise SystemExit(3)"])


def test_other_children_of_the_caller_are_left_alone() -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.0); raise SystemExit(3)"])
    run_tree([sys.executable, "-c", ORPHAN])
    assert other.wait() == 3  # not reaped by run_tree (whose status would be lost: returncode 0)
