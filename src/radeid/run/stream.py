"""Streaming a parallel run's results into its outputs, in input order, as batches finish.

For outputs that are a concatenation of per-document text (JSONL or CSV output and the audit
JSONL, not gzip, and no vault), the parallel runner does not keep parts and merge them at the
end. Instead:

* a worker de-identifies its batch and serializes it itself (`encode_batch`): the output rows
  (kept columns included, ids pseudonymized when asked) and the audit lines, as UTF-8 bytes, with
  their SHA-256;
* the coordinating process (the ordered sink, `radeid.run.sink`) appends each batch's bytes to
  the temporaries of the output and the audit *in batch order* (a batch that finishes early
  waits for the ones before it), then journals the batch with the byte count and hash of each
  segment. It does no per-document work: it moves bytes.
* The temporaries are named in `spools.json` in the work folder. After a crash (`kill -9`), a
  resume (`recover`) re-hashes the journaled segments in order, keeps the longest prefix of whole
  batches that matches, cuts both temporaries back to its end and continues from there; a
  temporary that is gone or damaged only means more batches are redone.
* At the end the temporaries are committed as before (`radeid.io.commit`: stage and fsync, record,
  rename), after the input is hashed again: an input changed during the run is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radeid.core.document import Result
from radeid.io.audit import audit_text
from radeid.io.commit import fsync_dir
from radeid.io.formats import InputFormat, is_gzip
from radeid.io.ids import pseudonymize_result
from radeid.io.records import ReadOptions
from radeid.io.registry import format_handler
from radeid.io.writers import AuditWriter, open_writer, output_format
from radeid.run.journal import BatchRecord, InputChangedError, WorkFolder, fingerprint_input
from radeid.run.sink import commit_outputs, drop

__all__ = [
    "SPOOLS",
    "Encoded",
    "StreamFormat",
    "check_unchanged",
    "encode_batch",
    "recover",
    "spooled_paths",
    "write_spools",
]

#: The work folder's record of the temporaries a streamed run appends to.
SPOOLS = "spools.json"

Encoder = Callable[[Result], str]


@dataclass(frozen=True)
class StreamFormat:
    """What a worker needs to serialize a batch exactly as the writers would (picklable)."""

    output: Path
    fmt: InputFormat | None
    options: ReadOptions
    include_patient_id: bool = False

    @classmethod
    def choose(
        cls, output: Path, fmt: InputFormat | None, options: ReadOptions, audit: Path, vault: Path | None
    ) -> StreamFormat | None:
        """The streaming format for this run, or None when an output cannot be streamed (a vault,
        gzip, Parquet or a folder): those runs keep parts and merge them (`radeid.run.merge`)."""
        if vault is not None or is_gzip(audit) or is_gzip(output):
            return None
        chosen = cls(output, fmt, options)
        return chosen if chosen.encoder() is not None else None

    def encoder(self) -> Encoder | None:
        factory = format_handler(output_format(self.output, self.fmt)).open_writer
        make = getattr(factory, "encoder", None)
        return make(self.output, self.options) if make is not None else None


@dataclass(frozen=True)
class Encoded:
    """One batch, serialized by a worker: the bytes of each output (output, audit) and counts."""

    data: tuple[bytes, ...]
    segments: tuple[tuple[int, str], ...]
    categories: dict[str, int]
    #: Ids (as written) of the documents with no replacement.
    empty: tuple[str, ...] = ()


def encode_batch(results: Iterable[Result], encoder: Encoder, fmt: StreamFormat, id_key: bytes | None) -> Encoded:
    """Serialize a batch's results as the writers would (run in the worker)."""
    out: list[str] = []
    audit: list[str] = []
    categories: Counter[str] = Counter()
    empty: list[str] = []
    for result in results:
        result = pseudonymize_result(result, id_key)
        out.append(encoder(result))
        audit.append(audit_text(result, include_patient_id=fmt.include_patient_id))
        categories.update(r.span.category.value for r in result.replacements)
        if not result.replacements:
            empty.append(result.document.id)
    data = tuple("".join(part).encode("utf-8") for part in (out, audit))
    segments = tuple((len(d), hashlib.sha256(d).hexdigest()) for d in data)
    return Encoded(data, segments, dict(categories), tuple(empty))


def spooled_paths(work: WorkFolder) -> list[Path] | None:
    """The temporaries an interrupted streamed run named, or None."""
    try:
        data = json.loads((work.path / SPOOLS).read_text(encoding="utf-8"))
        return [Path(p) for p in data["temporaries"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def recover(work: WorkFolder, count: int) -> tuple[list[Path], list[int]] | None:
    """After a crash: the temporaries to continue and the byte offset to cut each back to.

    Keeps the longest run of journaled batches 0, 1, ... whose segments are all in the temporaries
    with their journaled hash; every other batch is forgotten (redone). None when nothing can be
    kept (no temporaries named, or gone): the run restarts in fresh ones.
    """
    paths = spooled_paths(work)
    streamed = sorted(b for b, r in work.done.items() if r.segments)
    if paths is None or len(paths) != count or not all(p.is_file() for p in paths):
        _forget(work, paths)
        return None
    kept: list[int] = []
    handles = [open(p, "rb") for p in paths]  # noqa: SIM115
    try:
        starts = [_first_segment_offset(work, p) for p in paths]
        if any(p.stat().st_size < start for p, start in zip(paths, starts, strict=True)):
            _forget(work, paths)  # not even the header reached the disk (a power loss)
            return None
        ends = list(starts)
        for h, start in zip(handles, starts, strict=True):
            h.seek(start)
        for batch in streamed:
            record = work.done[batch]
            if batch != len(kept) or len(record.segments) != count or not _matches(handles, record):
                break
            kept.append(batch)
            ends = [end + size for end, (size, _sha) in zip(ends, record.segments, strict=True)]
    finally:
        for h in handles:
            h.close()
    work.keep_only(kept)
    return paths, ends


def _forget(work: WorkFolder, paths: list[Path] | None) -> None:
    """Nothing can be kept: forget every streamed batch and delete the temporaries this run's work
    folder named (ours: the folder's lock is held), so the run restarts in fresh ones."""
    work.keep_only(())
    for path in paths or ():
        with contextlib.suppress(OSError):
            path.unlink()


def _first_segment_offset(work: WorkFolder, path: Path) -> int:
    """Where the first batch starts in a temporary: after the header (CSV), recorded at start."""
    try:
        data = json.loads((work.path / SPOOLS).read_text(encoding="utf-8"))
        return int(dict(data.get("starts") or {}).get(str(path), 0))
    except (OSError, ValueError, TypeError):
        return 0


def _matches(handles: list[Any], record: BatchRecord) -> bool:
    for handle, (size, sha) in zip(handles, record.segments, strict=True):
        data = handle.read(size)
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
            return False
    return True


def write_spools(work: WorkFolder, temporaries: list[Path], starts: list[int]) -> None:
    """Name the temporaries, and where the first batch starts in each (after a CSV header), in the
    work folder before the first append (fsynced, atomic)."""
    path = work.path / SPOOLS
    tmp = path.with_name(f".{SPOOLS}.tmp")
    data = {
        "temporaries": [str(t) for t in temporaries],
        "starts": {str(t): s for t, s in zip(temporaries, starts, strict=True)},
    }
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_dir(work.path)


def check_unchanged(input_path: Path, fingerprint: str) -> None:
    """Refuse to commit when the input's content differs from the manifest's (changed mid-run)."""
    if fingerprint_input(input_path) != fingerprint:
        raise InputChangedError(
            f"the input {str(input_path)!r} changed during the run; nothing was written or kept. Rerun it"
        )


def open_stream(
    work: WorkFolder,
    output: Path,
    out_fmt: InputFormat | None,
    options: ReadOptions,
    input_path: Path,
    audit: Path,
) -> list[Any]:
    """The output and audit writers a streamed run appends to: an interrupted run's temporaries,
    cut back to its last whole journaled batch (`radeid.run.stream.recover`), or fresh ones."""
    writers: list[Any] = []
    try:
        writers.append(open_writer(output, out_fmt, options, input_path=input_path))
        writers.append(AuditWriter(audit))
        found = recover(work, len(writers)) if work.resumed else None
        if found is not None:
            for writer, tmp, offset in zip(writers, *found, strict=True):
                writer.adopt(tmp, offset)
        else:
            work.keep_only(())
            write_spools(work, [w.temporary() for w in writers], [w.tell() for w in writers])
    except BaseException:
        drop(writers)
        raise
    return writers


def commit_stream(work: WorkFolder, summary: Any, writers: list[Any], input_path: Path, fingerprint: str) -> None:
    """Every batch is appended: refuse an input changed during the run, then commit as one unit."""
    check_unchanged(input_path, fingerprint)
    commit_outputs(work, summary, writers)
