"""The run's one work item: a chunk of the input, and how each input format is split into chunks.

A chunk is what a worker gets: `parse()` gives its documents and what reading them reported, in
order (`Reads`: a read issue, or one 8-byte id hash per kept document, for the duplicate-id check
that spans the whole input and so stays with the ordered sink, `radeid.run.sink`); `digest()`
is what the journal records and what a resume compares with the input.

Two kinds, one interface:

* `LineChunk` (JSONL): `batch_size` raw non-blank lines. The coordinator only splits the file
  (C-speed, no per-document work: parsing was the largest serial cost of a parallel run); the
  worker parses the lines with the reader's own code (`radeid.io.jsonl.parse_lines`) and checks.
  A bad line makes its chunk one document shorter; output never depends on chunk boundaries.
* `DocChunk` (every other input, which cannot be split as bytes): `batch_size` documents read by
  the coordinator, with the issues read before each.

Which split an input gets is the format's, looked up in `_BYTE_SPLITS` (no format chain in the
runner). A split's `tail` holds what reading reported after the last chunk (a read error that
ended the file early, "no documents found"), reported once every chunk is.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from radeid.core.document import Document
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat, detect_format, is_gzip
from radeid.io.jsonl import parse_lines, raw_lines, stream_error_issue
from radeid.io.readers import read_documents
from radeid.io.records import STREAM_ERRORS, ReadOptions, document_check, id_hash, no_documents_issue
from radeid.run.journal import docs_digest

__all__ = ["Chunk", "DocChunk", "LineChunk", "Reads", "Split", "split_input"]

#: What reading a chunk gave, in order: a read issue, or a kept document's id hash.
Reads = tuple["ReadIssue | int", ...]
#: A JSONL chunk as the coordinator sends it: (line number, the line's bytes) per non-blank line.
Lines = tuple[tuple[int, bytes], ...]


class Chunk(Protocol):
    """A piece of the input a worker de-identifies as one batch."""

    @property
    def batch(self) -> int: ...

    def digest(self) -> str:
        """Journaled when the chunk is done; compared with the input on resume."""
        ...

    def parse(self, options: ReadOptions, mapping: Any) -> tuple[list[Document], Reads]:
        """Its documents, and what reading them reported, in input order."""
        ...


@dataclass(frozen=True)
class LineChunk:
    """Raw JSONL lines, parsed where the chunk is processed (the worker)."""

    batch: int
    source: str
    lines: Lines

    def digest(self) -> str:
        digest = hashlib.blake2b(digest_size=16)
        for lineno, raw in self.lines:
            digest.update(lineno.to_bytes(8, "little") + len(raw).to_bytes(8, "little"))
            digest.update(raw)
        return digest.hexdigest()

    def parse(self, options: ReadOptions, mapping: Any) -> tuple[list[Document], Reads]:
        docs: list[Document] = []
        reads: list[ReadIssue | int] = []
        for item in parse_lines(self.source, self.lines, options, mapping):
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
class DocChunk:
    """Documents the coordinator read (formats that cannot be split as bytes)."""

    batch: int
    docs: tuple[Document, ...]
    reads: Reads

    def digest(self) -> str:
        return docs_digest(self.docs)

    def parse(self, options: ReadOptions, mapping: Any) -> tuple[list[Document], Reads]:
        return list(self.docs), self.reads


class Split(Protocol):
    """An input cut into chunks; `tail` is complete once `chunks()` is exhausted."""

    tail: list[ReadIssue]

    def chunks(self) -> Iterator[Chunk]: ...


class LineSplit:
    """A JSONL file as chunks of raw non-blank lines."""

    def __init__(self, path: Path, size: int) -> None:
        self.path, self.source, self.size = path, str(path), size
        self.tail: list[ReadIssue] = []

    def chunks(self) -> Iterator[Chunk]:
        batch, lines, lineno, count = 0, list[tuple[int, bytes]](), 0, 0
        source = raw_lines(self.path)
        while True:
            try:
                item = next(source, None)
            except STREAM_ERRORS as exc:  # "cannot read the rest of the file", after the last chunk
                self.tail.append(stream_error_issue(self.source, lineno, exc))
                break
            if item is None:
                break
            lineno, count = item[0], count + 1
            lines.append(item)
            if len(lines) == self.size:
                yield LineChunk(batch, self.source, tuple(lines))
                batch, lines = batch + 1, []
        if lines:
            yield LineChunk(batch, self.source, tuple(lines))
        if count == 0 and not self.tail:
            self.tail.append(no_documents_issue(self.source))


class DocSplit:
    """Any input as chunks of documents read here, each with the issues read before it."""

    def __init__(self, path: Path, fmt: InputFormat | None, options: ReadOptions, size: int) -> None:
        # Duplicates are found by the sink, from the id hashes, across the whole input.
        self.path, self.fmt, self.size = path, fmt, size
        self.options = dataclasses.replace(options, warn_duplicates=False)
        self.tail: list[ReadIssue] = []

    def chunks(self) -> Iterator[Chunk]:
        batch, docs, reads = 0, list[Document](), list[ReadIssue | int]()
        for item in read_documents(self.path, self.fmt, self.options):
            if isinstance(item, ReadIssue):
                reads.append(item)
                continue
            docs.append(item)
            reads.append(id_hash(item.id))
            if len(docs) == self.size:
                yield DocChunk(batch, tuple(docs), tuple(reads))
                batch, docs, reads = batch + 1, [], []
        if docs:
            yield DocChunk(batch, tuple(docs), tuple(reads))
        else:  # no document after the last chunk: only issues
            self.tail.extend(r for r in reads if isinstance(r, ReadIssue))


#: Formats whose files can be split as bytes, each with its split (a JSONL line is a record).
_BYTE_SPLITS: dict[InputFormat, Callable[[Path, int], Split]] = {InputFormat.JSONL: LineSplit}


def split_input(path: Path, fmt: InputFormat | None, options: ReadOptions, size: int, *, as_bytes: bool) -> Split:
    """How to cut this input: as bytes when its format can be (and the run allows it: `as_bytes`)
    and it is one uncompressed file; else as documents read here (a trial run too: which lines
    are read is decided by the reader, `radeid.io.select`)."""
    if as_bytes and not options.selects and path.is_file() and not is_gzip(path):
        make = _BYTE_SPLITS.get(fmt or detect_format(path))
        if make is not None:
            return make(path, size)
    return DocSplit(path, fmt, options, size)
