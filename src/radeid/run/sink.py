"""The run's one ordered sink: finished chunks arrive in any order and are taken in input order.

Why one: whatever the input (raw JSONL lines or documents) and whatever the output (appended
bytes or stored parts), a finished chunk needs the same things done in the same order, as a
single process would do them while reading (`radeid.run.serial.deidentify_path`):

1. what reading it reported (`Reads`), to the summary: warnings, errors (`RunAborted` at the first
   with `on_error="fail"`), `DuplicateIdError` at an id seen in an earlier document;
2. a document the pipeline failed on: `PipelineFailed` with "fail", an error in the summary with
   "skip";
3. its bytes appended to each spool (output, audit: `radeid.run.stream`), or nothing when the
   worker stored a part (`radeid.run.merge`), then one journal line (`radeid.run.journal`);
4. its counts into the summary, and `on_batch`.

A chunk skipped on resume goes through the same steps but 3 (it is journaled already): what it
read is read again here. Chunks finished early wait (`held`, which the pool bounds).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from radeid.core.document import Document
from radeid.io.commit import commit_together
from radeid.io.errors import ReadIssue
from radeid.io.records import ReadOptions, duplicate_issue
from radeid.run.batch import DuplicateIdError, OnError, RunSummary, pipeline_issue, report_issue
from radeid.run.chunks import Chunk, Reads
from radeid.run.journal import COMMIT_RECORD, BatchRecord, WorkFolder

__all__ = ["OrderedSink", "Outcome", "ParallelRunSummary", "PipelineFailed", "Spool", "commit_outputs", "drop"]


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


class PipelineFailed(Exception):
    """`--on-error fail` and the pipeline raised on a document (carried to the runner)."""

    def __init__(self, issue: ReadIssue) -> None:
        super().__init__(issue.describe())
        self.issue = issue


@dataclass(frozen=True)
class Outcome:
    """A worker's result for one chunk: counts, issues and bytes, never an exception's message."""

    batch: int
    digest: str
    #: Documents the chunk held (those the pipeline failed on included).
    docs: int
    reads: Reads
    stats: dict[str, int]
    #: Documents the pipeline failed on: (index among the chunk's documents, exception type).
    skipped: tuple[tuple[int, str], ...]
    #: One issue per skipped document (`batch.pipeline_issue`), in the same order.
    skip_issues: tuple[ReadIssue, ...]
    categories: dict[str, int]
    #: Ids (as written) of the documents with no replacement.
    empty: tuple[str, ...] = ()
    #: Streamed: the bytes to append to each spool, and (size, SHA-256) of each.
    data: tuple[bytes, ...] = ()
    segments: tuple[tuple[int, str], ...] = ()
    #: Stored as a part: its (size, SHA-256).
    part: tuple[int, str] = (0, "")

    def record(self) -> BatchRecord:
        """The journal line of this chunk."""
        size, sha = self.part
        return BatchRecord(
            self.batch,
            self.docs,
            self.digest,
            size,
            sha,
            self.stats,
            self.skipped,
            self.segments,
            self.categories,
            self.empty,
        )


class Spool(Protocol):
    """A temporary the sink appends to (`radeid.io.atomic`'s `append`)."""

    def append(self, data: bytes) -> int: ...


class OrderedSink:
    """Takes finished chunks in input order: reports, appends, journals, counts (see the module)."""

    def __init__(
        self,
        work: WorkFolder,
        summary: ParallelRunSummary,
        on_error: OnError,
        on_batch: Callable[[int], None] | None,
        spools: Sequence[Spool],
        options: ReadOptions,
    ) -> None:
        self.work, self.summary, self.on_error, self.on_batch = work, summary, on_error, on_batch
        self.spools = spools
        self.options = options
        self.mapping: Any = None  # the label map, loaded on the first chunk read here
        self.mapped = False
        self.next = 0
        self.waiting: dict[int, tuple[Chunk, Outcome | None]] = {}
        self.seen: set[int] = set()  # id hashes of every document taken so far

    @property
    def held(self) -> int:
        """Chunks finished but waiting for an earlier one."""
        return len(self.waiting)

    def finished(self, chunk: Chunk, outcome: Outcome) -> None:
        self.waiting[chunk.batch] = (chunk, outcome)
        self._flush()

    def resumed(self, chunk: Chunk) -> None:
        """A chunk the work folder has journaled already (a resume)."""
        self.waiting[chunk.batch] = (chunk, None)
        self._flush()

    def _flush(self) -> None:
        while self.next in self.waiting:
            chunk, outcome = self.waiting.pop(self.next)
            if outcome is None:
                self._take_resumed(chunk)
            else:
                self._take(chunk, outcome)
            self.next += 1

    def _take(self, chunk: Chunk, outcome: Outcome) -> None:
        self._replay(chunk, outcome.reads, None)
        if outcome.skipped and self.on_error == "fail":
            raise PipelineFailed(outcome.skip_issues[0])
        self.summary.errors.extend(outcome.skip_issues)
        for spool, data in zip(self.spools, outcome.data, strict=True):
            spool.append(data)
        record = outcome.record()
        self.work.record(record)
        self._count(record)

    def _take_resumed(self, chunk: Chunk) -> None:
        record = self.work.done[chunk.batch]
        docs, reads = self._parse(chunk)
        self._replay(chunk, reads, docs)
        self.summary.errors.extend(pipeline_issue(docs[i], name, "skip") for i, name in record.skipped)
        self._count(record)

    def _parse(self, chunk: Chunk) -> tuple[list[Document], Reads]:
        """Read a chunk here: only on resume, or to name a duplicate id."""
        if not self.mapped:
            self.mapping, self.mapped = self.options.label_mapping(), True
        return chunk.parse(self.options, self.mapping)

    def _replay(self, chunk: Chunk, reads: Reads, docs: list[Document] | None) -> None:
        """Report a chunk's reads in order, as a single process reports them while reading."""
        n = 0
        for item in reads:
            if isinstance(item, ReadIssue):
                report_issue(item, self.summary, self.on_error)
                continue
            if item in self.seen:
                found = docs if docs is not None else self._parse(chunk)[0]
                raise DuplicateIdError(duplicate_issue(found[n]))
            self.seen.add(item)
            self.summary.read += 1
            n += 1

    def _count(self, record: BatchRecord) -> None:
        summary = self.summary
        summary.documents += record.docs
        summary.spans += sum(record.categories.values())
        summary.by_category.update(record.categories)
        summary.replacer_stats.update(record.stats)
        summary.empty_ids.extend(record.empty)
        if self.on_batch:
            self.on_batch(record.docs)


def commit_outputs(work: WorkFolder, summary: RunSummary, writers: Sequence[Any]) -> None:
    """Every chunk is in the writers: commit output, audit (and vault) as one unit, with the record
    a resume replays (`radeid.io.commit`). Documents the pipeline failed on (`--on-error skip`)
    were not written: they leave the count here, once, whichever way the outputs were filled."""
    summary.documents -= sum(len(r.skipped) for r in work.done.values())
    extra = {
        "documents": summary.documents,
        "spans": summary.spans,
        "by_category": dict(summary.by_category),
        "empty_ids": list(summary.empty_ids),
    }
    commit_together(list(writers), record=work.path / COMMIT_RECORD, extra=extra)


def drop(writers: Sequence[Any]) -> None:
    """Abort every writer (their temporaries go): the run cannot be resumed."""
    for writer in writers:
        with contextlib.suppress(Exception):
            writer.abort()
