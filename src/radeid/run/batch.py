"""Run a whole job: read a corpus, de-identify it in batches, write output and audit atomically.

A bad record is reported by the reader as a `ReadIssue` (file, line, document id, reason; never
text). With `on_error="fail"` (the default) the first error stops the run and nothing is put in
place of the output; with `"skip"` the record is left out, counted and listed in the summary, and
every other document is written. Warnings (an empty document, say) never stop a run.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Literal

from radeid.core.document import Document, Result
from radeid.io.errors import RadeidIOError
from radeid.io.formats import FOLDER_FORMATS, detect_format, format_from_suffix
from radeid.io.ids import pseudonymize_id
from radeid.io.readers import InputFormat, ReadIssue, ReadOptions, read_documents
from radeid.io.writers import open_writer, write_spans_jsonl
from radeid.pipeline.deidentifier import Deidentifier
from radeid.secure.vault import VaultMismatchError, VaultMissingError, VaultRow, reidentify_text, text_digest

OnError = Literal["fail", "skip"]


@dataclass
class RunSummary:
    """What a run did, in counts and issue descriptions only (no document text)."""

    documents: int = 0
    spans: int = 0
    by_category: Counter[str] = field(default_factory=Counter)
    errors: list[ReadIssue] = field(default_factory=list)
    warnings: list[ReadIssue] = field(default_factory=list)
    aborted: bool = False
    #: Valid documents read so far (`documents` counts those de-identified, batch by batch).
    read: int = 0
    #: Ids (as written: pseudonyms when asked for) of the documents with no replacement, in order.
    empty_ids: list[str] = field(default_factory=list)


class DuplicateIdError(RadeidIOError):
    """Two documents share an id: the vault, the audit and re-identification join on ids, so a run
    that writes them refuses duplicates (a usage error: the input must be fixed)."""

    def __init__(self, issue: ReadIssue) -> None:
        super().__init__(
            f"{issue.describe().removesuffix(': duplicate document id; ids should be unique')}: duplicate document "
            f"id {issue.doc_id!r}; de-identification needs unique ids (the audit, the vault and re-identification "
            "join on them). Make the ids unique; nothing was written"
        )
        self.issue = issue


class RunAborted(RuntimeError):
    """Raised when `on_error="fail"` meets a bad record; carries the summary so far."""

    def __init__(self, issue: ReadIssue, summary: RunSummary) -> None:
        super().__init__(issue.describe())
        self.issue = issue
        self.summary = summary


def default_audit_path(output: Path) -> Path:
    """`out/` -> `out.audit.jsonl`, `out.jsonl` -> `out.jsonl.audit.jsonl`, beside the output."""
    output = Path(output)
    return output.with_name(output.name + ".audit.jsonl")


def choose_output_format(
    input_path: Path, output_path: Path, input_format: InputFormat | None, output_format: InputFormat | None
) -> InputFormat | None:
    """The asked-for format; else what the output's suffix says; else a folder input's own format.

    `None` lets the writer decide from the output name (no suffix means a folder of .txt files).
    """
    if output_format is not None:
        return output_format
    if Path(output_path).suffix.lower() in (".json", ".ndjson") and _is_fhir(input_path, input_format):
        return InputFormat.FHIR  # FHIR in, FHIR out (a bulk export's `.ndjson` is not JSONL)
    if format_from_suffix(Path(output_path)) is not None:
        return None
    source = input_format or detect_format(input_path)
    if source is InputFormat.FHIR and Path(input_path).is_dir():
        return source  # a folder of FHIR files in, a folder of them out
    return source if source in FOLDER_FORMATS else None


def _is_fhir(input_path: Path, input_format: InputFormat | None) -> bool:
    try:
        return (input_format or detect_format(input_path)) is InputFormat.FHIR
    except RadeidIOError:
        return False


def _documents(
    path: Path,
    fmt: InputFormat | None,
    options: ReadOptions,
    on_error: OnError,
    summary: RunSummary,
    *,
    unique_ids: bool = False,
) -> Iterator[Document]:
    """The documents of `path`; issues go to `summary`. `unique_ids`: a duplicate id raises
    `DuplicateIdError` (checked in memory: 8 bytes of hash per document, about 90 bytes with the set)."""
    if unique_ids and not options.warn_duplicates:
        options = dataclasses.replace(options, warn_duplicates=True)
    for item in read_documents(path, fmt, options):
        if isinstance(item, ReadIssue):
            if unique_ids and item.code == "duplicate-id":
                raise DuplicateIdError(item)
            report_issue(item, summary, on_error)
            continue
        summary.read += 1
        yield item


def report_issue(issue: ReadIssue, summary: RunSummary, on_error: OnError) -> None:
    """A read issue into the summary: a warning, or an error that stops a run with `on_error="fail"`."""
    if issue.severity == "warning":
        summary.warnings.append(issue)
        return
    summary.errors.append(issue)
    if on_error == "fail":
        summary.aborted = True
        raise RunAborted(issue, summary)


def pipeline_issue(doc: Document, error_type: str, on_error: OnError) -> ReadIssue:
    """An error of the pipeline on one document: where it is, its id and the exception *type* only
    (an exception's message or traceback may quote the text)."""
    then = "; skipped" if on_error == "skip" else ""
    reason = f"the pipeline failed on this document ({error_type}){then}"
    return ReadIssue.at(doc.id, doc.metadata, reason, "error", code="pipeline")


def deidentify_each(
    deidentifier: Deidentifier, docs: Sequence[Document], on_error: OnError
) -> tuple[list[Result], list[tuple[int, BaseException]]]:
    """De-identify a batch; when it raises, retry document by document to find the culprit(s).

    Returns the results of the documents that succeeded and `(index in batch, exception)` for
    those that failed (with `on_error="fail"`, stops at the first). Every random choice is keyed,
    so a document gives the same result alone as in its batch.
    """
    try:
        return deidentifier.deidentify(docs), []
    except Exception:  # noqa: BLE001 - found again, per document, below
        pass
    results: list[Result] = []
    failed: list[tuple[int, BaseException]] = []
    for i, doc in enumerate(docs):
        try:
            results.extend(deidentifier.deidentify([doc]))
        except Exception as exc:  # noqa: BLE001 - reported by id and type, never by message
            failed.append((i, exc))
            if on_error == "fail":
                break
    return results, failed


def _batches(docs: Iterator[Document], size: int) -> Iterator[list[Document]]:
    while batch := list(islice(docs, size)):
        yield batch


def detect_path(
    deidentifier: Deidentifier,
    input_path: Path,
    output_path: Path,
    *,
    input_format: InputFormat | None = None,
    options: ReadOptions | None = None,
    on_error: OnError = "fail",
    on_batch: Callable[[int], None] | None = None,
) -> RunSummary:
    """Write the resolved spans of every document (no text) as JSONL."""
    options = options or ReadOptions()
    summary = RunSummary()
    docs = _documents(input_path, input_format, options, on_error, summary)
    write_spans_jsonl(output_path, _detected(deidentifier, docs, summary, on_batch))
    return summary


def _detected(
    deidentifier: Deidentifier,
    docs: Iterator[Document],
    summary: RunSummary,
    on_batch: Callable[[int], None] | None,
    id_key: bytes | None = None,
) -> Iterator[tuple[Document, list]]:
    """Each document with its resolved spans, counted into `summary` (ids with no span: as
    pseudonyms under `id_key`, when given)."""
    for batch in _batches(docs, deidentifier.config.pipeline.batch_size):
        for doc, spans in zip(batch, deidentifier.detect(batch), strict=True):
            summary.documents += 1
            summary.spans += len(spans)
            summary.by_category.update(s.category.value for s in spans)
            if not spans:
                summary.empty_ids.append(pseudonymize_id(id_key, doc.id) if id_key else doc.id)
            yield doc, spans
        if on_batch:
            on_batch(len(batch))


def count_path(
    deidentifier: Deidentifier,
    input_path: Path,
    *,
    input_format: InputFormat | None = None,
    options: ReadOptions | None = None,
    on_error: OnError = "fail",
    on_batch: Callable[[int], None] | None = None,
    unique_ids: bool = False,
    id_key: bytes | None = None,
) -> RunSummary:
    """A dry run: detect and count as `detect_path` does, and write nothing. `unique_ids` refuses
    duplicate ids as de-identification does (`DuplicateIdError`)."""
    summary = RunSummary()
    docs = _documents(input_path, input_format, options or ReadOptions(), on_error, summary, unique_ids=unique_ids)
    for _ in _detected(deidentifier, docs, summary, on_batch, id_key):
        pass
    return summary


def _restored(doc: Document, rows: Sequence[VaultRow], digests: Mapping[str, str] | None) -> str:
    """The original text of one document; `VaultMismatchError` naming the document (never its
    text) when its text is not the one the vault recorded: its digest (format 4) or a surrogate's place."""
    where = ReadIssue.at(doc.id, doc.metadata, "").describe().removesuffix(": ")
    if digests is not None and digests.get(doc.id) != text_digest(doc.text):
        raise VaultMismatchError(
            f"{where}: the de-identified text of document {doc.id!r} is not the text the vault recorded "
            "(its SHA-256 differs): it was edited after de-identification; nothing was written"
        )
    try:
        return reidentify_text(doc.text, rows)
    except VaultMismatchError as exc:
        raise VaultMismatchError(f"{where}: document {doc.id!r}: {exc}; nothing was written") from None


def reidentify_path(
    vault_rows: Mapping[str, Sequence[VaultRow]],
    input_path: Path,
    output_path: Path,
    *,
    input_format: InputFormat | None = None,
    options: ReadOptions | None = None,
    on_batch: Callable[[int], None] | None = None,
    original_ids: Mapping[str, str] | None = None,
    digests: Mapping[str, str] | None = None,
) -> RunSummary:
    """Restore originals: each de-identified document plus its vault rows gives the original text,
    and, for a run that pseudonymized ids, `original_ids` (pseudonym -> id, from the vault) the id.
    With `digests` (doc id -> SHA-256 of its de-identified text, from a vault of format 4), a text
    that is not the one the vault recorded is refused, even where every surrogate is still in place.

    Any bad record or a document whose text no longer matches its vault stops the run, and
    nothing is written: a partial re-identification is never mistaken for a complete one.
    """
    options = options or ReadOptions()
    summary = RunSummary()
    docs = _documents(input_path, input_format, options, "fail", summary, unique_ids=True)
    out_fmt = choose_output_format(input_path, output_path, input_format, None)
    restored: set[str] = set()
    # a format that keeps its id inside the record (HL7's MSH-10) reads back the id, not its pseudonym
    pseudonyms = {own: pseudonym for pseudonym, own in (original_ids or {}).items()}
    # Re-identified text is the original PHI: private like the vault and the key (0600 / 0700).
    with open_writer(output_path, out_fmt, options, input_path=input_path, private=True) as writer:
        for batch in _batches(docs, 256):
            for doc in batch:
                if doc.id not in vault_rows and doc.id in pseudonyms:
                    doc = dataclasses.replace(doc, id=pseudonyms[doc.id])
                rows = vault_rows.get(doc.id)
                if rows is None:
                    where = ReadIssue.at(doc.id, doc.metadata, "")
                    raise VaultMissingError(
                        f"{where.describe().removesuffix(': ')}: this document is not in the vault; is it the "
                        "vault of another run? Nothing was written"
                    )
                original = _restored(doc, rows, digests)
                own_id = (original_ids or {}).get(doc.id)
                restored_doc = dataclasses.replace(doc, id=own_id) if own_id else doc
                writer.write(Result(document=restored_doc, text=original, replacements=()))
                restored.add(doc.id)
                summary.documents += 1
                summary.spans += len(rows)
            if on_batch:
                on_batch(len(batch))
        left = [doc_id for doc_id in vault_rows if doc_id not in restored]
        if left:
            raise VaultMissingError(
                f"{len(left)} document(s) of the vault are not in the input (e.g. {left[0]!r}); a partial "
                "re-identification is refused. Nothing was written"
            )
    return summary
