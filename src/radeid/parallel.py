"""Parallel, resumable batch runs: a process pool over the batches of a stream.

`deidentify_path_parallel` does what `batch.deidentify_path` does (same reader, same batch
boundaries, same writers, same handling of bad records), with three differences:

* Batches run in `workers` processes, each building the pipeline once from a picklable
  `PipelineSpec` (the pool initializer). At most `2 * workers` batches are in flight, so memory is
  bounded by the batch size, not by the corpus.
* Every finished batch is stored as a part in a work folder beside the output and journaled
  (see `radeid.journal`). After a crash, `resume=True` skips the journaled batches and redoes the
  rest. Output order is input order because parts are merged by batch index, not by finishing time.
* The output, audit and vault are written at the end, in one pass over the parts, into
  temporaries, then committed as one unit (`radeid.commit`: stage and fsync all three, record the
  renames in the work folder, rename; a resume finishes an interrupted commit). The merge
  re-reads the input for each document's metadata (kept columns, folder paths), so the parts never
  hold more than the de-identified text and the replacements; each batch's content digest is
  checked against the journal, so an input changed during the run is refused.

Because every surrogate is keyed by (key, scope, original), and batches are the same as
`deidentify_path`'s, the output is byte-identical to a single-process run, resumed or not.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
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
from radeid.commit import commit_together, finish_commit, remove_temporaries
from radeid.config import ConfigError
from radeid.document import Document, Result
from radeid.io.errors import InputNotFoundError, OutputExistsError
from radeid.io.ids import pseudonymize_result
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.journal import (
    FORMAT_VERSION,
    BatchRecord,
    JournalError,
    WorkFolder,
    docs_digest,
    fingerprint_input,
    read_part,
    work_folder_for,
    write_part,
)
from radeid.paths import check_paths
from radeid.pipeline import Deidentifier
from radeid.spec import PipelineSpec, canonical
from radeid.vault import VaultWriter

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


def default_workers() -> int:
    """The cores this process may use (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------------------------ workers

_WORKER: dict[str, Any] = {}


def _watch_parent(parent: int) -> None:
    """Exit when the coordinator is gone (killed with -9, say): an orphan must not keep a model
    in memory forever, nor keep writing parts of a run that stopped."""
    while True:
        time.sleep(0.2)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(spec: PipelineSpec, parts: str, parent: int, threads: int) -> None:
    """Pool initializer: build the pipeline once per process (a model gets its share of the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="radeid-parent-watch").start()
    _WORKER["parts"] = Path(parts)
    try:
        _WORKER["deid"] = spec.with_threads(threads).build()
    except Exception as exc:  # noqa: BLE001 - raised again, with its own type, by the first batch
        _WORKER["error"] = exc  # (an initializer error would only say "the pool is broken")


def _part_name(batch: int) -> str:
    return f"{batch:012d}.jsonl"


_Outcome = tuple[int, int, str, dict[str, int], tuple[tuple[int, str], ...]]


def _process(deid: Deidentifier, parts: Path, batch: int, docs: list[Document], on_error: OnError) -> _Outcome:
    """De-identify one batch, store its part; returns (batch, part size, part SHA-256, stats,
    failed documents as (index in batch, exception type name): never the exception's message)."""
    stats = getattr(deid.replacer, "stats", None)
    before = Counter(stats) if isinstance(stats, Counter) else Counter()
    results, failed = deidentify_each(deid, docs, on_error)
    size, sha = write_part(parts / _part_name(batch), results)
    after = Counter(stats) if isinstance(stats, Counter) else Counter()
    skipped = tuple((i, type(exc).__name__) for i, exc in failed)
    return batch, size, sha, {k: int(v) for k, v in (after - before).items()}, skipped


def _run_batch(batch: int, docs: list[Document], on_error: OnError) -> _Outcome:
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _process(_WORKER["deid"], _WORKER["parts"], batch, docs, on_error)


class _PipelineFailed(Exception):
    """`--on-error fail` and the pipeline raised on a document (carried to the runner)."""

    def __init__(self, issue: ReadIssue) -> None:
        super().__init__(issue.describe())
        self.issue = issue


def _default_context() -> BaseContext:
    """"spawn": a fresh interpreter per worker, safe whatever threads the caller runs (a progress
    bar, Spark's gateway). Spawn re-imports the caller's main script, which fails for code read
    from stdin (`python - <<EOF`): there, where fork exists, fork."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.exists(path) and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


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
    """Refuse a bad output before hours of work: open the writers the merge will use, then drop them
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


def _only_documents(path: Path, fmt: InputFormat | None, options: ReadOptions) -> Iterator[Document]:
    for item in read_documents(path, fmt, options):
        if not isinstance(item, ReadIssue):
            yield item


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
        summary: RunSummary,
    ) -> None:
        self.work = work
        self.on_batch = on_batch
        self.on_error = on_error
        self.summary = summary
        self.limit = 2 * workers
        self.pending: dict[Future[_Outcome], tuple[list[Document], str]] = {}
        self.local: Deidentifier | None = None
        self.executor: ProcessPoolExecutor | None = None
        if workers == 1:
            try:
                self.local = spec.build()
            except ConfigError:
                raise
            except (ValueError, OSError) as exc:  # a rule/list file, a model: as with -w 2 (exit 2)
                raise ConfigError(str(exc)) from None
        else:
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context or _default_context(),
                initializer=_init_worker,
                initargs=(spec, str(work.parts), os.getpid(), max(1, default_workers() // workers)),
            )

    def submit(self, batch: int, docs: list[Document]) -> None:
        digest = docs_digest(docs)
        if self.local is not None:
            self._done(_process(self.local, self.work.parts, batch, docs, self.on_error), docs, digest)
            return
        assert self.executor is not None
        while len(self.pending) >= self.limit:
            self._collect(FIRST_COMPLETED)
        self.pending[self.executor.submit(_run_batch, batch, docs, self.on_error)] = (docs, digest)

    def _collect(self, how: str) -> None:
        finished, _ = wait(list(self.pending), return_when=how)
        failure: BaseException | None = None
        for future in finished:  # journal every success before raising a failure: less to redo
            docs, digest = self.pending.pop(future)
            error = future.exception()
            if error is None:
                try:
                    self._done(future.result(), docs, digest)
                except _PipelineFailed as exc:
                    failure = failure or exc
            elif failure is None:
                failure = error
        if failure is not None:
            raise failure

    def _done(self, outcome: _Outcome, docs: list[Document], digest: str) -> None:
        batch, size, sha, stats, skipped = outcome
        if skipped and self.on_error == "fail":
            index, name = skipped[0]
            raise _PipelineFailed(pipeline_issue(docs[index], name, "fail"))
        self.work.record(BatchRecord(batch, len(docs), digest, size, sha, stats, skipped))
        self.summary.errors.extend(pipeline_issue(docs[i], name, "skip") for i, name in skipped)
        if self.on_batch:
            self.on_batch(len(docs))

    def drain(self) -> None:
        while self.pending:
            self._collect(FIRST_COMPLETED)

    def close(self, *, failed: bool) -> None:
        if self.executor is not None:
            # On failure, queued batches are dropped; running ones finish (their parts become
            # orphans that a resume deletes), so no worker is killed mid-write.
            self.executor.shutdown(wait=True, cancel_futures=failed)
            self.executor = None


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
    change before it can succeed). The vault is written in the final pass, from the re-read
    originals: the work folder never holds an original PHI string.
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

    summary = ParallelRunSummary(workers=workers)
    manifest = _manifest(spec, input_path, input_format, options)
    work = WorkFolder.open(output_path, manifest, resume=resume, key_matches=spec.key_matches)
    summary.resumed = work.resumed
    if work.resumed:
        try:
            done = finish_commit(work.path / COMMIT_RECORD)
            if done is None:  # a run killed mid-merge left temporaries beside the outputs
                remove_temporaries([output_path, audit, vault_path])
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
    size = spec.config.pipeline.batch_size
    try:
        pool = _Pool(spec, work, workers, mp_context, on_batch, on_error, summary)
        failed = True
        try:
            stream = _documents(input_path, input_format, options, on_error, summary, unique_ids=True)
            for batch, docs in enumerate(_batches(stream, size)):
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
                if on_batch:
                    on_batch(len(docs))
            pool.drain()
            failed = False
        finally:
            pool.close(failed=failed)
        vault = (Path(vault_path), vault_key) if vault_path is not None and vault_key is not None else None
        id_key = spec.key if spec.config.io.pseudonymize_ids else None
        _merge(work, summary, input_path, output_path, audit, vault, input_format, out_fmt, options, size, id_key)
    except (RunAborted, DuplicateIdError):
        work.discard()  # the input must change before the run can succeed: nothing to resume
        raise
    except _PipelineFailed as exc:
        work.discard()
        summary.aborted = True
        summary.errors.append(exc.issue)
        raise RunAborted(exc.issue, summary) from None
    except BaseException as exc:
        kept = bool(work.done) or work.resumed
        if kept:
            work.close()
        else:
            work.discard()  # nothing was finished: leave no folder that would demand --resume
        if isinstance(exc, BrokenProcessPool):
            then = f"finished batches are kept in {str(work.path)!r}: rerun with --resume" if kept else "nothing kept"
            why = "out of memory, killed, or its pipeline failed to load: see its error above"
            raise ParallelRunError(f"a worker process died ({why}); {then}") from exc
        raise
    work.finish()
    return summary


COMMIT_RECORD = "commit.json"


def _merge(
    work: WorkFolder,
    summary: ParallelRunSummary,
    input_path: Path,
    output_path: Path,
    audit_path: Path,
    vault: tuple[Path, bytes] | None,
    input_format: InputFormat | None,
    out_fmt: InputFormat | None,
    options: ReadOptions,
    size: int,
    id_key: bytes | None = None,
) -> None:
    """Stream every part, in batch order, into temporaries; then commit output, audit and vault as
    one unit (`radeid.commit.commit_together`, with its record in the work folder for a resume)."""
    written = skipped = 0
    writers: list[Any] = []
    try:
        writer = open_writer(output_path, out_fmt, options, input_path=input_path)
        writers.append(writer)
        audit = AuditWriter(audit_path)
        writers.append(audit)
        vault_writer = VaultWriter(*vault) if vault is not None else None
        if vault_writer is not None:
            writers.append(vault_writer)
            vault_writer.open()
        for batch, docs in enumerate(_batches(_only_documents(input_path, input_format, options), size)):
            record = work.done.get(batch)
            if record is None:
                raise JournalError(f"batch {batch} is missing from the work folder {str(work.path)!r}; use --resume")
            parts = read_part(work.part_path(batch), record)
            changed = docs_digest(docs) != record.ids
            first, last = docs[0].id, docs[-1].id
            if record.skipped:
                gone = {i for i, _ in record.skipped}
                docs = [doc for i, doc in enumerate(docs) if i not in gone]
            if changed or [p.id for p in parts] != [d.id for d in docs]:
                raise JournalError(
                    f"the input {str(input_path)!r} changed during the run (batch {batch}, documents "
                    f"{first!r} to {last!r}, differs from what was de-identified); nothing was written. "
                    f"Rerun from the start (delete {str(work.path)!r})"
                )
            skipped += len(record.skipped)
            for doc, part in zip(docs, parts, strict=True):
                result: Result = pseudonymize_result(part.result_for(doc), id_key)
                writer.write(result)
                audit.write(result)
                if vault_writer is not None:
                    vault_writer.add(result)
                summary.spans += len(result.replacements)
                summary.by_category.update(r.span.category.value for r in result.replacements)
            summary.replacer_stats.update(record.stats)
            written += record.docs
        if written != summary.documents:  # the input changed between the two reads: commit nothing
            raise JournalError(f"read {written} documents when merging, {summary.documents} when de-identifying")
    except BaseException:
        for each in writers:
            with contextlib.suppress(Exception):
                each.abort()
        raise
    summary.documents -= skipped  # those the pipeline failed on (--on-error skip) were not written
    extra = {"documents": summary.documents, "spans": summary.spans, "by_category": dict(summary.by_category)}
    commit_together(writers, record=work.path / COMMIT_RECORD, extra=extra)
