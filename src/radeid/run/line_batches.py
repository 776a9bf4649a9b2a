"""Parallel runs over a JSONL file: the coordinating process splits lines, its workers parse them.

Why: reading and parsing the input was the largest per-document cost of a parallel run's
coordinating process, which caps how many workers help (the serial fraction). For an
uncompressed JSONL input of a streamed run, the coordinator now only splits the file into
non-blank lines (`raw_lines`, C-speed) and sends each batch's bytes. The worker parses them with
the reader's own code (`radeid.io.jsonl.parse_lines`) and per-document checks
(`document_check`), de-identifies, and returns beside the serialized batch what the coordinator
needs to report exactly what a single-process run reports, in the same order (`replay`): the
read issues, and one 8-byte id hash per document for the duplicate-id check, which spans the
whole input and so stays with the coordinator.

Batches are `batch_size` non-blank lines, not documents: a bad line makes its batch one
document shorter. Output does not depend on batch boundaries (every surrogate is keyed by key,
scope and original), so it stays byte-identical to a single-process run. A batch is journaled
with a digest of its lines (`lines_digest`), which is what a resume compares with the input.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radeid.core.document import Document
from radeid.io.errors import RadeidIOError, ReadIssue
from radeid.io.formats import InputFormat, detect_format, is_gzip
from radeid.io.jsonl import parse_lines, raw_lines, stream_error_issue
from radeid.io.records import STREAM_ERRORS, ReadOptions, document_check, duplicate_issue, id_hash, no_documents_issue
from radeid.pipeline.deidentifier import Deidentifier
from radeid.run.batch import DuplicateIdError, OnError, RunSummary, deidentify_each, pipeline_issue, report_issue
from radeid.run.stream import Encoded, StreamFormat, encode_batch

__all__ = [
    "LineBatch",
    "LineOutcome",
    "LineReader",
    "lines_digest",
    "process_lines",
    "read_batch",
    "replay",
    "splits_lines",
]

#: A batch as the coordinator sends it: (line number, the line's bytes) per non-blank line.
LineBatch = list[tuple[int, bytes]]
#: What a worker read, in order: a read issue, or a kept document's id hash.
Reads = tuple["ReadIssue | int", ...]


def splits_lines(input_path: Path, input_format: InputFormat | None, stream: StreamFormat | None) -> bool:
    """Whether a parallel run of this input leaves parsing to its workers: a streamed run (no
    vault, no gzip or Parquet output) of an uncompressed JSONL file."""
    if stream is None or not input_path.is_file() or is_gzip(input_path):
        return False
    try:
        return (input_format or detect_format(input_path)) is InputFormat.JSONL
    except RadeidIOError:  # pragma: no cover - the run checked the format before
        return False


class LineReader:
    """The coordinator's reading: batches of raw lines, and what reading itself may report."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.source = str(path)
        self.size = size
        #: "cannot read the rest of the file" (an I/O error midway), reported after the last batch.
        self.tail: ReadIssue | None = None
        self.lines = 0

    def batches(self) -> Iterator[LineBatch]:
        batch: LineBatch = []
        lineno = 0
        lines = raw_lines(self.path)
        while True:
            try:
                item = next(lines, None)
            except STREAM_ERRORS as exc:
                self.tail = stream_error_issue(self.source, lineno, exc)
                break
            if item is None:
                break
            lineno = item[0]
            self.lines += 1
            batch.append(item)
            if len(batch) == self.size:
                yield batch
                batch = []
        if batch:
            yield batch

    def finish(self, summary: RunSummary, on_error: OnError) -> None:
        """After the last batch: the tail issue, or the warning of an input without a record."""
        if self.tail is not None:
            report_issue(self.tail, summary, on_error)
        elif self.lines == 0:
            summary.warnings.append(no_documents_issue(self.source))


def lines_digest(lines: LineBatch) -> str:
    """A digest of a batch's lines (numbers and bytes): journaled, compared on resume."""
    digest = hashlib.blake2b(digest_size=16)
    for lineno, raw in lines:
        digest.update(lineno.to_bytes(8, "little") + len(raw).to_bytes(8, "little"))
        digest.update(raw)
    return digest.hexdigest()


def read_batch(source: str, lines: LineBatch, options: ReadOptions, mapping: Any) -> tuple[list[Document], Reads]:
    """Parse and check a batch's lines (in the worker): its documents, and what was read, in order."""
    docs: list[Document] = []
    reads: list[ReadIssue | int] = []
    for item in parse_lines(source, lines, options, mapping):
        if isinstance(item, ReadIssue):
            reads.append(item)
            continue
        issue, keep = document_check(item, options)
        if issue is not None:
            reads.append(issue)
        if keep:
            docs.append(item)
            reads.append(id_hash(item.id))
    return docs, tuple(reads)


@dataclass(frozen=True)
class LineOutcome:
    """A worker's result for one batch of lines."""

    batch: int
    digest: str
    payload: Encoded
    stats: dict[str, int]
    #: Documents the pipeline failed on: (index among the batch's documents, exception type).
    skipped: tuple[tuple[int, str], ...]
    docs: int
    reads: Reads
    #: One issue per skipped document (`pipeline_issue`), in the same order.
    skip_issues: tuple[ReadIssue, ...] = field(default=())


def process_lines(
    deid: Deidentifier,
    stream: StreamFormat,
    encoder: Any,
    id_key: bytes | None,
    batch: int,
    source: str,
    lines: LineBatch,
    on_error: OnError,
    mapping: Any,
) -> LineOutcome:
    """Read, de-identify and serialize one batch of lines (run in a worker)."""
    docs, reads = read_batch(source, lines, stream.options, mapping)
    stats = getattr(deid.replacer, "stats", None)
    before = Counter(stats) if isinstance(stats, Counter) else Counter()
    results, failed = deidentify_each(deid, docs, on_error)
    payload = encode_batch(results, encoder, stream, id_key)
    after = Counter(stats) if isinstance(stats, Counter) else Counter()
    skipped = tuple((i, type(exc).__name__) for i, exc in failed)
    skip_issues = tuple(pipeline_issue(docs[i], name, on_error) for i, name in skipped)
    counts = {k: int(v) for k, v in (after - before).items()}
    return LineOutcome(batch, lines_digest(lines), payload, counts, skipped, len(docs), reads, skip_issues)


def replay(
    reads: Reads,
    summary: RunSummary,
    on_error: OnError,
    seen: set[int],
    document: Callable[[int], Document | None],
) -> int:
    """Report a batch's reads in order, as `batch._documents` reports them while reading (the
    coordinator, in batch order): warnings and errors to the summary, `RunAborted` at the first
    error with `on_error="fail"`, `DuplicateIdError` at an id seen before (`document(n)` gives
    the batch's n-th document, to name it). Returns the number of documents."""
    n = 0
    for item in reads:
        if isinstance(item, ReadIssue):
            report_issue(item, summary, on_error)
            continue
        if item in seen:
            doc = document(n)
            if doc is None:  # pragma: no cover - the worker and this process read the same bytes
                raise RuntimeError("a duplicate id was found but its document could not be read again")
            raise DuplicateIdError(duplicate_issue(doc))
        seen.add(item)
        summary.read += 1
        n += 1
    return n
