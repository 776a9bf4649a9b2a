"""How worker processes start: forked from a fork server that already holds radeid, warmed.

Why: a spawned worker starts a fresh interpreter, re-imports radeid and builds its pipeline from
nothing (about 0.75 CPU-seconds: imports, rule regex compilation, word lists, name and place
tables), and a job pays that once per worker. The fork server (multiprocessing's "forkserver") is
one clean, single-threaded process started on first use, so forking from it is safe whatever
threads the caller runs, unlike forking the caller. It imports radeid and builds the shipped
default pipeline (without the model) once, on a throwaway key and a fixed synthetic text; each
worker forked from it finds the modules, the `re` module's compiled patterns and the cached tables
already loaded, and, when its config asks for the same detection, reuses the rules, word lists and
resolver built here (`radeid.pipeline.prebuilt`), so its own `PipelineSpec.build()` costs next to nothing.
Workers still build their pipeline from their own spec (the replacer, with their key, always), so
output never depends on this warm state: a custom configuration only warms less. The `radeid`
command starts the fork server first thing (`start_early`), so its warm-up overlaps the command's
own start-up.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from multiprocessing.context import BaseContext

__all__ = [
    "PRELOAD_MODULE",
    "alive",
    "default_context",
    "default_workers",
    "fewer_collections",
    "load_lazy_tables",
    "start_early",
    "warm",
    "watch_coordinator",
    "will_start_workers",
]

log = logging.getLogger(__name__)

#: Imported by the fork server (and nowhere else): its import runs `warm()`.
PRELOAD_MODULE = "radeid.run.forkserver_preload"

# Synthetic (no real person): one mention of each kind the surrogate tables are loaded for.
_SAMPLE = (
    "PATIENT: Maria Lopez  MRN: 4417723  DOB: 03/14/1961\n"
    "EXAM DATE: 2021-05-02. Ordered by Dr. James O'Neil at Mercy General Hospital, Springfield, IL.\n"
    "FINDINGS: No acute process. Call 555-201-7781 or j.oneil@example.org. Age 93. Siemens scanner.\n"
    "Prior study at Mass General.\n"  # a hospital named without a facility word
)


def default_context() -> BaseContext:
    """The start method for worker pools: a warmed fork server where the platform has one, else spawn.

    Both start the worker's main module the way spawn does, which fails for code read from stdin
    (`python - <<EOF`): there, where fork exists, fork.
    """
    methods = multiprocessing.get_all_start_methods()
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.exists(path) and "fork" in methods:
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # "__main__" is multiprocessing's own default preload: the caller's script, imported once.
    context.set_forkserver_preload(["__main__", PRELOAD_MODULE])
    return context


def default_workers() -> int:
    """The cores this process may use (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def will_start_workers(argv: Sequence[str]) -> bool:
    """Whether the command line `argv` (without the program name) is a `radeid deid` run that
    will start worker processes: not `--help`, and `--workers` (or the core count) above one.
    A guess from the raw arguments, before the CLI parses them: a wrong guess costs only time."""
    if not argv or argv[0] != "deid" or "--help" in argv:
        return False
    workers: str | None = None
    for i, arg in enumerate(argv):
        if arg in ("-w", "--workers") and i + 1 < len(argv):
            workers = argv[i + 1]
        elif arg.startswith("--workers="):
            workers = arg.partition("=")[2]
        elif arg.startswith("-w") and arg[2:].isdigit():
            workers = arg[2:]
    if workers is None:
        return default_workers() > 1
    return workers.strip().isdigit() and int(workers) > 1


def start_early(argv: Sequence[str]) -> None:
    """Start the workers' fork server now, when `argv` will need workers.

    Why: the fork server spends most of a second importing radeid and warming its pipeline
    (`warm`), and no worker can start before it is done. Started by the pool, it begins only after
    this process has imported the CLI, read the config and checked the input (about half a
    second); started here, first thing, both run at once on two cores. Nothing else changes: the
    pool finds the server running. Never raises: without it the pool starts the server later.
    """
    if not will_start_workers(argv):
        return
    try:
        if default_context().get_start_method() != "forkserver":
            return
        from multiprocessing import forkserver

        forkserver.ensure_running()
        atexit.register(_stop_fork_server)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log.debug("early fork server start skipped (%s)", type(exc).__name__)


def _stop_fork_server() -> None:
    """At exit, end the fork server now rather than after its warm-up: a run that failed before
    starting a worker (no input, a bad config) must not leave it spending a second of CPU. Its
    workers are gone by then (or watch this process and exit when it does)."""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if isinstance(pid, int) and pid > 0:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


#: Allocations between two young-generation collections (Python's default is 700).
GC_YOUNG_THRESHOLD = 10_000


def fewer_collections() -> None:
    """Let the cyclic garbage collector run ten times less often, in a process radeid owns (a
    worker, the CLI). De-identification makes almost no cyclic garbage, but it allocates a lot,
    and with the default threshold every 70,000th allocation or so starts a full collection that
    walks the whole loaded pipeline (tables, tries, compiled rules: ~80,000 objects): about 3% of
    a report's CPU. Collections only free memory, so output is the same."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def warm() -> None:
    """Build the default pipeline (rules and word lists, surrogates) once, so forked workers inherit it.

    Never raises: a fork server whose preload fails would break every pool, and a cold worker only
    costs time.
    """
    reading: threading.Thread | None = None
    try:
        from radeid.replace.surrogate.name_pools import read_wgnd_in_background

        reading = read_wgnd_in_background()  # decompression, without the GIL, beside the rest
        from radeid.config.config import Config
        from radeid.core.document import Document
        from radeid.pipeline.prebuilt import remember
        from radeid.pipeline.spec import PipelineSpec

        config = Config.load()
        detectors = [name for name in config.pipeline.detectors if name != "transformer"]
        config = config.with_section("pipeline", detectors=detectors)
        deid = PipelineSpec.surrogates(os.urandom(32), config).build()
        deid.deidentify([Document("warm-up", _SAMPLE)])
        reading.join()
        load_lazy_tables()
        remember(config, deid)  # its detectors and resolver, for workers of the same detection
        gc.freeze()  # what is loaded now stays: the workers' collections need not walk it
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log.debug("fork server warm-up skipped (%s)", type(exc).__name__)
    finally:
        if reading is not None:
            reading.join()  # no thread may run when the fork server forks a worker


def load_lazy_tables() -> None:
    """Load the tables the pipeline reads only on first need, which the warm-up sample does not
    need: the most frequent English words (a lower-case span), the place gazetteer (a place in a
    place context), the name tables of the lower-case name rules, and the 20 MB WGND table (a first
    name the smaller gender tables do not know), and the Unicode skeleton's tables (the confusables,
    for text that is not ASCII), the facility lexicon and the US address parser's model (a facility
    or a street address the sample lacks), and the generic words surrogates may keep. Most corpora
    need them, and a worker that loads one itself pays up to 0.3 CPU-seconds before its first batch is done."""
    from radeid.core.categories import Category
    from radeid.detect.normalize import load_skeleton_tables
    from radeid.patterns.forms import common_words, function_words, person_names
    from radeid.patterns.gazetteer import load_tables
    from radeid.patterns.validators import load_name_tables
    from radeid.replace.surrogate.leaks import generic_words
    from radeid.replace.surrogate.name_pools import wgnd_gender
    from radeid.replace.surrogate.places import load_place_tables

    function_words()
    common_words()
    person_names()
    load_tables()  # the place gazetteer, states and countries
    load_name_tables()  # the word ranks of the lower-case name rules
    wgnd_gender("warm")
    load_skeleton_tables()
    load_place_tables()
    for category in Category:  # the words a surrogate may keep (`leaks`): read once per category
        generic_words(category)


def watch_coordinator(coordinator: int) -> None:
    """Exit this worker now if the coordinator is gone, and later as soon as it goes (a kill -9,
    say): an orphan must not keep a model in memory forever, nor keep writing parts of a run that
    stopped. The worker's parent is the coordinator (spawn, fork) or the fork server, which outlives
    a killed coordinator while any worker lives, so the coordinator is watched too."""
    parent = os.getppid()
    if not alive(coordinator):  # gone before this worker started
        os._exit(1)
    watch = threading.Thread(target=_watch, args=(coordinator, parent), daemon=True, name="radeid-parent-watch")
    watch.start()


def _watch(coordinator: int, parent: int) -> None:
    while True:
        time.sleep(0.2)
        if os.getppid() != parent or not alive(coordinator):
            os._exit(1)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, killed but not yet reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - exists, owned by someone else
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):  # no /proc (not Linux): signal 0 is all there is
        return True
