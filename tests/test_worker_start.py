"""The fork server's warm-up and the workers' garbage-collector settings (run in child processes,
so this test process keeps its own)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import gc
from radeid.worker_start import GC_YOUNG_THRESHOLD, fewer_collections, warm
default = gc.get_threshold()
fewer_collections()
assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *default[1:]), gc.get_threshold()
assert gc.get_freeze_count() == 0
warm()
assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()  # the loaded pipeline is frozen
print("ok")
"""


def test_workers_collect_less_often_and_the_warm_state_is_frozen() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
