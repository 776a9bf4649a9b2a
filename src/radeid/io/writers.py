"""Atomic, streaming writers: de-identified documents, the audit, and detected spans.

Every writer builds its output in a temporary file or folder *next to* the target (same
directory: de-identified text never passes through /tmp or another disk) and moves it into place
with `os.replace` only on a clean exit (`__exit__` without an exception, or `.commit()`). On any
failure the temporary is removed and an existing output is left untouched, so a run never leaves a
half-written file where a good one was. Temporaries are hidden (`.NAME.XXXX.tmp`); only a killed
process can leave one behind.

Privacy, decided here once:

* Documents are written as `id` + de-identified `text` (under the column names the input used:
  `ReadOptions.id_col`/`text_col`) plus the values of `keep_columns`, nothing else. Other input
  columns may hold PHI and are dropped; so is the patient id, unless `keep_columns` lists it.
* The audit has offsets, categories, sources and scores, never the original or the new text. It
  holds the patient id only when asked (`include_patient_id=True`): it is often an MRN.
* The spans file of `radeid detect` has offsets and labels, never text.
* Output is UTF-8, whatever the input encoding.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from hashlib import sha1
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from radeid.commit import Move, apply_moves, fsync_file, fsync_tree
from radeid.document import Document, Result, Span
from radeid.io.errors import FormatError, OutputExistsError
from radeid.io.formats import FOLDER_FORMATS, InputFormat, format_from_suffix, is_gzip
from radeid.io.gold import OutputTag, brat_ann, i2b2_xml
from radeid.io.readers import ReadOptions

__all__ = [
    "AuditWriter",
    "DocumentWriter",
    "SpansWriter",
    "check_not_input",
    "open_writer",
    "output_format",
    "write_spans_jsonl",
]

_PARQUET_BATCH_ROWS = 1000
_PARQUET_BATCH_CHARS = 16_000_000


# ---------------------------------------------------------------------------------- atomicity


def _umask() -> int:
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


def _check_target(target: Path, *, folder: bool, overwrite: bool | None, suffixes: frozenset[str]) -> None:
    """Refuse, up front, to replace what must not be replaced (see `_AtomicTarget`)."""
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


class _AtomicTarget:
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
        _check_target(target, folder=folder, overwrite=overwrite, suffixes=suffixes)
        parent.mkdir(parents=True, exist_ok=True)
        prefix = f".{target.name}."
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
            mode = (0o777 if self.folder else 0o666) & ~_umask()
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


class _AtomicTextFile:
    """A UTF-8 text stream into an `_AtomicTarget` file (gzip when the target ends in `.gz`)."""

    def __init__(self, target: Path, overwrite: bool | None) -> None:
        self.atomic = _AtomicTarget(target, folder=False, overwrite=overwrite)
        try:
            self._raw: IO[bytes] = open(self.atomic.tmp, "wb")  # noqa: SIM115
        except BaseException:
            self.atomic.discard()
            raise
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0) if is_gzip(target) else None
        self.handle = io.TextIOWrapper(self._gz or self._raw, encoding="utf-8", newline="")

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
        """Finish and fsync the temporary; the rename is the caller's (`radeid.commit`)."""
        try:
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


class _Committable:
    """Context-manager protocol shared by every writer: commit on success, abort on error."""

    _state = "open"

    def __enter__(self) -> _Committable:
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
        (`radeid.commit.commit_together` applies them, with the other outputs of the run)."""
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


# ---------------------------------------------------------------------------------- documents


def _kept(result: Result, options: ReadOptions) -> dict[str, Any]:
    columns = result.document.metadata.get("columns") or {}
    return {c: columns[c] for c in options.keep_columns if c in columns}


def _tags(result: Result) -> list[OutputTag]:
    """Where each replacement landed in the output, as annotations (zero-length ones left out)."""
    return [
        OutputTag(start, end, rep.span.category, rep.span.subtype, rep.new_text)
        for rep, (start, end) in zip(result.replacements, result.output_offsets(), strict=True)
        if end > start
    ]


class DocumentWriter(_Committable):
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
            if isinstance(atomic, _AtomicTarget):
                atomic.private = True
        self._private = True

    def write(self, result: Result) -> None:
        """Append one de-identified document (its `text`, never the original)."""
        self._ensure_open()
        self._write(result)
        self.count += 1

    def _write(self, result: Result) -> None:
        raise NotImplementedError


class _JsonlWriter(DocumentWriter):
    format = InputFormat.JSONL

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        self._file = _AtomicTextFile(path, overwrite)

    def _write(self, result: Result) -> None:
        record: dict[str, Any] = {self.options.id_col: result.document.id, self.options.text_col: result.text}
        record.update(_kept(result, self.options))
        self._file.handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")

    def _stage(self) -> list[Move]:
        return self._file.stage()

    def _abort(self) -> None:
        self._file.abort()


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


class _CsvWriter(DocumentWriter):
    format = InputFormat.CSV

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        name = path.name.lower().removesuffix(".gz")
        delimiter = options.delimiter or ("\t" if name.endswith(".tsv") else ",")
        self._file = _AtomicTextFile(path, overwrite)
        # RFC 4180 line ends: with "\r\n" as terminator, any cell holding \r or \n gets quoted.
        self._csv = csv.writer(self._file.handle, delimiter=delimiter, lineterminator="\r\n")
        self._csv.writerow([options.id_col, options.text_col, *options.keep_columns])

    def _write(self, result: Result) -> None:
        kept = _kept(result, self.options)
        self._csv.writerow(
            [result.document.id, result.text, *(_csv_cell(kept.get(c)) for c in self.options.keep_columns)]
        )

    def _stage(self) -> list[Move]:
        return self._file.stage()

    def _abort(self) -> None:
        self._file.abort()


class _ParquetWriter(DocumentWriter):
    """Row groups of ~1000 documents; schema: id, text (strings) + kept columns (types inferred
    from the first batch, all-null columns as strings)."""

    format = InputFormat.PARQUET

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        self._atomic = _AtomicTarget(path, folder=False, overwrite=overwrite)
        self._names = [options.id_col, options.text_col, *options.keep_columns]
        self._buffer: dict[str, list[Any]] = {name: [] for name in self._names}
        self._chars = 0
        self._writer: Any = None
        self._schema: Any = None

    def _write(self, result: Result) -> None:
        kept = _kept(result, self.options)
        self._buffer[self.options.id_col].append(result.document.id)
        self._buffer[self.options.text_col].append(result.text)
        for name in self.options.keep_columns:
            self._buffer[name].append(kept.get(name))
        self._chars += len(result.text)
        if len(self._buffer[self.options.id_col]) >= _PARQUET_BATCH_ROWS or self._chars >= _PARQUET_BATCH_CHARS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._buffer[self.options.id_col] and self._writer is not None:
            return
        if self._schema is None:
            fields = [pa.field(self.options.id_col, pa.string()), pa.field(self.options.text_col, pa.string())]
            for name in self.options.keep_columns:
                inferred = pa.array(self._buffer[name]).type if self._buffer[name] else pa.null()
                fields.append(pa.field(name, pa.string() if pa.types.is_null(inferred) else inferred))
            self._schema = pa.schema(fields)
        try:
            table = pa.Table.from_pydict(self._buffer, schema=self._schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise ValueError(
                f"kept columns changed type between batches; cannot write Parquet ({type(exc).__name__})"
            ) from None
        if self._writer is None:
            self._writer = pq.ParquetWriter(str(self._atomic.tmp), self._schema)
        self._writer.write_table(table)
        self._buffer = {name: [] for name in self._names}
        self._chars = 0

    def _stage(self) -> list[Move]:
        self._flush()
        self._writer.close()
        fsync_file(self._atomic.tmp)
        return self._atomic.moves()

    def _abort(self) -> None:
        try:
            if self._writer is not None:
                self._writer.close()
        except Exception:  # noqa: BLE001 - cleaning up after a failure
            pass
        self._atomic.discard()


_FOLDER_SUFFIXES = {
    InputFormat.TXT: frozenset({".txt"}),
    InputFormat.I2B2: frozenset({".xml"}),
    InputFormat.BRAT: frozenset({".txt", ".ann"}),
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _safe_relpath(doc_id: str) -> str:
    """A relative path for a document id that cannot escape the output folder.

    Ids from a folder input (`2019/ct/r12`) come back unchanged; `..`, absolute paths, control
    characters, hidden names and over-long names are neutralised.
    """
    parts = []
    for part in re.split(r"[/\\]+", doc_id):
        if part in ("", "."):
            continue
        part = "__" if part == ".." else _CONTROL.sub("_", part)
        if part.startswith("."):
            part = "_" + part  # a hidden file would be skipped when read back
        if len(part.encode("utf-8")) > 200:
            part = f"{part[:60]}-{sha1(part.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"
        parts.append(part)
    return "/".join(parts) or "document"


class _FolderWriter(DocumentWriter):
    """txt / i2b2 / BRAT: one file (BRAT: .txt + .ann) per document, at `id` + suffix.

    Two documents that map to the same file name (duplicate ids, or ids differing only in case
    on a case-insensitive disk) are never overwritten: the later one gets `~2`, `~3`, ...
    A target ending in the format's suffix (`note.txt`, `note.xml`; BRAT: `note.txt`/`note.ann`)
    holds exactly one document.
    """

    def __init__(self, path: Path, fmt: InputFormat, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options)
        self.format = fmt
        suffix = path.suffix.lower()
        single = {InputFormat.TXT: (".txt",), InputFormat.I2B2: (".xml",), InputFormat.BRAT: (".txt", ".ann")}[fmt]
        self._single = suffix in single
        if self._single:
            self._targets = [path.with_suffix(s) for s in sorted(_FOLDER_SUFFIXES[fmt])]
            for target in self._targets:  # refuse up front, before any work is done
                _check_target(target, folder=False, overwrite=overwrite, suffixes=frozenset())
            # A temp folder beside the target(s); on commit its files are moved out one by one.
            self._atomic = _AtomicTarget(path.with_name(path.stem), folder=True, overwrite=True)
        else:
            self._atomic = _AtomicTarget(path, folder=True, overwrite=overwrite, suffixes=_FOLDER_SUFFIXES[fmt])

    def _create(self, relpath: str, suffix: str) -> tuple[Path, IO[str]]:
        base = self._atomic.tmp / relpath
        base.parent.mkdir(parents=True, exist_ok=True)
        n = 1
        while True:
            candidate = base.with_name(base.name + (f"~{n}" if n > 1 else "") + suffix)
            try:
                handle = open(candidate, "x", encoding="utf-8", newline="")  # noqa: SIM115
                if getattr(self, "_private", False):
                    os.chmod(candidate, 0o600)
                return candidate, handle
            except FileExistsError:
                n += 1

    def _write(self, result: Result) -> None:
        if self._single:
            if self.count:
                raise ValueError(
                    f"output {str(self.path)!r} holds a single document; write to a folder for more than one"
                )
            relpath = self.path.stem
        else:
            relpath = _safe_relpath(result.document.id)
        if self.format is InputFormat.I2B2:
            _, handle = self._create(relpath, ".xml")
            with handle:
                handle.write(i2b2_xml(result.text, _tags(result)))
            return
        txt, handle = self._create(relpath, ".txt")
        with handle:
            handle.write(result.text)
        if self.format is InputFormat.BRAT:
            with open(txt.with_suffix(".ann"), "x", encoding="utf-8", newline="") as ann:
                if getattr(self, "_private", False):
                    os.chmod(txt.with_suffix(".ann"), 0o600)
                ann.write(brat_ann(_tags(result)))

    def _stage(self) -> list[Move]:
        fsync_tree(self._atomic.tmp)
        if not self._single:
            return self._atomic.moves()
        if self.count == 0:
            raise ValueError(f"no document was written to {str(self.path)!r}")
        mode = 0o666 & ~_umask()
        moves = []
        for target in self._targets:
            produced = self._atomic.tmp / target.name
            if getattr(self, "_private", False):
                os.chmod(produced, 0o600)
            else:
                os.chmod(produced, target.stat().st_mode & 0o777 if target.exists() else mode)
            moves.append(Move(produced, target, "file"))
        self._atomic.done = True
        return [*moves, Move(self._atomic.tmp, None, "remove")]

    def _abort(self) -> None:
        self._atomic.discard()


def output_format(path: str | os.PathLike[str], fmt: InputFormat | str | None = None) -> InputFormat:
    """The format to write `path` in: `fmt` if given, else by suffix; a path with no suffix (or an
    existing folder) is a folder of .txt files. Pass the input's format to keep folder formats."""
    p = Path(path)
    found = format_from_suffix(p)
    if fmt is not None:
        chosen = InputFormat.parse(fmt)
        row_formats = {InputFormat.JSONL, InputFormat.CSV, InputFormat.PARQUET}
        if found is not None and found is not chosen and (found in row_formats or chosen in row_formats):
            raise FormatError(
                f"output {str(p)!r} is named like {found.value} but the format asked for is {chosen.value}; "
                "rename the output or choose its format explicitly"
            )
        return chosen
    if found is not None:
        return found
    if not p.suffix or p.is_dir():
        return InputFormat.TXT
    raise FormatError(
        f"cannot tell the output format of {str(p)!r} from its name; give it explicitly "
        f"(one of: {', '.join(f.value for f in InputFormat)})"
    )


def check_not_input(output: Path, input_path: Path) -> None:
    """Raise `FormatError` when writing `output` would overwrite, delete or nest in the input."""
    out, inp = output.resolve(), input_path.resolve()
    if out == inp:
        raise FormatError(f"output {str(output)!r} is the input; write the de-identified copy elsewhere")
    if out in inp.parents:
        raise FormatError(
            f"output {str(output)!r} contains the input {str(input_path)!r}; replacing it would delete it"
        )
    if inp in out.parents:
        raise FormatError(
            f"output {str(output)!r} is inside the input folder {str(input_path)!r}; a later run would read it as input"
        )


def open_writer(
    path: str | os.PathLike[str],
    fmt: InputFormat | str | None = None,
    options: ReadOptions | None = None,
    *,
    overwrite: bool | None = None,
    input_path: str | os.PathLike[str] | None = None,
    private: bool = False,
) -> DocumentWriter:
    """A `DocumentWriter` for `path` (see `output_format` for how a missing `fmt` is chosen).

    `options` must be the ones the input was read with: they name the id/text columns and the
    columns to keep. `overwrite`: see `_AtomicTarget` (default: replace a file or a previous output
    folder, refuse a folder holding other files). Pass `input_path` so that an output that is, holds
    or sits inside the input is refused: replacing it would destroy the originals.
    """
    options = options or ReadOptions()
    p = Path(path)
    f = output_format(p, fmt)
    if input_path is not None:
        check_not_input(p, Path(input_path))
    writer: DocumentWriter
    if f is InputFormat.JSONL:
        writer = _JsonlWriter(p, options, overwrite)
    elif f is InputFormat.CSV:
        writer = _CsvWriter(p, options, overwrite)
    elif f is InputFormat.PARQUET:
        writer = _ParquetWriter(p, options, overwrite)
    else:
        assert f in FOLDER_FORMATS
        writer = _FolderWriter(p, f, options, overwrite)
    if private:
        writer._make_private()
    return writer


# ---------------------------------------------------------------------------------- audit, spans


class AuditWriter(_Committable):
    """One JSON line per replacement: where it was, where it is, what it was judged to be.

    `{"doc_id", "patient_id"?, "start", "end", "category", "subtype", "source", "score",
    "out_start", "out_end", "replacement_kind"?}` — never the original or the new text, so the
    audit can be kept and shared more widely than the vault. `patient_id` only with
    `include_patient_id=True`; `replacement_kind` when the replacement carries a `kind`.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, include_patient_id: bool = False, overwrite: bool | None = None
    ) -> None:
        self.path = Path(path)
        self.include_patient_id = include_patient_id
        self.count = 0
        self.documents = 0
        self._file = _AtomicTextFile(self.path, overwrite)

    def __enter__(self) -> AuditWriter:
        return self

    def write(self, result: Result) -> int:
        """Audit every replacement of one document; returns the number of lines written."""
        self._ensure_open()
        doc = result.document
        lines = []
        for rep, (out_start, out_end) in zip(result.replacements, result.output_offsets(), strict=True):
            span = rep.span
            row: dict[str, Any] = {"doc_id": doc.id}
            if self.include_patient_id and doc.patient_id is not None:
                row["patient_id"] = doc.patient_id
            row.update(
                start=span.start,
                end=span.end,
                category=span.category.value,
                subtype=span.subtype,
                source=span.source,
                score=round(float(span.score), 4),
                out_start=out_start,
                out_end=out_end,
            )
            kind = getattr(rep, "kind", None)
            if kind is not None:
                row["replacement_kind"] = str(kind)
            lines.append(json.dumps(row, ensure_ascii=False) + "\n")
        self._file.handle.write("".join(lines))
        self.count += len(lines)
        self.documents += 1
        return len(lines)

    def _stage(self) -> list[Move]:
        return self._file.stage()

    def _abort(self) -> None:
        self._file.abort()


class SpansWriter(_Committable):
    """`radeid detect` output: one line per document, `{"id", "spans": [Span.to_dict(), ...]}`."""

    def __init__(self, path: str | os.PathLike[str], *, overwrite: bool | None = None) -> None:
        self.path = Path(path)
        self.count = 0
        self._file = _AtomicTextFile(self.path, overwrite)

    def __enter__(self) -> SpansWriter:
        return self

    def write(self, document: Document | str, spans: Iterable[Span]) -> None:
        self._ensure_open()
        doc_id = document.id if isinstance(document, Document) else str(document)
        line = {"id": doc_id, "spans": [s.to_dict() for s in sorted(spans)]}
        self._file.handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.count += 1

    def _stage(self) -> list[Move]:
        return self._file.stage()

    def _abort(self) -> None:
        self._file.abort()


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
