"""The resume journal: a hidden work folder beside the output that survives `kill -9`.

Layout of `.OUTPUT.radeid-work/` (same directory as the output, never /tmp: the parts hold
de-identified text, which may still contain PHI the detectors missed; mode 0700):

* `manifest.json` — what the run is (input content digest, read options, batch size, pipeline
  fingerprint, a salted scrypt check of the key; never the key), written atomically once, with the
  random tag the run puts in the names of its temporaries beside the outputs (a resume deletes only
  those: `radeid.io.commit.remove_temporaries`).
* `parts/000000000042.jsonl` — (runs with a vault, gzip, Parquet or folder output, `radeid.run.merge`)
  the de-identified output of batch 42: one line per document with its id, output text and
  replacements (offsets, labels, new text). No original text, no kept columns, no patient id: the
  final merge re-reads those from the input. Written by a worker to a temporary name, then
  renamed: a part either exists whole or not at all.
* `spools.json` — (streamed runs, `radeid.run.stream`) the names of the output's and the audit's
  temporaries the batches are appended to, and where the first batch starts in each.
* `journal.jsonl` — one line per finished batch (index, document count, digest of its content,
  size and SHA-256 of its part, or of each segment it appended to the temporaries), appended and
  flushed (fsynced at most every `SYNC_SECONDS`) by the coordinating process only, after the
  part is in place or the bytes appended. A batch is done when its line is complete and its part
  (its segments) match the line, so what a power loss left empty or torn is redone, never used.
* `lock` — held (flock) by the running process; the OS drops it when the process dies.
* `commit.json` — written (fsynced) once output, audit and vault are all staged and synced beside
  their targets, before the first of their renames: a resume that finds it replays the renames
  (`radeid.io.commit`), so the three always come from the same run.

Crash at any moment: a part without a journal line is an orphan and is redone; a torn last
journal line is dropped; a half-written temporary is deleted. Redoing a batch gives the same bytes
(same input, same batch boundaries, same config and key), so what is kept and what is redone fit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from radeid.core import metakeys
from radeid.io.commit import fsync_dir as _fsync_dir
from radeid.io.errors import RadeidIOError
from radeid.io.formats import walk_files

try:  # POSIX only; elsewhere two concurrent runs on one output are simply not detected
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "COMMIT_RECORD",
    "FORMAT_VERSION",
    "BatchRecord",
    "InputChangedError",
    "JournalError",
    "ResumeMismatchError",
    "RunInProgressError",
    "WorkFolder",
    "WorkFolderExistsError",
    "fingerprint_input",
    "docs_digest",
    "ids_digest",
    "part_name",
    "work_folder_for",
]

#: The work folder's record of a commit under way (`radeid.io.commit`; a resume replays its renames).
COMMIT_RECORD = "commit.json"
#: The manifest's record of the tag in the names of the run's temporaries (never compared on resume).
TAG_KEY = "temporaries_tag"
#: The journal is fsynced at most this often (see `WorkFolder.record`).
SYNC_SECONDS = 0.5
# 2: the journal's `ids` is a digest of the batch's content (`docs_digest`); 3: a streamed JSONL
# run's batches are lines, parsed by the workers, and `ids` digests the lines (`chunks.LineChunk`);
# 4: a batch stored as a part journals its replacements by category too (the sink counts them).
FORMAT_VERSION = 4
_WORK_SUFFIX = ".radeid-work"
_DONE_SUFFIX = ".radeid-done"


class JournalError(RadeidIOError):
    """The work folder cannot be used (locked by another run, damaged, unreadable)."""


class InputChangedError(JournalError):
    """The input changed during the run: what was de-identified is not the input now. Nothing is
    committed and nothing is kept (the temporaries and the work folder go): only a new run can help."""


class RunInProgressError(JournalError):
    """Another live radeid process holds the work folder's lock."""


class WorkFolderExistsError(JournalError, FileExistsError):
    """A previous run was interrupted and the user did not ask to resume it."""


class ResumeMismatchError(JournalError, ValueError):
    """`--resume` was asked for, but the input, settings or key differ from the interrupted run."""


def work_folder_for(output: Path) -> Path:
    """`out/deid.jsonl` -> `out/.deid.jsonl.radeid-work` (beside the output, hidden)."""
    output = Path(output)
    return output.with_name(f".{output.name}{_WORK_SUFFIX}")


# ------------------------------------------------------------------------------------ fingerprints


def fingerprint_input(path: Path) -> str:
    """BLAKE2b of the input's bytes (a folder: of every non-hidden file, by relative path).

    One extra read of the input per run; it is what lets a resume prove the input is unchanged.
    """
    path = Path(path)
    digest = hashlib.blake2b(digest_size=20)
    if path.is_dir():
        for file in walk_files(path):
            rel = file.relative_to(path).as_posix().encode("utf-8", "surrogateescape")
            digest.update(len(rel).to_bytes(8, "little") + rel)
            digest.update(_file_hash(file))
    else:
        digest.update(_file_hash(path))
    return digest.hexdigest()


def _file_hash(path: Path) -> bytes:
    digest = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.digest()


def ids_digest(ids: Iterable[str]) -> str:
    """A digest of a batch's document ids in order: proves the batch boundaries did not move."""
    digest = hashlib.blake2b(digest_size=16)
    for doc_id in ids:
        raw = doc_id.encode("utf-8", "surrogatepass")
        digest.update(len(raw).to_bytes(8, "little") + raw)
    return digest.hexdigest()


def docs_digest(docs: Iterable[Any]) -> str:
    """A digest of a batch's *content* in order: ids, texts, patient ids and kept columns.

    Journaled when the batch is de-identified and recomputed when the final merge re-reads the
    input: if the input changed in between (same ids, other text), the merge refuses, instead of
    pairing new originals with old output in the vault.
    """
    digest = hashlib.blake2b(digest_size=20)
    for doc in docs:
        columns = doc.metadata.get(metakeys.COLUMNS) or {}
        for value in (doc.id, doc.text, doc.patient_id, json.dumps(columns, sort_keys=True, default=repr)):
            raw = b"\x00" if value is None else b"\x01" + value.encode("utf-8", "surrogatepass")
            digest.update(len(raw).to_bytes(8, "little") + raw)
    return digest.hexdigest()


# ------------------------------------------------------------------------------------ parts


def part_name(batch: int) -> str:
    """The file name of batch `batch`'s part in `parts/` (the worker writes it, the journal checks it)."""
    return f"{batch:012d}.jsonl"


@dataclass(frozen=True)
class BatchRecord:
    """One journal line: batch `batch` is done and its part is `size` bytes with this SHA-256.

    `stats`: the replacer's event counts for the batch (unparseable dates, retries: numbers only).
    """

    batch: int
    docs: int
    ids: str
    size: int
    sha256: str
    stats: dict[str, int] = field(default_factory=dict)
    #: Documents the pipeline failed on (`--on-error skip`): (index in the batch, exception type).
    skipped: tuple[tuple[int, str], ...] = ()
    #: A streamed batch (`radeid.run.stream`): (byte count, SHA-256) of what it appended to each of the
    #: run's temporaries (output, audit), in order; empty for a batch stored as a part.
    segments: tuple[tuple[int, str], ...] = ()
    #: Its replacements by category (counted by the sink, so a resume knows them without the part).
    categories: dict[str, int] = field(default_factory=dict)
    #: Ids (as written) of its documents with no replacement (for the run report).
    empty: tuple[str, ...] = ()

    @classmethod
    def parse(cls, line: str) -> BatchRecord | None:
        try:
            data = json.loads(line)
            batch, docs, size = int(data["batch"]), int(data["docs"]), int(data["size"])
            stats = {str(k): int(v) for k, v in dict(data.get("stats") or {}).items()}
            skipped = tuple((int(i), str(t)) for i, t in data.get("skipped") or ())
            segments = tuple((int(n), str(h)) for n, h in data.get("segments") or ())
            categories = {str(k): int(v) for k, v in dict(data.get("categories") or {}).items()}
            empty = tuple(str(i) for i in data.get("empty") or ())
            record = cls(
                batch, docs, str(data["ids"]), size, str(data["sha256"]), stats, skipped, segments, categories, empty
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return record if record.batch >= 0 and record.docs >= 0 and record.size >= 0 else None


def _part_ok(path: Path, record: BatchRecord) -> bool:
    try:
        if path.stat().st_size != record.size:
            return False
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return False
    return digest.hexdigest() == record.sha256


# ------------------------------------------------------------------------------------ the folder


def _fdatasync(fd: int) -> None:
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def _write_atomic(path: Path, text: str) -> None:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise
    _fsync_dir(path.parent)


#: Manifest keys a resume must match, with what to tell the user when one does not.
_MISMATCH = {
    "format": "the work folder was written by another version of the journal format",
    "input": "the input changed since the interrupted run (its content differs)",
    "read": "the input is read differently (format, id/text/patient columns or other read options changed)",
    "batch_size": "the batch size changed",
    "pipeline": "the pipeline changed (config, a rule/list/model file it names, the mode, the surrogate "
    "options or the radeid version)",
}


class WorkFolder:
    """The open work folder of one run: finished batches, the journal, the lock.

    Use `WorkFolder.open(...)`; then `record()` each finished batch, and `finish()` once the
    output is committed (or `discard()` when the run can never be resumed).
    """

    def __init__(
        self, path: Path, done: dict[int, BatchRecord], resumed: bool, lock: IO[str] | None, tag: str | None = None
    ) -> None:
        self.path = path
        #: In the names of the run's temporaries beside its outputs (`radeid.io.commit.tagged_temporaries`):
        #: a resume deletes only those. None for a work folder of an older radeid (nothing is deleted).
        self.tag = tag
        self.parts = path / "parts"
        self.done = done
        self.resumed = resumed
        self._lock = lock
        self._journal: IO[str] | None = open(path / "journal.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self._synced = float("-inf")  # the first batch is synced at once

    @classmethod
    def open(cls, output: Path, manifest: Mapping[str, Any], *, resume: bool, key_matches: Any) -> WorkFolder:
        """Start a new work folder, or (with `resume`) reopen the one a crashed run left.

        `key_matches(check)` says whether the stored key check fits the current key. Without
        `resume`, an existing work folder is an error (we never silently throw work away, nor
        silently mix it in). With `resume` and no work folder, a new run starts.
        """
        path = work_folder_for(output)
        _remove_tree(path.with_name(path.name.removesuffix(_WORK_SUFFIX) + _DONE_SUFFIX))
        if path.exists() and not (path / "manifest.json").exists() and not any(path.iterdir()):
            path.rmdir()  # an empty folder from a run killed while creating it
        if not path.exists():
            return cls._create(path, manifest)
        lock = _lock(path)  # first: a live run's folder must not be reported as an interrupted one
        if not resume:
            lock.close()
            raise WorkFolderExistsError(
                f"an interrupted run left its work folder {str(path)!r}; rerun with --resume to continue it, "
                "or delete that folder to start over"
            )
        try:
            stored = _read_manifest(path)
            _compare(stored, manifest, key_matches, path)
            done = _load_journal(path)
        except BaseException:
            lock.close()
            raise
        tag = stored.get(TAG_KEY)
        return cls(path, done, True, lock, tag if isinstance(tag, str) and tag.isalnum() else None)

    @classmethod
    def _create(cls, path: Path, manifest: Mapping[str, Any]) -> WorkFolder:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            raise JournalError(f"another run just created the work folder {str(path)!r}") from None
        os.chmod(path, 0o700)
        (path / "parts").mkdir(mode=0o700)
        lock = _lock(path)
        tag = secrets.token_hex(6)  # the manifest holds it before any temporary is made
        stored = {**manifest, TAG_KEY: tag}
        _write_atomic(path / "manifest.json", json.dumps(stored, indent=1, sort_keys=True) + "\n")
        return cls(path, {}, False, lock, tag)

    def part_path(self, batch: int) -> Path:
        return self.parts / part_name(batch)

    def record(self, record: BatchRecord) -> None:
        """Journal a finished batch (its part or its bytes are already in place): append and flush
        to the kernel, which is all a `kill -9` needs; fsync at most every `SYNC_SECONDS`.

        A sync costs milliseconds (2.7 ms here) and blocks the coordinating process: once per batch
        it would cap a many-worker run at a few hundred batches/s. Syncing less often is safe: a
        journal line that a power loss takes is a batch redone, and a line that outlives its data
        fails its size/hash check on resume and is redone too."""
        assert self._journal is not None
        self._journal.write(json.dumps(asdict(record), separators=(",", ":")) + "\n")
        self._journal.flush()
        now = time.monotonic()
        if now - self._synced >= SYNC_SECONDS:
            _fdatasync(self._journal.fileno())
            self._synced = now
        self.done[record.batch] = record

    def keep_only(self, batches: Iterable[int]) -> None:
        """Forget every finished batch but `batches` (a resume found the rest unusable), on disk too."""
        keep = set(batches)
        self.done = {b: r for b, r in self.done.items() if b in keep}
        if self._journal is not None:
            self._journal.close()
        _rewrite_journal(self.path, self.done.values())
        self._journal = open(self.path / "journal.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def close(self) -> None:
        """Release the journal and the lock; the folder stays for a later `--resume`."""
        if self._journal is not None:
            with contextlib.suppress(OSError):  # what was journaled since the last sync
                self._journal.flush()
                _fdatasync(self._journal.fileno())
            self._journal.close()
            self._journal = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def finish(self) -> None:
        """The output is committed: drop the folder (renamed first, so a crash mid-delete leaves
        no half-deleted work folder that a later run would try to resume)."""
        self.close()
        done = self.path.with_name(self.path.name.removesuffix(_WORK_SUFFIX) + _DONE_SUFFIX)
        _remove_tree(done)
        os.replace(self.path, done)
        _remove_tree(done)

    def discard(self) -> None:
        """The run can never be resumed (e.g. it stopped at a bad record): drop the folder."""
        self.close()
        _remove_tree(self.path)

    def __enter__(self) -> WorkFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _remove_tree(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


def _lock(path: Path) -> IO[str]:
    handle = open(path / "lock", "a", encoding="utf-8")  # noqa: SIM115
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise RunInProgressError(
                f"a radeid run is in progress on this output (its work folder {str(path)!r} is locked); wait for "
                "it to finish or stop it. Do not --resume while it runs"
            ) from None
    return handle


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JournalError(
            f"the work folder {str(path)!r} has no readable manifest ({type(exc).__name__}); delete it to start over"
        ) from None
    if not isinstance(data, dict):
        raise JournalError(f"the manifest of the work folder {str(path)!r} is damaged; delete it to start over")
    return data


def _compare(stored: Mapping[str, Any], current: Mapping[str, Any], key_matches: Any, path: Path) -> None:
    problems = [why for name, why in _MISMATCH.items() if stored.get(name) != current.get(name)]
    if stored.get("batch_size") != current.get("batch_size"):
        problems[problems.index(_MISMATCH["batch_size"])] += (
            f" (was {stored.get('batch_size')}, now {current.get('batch_size')})"
        )
    check = stored.get("key")
    if not key_matches(check):
        if check is None:
            problems.append("the interrupted run used no key, this one does")
        elif current.get("key") is None:
            problems.append("the interrupted run used a key, this one does not")
        else:
            problems.append("the key differs from the interrupted run's")
    if problems:
        raise ResumeMismatchError(
            "cannot resume: " + "; ".join(problems) + f". Resume with the same input and settings, or delete "
            f"{str(path)!r} to start over"
        )


def _journal_lines(path: Path) -> Iterator[BatchRecord]:
    try:
        text = (path / "journal.jsonl").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    for line in text.split("\n")[:-1]:  # the piece after the last newline is torn (or empty)
        record = BatchRecord.parse(line)
        if record is None:
            return  # appends are sequential: nothing after a damaged line can be trusted
        yield record


def _load_journal(path: Path) -> dict[int, BatchRecord]:
    """Finished batches whose parts are intact; everything else in parts/ is removed."""
    parts = path / "parts"
    parts.mkdir(mode=0o700, exist_ok=True)
    done: dict[int, BatchRecord] = {}
    for record in _journal_lines(path):
        if record.segments or _part_ok(parts / part_name(record.batch), record):  # streamed: see radeid.run.stream
            done[record.batch] = record
        else:
            done.pop(record.batch, None)
    keep = {part_name(b) for b in done}
    for entry in parts.iterdir():
        if entry.name not in keep:
            with contextlib.suppress(OSError):
                entry.unlink()
    _rewrite_journal(path, done.values())
    return done


def _rewrite_journal(path: Path, records: Iterable[BatchRecord]) -> None:
    lines = "".join(json.dumps(asdict(r), separators=(",", ":")) + "\n" for r in sorted(records, key=_batch))
    _write_atomic(path / "journal.jsonl", lines)


def _batch(record: BatchRecord) -> int:
    return record.batch
