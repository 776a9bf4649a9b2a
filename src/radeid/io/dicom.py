"""DICOM structured reports (`--format dicom`, `.dcm`): a folder (or one file) in, one file per document out.

Each file is read with pydicom (the extra `radeid[dicom]`); its document text is the rendering
`radeid.io.dicom_fields` builds (one entry per value that may hold PHI), with metadata that says
where its prose is (the SR content tree's `TextValue`, descriptions: the pipeline's) and which
values are PHI by their element (names, IDs, dates, UIDs: `radeid.pipeline.structured` replaces
them by type). The patient key is PatientID, so two files of one patient share a surrogate
identity and a date shift; the document id is the file's path relative to the folder without its
`.dcm` suffix (a file named otherwise, `IM0001` or `1.2.3.4`, keeps its whole name), and the output
file is the id plus `.dcm`, so an output folder reads back with the same ids.

The writer reads the document's file again, sets every rendered element to its value in the
replaced text, removes all private elements ("retain safe private": radeid knows no private
attribute of an SR to be safe, so it keeps none), and records the de-identification:
PatientIdentityRemoved `YES`, a DeidentificationMethod value and the codes of the profile and its
options. Re-identification writes the restored values the same way and takes those three back.
A file pydicom cannot read, or one holding pixel data (an image: out of scope), is one `ReadIssue`
naming the file, never its content, and the other files go on.
"""

from __future__ import annotations

import logging
import os
import re
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import DocumentWriter
from radeid.io.dicom_fields import RS, entries, parse_rendering, render
from radeid.io.errors import FormatError, ReadIssue, naming
from radeid.io.folders import FolderWriter, _safe_relpath, refuse_undecodable_names
from radeid.io.formats import InputFormat, walk_files
from radeid.io.record_codecs import CellReader, RecordCodec
from radeid.io.records import ReadOptions
from radeid.io.registry import FormatHandler

__all__ = ["DICOM", "DICOM_RECORD", "DicomWriter", "deidentified_bytes", "dicom_document", "read_dicom"]

#: What a replacement writes instead of a character that would break a value or the rendering.
RESERVED = {RS: " ", "\\": "/", "^": " ", "=": "-"}
#: The DeidentificationMethod value radeid adds; it keeps what the file said before (for `reidentify`).
METHOD = "radeid: PS3.15 basic profile (was {state}, {codes} codes)"
_METHOD = re.compile(r"radeid: PS3\.15 basic profile \(was (YES|NO|none), (\d+) codes\)")
#: PS3.16 CID 7050: the basic profile and the options radeid applies.
CODES = (
    ("113100", "Basic Application Confidentiality Profile"),
    ("113104", "Clean Structured Content Option"),
    ("113105", "Clean Descriptors Option"),
    ("113107", "Retain Longitudinal Temporal Information Modified Dates Option"),
    ("113108", "Retain Patient Characteristics Option"),
    ("113111", "Retain Safe Private Option"),
)
ESTIMATE_SECONDS = 1.0


def _pydicom() -> None:
    try:
        import pydicom  # noqa: F401
    except ImportError:
        raise FormatError("reading DICOM needs the pydicom package: pip install 'radeid[dicom]'") from None


@contextmanager
def quiet() -> Iterator[None]:
    """pydicom's warnings and log records silenced: they quote values ("Invalid value for VR DA:
    '1956041'"), and no value of a document may reach a log."""
    pydicom_log = logging.getLogger("pydicom")
    was = pydicom_log.disabled
    pydicom_log.disabled = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        pydicom_log.disabled = was


# ------------------------------------------------------------------------------------ reading


def read_dicom(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    _pydicom()
    # a document's id is its file name: refuse names that are not UTF-8 before any work (any suffix)
    refuse_undecodable_names(
        path, frozenset(f.suffix.lower() for f in walk_files(path)) if path.is_dir() else frozenset()
    )
    if path.is_dir():
        return _iter_dicom(walk_files(path), path, options)
    return _iter_dicom(iter([path]), None, options)


def _iter_dicom(files: Iterator[Path], root: Path | None, options: ReadOptions) -> Iterator[Document | ReadIssue]:
    for file in files:
        with quiet():
            doc = _dicom_document(file, root, options)
        yield doc


def _dicom_document(file: Path, root: Path | None, options: ReadOptions) -> Document | ReadIssue:
    """One file as a Document, or the issue that says why it is not one (never a value of it)."""
    rel = file.relative_to(root) if root is not None else Path(file.name)
    return dicom_document(file, rel.as_posix(), options, source=str(file))


def dicom_document(
    data: Path | bytes, rel: str, options: ReadOptions, *, source: str | None = None
) -> Document | ReadIssue:
    """One DICOM file (a path, or its bytes: a Spark `binaryFile` cell) as a Document, or the issue
    that says why it is not one (never a value of it). `rel` is the file's path relative to the
    folder read: the document id is it without `.dcm`. `source` (default `rel`) names the file in
    issues and is where the writer reads it again (a path only)."""
    import io

    import pydicom
    from pydicom.errors import InvalidDicomError

    relpath = Path(rel)
    # `r12.dcm` is `r12`; a name with another suffix or none (`IM0001`, `1.2.3.4`) is its own id
    doc_id = relpath.with_suffix("").as_posix() if relpath.suffix.lower() == ".dcm" else relpath.as_posix()
    source = source or rel
    try:  # an image's pixels are never loaded: refused below
        dataset = pydicom.dcmread(io.BytesIO(data) if isinstance(data, bytes) else data, defer_size="1 MB")
    except InvalidDicomError:
        return ReadIssue(source, None, doc_id, "not a DICOM file (no DICM marker after the preamble)")
    except OSError as exc:
        return ReadIssue(source, None, doc_id, f"cannot read file: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - any parse failure is this file's problem, named by type only
        return ReadIssue(source, None, doc_id, f"pydicom cannot read this file ({type(exc).__name__})")
    if "PixelData" in dataset or "FloatPixelData" in dataset or "DoubleFloatPixelData" in dataset:
        return ReadIssue(
            source, None, doc_id, "holds pixel data (an image): radeid de-identifies structured reports, not images"
        )
    try:
        rendering = render(dataset, getattr(dataset, "file_meta", None))
        patient = str(dataset.get("PatientID", "") or "").strip() or None
    except Exception as exc:  # noqa: BLE001 - a value pydicom cannot decode (character set, VR)
        return ReadIssue(source, None, doc_id, f"pydicom cannot decode a value of this file ({type(exc).__name__})")
    if rendering.problem is not None:
        return ReadIssue(source, None, doc_id, rendering.problem)
    if len(rendering.text) > options.max_chars:
        return ReadIssue(source, None, doc_id, f"its text is longer than max_chars={options.max_chars:,}")
    metadata: dict[str, Any] = {
        metakeys.PATH: source,
        metakeys.RELPATH: relpath.as_posix(),
        metakeys.NARRATIVE: rendering.narrative,
        metakeys.STRUCTURED_SPANS: rendering.structured,
        metakeys.VERBATIM: [],
        metakeys.RESERVED: dict(RESERVED),
    }
    return Document(doc_id, rendering.text, patient, metadata)


def estimate_dicom(path: Path) -> int | None:
    """Documents: every file (one for a single file); None when counting takes too long."""
    if not path.is_dir():
        return 1 if path.exists() else None
    deadline = time.monotonic() + ESTIMATE_SECONDS
    count = 0
    for count, _ in enumerate(walk_files(path), 1):
        if count % 1024 == 0 and time.monotonic() > deadline:
            return None
    return count


# ------------------------------------------------------------------------------------ writing


def _element(dataset: Any, path: str) -> tuple[Any, Any]:
    """`(holder, tag)` of the element a rendered path names (`0040,A730/0/0040,A160`)."""
    from pydicom.tag import Tag

    steps = path.split("/")
    holder = dataset
    if steps[0] == "meta":
        holder, steps = dataset.file_meta, steps[1:]
    while len(steps) > 1:
        holder = holder[Tag(*(int(p, 16) for p in steps[0].split(",")))].value[int(steps[1])]
        steps = steps[2:]
    return holder, Tag(*(int(p, 16) for p in steps[0].split(",")))


def apply_text(dataset: Any, text: str, where: str) -> None:
    """Set every element the rendering `text` names to its value there; raises `ValueError` when the
    text does not render this dataset (edited, or another file's)."""
    from pydicom import config

    found = parse_rendering(text)
    expected = [e.path for e, _ in entries(getattr(dataset, "file_meta", None) or [], "meta/")]
    expected += [e.path for e, _ in entries(dataset)]
    if found is None or [e.path for e in found] != expected:
        raise ValueError(f"{where}: its text no longer renders the elements of its DICOM file; nothing was written")
    values: dict[str, list[str]] = {}
    for entry in found:
        values.setdefault(entry.path.split("#")[0], []).append(entry.value)
    with config.disable_value_validation():  # a mask (`****`) is no valid date: written as it is
        for path, new in values.items():
            holder, tag = _element(dataset, path)
            holder[tag].value = new if len(new) > 1 else new[0]
    if any(not v.isascii() for vs in values.values() for v in vs) and "ISO_IR 192" not in str(
        dataset.get("SpecificCharacterSet", "")
    ):
        dataset.SpecificCharacterSet = "ISO_IR 192"  # UTF-8: any surrogate can be written


def mark_deidentified(dataset: Any) -> None:
    """PatientIdentityRemoved YES, radeid's DeidentificationMethod value and the profile's codes."""
    from pydicom.dataset import Dataset
    from pydicom.sequence import Sequence

    state = str(dataset.get("PatientIdentityRemoved", "") or "none").strip().upper()
    state = state if state in ("YES", "NO") else "none"
    codes = list(dataset.get("DeidentificationMethodCodeSequence") or [])
    methods = _methods(dataset)
    dataset.PatientIdentityRemoved = "YES"
    dataset.DeidentificationMethod = [*methods, METHOD.format(state=state, codes=len(codes))]
    for value, meaning in CODES:
        item = Dataset()
        item.CodeValue, item.CodingSchemeDesignator, item.CodeMeaning = value, "DCM", meaning
        codes.append(item)
    dataset.DeidentificationMethodCodeSequence = Sequence(codes)


def unmark(dataset: Any) -> bool:
    """Take radeid's de-identification record back (re-identification); False when there is none."""
    methods = _methods(dataset)
    ours = [m for m in methods if _METHOD.fullmatch(m)]
    if not ours:
        return False
    match = _METHOD.fullmatch(ours[-1])
    assert match is not None
    state, kept = match.group(1), int(match.group(2))
    rest = [m for m in methods if m != ours[-1]]
    if rest:
        dataset.DeidentificationMethod = rest
    else:
        del dataset.DeidentificationMethod
    if state == "none":
        del dataset.PatientIdentityRemoved
    else:
        dataset.PatientIdentityRemoved = state
    codes = list(dataset.get("DeidentificationMethodCodeSequence") or [])[:kept]
    if codes:
        dataset.DeidentificationMethodCodeSequence = codes
    elif "DeidentificationMethodCodeSequence" in dataset:
        del dataset.DeidentificationMethodCodeSequence
    return True


def _methods(dataset: Any) -> list[str]:
    value = dataset.get("DeidentificationMethod")
    if value is None or value == "":
        return []
    return [str(v) for v in value] if not isinstance(value, str) else [value]


class DicomWriter(FolderWriter):
    """One DICOM file per document, at its id plus `.dcm`."""

    def __init__(self, path: Path, options: ReadOptions, overwrite: bool | None) -> None:
        _pydicom()
        super().__init__(path, options, overwrite, InputFormat.DICOM)

    def _write(self, result: Result) -> None:
        source = result.document.metadata.get(metakeys.PATH)
        if not source:
            raise ValueError(f"document {result.document.id!r}: DICOM output needs the file the document was read from")
        self._save(result.document.id, deidentified_bytes(result, Path(source)))

    def write_file(self, doc_id: str, data: bytes) -> None:
        """A file de-identified elsewhere (`deidentified_bytes`: a Spark executor's output cell),
        written where `write` writes the document `doc_id`."""
        self._ensure_open()
        with naming(self.path):
            self._save(doc_id, data)
        self.count += 1

    def _save(self, doc_id: str, data: bytes) -> None:
        if self._single:
            if self.count:
                raise ValueError(f"output {str(self.path)!r} holds a single document; write to a folder for more")
            target = self._atomic.tmp / self.path.with_suffix(".dcm").name
        else:  # every output ends in `.dcm`: `IM0001` is written `IM0001.dcm` and reads back as `IM0001`
            target = self._free(self._atomic.tmp / f"{_safe_relpath(doc_id)}.dcm")
        with open(target, "xb") as handle:
            if getattr(self, "_private", False):
                os.chmod(target, 0o600)
            handle.write(data)

    @staticmethod
    def _free(base: Path) -> Path:
        """`base`, or `name~2.dcm`, `name~3.dcm`, ... when a document already took it."""
        base.parent.mkdir(parents=True, exist_ok=True)
        n, candidate = 1, base
        while candidate.exists():
            n += 1
            candidate = base.with_name(f"{base.stem}~{n}{base.suffix}")
        return candidate


def _deidentified(result: Result, dataset: Any) -> Any:
    """`dataset` (the document's file, read again) with the result's values written and the
    de-identification recorded (a restored text: the record taken back)."""
    apply_text(dataset, result.text, f"document {result.document.id!r}")
    if result.replacements or not unmark(dataset):
        dataset.remove_private_tags()
        mark_deidentified(dataset)
    return dataset


def deidentified_bytes(result: Result, original: bytes | Path) -> bytes:
    """The file `DicomWriter` writes for `result`, from the original file (its path, or its bytes:
    a Spark cell): the same bytes for the same result."""
    import io

    import pydicom

    buffer = io.BytesIO()
    with quiet():
        dataset = pydicom.dcmread(io.BytesIO(original) if isinstance(original, bytes) else original)
        _deidentified(result, dataset).save_as(buffer)
    return buffer.getvalue()


def _dicom_record_reader(options: ReadOptions) -> CellReader:
    _pydicom()

    def read(cell: str | bytes, source: str) -> Document | ReadIssue:
        if not isinstance(cell, bytes):
            return ReadIssue(source, None, None, "a DICOM cell must hold the file's bytes (a binary column)")
        with quiet():
            return dicom_document(cell, source, options)

    return read


def _write_record(result: Result, cell: str | bytes) -> bytes:
    if not isinstance(cell, bytes):
        raise ValueError(f"document {result.document.id!r}: a DICOM cell must hold the file's bytes")
    return deidentified_bytes(result, cell)


def _open_writer(path: Path, options: ReadOptions, overwrite: bool | None) -> DocumentWriter:
    return DicomWriter(path, options, overwrite)


DICOM = FormatHandler(read=read_dicom, open_writer=_open_writer, estimate=estimate_dicom)
#: One file per DataFrame cell (`radeid.io.record_codecs`): its bytes in, the de-identified file's bytes out.
DICOM_RECORD = RecordCodec(binary=True, reader=_dicom_record_reader, write=_write_record)
