"""Atomic targets and committable writers: what every output of a run has in common.

Every writer builds its output in a temporary file or folder *next to* the target (same
directory: de-identified text never passes through /tmp or another disk) and moves it into place
with `os.replace` only on a clean exit (`__exit__` without an exception, or `.commit()`). On any
failure the temporary is removed and an existing output is left untouched, so a run never leaves a
half-written file where a good one was. Temporaries are hidden (`.NAME.XXXX.tmp`, or
`.NAME.radeid-TAG.XXXX.tmp` in a resumable run: `radeid.io.commit.tagged_temporaries`); only a
killed process can leave one behind. The format modules (`radeid.io.jsonl`, ...) and the audit build on
these pieces; `radeid.io.commit` applies the renames of all the outputs of a run together.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from radeid.core import metakeys
from radeid.core.document import Result
from radeid.io.commit import Move, apply_moves, temporary_prefix
from radeid.io.errors import OutputExistsError, naming
from radeid.io.formats import InputFormat, is_gzip
from radeid.io.records import ReadOptions

__all__ = [
    "AtomicTarget",
    "AtomicTextFile",
    "Committable",
    "DocumentWriter",
    "TextDocumentWriter",
    "TextFileOutput",
    "check_target",
    "umask",
]


def umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _owned_only(folder: Path, suffixes: frozenset[str]) -> str | None:
    """The first file under `folder` that a writer of this format would not have made, or None."""
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            if Path(name).suffix.lower() not in suffixes:
                return str(Path(dirpath, name).relative_to(folder))
    return None


def check_target(target: Path, *, folder: bool, overwrite: bool | None, suffixes: frozenset[str]) -> None:
    """Refuse, up front, to replace what must not be replaced (see `AtomicTarget`)."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_dir() and not folder:
        raise OutputExistsError(f"output {str(target)!r} is a folder; this format writes a file")
    if overwrite is True:
        return
    if overwrite is False:
        if target.is_dir() and not any(target.iterdir()):
            return
        raise OutputExistsError(f"output {str(target)!r} already exists and overwrite is off")
    if folder and not target.is_dir():
        raise OutputExistsError(f"output {str(target)!r} is a file; this format writes a folder")
    if folder and (stranger := _owned_only(target, suffixes)) is not None:
        raise OutputExistsError(
            f"output folder {str(target)!r} exists and holds files this writer did not make "
            f"(e.g. {stranger!r}); replacing it would delete them. Choose a new or empty folder, "
            "or overwrite explicitly"
        )


class AtomicTarget:
    """A temporary file or folder beside `target`, moved onto it by `commit()`.

    `overwrite`: None (default) replaces an existing file, and an existing folder only when it is
    empty or holds nothing but files this format writes (a previous run's output); True replaces
    anything; False refuses to replace anything. Refusals are raised here, before any work.
    """

    def __init__(
        self, target: Path, *, folder: bool, overwrite: bool | None, suffixes: frozenset[str] = frozenset()
    ) -> None:
        self.target = target
        self.folder = folder
        parent = target.parent
        check_target(target, folder=folder, overwrite=overwrite, suffixes=suffixes)
        parent.mkdir(parents=True, exist_ok=True)
        prefix = temporary_prefix(target)
        if folder:
            self.tmp = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=parent))
        else:
            fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=parent)
            os.close(fd)
            self.tmp = Path(name)
        self.done = False

    private = False  # True: keep mkstemp/mkdtemp's 0600/0700 (re-identified text)

    def _fix_mode(self) -> None:
        """mkstemp/mkdtemp create 0600/0700; give the result the mode a plain open() would."""
        if self.private:
            return
        if self.target.exists():
            mode = self.target.stat().st_mode & 0o777
        else:
            mode = (0o777 if self.folder else 0o666) & ~umask()
        os.chmod(self.tmp, mode)

    def moves(self) -> list[Move]:
        """The rename that commits this target (the temporary is finished and synced by the caller)."""
        self._fix_mode()
        self.done = True  # from here the temporary belongs to whoever applies the move
        return [Move(self.tmp, self.target, "folder" if self.folder else "file")]

    def commit(self) -> None:
        apply_moves(self.moves())

    def discard(self) -> None:
        if not self.done:
            _remove(self.tmp)
            self.done = True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


class AtomicTextFile:
    """A UTF-8 text stream into an `AtomicTarget` file (gzip when the target ends in `.gz`)."""

    def __init__(self, target: Path, overwrite: bool | None) -> None:
        self.atomic = AtomicTarget(target, folder=False, overwrite=overwrite)
        try:
            self._raw: IO[bytes] = open(self.atomic.tmp, "wb")  # noqa: SIM115
        except BaseException:
            self.atomic.discard()
            raise
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0) if is_gzip(target) else None
        self.handle: io.TextIOWrapper[Any] = io.TextIOWrapper(self._gz or self._raw, encoding="utf-8", newline="")

    def append(self, data: bytes) -> int:
        """Append bytes already encoded (a worker's UTF-8 serialization); returns the end offset.

        Only for a plain (not gzip) file: the parallel runner streams finished batches here and
        journals the offsets, so a resume can cut the temporary back to its last whole batch."""
        if self._gz is not None:
            raise ValueError("cannot append raw bytes to a gzip output")
        with naming(self.atomic.target):
            self.handle.flush()
            self._raw.write(data)
        return self._raw.tell()

    def tell(self) -> int:
        """Bytes written so far (a plain file only), after flushing the text layer."""
        self.handle.flush()
        return self._raw.tell()

    def adopt(self, tmp: Path, offset: int) -> None:
        """Continue the temporary `tmp` a killed run left (cut back to `offset`) instead of the
        fresh one: a resume keeps the batches journaled as written there."""
        self.handle.flush()
        self.handle.detach()
        self._raw.close()
        self.atomic.discard()
        self.atomic.tmp, self.atomic.done = tmp, False
        self._raw = open(tmp, "r+b")  # noqa: SIM115
        self._raw.truncate(offset)
        self._raw.seek(offset)
        self.handle = io.TextIOWrapper(self._raw, encoding="utf-8", newline="")

    def _close(self, *, sync: bool) -> None:
        if self._raw.closed:
            return
        try:
            self.handle.flush()
            self.handle.detach()
            if self._gz is not None:
                self._gz.close()
            self._raw.flush()
            if sync:
                os.fsync(self._raw.fileno())
        finally:
            self._raw.close()

    def stage(self) -> list[Move]:
        """Finish and fsync the temporary; the rename is the caller's (`radeid.io.commit`)."""
        try:
            with naming(self.atomic.target):
                self._close(sync=True)
            return self.atomic.moves()
        except BaseException:
            self.abort()
            raise

    def commit(self) -> None:
        apply_moves(self.stage())

    def abort(self) -> None:
        try:
            self._close(sync=False)
        except Exception:  # noqa: BLE001 - we are cleaning up after a failure; the temp goes anyway
            pass
        self.atomic.discard()


class Committable:
    """Context-manager protocol shared by every writer: commit on success, abort on error."""

    _state = "open"

    def __enter__(self) -> Committable:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()

    @property
    def closed(self) -> bool:
        return self._state != "open"

    def _ensure_open(self) -> None:
        if self._state != "open":
            raise ValueError(f"writer is already {self._state}")

    def stage(self) -> list[Move]:
        """Finish the temporary output and fsync it; return the renames that put it in place
        (`radeid.io.commit.commit_together` applies them, with the other outputs of the run)."""
        self._ensure_open()
        try:
            moves = self._stage()
        except BaseException:
            self._state = "aborted"
            self._abort()
            raise
        self._state = "staged"
        return moves

    def commit(self) -> None:
        """Finish and move the output into place."""
        moves = self.stage()
        apply_moves(moves)
        self._state = "committed"

    def abort(self) -> None:
        """Drop everything written so far; the previous output (if any) stays as it was."""
        if self._state == "open":
            self._state = "aborted"
            self._abort()

    def _stage(self) -> list[Move]:
        raise NotImplementedError

    def _abort(self) -> None:
        raise NotImplementedError


class TextFileOutput(Committable):
    """A committable output that is one UTF-8 text file, `self._file` (JSONL, CSV, audit, spans)."""

    _file: AtomicTextFile

    def _stage(self) -> list[Move]:
        return self._file.stage()

    def append(self, data: bytes) -> int:
        """Append serialized rows (see `AtomicTextFile.append`); returns the end offset."""
        self._ensure_open()
        return self._file.append(data)

    def temporary(self) -> Path:
        """The temporary file being written (the parallel runner names it in its work folder)."""
        return self._file.atomic.tmp

    def tell(self) -> int:
        return self._file.tell()

    def adopt(self, tmp: Path, offset: int) -> None:
        """Continue an interrupted run's temporary from `offset` (see `AtomicTextFile.adopt`)."""
        self._ensure_open()
        self._file.adopt(tmp, offset)

    def release(self) -> None:
        """Close, but keep the temporary: the run was interrupted and a resume continues it."""
        if self._state == "open":
            self._state = "aborted"
            self._file._close(sync=False)

    def _abort(self) -> None:
        self._file.abort()


# ---------------------------------------------------------------------------------- documents


class DocumentWriter(Committable):
    """Writes de-identified `Result`s in one format; use as a context manager (see module doc)."""

    format: InputFormat

    def __init__(self, path: Path, options: ReadOptions) -> None:
        self.path = path
        self.options = options
        self.count = 0

    def __enter__(self) -> DocumentWriter:
        return self

    def _make_private(self) -> None:
        for name in ("_file", "_atomic"):
            holder = getattr(self, name, None)
            atomic = getattr(holder, "atomic", holder)
            if isinstance(atomic, AtomicTarget):
                atomic.private = True
        self._private = True

    def kept(self, result: Result) -> dict[str, Any]:
        """The kept columns of the document, in `keep_columns` order (absent ones left out)."""
        columns = result.document.metadata.get(metakeys.COLUMNS) or {}
        return {c: columns[c] for c in self.options.keep_columns if c in columns}

    def write(self, result: Result) -> None:
        """Append one de-identified document (its `text`, never the original)."""
        self._ensure_open()
        with naming(self.path):
            self._write(result)
        self.count += 1

    def _write(self, result: Result) -> None:
        raise NotImplementedError

    @classmethod
    def encoder(cls, path: Path, options: ReadOptions) -> Callable[[Result], str] | None:
        """A function giving the exact text `write` adds for one result, for formats whose output is
        a concatenation of per-document text (JSONL, CSV); None for the others. The parallel runner
        lets its workers serialize with it and only moves the bytes."""
        return None


class TextDocumentWriter(DocumentWriter, TextFileOutput):
    """A `DocumentWriter` into one UTF-8 text file (gzip when the target ends in `.gz`)."""

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        self._file = AtomicTextFile(path, overwrite)
