"""One check for every command: no path the tool writes may be a path it reads, or another path it
writes, or contain one, or sit inside an input folder (symlinks resolved, hard links compared by
inode). A clash is a usage error, raised before any work, so no run can replace its own input, key,
vault or audit."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from radeid.io.errors import RadeidIOError

__all__ = ["PathConflictError", "check_paths"]


class PathConflictError(RadeidIOError, ValueError):
    """Two paths of one command clash: writing one would replace, delete or nest in the other."""


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)  # hard links, case-insensitive disks
    except OSError:
        return False


def _clash(write: Path, other: Path, other_is_read: bool) -> str | None:
    if _same(write, other):
        return "is the same path as"
    if write in other.parents:
        return "contains"  # replacing the folder `write` would delete `other`
    if other in write.parents and (not other_is_read or other.is_dir()):
        return "is inside"
    return None


def check_paths(reads: Mapping[str, Path | None], writes: Mapping[str, Path | None]) -> None:
    """Raise `PathConflictError` when a written path clashes with a read path or another written one.

    Keys are how the user named each path (`"the input"`, `"--audit"`); `None` values are ignored.
    """
    read = {label: (Path(p), _resolved(Path(p))) for label, p in reads.items() if p is not None}
    write = {label: (Path(p), _resolved(Path(p))) for label, p in writes.items() if p is not None}
    problems: list[str] = []
    labels = list(write)
    for i, label in enumerate(labels):
        given, path = write[label]
        for other_label, (other_given, other) in read.items():
            if (how := _clash(path, other, True)) is not None:
                problems.append(f"{label} {str(given)!r} {how} {other_label} {str(other_given)!r}")
        for other_label in labels[i + 1 :]:
            other_given, other = write[other_label]
            how = _clash(path, other, False) or _clash(other, path, False)
            if how is not None:
                problems.append(f"{label} {str(given)!r} and {other_label} {str(other_given)!r} clash")
    if problems:
        raise PathConflictError(
            "; ".join(problems) + ": writing would replace or delete data radeid needs. Choose separate paths"
        )
