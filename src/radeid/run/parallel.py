"""The coordinator of a run: `run(plan)` checks, opens the work folder, feeds the chunks, commits.

`run(RunPlan(...))` does what `serial.deidentify_path` does (same reader, same writers, same
handling of bad records, reported in the same order), with these differences:

* The input is cut into chunks (`radeid.run.chunks`: raw JSONL lines the workers parse, or
  documents read here for formats that cannot be split as bytes), de-identified in `workers`
  processes that build their pipeline once (`radeid.run.pool`). At most `2 * workers` chunks are
  in flight (and as many finished ones waiting for an earlier one): memory is bounded by the
  batch size.
* Finished chunks go through one ordered sink (`radeid.run.sink`), which reports what reading
  them found, appends their bytes to the spools in input order (JSONL/CSV output and the audit,
  no vault, no gzip: `radeid.run.stream`) or notes the part the worker stored (a vault, gzip,
  Parquet, folders: `radeid.run.merge`), and journals them in the work folder beside the output
  (`radeid.run.journal`). After a crash, `resume=True` keeps every whole journaled chunk and
  continues.
* Output, audit and vault are committed as one unit (`radeid.io.commit`: stage and fsync all,
  record the renames in the work folder, rename; a resume finishes an interrupted commit). An
  input changed during the run is refused (its content digest is checked before the commit).

Because every surrogate is keyed by (key, scope, original), the output is byte-identical to a
single-process run whatever the chunk boundaries, resumed or not.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from radeid.io.commit import finish_commit, remove_temporaries, tagged_temporaries
from radeid.io.errors import InputNotFoundError, OutputExistsError
from radeid.io.paths import check_paths
from radeid.io.readers import InputFormat, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.run.batch import DuplicateIdError, RunAborted, choose_output_format, report_issue
from radeid.run.chunks import Chunk, split_input
from radeid.run.journal import COMMIT_RECORD, InputChangedError, JournalError, WorkFolder, work_folder_for
from radeid.run.merge import merge_parts
from radeid.run.plan import RunPlan
from radeid.run.pool import BatchPool, WorkerSetup
from radeid.run.sink import OrderedSink, ParallelRunSummary, PipelineFailed, drop
from radeid.run.stream import StreamFormat, commit_stream, open_stream, spooled_paths
from radeid.run.worker_start import default_workers

__all__ = [
    "ParallelRunError",
    "ParallelRunSummary",
    "RunPlan",
    "default_workers",
    "run",
    "work_folder_for",
]


class ParallelRunError(RuntimeError):
    """A worker process died; the finished batches are kept for `--resume`."""


# ------------------------------------------------------------------------------------ the runner


def _check(plan: RunPlan) -> InputFormat | None:
    """Refuse what would fail later, before any work: paths, the input's shape, the writers.
    Returns the output format."""
    if not plan.input_path.exists():
        raise InputNotFoundError(f"input not found: {plan.input_path}")
    writes = {"the output": plan.output_path, "the audit": plan.audit, "the vault": plan.vault_path}
    check_paths({"the input": plan.input_path}, writes)
    read_documents(plan.input_path, plan.input_format, plan.options)  # whole-input problems, up front
    out_fmt = choose_output_format(plan.input_path, plan.output_path, plan.input_format, plan.output_format)
    _preflight(plan.output_path, out_fmt, plan.options, plan.input_path, plan.audit, plan.vault_path)
    return out_fmt


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


def run(plan: RunPlan, on_batch: Callable[[int], None] | None = None) -> ParallelRunSummary:
    """Carry out `plan`: de-identify its input into its output (+ audit, + vault), resumably.

    With `plan.resume`, continues the interrupted run whose work folder sits beside the output; it
    raises `ResumeMismatchError` when the input, read options, batch size, pipeline or key
    differ. Without it, a leftover work folder raises `WorkFolderExistsError`. `on_batch(n)` is
    called as batches finish (and, on resume, as journaled ones are skipped). `RunAborted`, the
    summary and the vault behave as in `serial.deidentify_path`; a run stopped by a bad record
    deletes its work folder (the input must change before it can succeed). The work folder never
    holds an original PHI string.
    """
    out_fmt = _check(plan)
    stream = StreamFormat.choose(plan.output_path, out_fmt, plan.options, plan.audit, plan.vault_path)
    summary = ParallelRunSummary(workers=plan.worker_count)
    manifest = plan.manifest()
    work = WorkFolder.open(plan.output_path, manifest, resume=plan.resume, key_matches=plan.spec.key_matches)
    summary.resumed = work.resumed
    with tagged_temporaries(work.tag):  # a resume deletes only the temporaries named so
        if work.resumed and _finish_interrupted(plan, work, stream, summary):
            return summary
        _run_in(plan, work, stream, out_fmt, manifest, summary, on_batch)
    return summary


def _run_in(
    plan: RunPlan,
    work: WorkFolder,
    stream: StreamFormat | None,
    out_fmt: InputFormat | None,
    manifest: dict[str, Any],
    summary: ParallelRunSummary,
    on_batch: Callable[[int], None] | None,
) -> None:
    """The batches, then the commit (streamed, or the merge of the parts); the work folder finished."""
    spools: list[Any] = []
    try:
        if stream is not None:
            spools = open_stream(work, plan.output_path, out_fmt, plan.options, plan.input_path, plan.audit)
        _process(plan, work, stream, spools, summary, on_batch)
        if stream is not None:
            commit_stream(work, summary, spools, plan.input_path, manifest["input"])
        else:
            merge_parts(plan, work, summary, out_fmt, plan.id_key)
    except BaseException as exc:
        _stop(exc, work, spools, summary)
        raise
    work.finish()


def _finish_interrupted(
    plan: RunPlan, work: WorkFolder, stream: StreamFormat | None, summary: ParallelRunSummary
) -> bool:
    """A resume: finish the interrupted run's commit if it had begun one (True: nothing left to do),
    else remove its stray temporaries and forget what was journaled the other way."""
    try:
        done = finish_commit(work.path / COMMIT_RECORD)
        if done is None:  # a run killed mid-way left temporaries beside the outputs
            keep = (spooled_paths(work) or []) if stream is not None else []
            remove_temporaries([plan.output_path, plan.audit, plan.vault_path], work.tag, keep=keep)
    except BaseException:
        work.close()
        raise
    if done is not None:  # the interrupted run had committed: its renames are now all done
        summary.documents = int(done.get("documents", 0))
        summary.spans = int(done.get("spans", 0))
        summary.by_category.update({str(k): int(v) for k, v in dict(done.get("by_category") or {}).items()})
        summary.empty_ids.extend(str(i) for i in done.get("empty_ids") or ())
        summary.resumed_documents = summary.documents
        work.finish()
        return True
    # A batch journaled the other way (the vault or the output changed) is redone.
    work.keep_only(b for b, r in work.done.items() if bool(r.segments) == (stream is not None))
    return False


def _process(
    plan: RunPlan,
    work: WorkFolder,
    stream: StreamFormat | None,
    spools: list[Any],
    summary: ParallelRunSummary,
    on_batch: Callable[[int], None] | None,
) -> None:
    """Every chunk of the input through a worker and the ordered sink; then what reading reported
    after the last chunk. A part-stored run splits by documents: its merge checks their digests."""
    sink = OrderedSink(work, summary, plan.on_error, on_batch, spools, plan.options)
    setup = WorkerSetup(work.parts, stream, plan.options, plan.on_error, plan.id_key)
    split = split_input(plan.input_path, plan.input_format, plan.options, plan.batch_size, as_bytes=stream is not None)
    pool = BatchPool(plan.spec, setup, plan.worker_count, sink)
    failed = True
    try:
        for chunk in split.chunks():
            _feed(chunk, pool, sink, work, summary)
        pool.drain()
        failed = False
    finally:
        pool.close(failed=failed)
    for issue in split.tail:
        report_issue(issue, summary, plan.on_error)


def _feed(chunk: Chunk, pool: BatchPool, sink: OrderedSink, work: WorkFolder, summary: ParallelRunSummary) -> None:
    """One chunk to a worker, or (journaled by the interrupted run, and matching) to the sink."""
    summary.batches += 1
    record = work.done.get(chunk.batch)
    if record is None:
        pool.submit(chunk)
        return
    if record.ids != chunk.digest():
        raise JournalError(f"batch {chunk.batch} of the work folder does not match the input; delete {work.path}")
    summary.resumed_batches += 1
    summary.resumed_documents += record.docs
    pool.wait_room()
    sink.resumed(chunk)


def _stop(exc: BaseException, work: WorkFolder, spools: list[Any], summary: ParallelRunSummary) -> None:
    """A run that failed: keep what a resume can use, or drop everything; raise what the caller
    should see (`RunAborted`, `ParallelRunError`) in place of `exc`."""
    if isinstance(exc, (RunAborted, DuplicateIdError, PipelineFailed, InputChangedError)):
        drop(spools)
        work.discard()  # the input must change before the run can succeed: nothing to resume
        if isinstance(exc, PipelineFailed):
            summary.aborted = True
            summary.errors.append(exc.issue)
            raise RunAborted(exc.issue, summary) from None
        return
    kept = bool(work.done) or work.resumed
    if kept:
        for spool in spools:  # a resume continues the streamed temporaries
            with contextlib.suppress(Exception):
                spool.release()
        work.close()
    else:
        drop(spools)
        work.discard()  # nothing was finished: leave no folder that would demand --resume
    if isinstance(exc, BrokenProcessPool):
        then = f"finished batches are kept in {str(work.path)!r}: rerun with --resume" if kept else "nothing kept"
        why = "out of memory, killed, or its pipeline failed to load: see its error above"
        raise ParallelRunError(f"a worker process died ({why}); {then}") from exc
