"""Atomic, streaming writers: de-identified documents, the audit, and detected spans.

This module is the entry point (`open_writer`, `output_format`, `check_not_input`); the writers
live with their format (`radeid.io.jsonl`, `.delimited`, `.parquet`, `.folders`, found through
`radeid.io.registry`), on top of the atomic targets they share (`radeid.io.atomic`); the audit
is `radeid.io.audit`, the spans file of `radeid detect` `radeid.io.spans`.

Every writer builds its output in a temporary beside the target and moves it into place only on a
clean exit; on failure an existing output is left untouched (see `radeid.io.atomic`).

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

import os
from pathlib import Path

from radeid.io.atomic import DocumentWriter
from radeid.io.audit import AuditWriter
from radeid.io.errors import FormatError
from radeid.io.formats import FOLDER_FORMATS, InputFormat, format_from_suffix
from radeid.io.records import ReadOptions
from radeid.io.registry import format_handler
from radeid.io.spans import SpansWriter, write_spans_jsonl

__all__ = [
    "AuditWriter",
    "DocumentWriter",
    "SpansWriter",
    "check_not_input",
    "open_writer",
    "output_format",
    "write_spans_jsonl",
]


_JSON_FORMATS = {InputFormat.JSONL, InputFormat.FHIR}


def output_format(path: str | os.PathLike[str], fmt: InputFormat | str | None = None) -> InputFormat:
    """The format to write `path` in: `fmt` if given, else by suffix; a path with no suffix (or an
    existing folder) is a folder of .txt files. Pass the input's format to keep folder formats."""
    p = Path(path)
    found = format_from_suffix(p)
    if fmt is not None:
        chosen = InputFormat.parse(fmt)
        row_formats = set(InputFormat) - FOLDER_FORMATS
        if {found, chosen} <= _JSON_FORMATS and p.suffix.lower() in (".json", ".ndjson"):
            return chosen  # a JSON name fits JSONL and FHIR (a FHIR bulk export is `.ndjson`)
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
    columns to keep. `overwrite`: see `AtomicTarget` (default: replace a file or a previous output
    folder, refuse a folder holding other files). Pass `input_path` so that an output that is, holds
    or sits inside the input is refused: replacing it would destroy the originals.
    """
    options = options or ReadOptions()
    p = Path(path)
    f = output_format(p, fmt)
    if input_path is not None:
        check_not_input(p, Path(input_path))
    writer = format_handler(f).open_writer(p, options, overwrite)
    if private:
        writer._make_private()
    return writer
