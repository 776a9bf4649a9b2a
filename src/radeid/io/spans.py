"""The spans file of `radeid detect`: one line per document, `{"id", "spans": [Span.to_dict(), ...]}`.

Offsets and labels only, never text; written atomically like every output (`radeid.io.atomic`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from radeid.core.document import Document, Span
from radeid.io.atomic import AtomicTextFile, TextFileOutput

__all__ = ["SpansWriter", "write_spans_jsonl"]


class SpansWriter(TextFileOutput):
    """`radeid detect` output: one line per document, `{"id", "spans": [Span.to_dict(), ...]}`."""

    def __init__(self, path: str | os.PathLike[str], *, overwrite: bool | None = None) -> None:
        self.path = Path(path)
        self.count = 0
        self._file = AtomicTextFile(self.path, overwrite)

    def __enter__(self) -> SpansWriter:
        return self

    def write(self, document: Document | str, spans: Iterable[Span]) -> None:
        self._ensure_open()
        doc_id = document.id if isinstance(document, Document) else str(document)
        line = {"id": doc_id, "spans": [s.to_dict() for s in sorted(spans)]}
        self._file.handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.count += 1


def write_spans_jsonl(
    path: str | os.PathLike[str],
    items: Iterable[tuple[Document | str, Iterable[Span]]],
    *,
    overwrite: bool | None = None,
) -> int:
    """Write `(document or id, spans)` pairs as a spans JSONL, atomically; returns the line count.

    `items` is consumed lazily, so a generator that raises midway leaves no file behind.
    """
    with SpansWriter(path, overwrite=overwrite) as writer:
        for document, spans in items:
            writer.write(document, spans)
    return writer.count
