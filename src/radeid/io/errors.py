"""Errors and read issues of the io layer.

Two kinds of trouble, handled differently on purpose:

* Problems that make a whole input or output unusable (a missing path, an unknown format, a column
  name that does not exist, an output folder we must not clobber) are *raised*, once, up front,
  so the user gets one clear message instead of one per row.
* Problems with one record are *yielded* as a `ReadIssue` by `read_documents`, so one bad record
  never stops the others; the caller decides whether to stop (`batch.py`'s `on_error`).

Severity has one meaning everywhere: ``"error"`` means the record was skipped (no `Document` was
yielded for it); ``"warning"`` means the `Document` was still yielded but something about it is off
(empty text, duplicate id, a broken gold annotation). No message ever contains document text.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from radeid.core import metakeys

__all__ = [
    "ColumnError",
    "FormatError",
    "InputNotFoundError",
    "OutputExistsError",
    "RadeidIOError",
    "ReadIssue",
    "naming",
]


@contextlib.contextmanager
def naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """An OSError raised while writing `path` that names no file (a full disk: `write`, `fsync`
    and pyarrow name none) is raised again naming `path`, so the message points at the disk
    that is full (the audit's, the vault's), not at the output's folder."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc) or type(exc).__name__, os.fspath(path)) from exc


class RadeidIOError(Exception):
    """Base of every error the io layer raises; catch this to report any of them cleanly."""


class FormatError(RadeidIOError, ValueError):
    """The format is unknown, cannot be guessed, or the file is not in the format it claims."""


class ColumnError(FormatError):
    """A configured column/field (id, text, patient, kept) does not exist in the input."""


class InputNotFoundError(RadeidIOError, FileNotFoundError):
    """The input path does not exist."""


class OutputExistsError(RadeidIOError, FileExistsError):
    """The output exists and replacing it could destroy data that is not ours."""


@dataclass(frozen=True)
class ReadIssue:
    """A record that could not be read (error) or was read with a caveat (warning).

    Carries where the problem is (file, line and/or row, document id) and why, never the text.
    `line` is the 1-based physical line where the record starts; `row` the 1-based data row
    (CSV, Parquet; the header is not counted).
    """

    path: str
    line: int | None
    doc_id: str | None
    reason: str
    severity: str = "error"
    row: int | None = None
    #: A machine-readable kind for issues callers treat specially (`"duplicate-id"`), else None.
    code: str | None = None
    #: How many records the issue stands for (a lost Parquet row group: all its rows).
    records: int = 1

    def __post_init__(self) -> None:
        if self.severity not in ("error", "warning"):
            raise ValueError(f"severity must be 'error' or 'warning', not {self.severity!r}")

    @classmethod
    def at(
        cls, doc_id: str, metadata: Mapping[str, Any], reason: str, severity: str = "error", code: str | None = None
    ) -> ReadIssue:
        """An issue about a document that was read: located by the reader's metadata (file, line, row)."""
        return cls(
            str(metadata.get(metakeys.PATH, "")),
            metadata.get(metakeys.LINE),
            doc_id,
            reason,
            severity,
            metadata.get(metakeys.ROW),
            code=code,
        )

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def describe(self) -> str:
        """`examples.jsonl line 7 (doc 'r12'): malformed JSON: ...` — location, id, reason."""
        where = [self.path]
        if self.row is not None:
            where.append(f"row {self.row}" + ("," if self.line is not None else ""))
        if self.line is not None:
            where.append(f"line {self.line}")
        doc = f" (doc {self.doc_id!r})" if self.doc_id is not None else ""
        return f"{' '.join(where)}{doc}: {self.reason}"

    def __str__(self) -> str:
        return self.describe()
