"""Load gold and predictions for evaluation.

Gold comes through the io readers (JSONL, CSV, Parquet, i2b2 XML, BRAT), with a label map applied.
Predictions are either the same kind of file, or what `radeid detect` writes: JSONL lines
`{"id": ..., "spans": [{"start", "end", "category", "subtype", "score", "source"}]}` without text,
which `read_spans_jsonl` reads. The same label map is applied to both sides; a label mapped to
`IGNORE` (or `OTHER`, `O`) is not PHI: dropped from predictions, kept as an *ignored region* of
the gold (see `metrics`).

The io readers drop ignored gold labels; until they keep them in `metadata["ignored_spans"]`,
`ignored_regions_jsonl` re-reads a JSONL gold file for them (one cheap extra pass).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from radeid.core.document import Document, Span
from radeid.core.labelmaps import load_label_map
from radeid.evaluate.metrics import IGNORED_SPANS_KEY, EvaluationInputError
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat, detect_format
from radeid.io.gold import UnknownLabel, resolve_label
from radeid.io.readers import ReadOptions, read_documents

__all__ = [
    "GoldSet",
    "ignored_regions_jsonl",
    "is_spans_jsonl",
    "load_gold",
    "load_predictions",
    "read_spans_jsonl",
    "strip_gold",
]


@dataclass
class GoldSet:
    """Gold documents, their ignored regions by id, and every reader issue (errors skip a record)."""

    documents: list[Document] = field(default_factory=list)
    ignored: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    errors: list[ReadIssue] = field(default_factory=list)
    warnings: list[ReadIssue] = field(default_factory=list)


def _mapping(label_map: str | None) -> dict[str, str] | None:
    if label_map is None:
        return None
    try:
        return load_label_map(label_map)
    except ValueError as exc:
        raise EvaluationInputError(str(exc)) from None


def _open_text(path: Path) -> IO[str]:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    with _open_text(path) as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvaluationInputError(f"{path} line {lineno}: malformed JSON: {exc.msg}") from None
            except (ValueError, RecursionError):  # an integer of too many digits, or nesting too deep
                raise EvaluationInputError(
                    f"{path} line {lineno}: a number too long to read, or JSON nested too deeply"
                ) from None


def is_spans_jsonl(path: str | os.PathLike[str], text_col: str = "text") -> bool:
    """A JSONL file whose first object has no text field: `radeid detect` output."""
    p = Path(path)
    if p.is_dir() or detect_format(p) is not InputFormat.JSONL:
        return False
    for _, obj in _json_lines(p):
        return isinstance(obj, dict) and text_col not in obj
    return False


def _label_of(item: Mapping[str, Any]) -> str | None:
    label = item.get("category") or item.get("label")
    return None if label is None else str(label)


def read_spans_jsonl(
    path: str | os.PathLike[str], label_map: str | None = None, id_col: str = "id"
) -> dict[str, list[Span]]:
    """Predicted spans by document id from a spans JSONL; raises `EvaluationInputError` on bad lines."""
    p = Path(path)
    mapping = _mapping(label_map)
    out: dict[str, list[Span]] = {}
    for lineno, obj in _json_lines(p):
        where = f"{p} line {lineno}"
        if not isinstance(obj, dict) or id_col not in obj:
            raise EvaluationInputError(f"{where}: expected an object with {id_col!r} and 'spans'")
        doc_id = str(obj[id_col])
        if doc_id in out:
            raise EvaluationInputError(f"{where}: document {doc_id!r} appears twice")
        spans: list[Span] = []
        for n, item in enumerate(obj.get("spans") or [], 1):
            if not isinstance(item, dict) or (label := _label_of(item)) is None:
                raise EvaluationInputError(f"{where}: span {n} needs 'start', 'end' and 'category' (or 'label')")
            try:
                resolved = resolve_label(label, mapping)
                if resolved is None:
                    continue  # a label that is not PHI here
                category, subtype = resolved
                spans.append(
                    Span(
                        int(item["start"]),
                        int(item["end"]),
                        category,
                        item.get("subtype") or subtype,
                        float(item.get("score", 1.0)),
                        str(item.get("source", "")),
                    )
                )
            except UnknownLabel as exc:
                raise EvaluationInputError(f"{where} (doc {doc_id!r}) span {n}: {exc}") from None
            except (KeyError, TypeError, ValueError) as exc:
                raise EvaluationInputError(f"{where} (doc {doc_id!r}) span {n}: {exc}") from None
        out[doc_id] = spans
    return out


def ignored_regions_jsonl(
    path: str | os.PathLike[str],
    label_map: str | None = None,
    id_col: str = "id",
    spans_field: str = "spans",
) -> dict[str, list[tuple[int, int]]]:
    """Gold spans whose label is known but not PHI (`OTHER`, `IGNORE` in the map), by document id."""
    mapping = _mapping(label_map)
    out: dict[str, list[tuple[int, int]]] = {}
    for _, obj in _json_lines(Path(path)):
        if not isinstance(obj, dict) or id_col not in obj:
            continue  # the reader reports it
        regions = []
        for item in obj.get(spans_field) or []:
            if not isinstance(item, dict) or (label := _label_of(item)) is None:
                continue
            try:
                if resolve_label(label, mapping) is None:
                    regions.append((int(item["start"]), int(item["end"])))
            except (UnknownLabel, KeyError, TypeError, ValueError):
                continue
        if regions:
            out[str(obj[id_col])] = regions
    return out


def load_gold(
    path: str | os.PathLike[str],
    fmt: InputFormat | str | None = None,
    *,
    label_map: str | None = None,
    id_col: str = "id",
    text_col: str = "text",
) -> GoldSet:
    """Read gold documents with the io readers; whole-input problems raise (`RadeidIOError`)."""
    options = ReadOptions(id_col=id_col, text_col=text_col, label_map=label_map)
    gold = GoldSet()
    for item in read_documents(path, fmt, options):
        if isinstance(item, ReadIssue):
            (gold.errors if item.is_error else gold.warnings).append(item)
            continue
        gold.documents.append(item)
        if item.metadata.get(IGNORED_SPANS_KEY):
            gold.ignored[item.id] = [(int(s[0]), int(s[1])) for s in _pairs(item.metadata[IGNORED_SPANS_KEY])]
    resolved = InputFormat.parse(fmt) if fmt is not None else detect_format(Path(path))
    if resolved is InputFormat.JSONL and not gold.ignored:
        gold.ignored = ignored_regions_jsonl(path, label_map, id_col, options.spans_field)
    return gold


def _pairs(items: Iterable[Any]) -> Iterator[tuple[int, int]]:
    for item in items:
        if isinstance(item, Mapping):
            yield int(item["start"]), int(item["end"])
        else:
            yield int(item[0]), int(item[1])


def load_predictions(
    path: str | os.PathLike[str],
    fmt: InputFormat | str | None = None,
    *,
    label_map: str | None = None,
    id_col: str = "id",
    text_col: str = "text",
) -> tuple[dict[str, list[Span]], list[ReadIssue]]:
    """Predicted spans by id from a spans JSONL or any annotated format; plus reader errors."""
    if (fmt is None or InputFormat.parse(fmt) is InputFormat.JSONL) and is_spans_jsonl(path, text_col):
        return read_spans_jsonl(path, label_map, id_col), []
    options = ReadOptions(id_col=id_col, text_col=text_col, label_map=label_map, warn_duplicates=False)
    out: dict[str, list[Span]] = {}
    errors: list[ReadIssue] = []
    for item in read_documents(path, fmt, options):
        if isinstance(item, ReadIssue):
            if item.is_error:
                errors.append(item)
            continue
        out[item.id] = list(item.spans)
    return out, errors


def strip_gold(documents: Sequence[Document]) -> list[Document]:
    """The documents as a detector should see them: same text and patient, no gold spans."""
    return [Document(d.id, d.text, d.patient_id, {}, ()) for d in documents]
