"""CPU seconds of a command and every process it starts, fork-server workers included.

Why not plain `getrusage(RUSAGE_CHILDREN)`: radeid's workers are forked from a fork server
(`radeid.run.worker_start`), which exits just after the command does and is then reparented, so
neither it nor its workers would ever be waited for by the caller. On Linux `run_tree` makes the
calling process a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`) while the command runs, in a
process group of its own: orphaned descendants are reparented to the caller instead of init, it
waits for every one of them (that group only), and the kernel's own account
(`RUSAGE_CHILDREN`) then holds the exact CPU of the whole tree, with nothing running beside the
command. Elsewhere it falls back to polling `/proc` every 20 ms, which costs the measuring
process about 8% of a core (slowing a 2-core run it measures) and can miss a process that lives
less than a poll interval. `DescendantsCpu` (a block of code inside this process) always polls.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence

__all__ = ["DescendantsCpu", "run_tree"]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _table() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) for every visible process."""
    found: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        found[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK)
    return found


_PR_SET_CHILD_SUBREAPER = 36


def _subreaper(on: bool) -> bool:
    """Make this process the reaper of its orphaned descendants, or stop (Linux 3.4+); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def run_tree(command: Sequence[str], env: Mapping[str, str] | None = None) -> tuple[float, float]:
    """Run `command` to the end (raising on a non-zero exit); (wall seconds, CPU seconds of the tree).

    Wall time ends when the command exits. The command runs in a process group of its own, and
    only that group is reaped: other children of this process are left alone.
    """
    if _subreaper(True):
        try:
            return _run_reaped(command, env)
        finally:
            _subreaper(False)  # orphans of anything else go to init again, as before
    return _run_polled(command, env)


def _run_reaped(command: Sequence[str], env: Mapping[str, str] | None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), env=dict(env) if env is not None else None, process_group=0)
    proc.wait()
    wall = time.perf_counter() - start
    deadline = time.monotonic() + 60  # the fork server and its last workers outlive the command briefly
    while True:
        try:  # any child in the command's group: its descendants, reparented here as they orphan
            pid, _ = os.waitpid(-proc.pid, os.WNOHANG)
        except ChildProcessError:
            break  # every descendant is reaped, so counted
        if pid == 0:
            if time.monotonic() > deadline:
                raise RuntimeError("a process the command started still runs a minute after it exited")
            time.sleep(0.005)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, list(command))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _run_polled(command: Sequence[str], env: Mapping[str, str] | None) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), env=dict(env) if env is not None else None)
    seen: dict[int, float] = {}
    members = {proc.pid}
    while proc.poll() is None:
        table = _table()
        grew = True
        while grew:  # descendants, also those whose parent already exited (reparented: kept by pid)
            grew = False
            for pid, (parent, _) in table.items():
                if parent in members and pid not in members:
                    members.add(pid)
                    grew = True
        for pid in members:
            if pid in table:
                seen[pid] = max(seen.get(pid, 0.0), table[pid][1])
        time.sleep(0.02)
    wall = time.perf_counter() - start
    deadline = time.monotonic() + 5  # the fork server and its last workers outlive the command briefly
    while time.monotonic() < deadline:
        table = _table()
        alive = [pid for pid in members if pid in table and pid != proc.pid]
        for pid in alive:
            seen[pid] = max(seen.get(pid, 0.0), table[pid][1])
        if not alive:
            break
        time.sleep(0.02)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, list(command))
    # the command's own final CPU: its children total is gone with it, its own from wait4
    return wall, sum(seen.values())


class DescendantsCpu:
    """CPU seconds this process's descendants spend inside a `with` block (fork-server workers too).

    A thread polls `/proc` every 20 ms; each descendant counts from its CPU when the block started
    (0 for processes started inside it), up to the last value seen. `overhead` is the polling
    thread's own CPU, to subtract from this process's `time.process_time()`.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.overhead = 0.0
        self._start: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _sample(self) -> None:
        table = _table()
        members, grew = {os.getpid()}, True
        while grew:
            grew = False
            for pid, (parent, _) in table.items():
                if (parent in members or pid in self._last) and pid not in members:
                    members.add(pid)
                    grew = True
        for pid in members - {os.getpid()}:
            if pid in table:
                self._last[pid] = max(self._last.get(pid, 0.0), table[pid][1])

    def _poll(self) -> None:
        started = time.thread_time()
        while not self._stop.wait(0.02):
            self._sample()
        self.overhead = time.thread_time() - started

    def __enter__(self) -> DescendantsCpu:
        self._sample()
        self._start = dict(self._last)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()
        self.seconds = sum(cpu - self._start.get(pid, 0.0) for pid, cpu in self._last.items())
