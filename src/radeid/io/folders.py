"""Folder formats, one file per document: plain text (`.txt`), i2b2 2014 XML (`.xml`) and BRAT
standoff (`.txt` + `.ann`): readers, writers, size estimates.

A folder is read recursively in sorted path order, hidden files and folders skipped; a document's
id is its path relative to the folder without the suffix (`2019/ct/r12`), a single file's id its
stem. Text is kept exactly: bytes are decoded without newline translation, so `\r\n`, a BOM and
every code point survive and gold offsets stay valid. Writers put each document at its id (made
safe as a path) plus the suffix, never overwriting one document with another.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from hashlib import sha1
from pathlib import Path
from typing import IO, Any

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import AtomicTarget, DocumentWriter, check_target, umask
from radeid.io.commit import Move, fsync_tree
from radeid.io.errors import FormatError, InputNotFoundError, ReadIssue
from radeid.io.formats import InputFormat, walk_files
from radeid.io.gold import OutputTag, ParsedGold, brat_ann, i2b2_xml, parse_brat_ann, parse_i2b2
from radeid.io.records import ReadOptions, decode_error_reason, line_of, problem_issues, with_gold
from radeid.io.registry import Estimator, FormatHandler, WriterFactory

__all__ = ["BRAT", "I2B2", "TXT", "FolderWriter", "read_brat", "read_i2b2", "read_txt", "refuse_undecodable_names"]

#: Folders are counted for a progress bar for at most this long.
ESTIMATE_SECONDS = 1.0


def _relative_id(file: Path, root: Path | None) -> tuple[str, str]:
    """`(id, relpath)`: path relative to the input folder without its suffix, `/`-separated."""
    rel = file.relative_to(root) if root is not None else Path(file.name)
    return rel.with_suffix("").as_posix(), rel.as_posix()


def _folder_files(root: Path, suffix: str) -> Iterator[Path | OSError]:
    """Files with `suffix` (any case) under `root`; walk errors come through in order."""
    errors: list[OSError] = []
    for file in walk_files(root, errors):
        while errors:
            yield errors.pop(0)
        if file.suffix.lower() == suffix:
            yield file
    yield from errors


def _escaped(path: Path) -> str:
    """A path as text that can be printed and written anywhere: undecodable bytes as `\\xe9`."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _utf8_name(path: Path) -> bool:
    name = str(path)
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuse_undecodable_names(path: Path, suffixes: frozenset[str]) -> None:
    """Refuse, before any work, an input whose document file names are not valid UTF-8.

    A document's id is its file name, and the id goes to the audit, the vault and the output's
    file names, all UTF-8: such a name used to crash the run at its very end, after all the work,
    and again on every resume (issue 27). The user renames the file (e.g. with `convmv`); the
    message names it with its undecodable bytes escaped, and counts the others."""
    if path.is_dir():
        bad = [f for f in walk_files(path) if f.suffix.lower() in suffixes and not _utf8_name(f.relative_to(path))]
    else:
        bad = [path] if not _utf8_name(Path(path.name)) else []
    if bad:
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        raise FormatError(
            f"file name is not valid UTF-8: {_escaped(bad[0])}{more}; a document's id is its file name, and "
            "ids are written as UTF-8 (audit, vault, output names): rename the file (e.g. with convmv)"
        )


def _walk_issue(exc: OSError) -> ReadIssue:
    return ReadIssue(str(exc.filename or ""), None, None, f"cannot read folder: {exc.strerror or exc}")


def _text_document(file: Path, root: Path | None, options: ReadOptions) -> Document | ReadIssue:
    """The document of one text file (id from its path; exact text: bytes decoded as they are, no
    newline translation), or the error."""
    doc_id, relpath = _relative_id(file, root)
    source = str(file)
    try:
        size = file.stat().st_size
        if size > options.max_chars * 4:  # even 4-byte characters would be too many
            return ReadIssue(
                source, None, doc_id, f"file is {size:,} bytes, more than max_chars={options.max_chars:,} allows"
            )
        data = file.read_bytes()
    except OSError as exc:
        return ReadIssue(source, None, doc_id, f"cannot read file: {exc.strerror or exc}")
    try:
        text = data.decode(options.encoding)
    except UnicodeDecodeError as exc:
        line = line_of(data, exc.start)
        return ReadIssue(source, line, doc_id, decode_error_reason(exc, options.encoding, data))
    return Document(doc_id, text, None, {metakeys.PATH: source, metakeys.RELPATH: relpath})


def read_txt(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    refuse_undecodable_names(path, _FOLDER_SUFFIXES[InputFormat.TXT])
    root = path if path.is_dir() else None
    files: Iterator[Path | OSError] = _folder_files(path, ".txt") if root else iter([path])
    return _iter_txt(files, root, options)


def _iter_txt(
    files: Iterator[Path | OSError], root: Path | None, options: ReadOptions
) -> Iterator[Document | ReadIssue]:
    for file in files:
        yield _walk_issue(file) if isinstance(file, OSError) else _text_document(file, root, options)


def read_i2b2(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    refuse_undecodable_names(path, _FOLDER_SUFFIXES[InputFormat.I2B2])
    root = path if path.is_dir() else None
    files: Iterator[Path | OSError] = _folder_files(path, ".xml") if root else iter([path])
    return _iter_i2b2(files, root, options, mapping)


def _iter_i2b2(
    files: Iterator[Path | OSError],
    root: Path | None,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
) -> Iterator[Document | ReadIssue]:
    for file in files:
        if isinstance(file, OSError):
            yield _walk_issue(file)
            continue
        source = str(file)
        doc_id, relpath = _relative_id(file, root)
        try:
            size = file.stat().st_size
            if size > options.max_chars * 4 + 1_000_000:  # text plus generous room for the tags
                yield ReadIssue(source, None, doc_id, f"file is {size:,} bytes, more than max_chars allows")
                continue
            data = file.read_bytes()
        except OSError as exc:
            yield ReadIssue(source, None, doc_id, f"cannot read file: {exc.strerror or exc}")
            continue
        try:
            # XML carries its own encoding declaration (UTF-8 by default); `encoding` is not used.
            text, gold = parse_i2b2(data, mapping)
        except ValueError as exc:
            yield ReadIssue(source, _xml_line(exc), doc_id, str(exc))
            continue
        yield from problem_issues(gold, partial(_warning, source, doc_id))
        metadata: dict[str, Any] = {metakeys.PATH: source, metakeys.RELPATH: relpath}
        yield Document(doc_id, text, None, metadata, with_gold(metadata, gold))


def _xml_line(exc: ValueError) -> int | None:
    m = re.search(r"line (\d+)", str(exc))
    return int(m.group(1)) if m else None


def read_brat(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    refuse_undecodable_names(path, _FOLDER_SUFFIXES[InputFormat.BRAT])
    if path.is_dir():
        return _iter_brat(_brat_pairs(path), path, options, mapping)
    if path.suffix.lower() not in (".txt", ".ann"):
        raise FormatError(f"a single BRAT document is given as its .txt or .ann file, not {path.name!r}")
    txt = path.with_suffix(".txt")
    if not txt.exists():
        raise InputNotFoundError(f"input not found: {txt} (the text of BRAT document {path.stem!r})")
    return _iter_brat(iter([(txt, path.with_suffix(".ann"))]), None, options, mapping)


@dataclass(frozen=True)
class _OrphanAnn:
    """A `.ann` file whose `.txt` is missing: reported, since its gold would silently vanish."""

    path: Path


def _brat_pairs(root: Path) -> Iterator[tuple[Path, Path] | _OrphanAnn | OSError]:
    """`(txt, ann)` per `.txt` under `root` (the `.ann` may be missing), then orphan `.ann`s."""
    for file in _folder_files(root, ".txt"):
        yield file if isinstance(file, OSError) else (file, file.with_suffix(".ann"))
    for file in _folder_files(root, ".ann"):
        if isinstance(file, Path) and not file.with_suffix(".txt").exists():
            yield _OrphanAnn(file)


def _iter_brat(
    pairs: Iterator[tuple[Path, Path] | _OrphanAnn | OSError],
    root: Path | None,
    options: ReadOptions,
    mapping: Mapping[str, str] | None,
) -> Iterator[Document | ReadIssue]:
    for pair in pairs:
        if isinstance(pair, _OrphanAnn):
            yield ReadIssue(str(pair.path), None, None, "annotation file without its .txt; skipped")
            continue
        if isinstance(pair, OSError):
            yield _walk_issue(pair)
            continue
        txt, ann = pair
        doc = _text_document(txt, root, options)
        if isinstance(doc, ReadIssue):
            yield doc
            continue
        doc_id, text = doc.id, doc.text
        gold = ParsedGold()
        ann_source = str(ann)
        if not ann.exists():
            yield ReadIssue(str(txt), None, doc_id, "no .ann file beside it; read without gold spans", "warning")
        else:
            ann_bytes = b""
            try:
                ann_bytes = ann.read_bytes()
                ann_text = ann_bytes.decode(options.encoding)
            except UnicodeDecodeError as exc:
                yield ReadIssue(
                    ann_source,
                    line_of(ann_bytes, exc.start),
                    doc_id,
                    f"{decode_error_reason(exc, options.encoding, ann_bytes)}; gold spans ignored",
                    "warning",
                )
                ann_text = ""
            except OSError as exc:
                yield ReadIssue(
                    ann_source,
                    None,
                    doc_id,
                    f"cannot read annotations: {exc.strerror or exc}; gold spans ignored",
                    "warning",
                )
                ann_text = ""
            gold = parse_brat_ann(ann_text, text, mapping)
            yield from problem_issues(gold, partial(_warning, ann_source, doc_id))
        metadata = dict(doc.metadata)
        yield Document(doc_id, text, None, metadata, with_gold(metadata, gold))


def _estimate(suffix: str) -> Estimator:
    def estimate(path: Path) -> int | None:
        """Documents: the files with the format's suffix (one for a single file); None when the
        folder takes longer than `ESTIMATE_SECONDS` to count."""
        if not path.is_dir():
            return 1 if path.exists() else None
        deadline = time.monotonic() + ESTIMATE_SECONDS
        count = 0
        for n, file in enumerate(walk_files(path), 1):
            count += file.suffix.lower() == suffix
            if n % 1024 == 0 and time.monotonic() > deadline:
                return None
        return count

    return estimate


# ------------------------------------------------------------------------------------ writing


def _tags(result: Result) -> list[OutputTag]:
    """Where each replacement landed in the output, as annotations (zero-length ones left out)."""
    return [
        OutputTag(start, end, rep.span.category, rep.span.subtype, rep.new_text)
        for rep, (start, end) in zip(result.replacements, result.output_offsets(), strict=True)
        if end > start
    ]


_FOLDER_SUFFIXES = {
    InputFormat.TXT: frozenset({".txt"}),
    InputFormat.I2B2: frozenset({".xml"}),
    InputFormat.BRAT: frozenset({".txt", ".ann"}),
    InputFormat.DICOM: frozenset({".dcm"}),
    InputFormat.FHIR: frozenset({".ndjson", ".json"}),
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


class FolderWriter(DocumentWriter):
    """txt / i2b2 / BRAT: one file (BRAT: .txt + .ann) per document, at `id` + suffix.

    Two documents that map to the same file name (duplicate ids, or ids differing only in case
    on a case-insensitive disk) are never overwritten: the later one gets `~2`, `~3`, ...
    A target ending in the format's suffix (`note.txt`, `note.xml`; BRAT: `note.txt`/`note.ann`)
    holds exactly one document.
    """

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None, fmt: InputFormat) -> None:
        super().__init__(path, options)
        self.format = fmt
        self._single = path.suffix.lower() in _FOLDER_SUFFIXES[fmt]
        if self._single:
            self._targets = [path.with_suffix(s) for s in sorted(_FOLDER_SUFFIXES[fmt])]
            for target in self._targets:  # refuse up front, before any work is done
                check_target(target, folder=False, overwrite=overwrite, suffixes=frozenset())
            # A temp folder beside the target(s); on commit its files are moved out one by one.
            self._atomic = AtomicTarget(path.with_name(path.stem), folder=True, overwrite=True)
        else:
            self._atomic = AtomicTarget(path, folder=True, overwrite=overwrite, suffixes=_FOLDER_SUFFIXES[fmt])

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
        mode = 0o666 & ~umask()
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


def _writer(fmt: InputFormat) -> WriterFactory:
    def open_writer(path: Path, options: ReadOptions, overwrite: bool | None) -> DocumentWriter:
        return FolderWriter(path, options, overwrite, fmt)

    return open_writer


TXT = FormatHandler(read=read_txt, open_writer=_writer(InputFormat.TXT), estimate=_estimate(".txt"))
I2B2 = FormatHandler(read=read_i2b2, open_writer=_writer(InputFormat.I2B2), estimate=_estimate(".xml"))
BRAT = FormatHandler(read=read_brat, open_writer=_writer(InputFormat.BRAT), estimate=_estimate(".txt"))


def _warning(source: str, doc_id: str, line: int | None, reason: str) -> ReadIssue:
    """A gold-annotation problem of one document, as a warning (the document is kept)."""
    return ReadIssue(source, line, doc_id, reason, "warning")
