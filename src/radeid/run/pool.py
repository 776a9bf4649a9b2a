"""The run's worker processes: each builds its pipeline once, then turns chunks into outcomes.

`BatchPool` carries a chunk (`radeid.run.chunks`) to a worker and its `Outcome` back to the
ordered sink (`radeid.run.sink`), bounding what is in flight. In the worker, `_Worker.process`
parses the chunk, de-identifies it, and either serializes it for the spools
(`radeid.run.stream.encode_batch`) or stores it as a part (`radeid.run.merge.write_part`). With
`workers=1` the same `_Worker` runs in this process.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from radeid.config.config import ConfigError
from radeid.io.ids import pseudonymize_id
from radeid.io.records import ReadOptions
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.run.batch import OnError, deidentify_each, pipeline_issue
from radeid.run.chunks import Chunk
from radeid.run.journal import part_name
from radeid.run.merge import write_part
from radeid.run.sink import OrderedSink, Outcome
from radeid.run.stream import StreamFormat, encode_batch
from radeid.run.worker_start import default_context, default_workers, fewer_collections, watch_coordinator

__all__ = ["BatchPool", "WorkerSetup"]


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker needs besides its pipeline (picklable: sent once, to the initializer)."""

    parts: Path
    #: Serialize for the spools, or (None) store parts.
    stream: StreamFormat | None
    options: ReadOptions
    on_error: OnError
    id_key: bytes | None


class _Worker:
    """One process's pipeline, serializer and label map (built in that process: an encoder is a closure)."""

    def __init__(self, deid: Deidentifier, setup: WorkerSetup) -> None:
        self.deid, self.setup = deid, setup
        self.encoder = setup.stream.encoder() if setup.stream is not None else None
        self.mapping = setup.options.label_mapping()

    def process(self, chunk: Chunk) -> Outcome:
        """Parse, de-identify and serialize (or store) one chunk."""
        setup = self.setup
        docs, reads = chunk.parse(setup.options, self.mapping)
        stats = self.deid.replacer.stats  # the replacer's event counts (unparseable dates, retries)
        before = Counter(stats)
        results, failed = deidentify_each(self.deid, docs, setup.on_error)
        after = Counter(stats)
        skipped = tuple((i, type(exc).__name__) for i, exc in failed)
        skip_issues = tuple(pipeline_issue(docs[i], name, setup.on_error) for i, name in skipped)
        data: tuple[bytes, ...] = ()
        segments: tuple[tuple[int, str], ...] = ()
        part = (0, "")
        if setup.stream is not None:
            assert self.encoder is not None  # `StreamFormat.choose` streams only what it can encode
            encoded = encode_batch(results, self.encoder, setup.stream, setup.id_key)
            data, segments, categories, empty = encoded.data, encoded.segments, encoded.categories, encoded.empty
        else:
            part = write_part(setup.parts / part_name(chunk.batch), results)
            categories = dict(Counter(r.span.category.value for result in results for r in result.replacements))
            empty = tuple(
                pseudonymize_id(setup.id_key, r.document.id) if setup.id_key else r.document.id
                for r in results
                if not r.replacements
            )
        counts = {k: int(v) for k, v in (after - before).items()}
        return Outcome(
            batch=chunk.batch,
            digest=chunk.digest(),
            docs=len(docs),
            reads=reads,
            stats=counts,
            skipped=skipped,
            skip_issues=skip_issues,
            categories=categories,
            empty=empty,
            data=data,
            segments=segments,
            part=part,
        )


_STATE: dict[str, _Worker | BaseException] = {}


def _init_worker(spec: PipelineSpec, setup: WorkerSetup, coordinator: int, threads: int) -> None:
    """Pool initializer: build the pipeline once per process (a model gets its share of the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    fewer_collections()
    watch_coordinator(coordinator)
    try:
        _STATE["worker"] = _Worker(spec.with_threads(threads).build(), setup)
    except (ValueError, OSError) as exc:  # a rule/list file, a model: as with one process (exit 2)
        _STATE["worker"] = ConfigError(str(exc))
    except Exception as exc:  # noqa: BLE001 - raised again, with its own type, by the first chunk
        _STATE["worker"] = exc  # (an initializer error would only say "the pool is broken")


def _run(chunk: Chunk) -> Outcome:
    worker = _STATE["worker"]
    if isinstance(worker, BaseException):
        raise worker
    return worker.process(chunk)


class BatchPool:
    """Chunks in flight, in worker processes (or in this process for `workers=1`)."""

    def __init__(self, spec: PipelineSpec, setup: WorkerSetup, workers: int, sink: OrderedSink) -> None:
        self.sink = sink
        self.limit = 2 * workers
        self.pending: dict[Future[Outcome], Chunk] = {}
        self.local: _Worker | None = None
        self.executor: ProcessPoolExecutor | None = None
        if workers == 1:
            try:
                self.local = _Worker(spec.build(), setup)
            except ConfigError:
                raise
            except (ValueError, OSError) as exc:  # a rule/list file, a model: as with -w 2 (exit 2)
                raise ConfigError(str(exc)) from None
        else:
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=default_context(),
                initializer=_init_worker,
                initargs=(spec, setup, os.getpid(), max(1, default_workers() // workers)),
            )

    def submit(self, chunk: Chunk) -> None:
        if self.local is not None:
            self.sink.finished(chunk, self.local.process(chunk))
            return
        assert self.executor is not None
        self.wait_room()
        self.pending[self.executor.submit(_run, chunk)] = chunk

    def wait_room(self) -> None:
        """Bounded memory: chunks in flight, and finished ones the sink holds for an earlier one."""
        while self.pending and (len(self.pending) >= self.limit or self.sink.held >= 2 * self.limit):
            self._collect()

    def _collect(self) -> None:
        finished, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
        failure: BaseException | None = None
        for future in finished:  # hand every success to the sink before raising a failure: less to redo
            chunk = self.pending.pop(future)
            error = future.exception()
            if error is not None:
                failure = failure or error
                continue
            try:
                self.sink.finished(chunk, future.result())
            except Exception as exc:  # noqa: BLE001 - raised below, after the others are journaled
                failure = failure or exc
        if failure is not None:
            raise failure

    def drain(self) -> None:
        while self.pending:
            self._collect()

    def close(self, *, failed: bool) -> None:
        if self.executor is not None:
            # On failure, queued chunks are dropped; running ones finish (their parts become
            # orphans that a resume deletes), so no worker is killed mid-write.
            self.executor.shutdown(wait=True, cancel_futures=failed)
            self.executor = None
