"""FHIR resources (`.json`: one Bundle or resource a file; `.ndjson`: a bulk export, one resource a line).

A record is a whole `.json` file or one line of an `.ndjson` file, and its text is the JSON exactly
as read, so that the vault, the audit and `reidentify` work on offsets into it as for any other
format; the line end after an NDJSON line (and any blank lines before it) go in
`metadata["frame"]` and the writer puts them back, so an output has the input's bytes outside the
replaced values. `radeid.io.fhir_fields` finds the prose, the PHI elements, the resource ids and the
escapes as character ranges; `radeid.pipeline.structured` applies them.

Each resource is checked with the `fhir.resources` models (the extra `radeid[fhir]`): FHIR R5,
else R4B. A line or file that is not JSON, or not a resource, or a resource that does not validate,
is one `ReadIssue` naming the file, the line and the resource id (never a value) and left out; in a
Bundle, an entry that does not validate is a warning and the Bundle is still de-identified, every
entry by element, so one bad entry never costs the others. The record id is the resource type and
the line where the record starts (`DiagnosticReport-3`), which de-identification does not change;
the patient key (`Document.patient_id`) is the first Patient's id, else the `subject`'s or
`patient`'s Patient reference, so a Patient line and the reports that refer to it share a surrogate
identity and date shift across files. Output is UTF-8.

A folder is read file by file (its `.ndjson` and `.json` files, in sorted path order, hidden ones
skipped); a record's id is then its file's path without the suffix and its own id
(`export/DiagnosticReport/DiagnosticReport-3`), and the output is a folder with the same files.
Before the first record, `radeid.io.fhir_patients` reads the input's Patients: a record whose
patient key is one of them gets that Patient's names and MRNs (`metadata["known_values"]`), so a
report in `DiagnosticReport.ndjson` is searched for the name written only in `Patient.ndjson`.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import DocumentWriter, TextDocumentWriter
from radeid.io.commit import Move
from radeid.io.errors import FormatError, ReadIssue
from radeid.io.fhir_fields import Path as JsonPath
from radeid.io.fhir_fields import RecordMap, Resource, at, map_record, text_attachments
from radeid.io.fhir_json import ESCAPE, JArray, JObject, JString, scan
from radeid.io.fhir_patients import KnownValues, patient_values
from radeid.io.folders import FolderWriter, _safe_relpath, refuse_undecodable_names
from radeid.io.formats import InputFormat, walk_files
from radeid.io.record_codecs import CellReader, RecordCodec
from radeid.io.records import STREAM_ERRORS, ReadOptions, bom_encoding, cheap_to_scan, decode_error_reason
from radeid.io.registry import FormatHandler

__all__ = [
    "FHIR",
    "FHIR_RECORD",
    "FhirFolderWriter",
    "FhirWriter",
    "fhir_files",
    "read_fhir",
    "resource_document",
    "validation_problem",
]

#: What a replacement writes instead of a character a JSON string cannot hold as it is.
_JSON_RESERVED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: ... and, in a record with XHTML narrative, instead of XML's markup characters.
_XHTML_RESERVED = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LINE = re.compile(rb"[^\n]*\n|[^\n]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
#: `"resourceType"` with its first letter escaped: the same JSON, written by `_framed` in a record
#: read with its escapes decoded whose every non-ASCII character was replaced, so that reading the
#: output again (`reidentify`) still escapes what it restores. The reader undoes it.
_MARKER = '"\\u0072esourceType"'
#: Files up to this size are counted for a progress bar (`estimate_fhir`).
ESTIMATE_MAX_BYTES = 256 << 20


def read_fhir(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    if "{".encode(options.encoding, errors="replace") != b"{":
        raise FormatError(
            f"FHIR JSON needs an ASCII-compatible encoding (utf-8, latin-1, ...), not {options.encoding!r}"
        )
    _fhir_library()
    if path.is_dir():
        refuse_undecodable_names(path, _SUFFIXES)
    return _iter_input(path, options)


#: The files of a FHIR folder.
_SUFFIXES = frozenset({".ndjson", ".json"})


def fhir_files(folder: Path) -> list[Path]:
    """A folder's `.ndjson` and `.json` files, in sorted path order (hidden ones skipped)."""
    return [f for f in walk_files(folder) if f.suffix.lower() in _SUFFIXES]


def _iter_input(path: Path, options: ReadOptions) -> Iterator[Document | ReadIssue]:
    """The records of a file or a folder, once its Patients are known (read on the first `next`,
    not when the reader is made: a run's up-front check makes one and drops it)."""
    if not path.is_dir():
        yield from _iter_fhir(path, None, options, patient_values([path], options.encoding))
        return
    files = fhir_files(path)
    if not files:
        yield ReadIssue(str(path), None, None, "the folder holds no .ndjson or .json file")
    known = patient_values(files, options.encoding)
    for file in files:
        yield from _iter_fhir(file, file.relative_to(path), options, known)


def _fhir_library() -> None:
    try:
        import fhir.resources  # noqa: F401
    except ImportError:
        raise FormatError("reading FHIR needs the fhir.resources package: pip install 'radeid[fhir]'") from None


def _iter_fhir(
    path: Path, rel: Path | None, options: ReadOptions, known: KnownValues
) -> Iterator[Document | ReadIssue]:
    """One file's records (`rel`: its path in the input folder, None for a file given alone)."""
    source = str(path)
    where = _Source(source, rel, known)
    try:
        data = path.read_bytes()
    except STREAM_ERRORS as exc:
        yield ReadIssue(source, None, None, f"cannot read the file: {exc}")
        return
    encoding = bom_encoding(options.encoding)
    if not _is_lines(path, data, encoding):
        yield from _record(where, 1, data, ("", ""), encoding, bundle_ok=True)
        return
    blank = b""
    lines = _LINE.findall(data)
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=0)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            if number < last:
                blank += line
            continue
        body = line.rstrip(b"\r\n")
        end = line[len(body) :]
        if number == last:
            end += b"".join(lines[number:])  # blank lines after the last record stay with it
        frame = (blank.decode(encoding, "replace"), end.decode(encoding, "replace"))
        yield from _record(where, number, body, frame, encoding if number == 1 else options.encoding)
        blank = b""


def resource_document(cell: str | bytes, source: str, options: ReadOptions) -> Document | ReadIssue:
    """One resource or Bundle (a DataFrame cell; bytes decoded with `options.encoding`) as the
    Document the file reader makes for a `.json` file holding it, or the first issue that says why
    it is not one (never a value). Warnings (a Bundle entry that does not validate) are dropped."""
    return _resource_reader(options)(cell, source)


def _resource_reader(options: ReadOptions) -> CellReader:
    _fhir_library()

    def read(cell: str | bytes, source: str) -> Document | ReadIssue:
        data, encoding = (cell.encode("utf-8"), "utf-8") if isinstance(cell, str) else (cell, options.encoding)
        # a cell stands alone: no run-wide Patient memory (a Bundle holding its Patient seeds itself)
        items = list(_record(_Source(source, None, {}), 1, data, ("", ""), encoding, bundle_ok=True))
        found = next((item for item in items if isinstance(item, Document)), None)
        if found is not None:
            return found
        errors = [item for item in items if isinstance(item, ReadIssue) and item.severity == "error"]
        return errors[0] if errors else ReadIssue(source, None, None, "not a FHIR resource")

    return read


def _is_lines(path: Path, data: bytes, encoding: str) -> bool:
    """NDJSON by its suffix; for another name, when the file is not one JSON value."""
    suffix = path.suffix.lower()
    if suffix in (".ndjson", ".jsonl"):
        return True
    if suffix == ".json":
        return False
    try:
        json.loads(data.decode(encoding))
    except (ValueError, UnicodeDecodeError):
        return True
    return False


@dataclass(frozen=True)
class _Source:
    """The file a record is read from: its name, its path in the input folder, the run's Patients."""

    path: str
    rel: Path | None
    known: KnownValues

    def doc_id(self, kind: str, line: int) -> str:
        own = f"{kind}-{line}"
        return own if self.rel is None else f"{self.rel.with_suffix('').as_posix()}/{own}"


def _record(
    where: _Source, line: int, raw: bytes, frame: tuple[str, str], encoding: str, *, bundle_ok: bool = False
) -> Iterator[Document | ReadIssue]:
    """One record as a Document, after its warnings (or the issue that says why it is not one)."""
    source = where.path
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        yield ReadIssue(source, line, None, decode_error_reason(exc, encoding, raw))
        return
    decoded = _decode_non_ascii(text)
    text = text if decoded is None else decoded
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:  # its message names a place, never a value
        yield ReadIssue(source, line + exc.lineno - 1, None, f"not valid JSON: {exc.msg} (column {exc.colno})")
        return
    if not isinstance(value, dict) or not isinstance(value.get("resourceType"), str):
        yield ReadIssue(source, line, None, "not a FHIR resource: no resourceType")
        return
    root = scan(text)
    assert isinstance(root, JObject)  # noqa: S101 - a dict above
    problems = list(_problems(text, _resources(text, root), source, line))
    if problems and not (bundle_ok and value["resourceType"] == "Bundle"):
        yield from problems
        return
    yield from (_as_warning(p) for p in problems)
    text, encoded, issues = _decode_attachments(text, root)
    yield from (ReadIssue(source, line, None, issue, "warning") for issue in issues)
    root = scan(text) if encoded else root
    found = map_record(text, root, {at(root, path).start for path, _charset in encoded})
    metadata = _metadata(source, line, frame, found)
    if where.rel is not None:
        metadata[metakeys.RELPATH] = where.rel.as_posix()
    if found.patient_id in where.known and not any(r.type == "Patient" for r in found.resources):
        metadata[metakeys.KNOWN_VALUES] = where.known[found.patient_id]  # (a record with its Patient seeds itself)
    if decoded is not None:
        metadata[metakeys.ESCAPE_NON_ASCII] = True
    if encoded:
        metadata[metakeys.ENCODED] = [[list(path), charset] for path, charset in encoded]
    doc_id = where.doc_id(value["resourceType"], line)
    yield Document(id=doc_id, text=text, patient_id=found.patient_id, metadata=metadata)


def _resources(text: str, node: JObject) -> Iterator[Resource]:
    """The record's resources (a Bundle's entries', in Bundles in Bundles too), for validation."""
    kind = node.string("resourceType", text)
    yield Resource(kind, node.string("id", text), node.start, node.end)
    entries = node.items.get("entry") if kind == "Bundle" else None
    for entry in entries.items if isinstance(entries, JArray) else ():
        resource = entry.items.get("resource") if isinstance(entry, JObject) else None
        if isinstance(resource, JObject):
            yield from _resources(text, resource)


def _decode_attachments(text: str, root: JObject) -> tuple[str, list[tuple[JsonPath, str]], list[str]]:
    """`text` with the base64 `data` of each text/plain attachment written as the JSON string of its
    text (prose for the pipeline), the paths and charsets of those, and why any other was left as
    it is: only base64 that encoding its text again gives back (canonical: no line breaks) is
    decoded, so that the writer's base64 is the input's byte for byte."""
    done: list[tuple[JsonPath, str]] = []
    issues: list[str] = []
    pieces: list[tuple[int, int, str]] = []
    for path, charset in text_attachments(text, root):
        node = at(root, path)
        assert isinstance(node, JString)  # noqa: S101 - text_attachments gives strings
        where = "/".join(str(p) for p in path)
        try:
            content = base64.b64decode(node.value(text), validate=True)
            plain = content.decode(charset)
            if base64.b64encode(plain.encode(charset)).decode("ascii") != node.value(text):
                raise ValueError("not canonical")
        except (ValueError, LookupError, UnicodeError):
            issues.append(
                f"the text/plain attachment at {where} is not canonical base64 of {charset} text: left as it is"
            )
            continue
        pieces.append((node.start, node.end, json.dumps(plain, ensure_ascii=False)[1:-1]))
        done.append((path, charset))
    for start, end, content_text in reversed(pieces):
        text = text[:start] + content_text + text[end:]
    return text, done, issues


def _decode_non_ascii(text: str) -> str | None:
    """A pure-ASCII record (`json.dumps`' default) with its escapes of non-ASCII characters
    decoded, so that the detectors and the surrogates see `Renée`, not `Ren\\u00e9e`; None for a
    record that has none, or raw non-ASCII characters, or upper-case escapes (`\\u00E9`): it is read
    as it is. The writer escapes every non-ASCII character again, in lower case: the bytes come back.
    An output whose every such character was replaced says so with `_MARKER` (see `_framed`)."""
    if not text.isascii():
        return None
    marked = _MARKER in text
    text = text.replace(_MARKER, '"resourceType"', 1) if marked else text
    pieces: list[str] = []
    cursor = 0
    for m in ESCAPE.finditer(text):  # outside strings, JSON has no backslash
        escape = m.group()
        if not escape.startswith("\\u"):
            continue
        char: str = json.loads(f'"{escape}"')
        if ord(char[0]) < 0x80 or (len(char) == 1 and 0xD800 <= ord(char) <= 0xDFFF):
            continue  # an escaped ASCII character or a lone surrogate stays as written
        if escape != escape.lower():
            return None
        pieces += [text[cursor : m.start()], char]
        cursor = m.end()
    return "".join([*pieces, text[cursor:]]) if pieces or marked else None


def _as_warning(issue: ReadIssue) -> ReadIssue:
    reason = f"{issue.reason}; the Bundle is still de-identified, this entry by its elements"
    return ReadIssue(issue.path, issue.line, issue.doc_id, reason, "warning")


def _metadata(source: str, line: int, frame: tuple[str, str], found: RecordMap) -> dict[str, Any]:
    return {
        metakeys.PATH: source,
        metakeys.LINE: line,
        metakeys.FRAME: list(frame),
        metakeys.NARRATIVE: found.narrative,
        metakeys.STRUCTURED_SPANS: found.structured,
        metakeys.VERBATIM: found.verbatim,
        metakeys.ATOMIC: found.atomic,
        metakeys.RESERVED: _JSON_RESERVED | (_XHTML_RESERVED if found.xhtml else {}),
    }


def _problems(text: str, resources: Iterable[Resource], source: str, line: int) -> Iterator[ReadIssue]:
    for resource in resources:
        if resource.type == "Bundle":
            continue
        problem = validation_problem(json.loads(text[resource.start : resource.end]))
        if problem is not None:
            where = line + text.count("\n", 0, resource.start)
            yield ReadIssue(source, where, resource.id, f"{resource.type or 'a resource'}: {problem}")


def validation_problem(resource: dict[str, Any]) -> str | None:
    """Why `resource` is no valid FHIR R5 or R4B resource (the first failing element and the kind of
    failure, never a value), or None when it is one."""
    from fhir.resources import get_fhir_model_class as r5
    from fhir.resources.R4B import get_fhir_model_class as r4b
    from pydantic import ValidationError

    kind = str(resource.get("resourceType"))
    first: str | None = None
    for version, model_of in (("R5", r5), ("R4B", r4b)):
        try:
            model = model_of(kind)
        except (ValueError, KeyError, ImportError):
            first = first or f"no FHIR {version} resource type of this name"
            continue
        try:
            model.model_validate(resource)
        except ValidationError as exc:
            error = exc.errors()[0]
            place = ".".join(str(p) for p in error.get("loc", ()))[:80] or "the resource"
            first = first or f"does not validate as FHIR R5 or R4B ({place}: {error.get('type', 'invalid')})"
            continue
        except (ValueError, TypeError) as exc:
            first = first or f"does not validate as FHIR R5 or R4B ({type(exc).__name__})"
            continue
        return None
    return first


def estimate_fhir(path: Path) -> int | None:
    """One record for a `.json` file; the non-blank lines of an NDJSON file up to `ESTIMATE_MAX_BYTES`;
    a folder's files' sum."""
    if path.is_dir():
        counts = [estimate_fhir(f) for f in fhir_files(path)]
        return None if None in counts else sum(c for c in counts if c is not None) or None
    if path.suffix.lower() == ".json":
        return 1
    if not cheap_to_scan(path, ESTIMATE_MAX_BYTES):
        return None
    try:
        return sum(1 for line in path.read_bytes().split(b"\n") if line.strip()) or None
    except OSError:
        return None


# ------------------------------------------------------------------------------------ writing


class FhirWriter(TextDocumentWriter):
    """Each record with what was around it (the line end of an NDJSON line)."""

    format = InputFormat.FHIR

    def _write(self, result: Result) -> None:
        self._file.handle.write(_framed(result))

    @classmethod
    def encoder(cls, path: Path, options: ReadOptions) -> Callable[[Result], str] | None:
        return _framed


class FhirFolderWriter(FolderWriter):
    """A folder of FHIR files: each record appended to the file it was read from (its path in the
    input folder), so the output folder has the input's files, line for line."""

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        super().__init__(path, options, overwrite, InputFormat.FHIR)
        self._current: tuple[str, IO[str]] | None = None

    def _write(self, result: Result) -> None:
        rel = result.document.metadata.get(metakeys.RELPATH)
        if not rel:
            raise ValueError(
                f"document {result.document.id!r}: a folder of FHIR files is written from a folder; "
                "name the output .json or .ndjson"
            )
        rel = _safe_relpath(str(rel))
        if self._current is None or self._current[0] != rel:
            self._close()
            target = self._atomic.tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            handle = open(target, "a", encoding="utf-8", newline="")  # noqa: SIM115 - closed in _close
            if getattr(self, "_private", False):
                os.chmod(target, 0o600)
            self._current = (rel, handle)
        self._current[1].write(_framed(result))

    def _close(self) -> None:
        if self._current is not None:
            self._current[1].close()
            self._current = None

    def _stage(self) -> list[Move]:
        self._close()
        return super()._stage()

    def _abort(self) -> None:
        self._close()
        super()._abort()


def _open_writer(path: Path, options: ReadOptions, overwrite: bool | None) -> DocumentWriter:
    """A FHIR file for a `.json` or `.ndjson` name (or an existing file); else a folder of them."""
    if path.suffix.lower() in _SUFFIXES or path.is_file():
        return FhirWriter(path, options, overwrite)
    return FhirFolderWriter(path, options, overwrite)


def _framed(result: Result) -> str:
    prefix, suffix = result.document.metadata.get(metakeys.FRAME) or ("", "")
    text = result.text
    encoded = result.document.metadata.get(metakeys.ENCODED)
    if encoded:
        text = _encode_attachments(text, encoded)
    if result.document.metadata.get(metakeys.ESCAPE_NON_ASCII):
        if text.isascii():  # nothing left to escape: the reader could not tell, so say it
            text = text.replace('"resourceType"', _MARKER, 1)
        else:
            text = _NON_ASCII.sub(lambda m: json.dumps(m.group())[1:-1], text)
    return f"{prefix}{text}{suffix}"


def _encode_attachments(text: str, encoded: list[list[Any]]) -> str:
    """Each attachment text read decoded (`_decode_attachments`) as base64 again."""
    root = scan(text)
    pieces = []
    for path, charset in encoded:
        node = at(root, tuple(path))
        assert isinstance(node, JString)  # noqa: S101 - replacements never change the structure
        pieces.append((node.start, node.end, base64.b64encode(node.value(text).encode(charset)).decode("ascii")))
    for start, end, data in sorted(pieces, reverse=True):
        text = text[:start] + data + text[end:]
    return text


FHIR = FormatHandler(read=read_fhir, open_writer=_open_writer, estimate=estimate_fhir)
#: One resource or Bundle per DataFrame cell (`radeid.io.record_codecs`): JSON in, the de-identified JSON out.
FHIR_RECORD = RecordCodec(binary=False, reader=_resource_reader, write=lambda result, _cell: _framed(result))
