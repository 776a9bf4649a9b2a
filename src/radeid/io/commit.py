"""Commit several outputs as one unit: the de-identified output, the audit and the vault.

Each writer builds its file (or folder) under a temporary name beside its target. `commit_together`
then (1) *stages* every writer: finishes its temporary and fsyncs it, (2) fsyncs the folders that
hold the temporaries, (3) writes a commit record (the list of renames) into the run's work folder,
fsynced, and only then (4) renames each temporary onto its target. A crash before (3) leaves the
old outputs untouched and the temporaries are redone by `--resume`; a crash after (3) is finished by
`--resume`, which replays the renames still to do (`finish_commit`): every rename is idempotent
(a temporary that is gone was already moved). So output, audit and vault always come from one run.

A folder target that exists is swapped through a fixed backup name (`.NAME.radeid-old`), so a
crash in the middle of the swap is also finished by the replay.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "Move",
    "apply_moves",
    "commit_together",
    "finish_commit",
    "fsync_dir",
    "fsync_file",
    "fsync_tree",
    "remove_temporaries",
    "tagged_temporaries",
    "temporary_prefix",
]

#: Called after each step with its name ("staged", "recorded", "moved:N"); tests inject faults here.
_after_step: Callable[[str], None] = lambda step: None  # noqa: E731


@dataclass(frozen=True)
class Move:
    """Rename `src` onto `dst` (`kind` "file" or "folder"), or delete `src` (`kind` "remove")."""

    src: Path
    dst: Path | None
    kind: str = "file"

    def to_json(self) -> list[Any]:
        return [str(self.src), None if self.dst is None else str(self.dst), self.kind]

    @classmethod
    def from_json(cls, row: Sequence[Any]) -> Move:
        return cls(Path(row[0]), None if row[1] is None else Path(row[1]), str(row[2]))


class Stageable(Protocol):
    def stage(self) -> list[Move]: ...

    def abort(self) -> None: ...


#: The tag a resumable run puts in the names of its temporaries (`tagged_temporaries`); "" outside one.
_TAG: contextvars.ContextVar[str] = contextvars.ContextVar("radeid_temporary_tag", default="")


@contextlib.contextmanager
def tagged_temporaries(tag: str | None) -> Iterator[None]:
    """Name every temporary made beside a target in this block `.NAME.radeid-TAG.XXXX.tmp`: the tag
    (kept in the run's work folder) tells a resume which temporaries are its own to delete."""
    token = _TAG.set(tag or "")
    try:
        yield
    finally:
        _TAG.reset(token)


def temporary_prefix(target: Path, tag: str | None = None) -> str:
    """The start of the name of a temporary beside `target` (`tag`: else the current one)."""
    tag = _TAG.get() if tag is None else tag
    return f".{target.name}." + (f"radeid-{tag}." if tag else "")


def fsync_dir(path: Path) -> None:
    """Make renames and creations in `path` durable; a no-op where unsupported."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def fsync_tree(path: Path) -> None:
    """fsync every file and folder under `path` (a folder output before it is moved into place)."""
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            fsync_file(Path(dirpath, name))
        fsync_dir(Path(dirpath))


def _backup(dst: Path) -> Path:
    return dst.with_name(f".{dst.name}.radeid-old")


def _drop(path: Path) -> None:
    """Delete a file, a folder or a symlink (the link, never what it points to); gone already is fine."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _apply(move: Move) -> None:
    src, dst = move.src, move.dst
    if move.kind == "remove":
        _drop(src)
        return
    assert dst is not None
    if move.kind == "folder":
        backup = _backup(dst)
        if src.exists():
            if dst.exists() or dst.is_symlink():
                _drop(backup)
                os.replace(dst, backup)  # an output that was a symlink to a folder: the link moves
            os.replace(src, dst)
        _drop(backup)
    elif src.exists() or src.is_symlink():
        os.replace(src, dst)
    fsync_dir(dst.parent)


def apply_moves(moves: Sequence[Move]) -> None:
    """Apply renames now (one writer's commit; no record): on failure, the temporaries go."""
    try:
        for move in moves:
            _apply(move)
    except BaseException:
        for move in moves:
            with contextlib.suppress(OSError):
                _apply(Move(move.src, None, "remove"))
        raise


def _apply_all(moves: Sequence[Move]) -> None:
    for n, move in enumerate(moves):
        _apply(move)
        _after_step(f"moved:{n}")


def commit_together(
    writers: Iterable[Stageable | None], record: Path | None = None, extra: dict[str, Any] | None = None
) -> None:
    """Stage every writer, record the renames in `record` (if given), then apply them (see module doc).

    On a failure before the record is written every writer is aborted (the old outputs stay as
    they were); after it, the temporaries are left for `finish_commit` to move.
    """
    active = [w for w in writers if w is not None]
    moves: list[Move] = []

    def drop_temporaries() -> None:
        for move in moves:  # staged temporaries: no writer owns them any more
            _apply(Move(move.src, None, "remove"))

    try:
        for writer in active:
            moves.extend(writer.stage())
        for folder in {m.src.parent for m in moves}:
            fsync_dir(folder)
        _after_step("staged")
    except BaseException:
        for writer in active:
            with contextlib.suppress(Exception):
                writer.abort()
        drop_temporaries()
        raise
    if record is not None:
        try:
            _write_record(record, moves, extra or {})
        except BaseException:
            if not record.exists():  # not recorded: the old outputs stand, the new ones go
                drop_temporaries()
            raise
        _after_step("recorded")
    _apply_all(moves)


def _write_record(record: Path, moves: Sequence[Move], extra: dict[str, Any]) -> None:
    tmp = record.with_name(f".{record.name}.tmp")
    data = json.dumps({"moves": [m.to_json() for m in moves], "extra": extra}, ensure_ascii=True) + "\n"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, record)
    fsync_dir(record.parent)


def finish_commit(record: Path) -> dict[str, Any] | None:
    """Replay an interrupted commit recorded in `record`; returns the `extra` it was recorded with,
    or None when there is no commit to finish."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        moves = [Move.from_json(row) for row in data["moves"]]
        extra = dict(data.get("extra") or {})
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        # A torn record is impossible (written then renamed); an unreadable one is not ours to guess.
        raise OSError(f"the commit record {str(record)!r} is damaged; delete the work folder and rerun") from None
    _apply_all(moves)
    return extra


def remove_temporaries(targets: Iterable[Path | None], tag: str | None, keep: Iterable[Path] = ()) -> None:
    """Delete the temporaries a killed run left beside `targets`: only its own, the files or folders
    named with its `tag` (`.NAME.radeid-TAG.XXXX.tmp`, see `tagged_temporaries`), but those in
    `keep` (a resume continues them). A user's file, or another run's temporary, that happens to
    start with `.NAME.` is left alone; with no tag nothing is deleted. Only call this while holding
    the run's lock. (A folder swap's backup is the commit record's: `finish_commit` ends it.)"""
    if not tag:
        return
    kept = {Path(k).name for k in keep}
    for target in targets:
        if target is None:
            continue
        target = Path(target)
        prefix = temporary_prefix(target, tag)
        try:
            entries = list(target.parent.iterdir())
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name in kept and entry.parent == target.parent:
                continue
            if name.startswith(prefix) and name.endswith(".tmp"):
                _apply(Move(entry, None, "remove"))
