"""The parts path of the parallel runner: merge every stored part, in batch order, at the end.

Used for outputs that cannot be streamed batch by batch (`radeid.run.stream` says which: a vault,
gzip, Parquet, folders). The merge re-reads the input for each document's metadata (kept
columns, folder paths), so the parts never hold more than the de-identified text and the
replacements; each batch's content digest is checked against the journal, so an input changed
during the run is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.ids import pseudonymize_result
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.run.batch import RunSummary, _batches
from radeid.run.journal import BatchRecord, InputChangedError, JournalError, WorkFolder, docs_digest
from radeid.run.plan import RunPlan
from radeid.run.sink import commit_outputs, drop
from radeid.secure.vault import VaultWriter

__all__ = ["PartDocument", "merge_parts", "read_part", "write_part"]


# ------------------------------------------------------------------------------------ parts


@dataclass(frozen=True)
class PartDocument:
    """What a part keeps of one `Result`: id, output text, replacements."""

    id: str
    text: str
    replacements: tuple[Replacement, ...]

    def result_for(self, document: Any) -> Result:
        """The `Result` as the pipeline made it, around the document re-read from the input."""
        return Result(document, self.text, self.replacements)


def _encode(result: Result) -> str:
    reps = []
    for rep in result.replacements:
        s = rep.span
        row: list[Any] = [s.start, s.end, s.category.value, s.subtype, s.score, s.source, rep.new_text]
        if rep.kind is not None:
            row.append(rep.kind)
        reps.append(row)
    return json.dumps({"id": result.document.id, "text": result.text, "r": reps}, ensure_ascii=False) + "\n"


_CATEGORIES = {c.value: c for c in Category}


def _decode(line: str) -> PartDocument:
    data = json.loads(line)
    reps: list[Replacement] = []
    for row in data["r"]:
        span = Span(int(row[0]), int(row[1]), _CATEGORIES[row[2]], row[3], float(row[4]), str(row[5]))
        reps.append(Replacement(span, row[6], row[7] if len(row) > 7 else None))
    return PartDocument(str(data["id"]), str(data["text"]), tuple(reps))


def write_part(path: Path, results: Sequence[Result]) -> tuple[int, str]:
    """Write a batch's results atomically (temp + rename); returns (size, sha256).

    No fsync here: a killed process loses nothing the kernel already has, and after a power
    loss a part that did not reach the disk fails its journaled SHA-256 and is simply redone.
    """
    data = "".join(_encode(r) for r in results).encode("utf-8", "surrogatepass")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)
    return len(data), hashlib.sha256(data).hexdigest()


def read_part(path: Path, record: BatchRecord) -> list[PartDocument]:
    """The documents of a part, after checking it is the one the journal recorded."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JournalError(f"cannot read part {path.name} of the work folder: {exc.strerror or exc}") from None
    if len(data) != record.size or hashlib.sha256(data).hexdigest() != record.sha256:
        raise JournalError(
            f"part {path.name} of the work folder {str(path.parent.parent)!r} changed after it was written; "
            "rerun with --resume to redo it"
        )
    # Split on "\n" only: the text may hold U+2028, U+2029 or U+0085, which `splitlines()` splits on.
    lines = data.decode("utf-8", "surrogatepass").split("\n")
    docs = [_decode(line) for line in lines if line]
    if len(docs) != record.docs - len(record.skipped):
        raise JournalError(f"part {path.name} holds {len(docs)} documents, the journal says {record.docs}")
    return docs


# ------------------------------------------------------------------------------------ the merge


def _only_documents(path: Path, fmt: InputFormat | None, options: ReadOptions) -> Iterator[Document]:
    for item in read_documents(path, fmt, options):
        if not isinstance(item, ReadIssue):
            yield item


def merge_parts(
    plan: RunPlan, work: WorkFolder, summary: RunSummary, out_fmt: InputFormat | None, id_key: bytes | None
) -> None:
    """Stream every part, in batch order, into temporaries; then commit output, audit and vault as
    one unit (`radeid.io.commit.commit_together`, with its record in the work folder for a resume).
    The sink counted every batch already (documents, spans): this checks the input read again
    gives the same documents."""
    input_path, size = plan.input_path, plan.batch_size
    written = 0
    writers: list[Any] = []
    try:
        writer = open_writer(plan.output_path, out_fmt, plan.options, input_path=input_path)
        writers.append(writer)
        audit = AuditWriter(plan.audit)
        writers.append(audit)
        vault_writer = VaultWriter(*plan.vault) if plan.vault is not None else None
        if vault_writer is not None:
            writers.append(vault_writer)
            vault_writer.open()
        for batch, docs in enumerate(_batches(_only_documents(input_path, plan.input_format, plan.options), size)):
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
                raise InputChangedError(
                    f"the input {str(input_path)!r} changed during the run (batch {batch}, documents "
                    f"{first!r} to {last!r}, differs from what was de-identified); nothing was written or kept. "
                    "Rerun it"
                )
            for doc, part in zip(docs, parts, strict=True):
                result: Result = pseudonymize_result(part.result_for(doc), id_key)
                writer.write(result)
                audit.write(result)
                if vault_writer is not None:
                    vault_writer.add(result)
            written += record.docs
        if written != summary.documents:  # the input changed between the two reads: commit nothing
            raise InputChangedError(
                f"the input {str(input_path)!r} changed during the run: read {written} documents when merging, "
                f"{summary.documents} when de-identifying; nothing was written or kept. Rerun it"
            )
    except BaseException:
        drop(writers)
        raise
    commit_outputs(work, summary, writers)
