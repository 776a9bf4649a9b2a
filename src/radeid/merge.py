"""The parts path of the parallel runner: merge every stored part, in batch order, at the end.

Used for outputs that cannot be streamed batch by batch (`radeid.stream` says which: a vault,
gzip, Parquet, folders). The merge re-reads the input for each document's metadata (kept
columns, folder paths), so the parts never hold more than the de-identified text and the
replacements; each batch's content digest is checked against the journal, so an input changed
during the run is refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from radeid.batch import _batches
from radeid.commit import commit_together
from radeid.document import Document, Result
from radeid.io.ids import pseudonymize_result
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions, read_documents
from radeid.io.writers import AuditWriter, open_writer
from radeid.journal import JournalError, WorkFolder, docs_digest, read_part
from radeid.vault import VaultWriter

__all__ = ["COMMIT_RECORD", "merge_parts"]


def _only_documents(path: Path, fmt: InputFormat | None, options: ReadOptions) -> Iterator[Document]:
    for item in read_documents(path, fmt, options):
        if not isinstance(item, ReadIssue):
            yield item


COMMIT_RECORD = "commit.json"


def merge_parts(
    work: WorkFolder,
    summary: Any,
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
