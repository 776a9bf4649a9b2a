"""Parallel, resumable batch runs: a process pool over the batches of a stream.

`deidentify_path_parallel` does what `batch.deidentify_path` does (same reader, same batch
boundaries, same writers, same handling of bad records), with three differences:

* Batches run in `workers` processes, each building the pipeline once from a picklable
  `PipelineSpec` (the pool initializer). At most `2 * workers` batches are in flight (and as many
  finished ones waiting for an earlier one), so memory is bounded by the batch size.
* Results go to the output in input order as they arrive (`radeid.stream`), for JSONL/CSV output
  with the audit and no vault: each worker serializes its batch (output rows, kept columns,
  audit lines); this process appends the bytes to the temporaries in batch order and journals
  each batch's byte counts and hashes in a work folder beside the output (`radeid.journal`).
  After a crash, `resume=True` cuts the temporaries back to the last whole journaled batch and
  continues. Other outputs (a vault, gzip, Parquet, folders) store every batch as a part and
  merge the parts at the end (`radeid.merge`).
* Output, audit and vault are committed as one unit (`radeid.commit`: stage and fsync all,
  record the renames in the work folder, rename; a resume finishes an interrupted commit). An
  input changed during the run is refused (its content digest is checked before the commit).

Because every surrogate is keyed by (key, scope, original), and batches are the same as
`deidentify_path`'s, the output is byte-identical to a single-process run, resumed or not.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from radeid.batch import (
    DuplicateIdError,
    OnError,
    RunAborted,
    RunSummary,
    _batches,
    _documents,
    choose_output_format,
    default_audit_path,
    deidentify_each,
    pipeline_issue,
)
from radeid.commit import finish_commit, remove_temporaries
from radeid.config import ConfigError
from radeid.document import Document
from radeid.io.errors import InputNotFoundError, OutputExistsError
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.journal import (
    FORMAT_VERSION,
    BatchRecord,
    JournalError,
    WorkFolder,
    docs_digest,
    fingerprint_input,
    work_folder_for,
)
from radeid.merge import COMMIT_RECORD, merge_parts, write_part
from radeid.paths import check_paths
from radeid.pipeline import Deidentifier
from radeid.spec import PipelineSpec, canonical
from radeid.stream import (
    Encoded,
    StreamFormat,
    StreamSink,
    commit_stream,
    drop,
    encode_batch,
    open_stream,
    spooled_paths,
)
from radeid.worker_start import default_context, default_workers, fewer_collections, watch_coordinator

__all__ = [
    "ParallelRunError",
    "ParallelRunSummary",
    "default_workers",
    "deidentify_path_parallel",
    "work_folder_for",
]


class ParallelRunError(RuntimeError):
    """A worker process died; the finished batches are kept for `--resume`."""


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
    _WORKER["target"] = _Target(Path(parts), stream, _id_key(spec))
    try:
        _WORKER["deid"] = spec.with_threads(threads).build()
    except (ValueError, OSError) as exc:  # a rule/list file, a model: as with one process (exit 2)
        _WORKER["error"] = ConfigError(str(exc))
    except Exception as exc:  # noqa: BLE001 - raised again, with its own type, by the first batch
        _WORKER["error"] = exc  # (an initializer error would only say "the pool is broken")


@dataclass
class _Target:
    """Where a worker's batches go: a part file each, or (streaming) serialized bytes returned to
    the coordinator (`radeid.stream`). Built in each process: an encoder is a closure."""

    parts: Path
    stream: StreamFormat | None
    id_key: bytes | None
    encoder: Any = None

    def __post_init__(self) -> None:
        if self.stream is not None:
            self.encoder = self.stream.encoder()


def _id_key(spec: PipelineSpec) -> bytes | None:
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


class _PipelineFailed(Exception):
    """`--on-error fail` and the pipeline raised on a document (carried to the runner)."""

    def __init__(self, issue: ReadIssue) -> None:
        super().__init__(issue.describe())
        self.issue = issue


# ------------------------------------------------------------------------------------ the runner


def _manifest(spec: PipelineSpec, input_path: Path, input_format: InputFormat | None, options: ReadOptions) -> dict:
    return {
        "format": FORMAT_VERSION,
        "input": fingerprint_input(input_path),
        "read": {"format": input_format.value if input_format else None, "options": canonical(options)},
        "batch_size": spec.config.pipeline.batch_size,
        "pipeline": spec.fingerprint(),
        "key": spec.key_check(),
    }


def _preflight(
    output: Path, out_fmt: InputFormat | None, options: ReadOptions, input_path: Path, audit: Path, vault: Path | None
) -> None:
    """Refuse a bad output before hours of work: open the writers the run will use, then drop them
    (the vault: a temporary file where its own will go)."""
    open_writer(output, out_fmt, options, input_path=input_path).abort()
    AuditWriter(audit).abort()
    if vault is not None:
        if vault.is_dir():
            raise OutputExistsError(f"the vault path {str(vault)!r} is a folder; the vault is a file")
        try:
            vault.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=vault.parent, prefix=f".{vault.name}.", suffix=".tmp")
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write the vault ({exc.strerror})", str(vault)) from None
        os.close(fd)
        os.unlink(tmp)


class _Pool:
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
        self.pending: dict[Future[_Outcome], list[Document]] = {}
        self.local: Deidentifier | None = None
        self.target: _Target | None = None
        self.executor: ProcessPoolExecutor | None = None
        self.sink: StreamSink | None = None
        if workers == 1:
            try:
                self.local = spec.build()
            except ConfigError:
                raise
            except (ValueError, OSError) as exc:  # a rule/list file, a model: as with -w 2 (exit 2)
                raise ConfigError(str(exc)) from None
            self.target = _Target(work.parts, stream, _id_key(spec))
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
                except _PipelineFailed as exc:
                    failure = failure or exc
            elif failure is None:
                failure = error
        if failure is not None:
            raise failure

    def _done(self, outcome: _Outcome, docs: list[Document]) -> None:
        batch, digest, payload, stats, skipped = outcome
        if skipped and self.on_error == "fail":
            index, name = skipped[0]
            raise _PipelineFailed(pipeline_issue(docs[index], name, "fail"))
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

    def appended(self, record: BatchRecord) -> None:
        """A streamed batch is in the output (or was, before a resume): count it."""
        _count_streamed(self.summary, record)
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


def _count_streamed(summary: ParallelRunSummary, record: BatchRecord) -> None:
    summary.spans += sum(record.categories.values())
    summary.by_category.update(record.categories)
    summary.replacer_stats.update(record.stats)


def deidentify_path_parallel(
    spec: PipelineSpec,
    input_path: Path,
    output_path: Path,
    *,
    workers: int | None = None,
    resume: bool = False,
    input_format: InputFormat | None = None,
    output_format: InputFormat | None = None,
    options: ReadOptions | None = None,
    audit_path: Path | None = None,
    vault_path: Path | None = None,
    vault_key: bytes | None = None,
    on_error: OnError = "fail",
    on_batch: Callable[[int], None] | None = None,
    mp_context: BaseContext | None = None,
) -> ParallelRunSummary:
    """De-identify `input_path` into `output_path` (+ audit) with `workers` processes, resumably.

    `workers=None` uses every core this process may run on. `resume=True` continues the
    interrupted run whose work folder sits beside the output (or starts one when there is none);
    it raises `ResumeMismatchError` when the input, read options, batch size, pipeline or key
    differ. Without `resume`, a leftover work folder raises `WorkFolderExistsError`.
    `on_batch(n)` is called as batches finish (and, on resume, as journaled ones are skipped).
    `on_error`, `RunAborted`, the summary and the vault (`vault_path` + `vault_key`) behave as in
    `batch.deidentify_path`; a run stopped by a bad record deletes its work folder (the input must
    change before it can succeed). With a vault, batches are stored as parts and the vault is
    written in the final pass, from the re-read originals: the work folder never holds an
    original PHI string.
    """
    input_path, output_path = Path(input_path), Path(output_path)
    options = options or ReadOptions()
    workers = workers or default_workers()
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if vault_path is not None and vault_key is None:
        raise ValueError("a vault needs a key")
    audit = Path(audit_path) if audit_path is not None else default_audit_path(output_path)
    if not input_path.exists():
        raise InputNotFoundError(f"input not found: {input_path}")
    check_paths({"the input": input_path}, {"the output": output_path, "the audit": audit, "the vault": vault_path})
    read_documents(input_path, input_format, options)  # whole-input problems are raised here, up front
    out_fmt = choose_output_format(input_path, output_path, input_format, output_format)
    _preflight(output_path, out_fmt, options, input_path, audit, Path(vault_path) if vault_path else None)

    vault_file = Path(vault_path) if vault_path is not None else None
    stream = StreamFormat.choose(output_path, out_fmt, options, audit, vault_file)
    summary = ParallelRunSummary(workers=workers)
    manifest = _manifest(spec, input_path, input_format, options)
    work = WorkFolder.open(output_path, manifest, resume=resume, key_matches=spec.key_matches)
    summary.resumed = work.resumed
    if work.resumed:
        try:
            done = finish_commit(work.path / COMMIT_RECORD)
            if done is None:  # a run killed mid-way left temporaries beside the outputs
                keep = (spooled_paths(work) or []) if stream is not None else []
                remove_temporaries([output_path, audit, vault_path], keep=keep)
        except BaseException:
            work.close()
            raise
        if done is not None:  # the interrupted run had committed: its renames are now all done
            summary.documents = int(done.get("documents", 0))
            summary.spans = int(done.get("spans", 0))
            summary.by_category.update({str(k): int(v) for k, v in dict(done.get("by_category") or {}).items()})
            summary.resumed_documents = summary.documents
            work.finish()
            return summary
        # A batch journaled the other way (the vault or the output changed) is redone.
        work.keep_only(b for b, r in work.done.items() if bool(r.segments) == (stream is not None))
    size = spec.config.pipeline.batch_size
    writers: list[Any] = []
    try:
        pool = _Pool(spec, work, workers, mp_context, on_batch, on_error, summary, stream)
        failed = True
        try:
            if stream is not None:
                writers = open_stream(work, output_path, out_fmt, options, input_path, audit)
                pool.sink = StreamSink(work, writers, len(work.done), pool.appended)
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
                elif on_batch:
                    on_batch(len(docs))
            pool.drain()
            failed = False
        finally:
            pool.close(failed=failed)
        if stream is not None:
            commit_stream(work, summary, writers, input_path, manifest["input"])
        else:
            vault = (vault_file, vault_key) if vault_file is not None and vault_key is not None else None
            id_key = _id_key(spec)
            merge_parts(
                work, summary, input_path, output_path, audit, vault, input_format, out_fmt, options, size, id_key
            )
    except (RunAborted, DuplicateIdError):
        drop(writers)
        work.discard()  # the input must change before the run can succeed: nothing to resume
        raise
    except _PipelineFailed as exc:
        drop(writers)
        work.discard()
        summary.aborted = True
        summary.errors.append(exc.issue)
        raise RunAborted(exc.issue, summary) from None
    except BaseException as exc:
        kept = bool(work.done) or work.resumed
        if kept:
            for writer in writers:  # a resume continues the streamed temporaries
                with contextlib.suppress(Exception):
                    writer.release()
            work.close()
        else:
            drop(writers)
            work.discard()  # nothing was finished: leave no folder that would demand --resume
        if isinstance(exc, BrokenProcessPool):
            then = f"finished batches are kept in {str(work.path)!r}: rerun with --resume" if kept else "nothing kept"
            why = "out of memory, killed, or its pipeline failed to load: see its error above"
            raise ParallelRunError(f"a worker process died ({why}); {then}") from exc
        raise
    work.finish()
    return summary
