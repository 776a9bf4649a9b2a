"""Parallel, resumable batch runs: a process pool over the batches of a stream.

`run(RunPlan(...))` does what `batch.deidentify_path` does (same reader, same writers,
same handling of bad records, reported in the same order), with these differences:

* Batches run in `workers` processes, each building the pipeline once from a picklable
  `PipelineSpec` (the pool initializer; `radeid.run.pool`). At most `2 * workers` batches are in
  flight (and as many finished ones waiting for an earlier one), so memory is bounded by the
  batch size.
* Results go to the output in input order as they arrive (`radeid.run.stream`), for JSONL/CSV output
  with the audit and no vault: each worker serializes its batch (output rows, kept columns,
  audit lines); this process appends the bytes to the temporaries in batch order and journals
  each batch's byte counts and hashes in a work folder beside the output (`radeid.run.journal`).
  After a crash, `resume=True` cuts the temporaries back to the last whole journaled batch and
  continues. Other outputs (a vault, gzip, Parquet, folders) store every batch as a part and
  merge the parts at the end (`radeid.run.merge`).
* For such a streamed run of an uncompressed JSONL input, the workers read too: this process
  only splits the file into batches of non-blank lines, and each worker parses its own
  (`radeid.run.line_batches`), so this process does no per-document work beyond moving bytes.
  Other inputs are read here and sent as documents.
* Output, audit and vault are committed as one unit (`radeid.io.commit`: stage and fsync all,
  record the renames in the work folder, rename; a resume finishes an interrupted commit). An
  input changed during the run is refused (its content digest is checked before the commit).

Because every surrogate is keyed by (key, scope, original), the output is byte-identical to a
single-process run whatever the batch boundaries, resumed or not.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from radeid.io.commit import finish_commit, remove_temporaries
from radeid.io.errors import InputNotFoundError, OutputExistsError
from radeid.io.paths import check_paths
from radeid.io.readers import InputFormat, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.run.batch import (
    DuplicateIdError,
    RunAborted,
    choose_output_format,
)
from radeid.run.journal import WorkFolder, work_folder_for
from radeid.run.line_batches import (
    splits_lines,
)
from radeid.run.merge import COMMIT_RECORD, merge_parts
from radeid.run.plan import RunPlan
from radeid.run.pool import BatchPool, ParallelRunSummary, PipelineFailed, feed_documents, feed_lines, id_key_for
from radeid.run.stream import (
    StreamFormat,
    StreamSink,
    commit_stream,
    drop,
    open_stream,
    spooled_paths,
)
from radeid.run.worker_start import default_workers

__all__ = [
    "ParallelRunError",
    "ParallelRunSummary",
    "default_workers",
    "RunPlan",
    "run",
    "work_folder_for",
]


class ParallelRunError(RuntimeError):
    """A worker process died; the finished batches are kept for `--resume`."""


# ------------------------------------------------------------------------------------ the runner


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
    summary and the vault behave as in `batch.deidentify_path`; a run stopped by a bad record
    deletes its work folder (the input must change before it can succeed). The work folder never
    holds an original PHI string.
    """
    spec, input_path, output_path = plan.spec, plan.input_path, plan.output_path
    input_format, options, on_error = plan.input_format, plan.options, plan.on_error
    workers, resume, audit = plan.worker_count, plan.resume, plan.audit
    vault_path = plan.vault_path
    if not input_path.exists():
        raise InputNotFoundError(f"input not found: {input_path}")
    check_paths({"the input": input_path}, {"the output": output_path, "the audit": audit, "the vault": vault_path})
    read_documents(input_path, input_format, options)  # whole-input problems are raised here, up front
    out_fmt = choose_output_format(input_path, output_path, input_format, plan.output_format)
    _preflight(output_path, out_fmt, options, input_path, audit, vault_path)

    stream = StreamFormat.choose(output_path, out_fmt, options, audit, vault_path)
    summary = ParallelRunSummary(workers=workers)
    manifest = plan.manifest()
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
        pool = BatchPool(spec, work, workers, None, on_batch, on_error, summary, stream)
        failed = True
        try:
            if stream is not None:
                writers = open_stream(work, output_path, out_fmt, options, input_path, audit)
                pool.sink = StreamSink(work, writers, len(work.done), pool.appended)
            if splits_lines(input_path, input_format, stream):
                feed_lines(pool, work, input_path, options, size, summary, on_error)
            else:
                feed_documents(pool, work, input_path, input_format, options, size, summary, on_error, stream)
            pool.drain()
            failed = False
        finally:
            pool.close(failed=failed)
        if stream is not None:
            commit_stream(work, summary, writers, input_path, manifest["input"])
        else:
            id_key = id_key_for(spec)
            merge_parts(
                work, summary, input_path, output_path, audit, plan.vault, input_format, out_fmt, options, size, id_key
            )
    except (RunAborted, DuplicateIdError):
        drop(writers)
        work.discard()  # the input must change before the run can succeed: nothing to resume
        raise
    except PipelineFailed as exc:
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
