"""The one check of every command's paths: no path the tool writes may be a path it reads, or
another path it writes, or contain one, or sit inside an input folder (symlinks and `..`
resolved, hard links compared by inode). A secret (the key file, given or generated beside the
output) is checked too: it may never be written over, nor be read as a document (the input
itself, inside an input folder, or linked from one), or the output would carry the key.

Every command (deid, detect, reidentify, keygen, review, ensemble fit, evaluate, compare, model,
train, synth, spark-deid) calls `check_paths` before any work; a clash is a usage error (exit 2),
so no run can replace its own input, key, vault or audit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from radeid.io.errors import RadeidIOError

__all__ = ["PathConflictError", "check_paths", "resolved"]

Named = Mapping[str, "Path | None"]


class PathConflictError(RadeidIOError, ValueError):
    """Two paths of one command clash: writing one would replace, delete or nest in the other."""


def resolved(path: Path) -> Path:
    """The real path (`~`, `..` and every symlink resolved, also of a path that does not exist yet)."""
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


def _linked_from(folder: Path, secret: Path) -> bool:
    """Whether a file under `folder` is `secret` through a symlink or a hard link (by inode)."""
    try:
        want = secret.stat()
    except OSError:
        return False
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            try:
                found = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            if (found.st_ino, found.st_dev) == (want.st_ino, want.st_dev):
                return True
    return False


def _read_as_document(secret: Path, read: Path) -> bool:
    """Whether reading `read` (a file, or every file in a folder) would read `secret`."""
    if _same(secret, read) or read in secret.parents:
        return True
    return read.is_dir() and _linked_from(read, secret)


def _named(paths: Named) -> dict[str, tuple[Path, Path]]:
    return {label: (Path(p), resolved(Path(p))) for label, p in paths.items() if p is not None}


def _secret_problems(secret: dict[str, tuple[Path, Path]], read: dict[str, tuple[Path, Path]]) -> list[str]:
    problems = []
    for label, (given, path) in secret.items():
        for other_label, (other_given, other) in read.items():
            if _read_as_document(path, other):
                problems.append(
                    f"{label} {str(given)!r} would be read as {other_label} {str(other_given)!r} "
                    "(it is that file, or inside that folder, or linked from it), so the key would be copied "
                    "into the output; keep the key outside every input"
                )
    return problems


def check_paths(reads: Named, writes: Named, *, secrets: Named | None = None) -> None:
    """Raise `PathConflictError` when a written path clashes with a read path, a secret or another
    written one, or when a secret would be read as a document.

    Keys are how the user named each path (`"the input"`, `"--audit"`); `None` values are ignored.
    `secrets` are read (or, a key about to be generated, written) as the key, never as anything else.
    """
    read, write, secret = _named(reads), _named(writes), _named(secrets or {})
    problems = []
    labels = list(write)
    for i, label in enumerate(labels):
        given, path = write[label]
        for other_label, (other_given, other) in {**read, **secret}.items():
            if (how := _clash(path, other, True)) is not None:
                problems.append(f"{label} {str(given)!r} {how} {other_label} {str(other_given)!r}")
        for other_label in labels[i + 1 :]:
            other_given, other = write[other_label]
            how = _clash(path, other, False) or _clash(other, path, False)
            if how is not None:
                problems.append(f"{label} {str(given)!r} and {other_label} {str(other_given)!r} clash")
    if problems:
        problems[-1] += ": writing would replace or delete data radeid needs"
    problems += _secret_problems(secret, read)
    if problems:
        raise PathConflictError("; ".join(problems) + ". Choose separate paths")
