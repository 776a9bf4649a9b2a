"""The format registry: every input and output format by the name a command line or config uses.

`read_documents`, `open_writer` and `estimate_total` look a format up here instead of walking an
`if/elif` chain. Each format's module defines one `FormatHandler` (how to read it, how to write
it, how to estimate an input's size cheaply) and `radeid.io.formats.FORMAT_MODULES` says which
module that is; entries are lazy, so a module (and what it imports, pyarrow for Parquet) is loaded
only when its format is used. An unknown name is an `UnknownFormatError`, which is both the
`FormatError` the io layer's callers catch and the `ConfigError` every registry raises, and lists
the known names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from radeid.core.document import Document
from radeid.io.atomic import DocumentWriter
from radeid.io.errors import ReadIssue
from radeid.io.formats import FORMATS, InputFormat, UnknownFormatError, unknown_format
from radeid.io.records import ReadOptions

__all__ = [
    "FORMATS",
    "Estimator",
    "FormatHandler",
    "Reader",
    "UnknownFormatError",
    "WriterFactory",
    "format_handler",
    "unknown_format",
]

#: `(path, options, label map) -> records`. Raises whole-input problems (a missing column) when
#: called, before the first record; yields per-record problems as `ReadIssue`s.
Reader = Callable[[Path, ReadOptions, Mapping[str, str] | None], Iterator[Document | ReadIssue]]
#: `(path, options, overwrite) -> DocumentWriter` (see `radeid.io.writers.open_writer`).
WriterFactory = Callable[[Path, ReadOptions, bool | None], DocumentWriter]
#: `path -> number of records`, or None when it cannot be known cheaply (for progress bars only).
Estimator = Callable[[Path], int | None]


@dataclass(frozen=True)
class FormatHandler:
    """All that radeid does with one format."""

    read: Reader
    open_writer: WriterFactory
    estimate: Estimator


def format_handler(fmt: InputFormat | str) -> FormatHandler:
    """The handler of `fmt` (an `InputFormat` or its name, any case)."""
    name = fmt.value if isinstance(fmt, InputFormat) else str(fmt).strip().lower()
    if name not in FORMATS:
        raise unknown_format(fmt)
    return FORMATS.get(name)
