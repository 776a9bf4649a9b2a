"""Layer 8: streaming readers and writers for every supported format, paths, the atomic commit and
the audit trail.

May import the layers below (`core` to `pipeline`).
"""

from radeid.io.audit import AuditRecord, read_audit
from radeid.io.errors import ColumnError, FormatError, InputNotFoundError, OutputExistsError, RadeidIOError, ReadIssue
from radeid.io.formats import InputFormat, detect_format
from radeid.io.readers import ReadOptions, estimate_total, read_documents
from radeid.io.registry import FORMATS
from radeid.io.writers import AuditWriter, open_writer, write_spans_jsonl

__all__ = [
    "FORMATS",
    "AuditRecord",
    "AuditWriter",
    "ColumnError",
    "FormatError",
    "InputFormat",
    "InputNotFoundError",
    "OutputExistsError",
    "RadeidIOError",
    "ReadIssue",
    "ReadOptions",
    "detect_format",
    "estimate_total",
    "open_writer",
    "read_audit",
    "read_documents",
    "write_spans_jsonl",
]
