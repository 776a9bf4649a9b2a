"""Supported formats and how a path tells us which one it is.

Adding a format: a member of `InputFormat`, its suffixes in `_SUFFIXES`, the module that reads
and writes it in `FORMAT_MODULES` (it defines a `radeid.io.registry.FormatHandler` named like
the member), and nothing else: `radeid.io.registry` finds it there.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from radeid.core.errors import ConfigError
from radeid.core.registry import Registry
from radeid.io.errors import FormatError

if TYPE_CHECKING:
    from radeid.io.registry import FormatHandler

__all__ = [
    "FOLDER_FORMATS",
    "FORMATS",
    "FORMAT_MODULES",
    "InputFormat",
    "UnknownFormatError",
    "detect_format",
    "is_gzip",
    "unknown_format",
    "walk_files",
]


class InputFormat(str, Enum):
    """Document formats; the value is the name used on the command line."""

    JSONL = "jsonl"
    CSV = "csv"
    PARQUET = "parquet"
    TXT = "txt"
    I2B2 = "i2b2"
    BRAT = "brat"
    HL7 = "hl7"
    DICOM = "dicom"

    FHIR = "fhir"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: InputFormat | str) -> InputFormat:
        """Accept the enum or its name in any case; an unknown name lists the known ones."""
        if isinstance(value, InputFormat):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise unknown_format(value) from None


#: The module that reads and writes each format; it defines a `FormatHandler` named like the
#: member (`radeid.io.jsonl:JSONL`), imported on first use by `radeid.io.registry`.
FORMAT_MODULES: dict[InputFormat, str] = {
    InputFormat.JSONL: "radeid.io.jsonl",
    InputFormat.CSV: "radeid.io.delimited",
    InputFormat.PARQUET: "radeid.io.parquet",
    InputFormat.TXT: "radeid.io.folders",
    InputFormat.I2B2: "radeid.io.folders",
    InputFormat.BRAT: "radeid.io.folders",
    InputFormat.HL7: "radeid.io.hl7v2",
    InputFormat.DICOM: "radeid.io.dicom",
    InputFormat.FHIR: "radeid.io.fhir",
}

#: Formats stored as one file per document (a folder, or a single file for one document).
FOLDER_FORMATS = frozenset({InputFormat.TXT, InputFormat.I2B2, InputFormat.BRAT, InputFormat.DICOM})

_SUFFIXES: dict[str, InputFormat] = {
    ".jsonl": InputFormat.JSONL,
    ".ndjson": InputFormat.JSONL,
    ".jsonlines": InputFormat.JSONL,
    ".csv": InputFormat.CSV,
    ".tsv": InputFormat.CSV,
    ".parquet": InputFormat.PARQUET,
    ".pq": InputFormat.PARQUET,
    ".txt": InputFormat.TXT,
    ".xml": InputFormat.I2B2,
    ".ann": InputFormat.BRAT,
    ".hl7": InputFormat.HL7,
    ".dcm": InputFormat.DICOM,
}
#: Formats that may be gzip-compressed (`notes.jsonl.gz`); the others are read as they are.
_GZIP_OK = frozenset({InputFormat.JSONL, InputFormat.CSV})


def _known() -> str:
    return ", ".join(f.value for f in InputFormat)


def _suffixes_help() -> str:
    return ", ".join(sorted(_SUFFIXES))


def is_gzip(path: Path) -> bool:
    return path.suffix.lower() == ".gz"


def format_from_suffix(path: Path) -> InputFormat | None:
    """The format a file name implies (`x.jsonl`, `x.csv.gz`), or None."""
    name = path.name.lower()
    if name.endswith(".gz"):
        fmt = _SUFFIXES.get(Path(name[:-3]).suffix)
        return fmt if fmt in _GZIP_OK else None
    return _SUFFIXES.get(Path(name).suffix)


def walk_files(root: Path, errors: list[OSError] | None = None) -> Iterator[Path]:
    """Every non-hidden file under `root`, in a stable (sorted) order, one directory at a time.

    Hidden files and folders (`.git`, `.ipynb_checkpoints`, editor backups) are skipped: they are
    never documents, and checkpoint folders would duplicate real ones. Walk errors (an unreadable
    sub-folder) are appended to `errors` instead of being silently dropped.
    """

    def on_error(exc: OSError) -> None:
        if errors is not None:
            errors.append(exc)

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        base = Path(dirpath)
        for name in sorted(filenames):
            if not name.startswith("."):
                yield base / name


def detect_format(path: str | os.PathLike[str]) -> InputFormat:
    """Guess the format: by suffix for a file; by content for a folder.

    A folder is `brat` if it holds any `.ann` file, else `i2b2` if it holds `.xml` files, else
    `txt` if it holds `.txt` files, else `dicom` if it holds `.dcm` files, else `fhir` if it
    holds `.ndjson` or `.json` files of FHIR resources. A path that does not
    exist is judged by its suffix alone (that is how an output path is judged).
    """
    p = Path(path)
    if p.is_dir():
        seen_xml = seen_txt = seen_dcm = seen_fhir = False
        for file in walk_files(p):
            suffix = file.suffix.lower()
            if suffix == ".ann":
                return InputFormat.BRAT
            seen_xml = seen_xml or suffix == ".xml"
            seen_txt = seen_txt or suffix == ".txt"
            seen_dcm = seen_dcm or suffix == ".dcm"
            seen_fhir = seen_fhir or (suffix in (".json", ".ndjson") and _holds_fhir(file))
        if seen_xml:
            return InputFormat.I2B2
        if seen_txt:
            return InputFormat.TXT
        if seen_dcm:
            return InputFormat.DICOM
        if seen_fhir:
            return InputFormat.FHIR
        raise FormatError(
            f"cannot tell the format of folder {str(p)!r}: it holds no .txt, .xml, .ann, .dcm or FHIR .ndjson files; "
            f"give the format explicitly (one of: {_known()})"
        )
    if p.suffix.lower() in (".json", ".ndjson") and _holds_fhir(p):
        return InputFormat.FHIR
    fmt = format_from_suffix(p)
    if fmt is None:
        hint = ""
        if p.name.lower().endswith((".json", ".json.gz")):
            hint = " (a file with one JSON object per line is 'jsonl')"
        raise FormatError(
            f"cannot tell the format of {str(p)!r} from its name{hint}; known suffixes: "
            f"{_suffixes_help()} (.gz for jsonl and csv); or give the format explicitly "
            f"(one of: {_known()})"
        )
    return fmt


#: A FHIR resource's first key, as FHIR servers and bulk exports write it.
_RESOURCE_TYPE = re.compile(rb'"(?:r|\\u0072)esourceType"\s*:\s*"[A-Z]')  # (radeid.io.fhir's mark too)


def _holds_fhir(path: Path) -> bool:
    """An existing `.json` or `.ndjson` file whose first record is a FHIR resource (a Bundle, a bulk
    export) is `fhir`; any other `.ndjson` is JSONL (and a `.json` name is only a hint at JSONL)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head[:1] == b"{" and _RESOURCE_TYPE.search(head) is not None


def open_binary(path: Path) -> IO[bytes]:
    """A file's bytes, gunzipped when it is gzip (by its magic bytes, not its name)."""
    return cast("IO[bytes]", gzip.open(path, "rb")) if is_gzip(path) else open(path, "rb")  # noqa: SIM115


class UnknownFormatError(FormatError, ConfigError):
    """A format name no module registered; the message lists the known ones."""


#: Every format by name (`"jsonl"`, `"csv"`, ...): the built-in ones are lazy references to their
#: modules' `FormatHandler`s (`radeid.io.registry`), imported on first use; a plugin adds its own.
FORMATS: Registry[FormatHandler] = Registry("format")
for _fmt, _module in FORMAT_MODULES.items():
    FORMATS.register_lazy(_fmt.value, f"{_module}:{_fmt.name}")


def unknown_format(name: object) -> UnknownFormatError:
    """The error for a name that is not a format (`unknown format 'x'; known: brat, csv, ...`)."""
    return UnknownFormatError(f"unknown format {str(name)!r}; known: {', '.join(FORMATS.names())}")
