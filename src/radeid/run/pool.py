"""The process pool of a parallel run (`radeid.run.parallel`): workers, batches in flight, results in order.

Split from `radeid.run.parallel` (which keeps the run itself: checks, work folder, commit) along its
seam: what runs in the worker processes (`_init_worker`, `_run_batch`, `_run_lines`), and
`BatchPool`, which submits batches (documents, or raw JSONL lines that the workers parse:
`radeid.run.line_batches`), bounds what is in flight, and hands finished batches to the stream sink
or the journal. `feed_documents` and `feed_lines` read the input into it.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from radeid.config.config import ConfigError
from radeid.core.document import Document
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.run.batch import (
    OnError,
    RunSummary,
    _batches,
    _documents,
    deidentify_each,
    pipeline_issue,
)
from radeid.run.journal import (
    BatchRecord,
    JournalError,
    WorkFolder,
    docs_digest,
)
from radeid.run.line_batches import (
    LineBatch,
    LineOutcome,
    LineReader,
    lines_digest,
    process_lines,
    read_batch,
    replay,
)
from radeid.run.merge import write_part
from radeid.run.stream import (
    Encoded,
    StreamFormat,
    StreamSink,
    encode_batch,
)
from radeid.run.worker_start import default_context, default_workers, fewer_collections, watch_coordinator

__all__ = ["BatchPool", "ParallelRunSummary", "PipelineFailed", "feed_documents", "feed_lines", "id_key_for"]


@dataclass
class ParallelRunSummary(RunSummary):
    """`RunSummary` plus how the run went: workers used, what a resume could skip, and the
    replacer's event counts summed over every worker (`replacer_stats["date_unparseable"]`...)."""

    replacer_stats: Counter[str] = field(default_factory=Counter)
    workers: int = 1
    batches: int = 0
    resumed: bool = False
    resumed_batches: int = 0
    resumed_documents: int = 0


# ------------------------------------------------------------------------------------ workers

_WORKER: dict[str, Any] = {}


def _init_worker(spec: PipelineSpec, parts: str, coordinator: int, threads: int, stream: StreamFormat | None) -> None:
    """Pool initializer: build the pipeline once per process (a model gets its share of the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    fewer_collections()
    watch_coordinator(coordinator)
    _WORKER["target"] = _Target(Path(parts), stream, id_key_for(spec))
    try:
        _WORKER["mapping"] = stream.options.label_mapping() if stream is not None else None
        _WORKER["deid"] = spec.with_threads(threads).build()
    except (ValueError, OSError) as exc:  # a rule/list file, a model: as with one process (exit 2)
        _WORKER["error"] = ConfigError(str(exc))
    except Exception as exc:  # noqa: BLE001 - raised again, with its own type, by the first batch
        _WORKER["error"] = exc  # (an initializer error would only say "the pool is broken")


@dataclass
class _Target:
    """Where a worker's batches go: a part file each, or (streaming) serialized bytes returned to
    the coordinator (`radeid.run.stream`). Built in each process: an encoder is a closure."""

    parts: Path
    stream: StreamFormat | None
    id_key: bytes | None
    encoder: Any = None

    def __post_init__(self) -> None:
        if self.stream is not None:
            self.encoder = self.stream.encoder()


def id_key_for(spec: PipelineSpec) -> bytes | None:
    return spec.key if spec.config.io.pseudonymize_ids else None


def _part_name(batch: int) -> str:
    return f"{batch:012d}.jsonl"


#: (batch, content digest, payload: (part size, part SHA-256) or the serialized batch, the
#: replacer's stats, failed documents as (index in batch, exception type name): never a message).
_Outcome = tuple[int, str, "tuple[int, str] | Encoded", dict[str, int], tuple[tuple[int, str], ...]]


def _process(deid: Deidentifier, target: _Target, batch: int, docs: list[Document], on_error: OnError) -> _Outcome:
    """De-identify one batch; store its part, or serialize it for the coordinator to append."""
    stats = getattr(deid.replacer, "stats", None)
    before = Counter(stats) if isinstance(stats, Counter) else Counter()
    results, failed = deidentify_each(deid, docs, on_error)
    payload: tuple[int, str] | Encoded
    if target.stream is not None:
        payload = encode_batch(results, target.encoder, target.stream, target.id_key)
    else:
        payload = write_part(target.parts / _part_name(batch), results)
    after = Counter(stats) if isinstance(stats, Counter) else Counter()
    skipped = tuple((i, type(exc).__name__) for i, exc in failed)
    return batch, docs_digest(docs), payload, {k: int(v) for k, v in (after - before).items()}, skipped


def _run_batch(batch: int, docs: list[Document], on_error: OnError) -> _Outcome:
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _process(_WORKER["deid"], _WORKER["target"], batch, docs, on_error)


def _process_lines(
    deid: Deidentifier, target: _Target, batch: int, source: str, lines: LineBatch, on_error: OnError, mapping: Any
) -> LineOutcome:
    assert target.stream is not None
    return process_lines(deid, target.stream, target.encoder, target.id_key, batch, source, lines, on_error, mapping)


def _run_lines(batch: int, source: str, lines: LineBatch, on_error: OnError) -> LineOutcome:
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _process_lines(_WORKER["deid"], _WORKER["target"], batch, source, lines, on_error, _WORKER["mapping"])


class PipelineFailed(Exception):
    """`--on-error fail` and the pipeline raised on a document (carried to the runner)."""

    def __init__(self, issue: ReadIssue) -> None:
        super().__init__(issue.describe())
        self.issue = issue


class BatchPool:
    """Batches in flight, in worker processes (or in this process for `workers=1`)."""

    def __init__(
        self,
        spec: PipelineSpec,
        work: WorkFolder,
        workers: int,
        context: BaseContext | None,
        on_batch: Any,
        on_error: OnError,
        summary: ParallelRunSummary,
        stream: StreamFormat | None,
    ) -> None:
        self.work = work
        self.on_batch = on_batch
        self.on_error = on_error
        self.summary = summary
        self.limit = 2 * workers
        self.pending: dict[Future[Any], Any] = {}  # a batch: its documents, or its lines
        self.local: Deidentifier | None = None
        self.target: _Target | None = None
        self.executor: ProcessPoolExecutor | None = None
        self.sink: StreamSink | None = None
        # A run whose workers read their own lines (`radeid.run.line_batches`): what each finished
        # batch read, replayed in batch order when it is appended; the ids seen so far.
        self.reader: LineReader | None = None
        self.options: ReadOptions | None = None
        self.mapping: Any = None  # the label map the options name, loaded once
        self.read_back: dict[int, tuple[Any, tuple[ReadIssue, ...], LineBatch]] = {}
        self.seen: set[int] = set()
        if workers == 1:
            try:
                self.local = spec.build()
            except ConfigError:
                raise
            except (ValueError, OSError) as exc:  # a rule/list file, a model: as with -w 2 (exit 2)
                raise ConfigError(str(exc)) from None
            self.target = _Target(work.parts, stream, id_key_for(spec))
        else:
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context or default_context(),
                initializer=_init_worker,
                initargs=(spec, str(work.parts), os.getpid(), max(1, default_workers() // workers), stream),
            )

    def submit(self, batch: int, docs: list[Document]) -> None:
        if self.local is not None:
            assert self.target is not None
            self._done(_process(self.local, self.target, batch, docs, self.on_error), docs)
            return
        assert self.executor is not None
        # Bounded memory: batches in flight, and finished ones waiting for an earlier one.
        while self.pending and (len(self.pending) >= self.limit or self.held >= 2 * self.limit):
            self._collect(FIRST_COMPLETED)
        self.pending[self.executor.submit(_run_batch, batch, docs, self.on_error)] = docs

    def submit_lines(self, batch: int, lines: LineBatch) -> None:
        """`submit` for a batch of raw lines (the worker parses them)."""
        assert self.reader is not None
        if self.local is not None:
            assert self.target is not None
            outcome = _process_lines(
                self.local, self.target, batch, self.reader.source, lines, self.on_error, self.mapping
            )
            self._done(outcome, lines)
            return
        assert self.executor is not None
        while self.pending and (len(self.pending) >= self.limit or self.held >= 2 * self.limit):
            self._collect(FIRST_COMPLETED)
        self.pending[self.executor.submit(_run_lines, batch, self.reader.source, lines, self.on_error)] = lines

    def _read_here(self, lines: LineBatch) -> tuple[list[Document], Any]:
        """Parse a batch's lines in this process: only on resume, or to name a duplicate id."""
        assert self.reader is not None and self.options is not None
        return read_batch(self.reader.source, lines, self.options, self.mapping)

    def resumed_lines(self, record: BatchRecord, lines: LineBatch) -> None:
        """A journaled batch of lines, skipped on resume: report what it read, as it was."""
        docs, reads = self._read_here(lines)
        issues = tuple(pipeline_issue(docs[i], name, "skip") for i, name in record.skipped)
        self.read_back[record.batch] = (reads, issues, lines)

    @property
    def held(self) -> int:
        return self.sink.held if self.sink is not None else 0

    def _collect(self, how: str) -> None:
        finished, _ = wait(list(self.pending), return_when=how)
        failure: BaseException | None = None
        for future in finished:  # journal every success before raising a failure: less to redo
            docs = self.pending.pop(future)
            error = future.exception()
            if error is None:
                try:
                    self._done(future.result(), docs)
                except PipelineFailed as exc:
                    failure = failure or exc
            elif failure is None:
                failure = error
        if failure is not None:
            raise failure

    def _done(self, outcome: _Outcome | LineOutcome, docs: Any) -> None:
        if isinstance(outcome, LineOutcome):
            self._done_lines(outcome, docs)
            return
        batch, digest, payload, stats, skipped = outcome
        if skipped and self.on_error == "fail":
            index, name = skipped[0]
            raise PipelineFailed(pipeline_issue(docs[index], name, "fail"))
        self.summary.errors.extend(pipeline_issue(docs[i], name, "skip") for i, name in skipped)
        if isinstance(payload, Encoded):
            assert self.sink is not None
            record = BatchRecord(batch, len(docs), digest, 0, "", stats, skipped, payload.segments, payload.categories)
            self.sink.add(record, payload)  # appended and journaled in batch order; counted by `appended`
            return
        size, sha = payload
        self.work.record(BatchRecord(batch, len(docs), digest, size, sha, stats, skipped))
        if self.on_batch:
            self.on_batch(len(docs))

    def _done_lines(self, outcome: LineOutcome, lines: LineBatch) -> None:
        if outcome.skipped and self.on_error == "fail":
            raise PipelineFailed(outcome.skip_issues[0])
        payload = outcome.payload
        record = BatchRecord(
            outcome.batch, outcome.docs, outcome.digest, 0, "", outcome.stats, outcome.skipped,
            payload.segments, payload.categories,
        )  # fmt: skip
        self.read_back[outcome.batch] = (outcome.reads, outcome.skip_issues, lines)
        assert self.sink is not None
        self.sink.add(record, payload)  # appended and journaled in batch order, then `appended`

    def appended(self, record: BatchRecord) -> None:
        """A streamed batch is in the output (or was, before a resume): count it. A batch of lines
        first reports what it read, in batch order, as a single process would while reading."""
        back = self.read_back.pop(record.batch, None)
        if back is not None:
            reads, issues, lines = back
            replay(reads, self.summary, self.on_error, self.seen, lambda n: self._read_here(lines)[0][n])
            self.summary.documents += record.docs
            self.summary.errors.extend(issues)
        count_streamed(self.summary, record)
        if self.on_batch:
            self.on_batch(record.docs)

    def drain(self) -> None:
        while self.pending:
            self._collect(FIRST_COMPLETED)

    def close(self, *, failed: bool) -> None:
        if self.executor is not None:
            # On failure, queued batches are dropped; running ones finish (their parts become
            # orphans that a resume deletes), so no worker is killed mid-write.
            self.executor.shutdown(wait=True, cancel_futures=failed)
            self.executor = None


def count_streamed(summary: ParallelRunSummary, record: BatchRecord) -> None:
    summary.spans += sum(record.categories.values())
    summary.by_category.update(record.categories)
    summary.replacer_stats.update(record.stats)


def feed_documents(
    pool: BatchPool,
    work: WorkFolder,
    input_path: Path,
    input_format: InputFormat | None,
    options: ReadOptions,
    size: int,
    summary: ParallelRunSummary,
    on_error: OnError,
    stream: StreamFormat | None,
) -> None:
    """Read the documents here and send them to the workers in batches (every input but the
    JSONL of a streamed run: `feed_lines`); a resume checks journaled batches against them."""
    stream_docs = _documents(input_path, input_format, options, on_error, summary, unique_ids=True)
    for batch, docs in enumerate(_batches(stream_docs, size)):
        summary.documents += len(docs)
        summary.batches += 1
        record = work.done.get(batch)
        if record is None:
            pool.submit(batch, docs)
            continue
        if record.docs != len(docs) or record.ids != docs_digest(docs):
            raise JournalError(f"batch {batch} of the work folder does not match the input; delete {work.path}")
        summary.errors.extend(pipeline_issue(docs[i], name, "skip") for i, name in record.skipped)
        summary.resumed_batches += 1
        summary.resumed_documents += len(docs)
        if stream is not None:
            pool.appended(record)
        elif pool.on_batch:
            pool.on_batch(len(docs))


def feed_lines(
    pool: BatchPool,
    work: WorkFolder,
    input_path: Path,
    options: ReadOptions,
    size: int,
    summary: ParallelRunSummary,
    on_error: OnError,
) -> None:
    """Send the workers batches of raw lines, which they parse (`radeid.run.line_batches`); what they
    read is reported in batch order as batches are appended. A resume checks journaled batches
    against the lines' digest."""
    reader = pool.reader = LineReader(input_path, size)
    pool.options, pool.mapping = options, options.label_mapping()
    for batch, lines in enumerate(reader.batches()):
        summary.batches += 1
        record = work.done.get(batch)
        if record is None:
            pool.submit_lines(batch, lines)
            continue
        if record.ids != lines_digest(lines):
            raise JournalError(f"batch {batch} of the work folder does not match the input; delete {work.path}")
        summary.resumed_batches += 1
        summary.resumed_documents += record.docs
        pool.resumed_lines(record, lines)
        pool.appended(record)
    pool.drain()
    reader.finish(summary, on_error)
