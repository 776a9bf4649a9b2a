"""The shared JSONL gold format, written and read strictly (training data must be exact).

One document per line: `{"id", "text", "spans": [{"start", "end", "label", "category", "text"}],
"source", "kind", "patient_id"}`. Reading goes through `radeid.io.read_documents` (so BRAT and
i2b2 gold work too), but where `radeid evaluate` warns and goes on, this stops with an error that
names the file and line: a silently dropped label would teach a model that PHI is not PHI.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from radeid.core import metakeys as mk
from radeid.core.document import Document
from radeid.io import ReadIssue, ReadOptions, read_documents

__all__ = ["GoldDataError", "gold_record", "read_gold", "write_gold_jsonl"]

_KEPT = (mk.KIND, mk.SOURCE)


class GoldDataError(ValueError):
    """A labelled input that cannot be used as is (the message names the file and line, never text)."""


def gold_record(doc: Document, source: str | None = None) -> dict[str, Any]:
    """The JSONL object of one labelled document; checks every span against the text."""
    spans = []
    for span in doc.spans:
        piece = doc.text[span.start : span.end]
        if span.end > len(doc.text) or not piece:
            raise GoldDataError(f"document {doc.id!r}: span [{span.start}, {span.end}) is outside its text")
        spans.append(
            {"start": span.start, "end": span.end, "label": span.label, "category": span.category.value, "text": piece}
        )
    columns = doc.metadata.get(mk.COLUMNS) or {}
    return {
        "id": doc.id,
        "text": doc.text,
        "spans": spans,
        "source": source or doc.metadata.get(mk.SOURCE) or columns.get(mk.SOURCE) or "radeid-synth",
        "kind": doc.metadata.get(mk.KIND) or columns.get(mk.KIND),
        "patient_id": doc.patient_id,
    }


def write_gold_jsonl(docs: Iterable[Document], path: str | os.PathLike[str], source: str | None = None) -> int:
    """Write atomically (a temporary next to the target, renamed on success); returns the count."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for doc in docs:
                handle.write(json.dumps(gold_record(doc, source), ensure_ascii=False) + "\n")
                count += 1
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def _where(issue: ReadIssue) -> str:
    where = issue.path
    if issue.line is not None:
        where += f", line {issue.line}"
    if issue.doc_id:
        where += f" (document {issue.doc_id!r})"
    return where


def read_gold(path: str | os.PathLike[str], fmt: str | None = None, label_map: str | None = None) -> Iterator[Document]:
    """Labelled documents of a gold file (JSONL, BRAT, i2b2, ...); raises `GoldDataError` on a bad
    record or a broken annotation, and on overlapping spans (no surrogate can replace both)."""
    options = ReadOptions(keep_columns=_KEPT, label_map=label_map, warn_duplicates=False, require_kept=False)
    for item in read_documents(path, fmt, options):
        if isinstance(item, ReadIssue):
            if item.severity == "error" or item.reason.startswith(("gold span", "'spans'", "and ")):
                raise GoldDataError(f"{_where(item)}: {item.reason}")
            continue
        previous = None
        for span in item.spans:
            if previous is not None and span.start < previous.end:
                where = f"{path}, line {item.metadata.get(mk.LINE)}" if item.metadata.get(mk.LINE) else str(path)
                raise GoldDataError(
                    f"{where} (document {item.id!r}): spans [{previous.start}, {previous.end}) and "
                    f"[{span.start}, {span.end}) overlap"
                )
            previous = span
        yield item
