"""HL7 v2 messages (`.hl7`): one message per record, MLLP-framed or one after another.

A file is either MLLP-framed (each message between the bytes 0x0b and 0x1c 0x0d) or plain, where a
new message starts at each `MSH` segment (segments end in CR, LF or CRLF). A record's text is the
whole message exactly as read, so that the vault, the audit and `reidentify` work on offsets into
it as for any other format; the framing bytes around it go in `metadata["frame"]` and the writer
puts them back, so an output has the input's framing and, outside replaced values, its bytes.

Each message must parse with the `hl7` library (python-hl7; the extra `radeid[hl7]`); one that
does not is one `ReadIssue` and never spoils the others. `radeid.io.hl7_fields` then finds, as
character ranges, the free-text fields the pipeline de-identifies (OBX-5 of text types, NTE-3),
the PHI fields replaced by type (`radeid.pipeline.structured` applies both) and the escape
sequences that stay byte for byte; which fields are PHI is the field map (`radeid.io.hl7_map`: the
bundled one, or `ReadOptions.hl7_fields` over it). The patient key (`Document.patient_id`) is PID-3's
first ID, so two messages of one patient share a surrogate identity and a date shift across files; the record id
is MSH-10 (the message control id), or `message-N` (its place in the file) when MSH-10 is empty or
was used by an earlier message of the file.
Output is UTF-8.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from radeid.core import metakeys
from radeid.core.document import Document, Result
from radeid.io.atomic import TextDocumentWriter
from radeid.io.errors import FormatError, ReadIssue
from radeid.io.formats import InputFormat
from radeid.io.hl7_fields import map_message
from radeid.io.hl7_map import FieldMap, load_field_map
from radeid.io.record_codecs import RecordCodec
from radeid.io.records import STREAM_ERRORS, ReadOptions, bom_encoding, cheap_to_scan, decode_error_reason, line_of
from radeid.io.registry import FormatHandler

__all__ = ["HL7", "HL7_RECORD", "Hl7Writer", "RawMessage", "message_document", "read_hl7", "split_messages"]

_START, _END = b"\x0b", b"\x1c"
#: Where a plain file's messages start: `MSH` and a field separator, at the start of a line.
_MSH = re.compile(rb"(?:\A|(?<=[\r\n\x0b]))MSH(?=[^A-Za-z0-9\r\n])")
#: Files up to this size are counted for a progress bar (`estimate_hl7`).
ESTIMATE_MAX_BYTES = 256 << 20


@dataclass(frozen=True)
class RawMessage:
    """One message's bytes, with what its file has before and after it (framing, blank lines)."""

    prefix: bytes
    body: bytes
    suffix: bytes
    line: int


def split_messages(data: bytes) -> Iterator[RawMessage | str]:
    """The messages of a file, in order, with `prefix + body + suffix` over all of them equal to
    the file; a str is a problem (bytes that belong to no message, left out of the output)."""
    if data.lstrip(b" \t\r\n")[:1] == _START:  # (bytes.lstrip() would take 0x0b for a space)
        yield from _mllp(data)
    else:
        yield from _plain(data)


def _mllp(data: bytes) -> Iterator[RawMessage | str]:
    frames: list[tuple[int, int, int]] = []  # (0x0b, 0x1c, end of the frame)
    pos, unclosed = 0, -1
    while (start := data.find(_START, pos)) >= 0:
        end = data.find(_END, start + 1)
        if end < 0:
            unclosed = start
            break
        stop = end + 1 + (data[end + 1 : end + 2] == b"\r")
        frames.append((start, end, stop))
        pos = stop
    tail = b"" if unclosed >= 0 else data[pos:]
    if tail.strip():
        yield f"bytes after the last MLLP frame (from byte offset {pos}) are not a message; left out"
        tail = b""
    previous = 0
    for n, (start, end, stop) in enumerate(frames):
        between = data[previous:start]
        if between.strip():
            yield f"bytes between MLLP frames before byte offset {start} are not a message; left out"
            between = b""
        suffix = data[end:stop] + (tail if n == len(frames) - 1 else b"")
        yield RawMessage(between + _START, data[start + 1 : end], suffix, line_of(data, start))
        previous = stop
    if unclosed >= 0:
        yield f"the MLLP frame opened at byte offset {unclosed} is never closed; left out"


def _plain(data: bytes) -> Iterator[RawMessage | str]:
    starts = [m.start() for m in _MSH.finditer(data)]
    if not starts:
        if data.strip():
            yield "no MSH segment: this is not an HL7 v2 message file"
        return
    head = data[: starts[0]]
    if head.strip():
        yield "bytes before the first MSH segment are not a message; left out"
        head = b""
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(data)
        yield RawMessage(head if n == 0 else b"", data[start:stop], b"", line_of(data, start))


# ------------------------------------------------------------------------------------ reading


def read_hl7(path: Path, options: ReadOptions, mapping: Mapping[str, str] | None) -> Iterator[Document | ReadIssue]:
    if "MSH".encode(options.encoding, errors="replace") != b"MSH":
        raise FormatError(f"HL7 needs an ASCII-compatible encoding (utf-8, latin-1, ...), not {options.encoding!r}")
    _hl7_library()
    return _iter_hl7(path, options)


def _hl7_library() -> None:
    try:
        import hl7  # noqa: F401
    except ImportError:
        raise FormatError("reading HL7 v2 needs the hl7 package: pip install 'radeid[hl7]'") from None


def _iter_hl7(path: Path, options: ReadOptions) -> Iterator[Document | ReadIssue]:
    source = str(path)
    try:
        data = path.read_bytes()
    except STREAM_ERRORS as exc:
        yield ReadIssue(source, None, None, f"cannot read the file: {exc}")
        return
    fields = load_field_map(options.hl7_fields)
    number = 0
    seen: set[str] = set()
    for item in split_messages(data):
        if isinstance(item, str):
            yield ReadIssue(source, None, None, item)
            continue
        number += 1
        encoding = bom_encoding(options.encoding) if number == 1 else options.encoding
        doc = _message(source, number, item, encoding, fields)
        if isinstance(doc, Document):
            if doc.id in seen:  # a control id used twice in one file: the message's place tells them apart
                doc = replace(doc, id=f"message-{number}")
            seen.add(doc.id)
        yield doc


def _message(source: str, number: int, raw: RawMessage, encoding: str, fields: FieldMap) -> Document | ReadIssue:
    """One message as a Document (or the issue that says why it is not one; never its text)."""
    try:
        text = raw.body.decode(encoding)
        prefix, suffix = raw.prefix.decode(encoding), raw.suffix.decode(encoding)
    except UnicodeDecodeError as exc:
        return ReadIssue(source, raw.line, None, decode_error_reason(exc, encoding, raw.body))
    problem = _parse_problem(text)
    if problem is not None:
        return ReadIssue(source, raw.line, None, problem)
    found = map_message(text, fields)
    metadata = {
        metakeys.PATH: source,
        metakeys.LINE: raw.line,
        metakeys.FRAME: [prefix, suffix],
        metakeys.NARRATIVE: found.narrative,
        metakeys.STRUCTURED_SPANS: found.structured,
        metakeys.VERBATIM: found.verbatim,
        metakeys.RESERVED: found.reserved,
    }
    doc_id = found.control_id or f"message-{number}"
    return Document(id=doc_id, text=text, patient_id=found.patient_id, metadata=metadata)


def message_document(message: str | bytes, source: str, options: ReadOptions) -> Document | ReadIssue:
    """One message (a DataFrame cell; MLLP framing or line ends around it kept) as the Document the
    file reader makes for it, or the issue that says why it is not one (never a value of it).
    A str is the message itself; bytes are decoded with `options.encoding`."""
    _hl7_library()
    return _message_reader(options)(message, source)


def _message_reader(options: ReadOptions) -> Callable[[str | bytes, str], Document | ReadIssue]:
    """`message_document` with the field map loaded once (a Spark partition reads many messages)."""
    fields = load_field_map(options.hl7_fields)

    def read(message: str | bytes, source: str) -> Document | ReadIssue:
        data, encoding = (message.encode("utf-8"), "utf-8") if isinstance(message, str) else (message, options.encoding)
        items = list(split_messages(data))
        raws = [item for item in items if isinstance(item, RawMessage)]
        problem = next((item for item in items if isinstance(item, str)), None)
        if problem is None and len(raws) != 1:
            problem = f"holds {len(raws)} HL7 messages, not one"
        if problem is not None:
            return ReadIssue(source, None, None, problem)
        return _message(source, 1, replace(raws[0], line=1), encoding, fields)

    return read


def _hl7_record_reader(options: ReadOptions) -> Callable[[str | bytes, str], Document | ReadIssue]:
    _hl7_library()
    return _message_reader(options)


def _parse_problem(text: str) -> str | None:
    """Why the `hl7` library cannot read this message, in words that hold none of its values."""
    import hl7

    if len(text) < 8 or not text.startswith("MSH"):
        return "not an HL7 v2 message: it does not start with an MSH segment"
    try:
        segments = [s for s in re.split(r"\r\n|\r|\n", text) if s.strip()]  # empty segments are no segments
        message = hl7.parse("\r".join(segments))
        message.segment("MSH")
    except Exception as exc:  # noqa: BLE001 - any parse failure is this record's problem, named by type only
        return f"the hl7 library cannot parse this message ({type(exc).__name__})"
    return None


def estimate_hl7(path: Path) -> int | None:
    """The number of MSH segments of a file up to `ESTIMATE_MAX_BYTES`."""
    if not cheap_to_scan(path, ESTIMATE_MAX_BYTES):
        return None
    try:
        return len(_MSH.findall(path.read_bytes())) or None
    except OSError:
        return None


# ------------------------------------------------------------------------------------ writing


class Hl7Writer(TextDocumentWriter):
    """Each message with the framing it was read with (MLLP bytes, blank lines)."""

    format = InputFormat.HL7

    def _write(self, result: Result) -> None:
        self._file.handle.write(_framed(result))

    def write_message(self, framed: str) -> None:
        """A message de-identified elsewhere, framing included (a Spark executor's output cell)."""
        self._ensure_open()
        self._file.handle.write(framed)
        self.count += 1

    @classmethod
    def encoder(cls, path: Path, options: ReadOptions) -> Callable[[Result], str] | None:
        return _framed


def _framed(result: Result) -> str:
    prefix, suffix = result.document.metadata.get(metakeys.FRAME) or ("", "")
    return f"{prefix}{result.text}{suffix}"


HL7 = FormatHandler(read=read_hl7, open_writer=Hl7Writer, estimate=estimate_hl7)
#: One message per DataFrame cell (`radeid.io.record_codecs`): a string in, the framed de-identified message out.
HL7_RECORD = RecordCodec(binary=False, reader=_hl7_record_reader, write=lambda result, _value: _framed(result))
