"""The format registry: every format found by name, unknown names listed, sizes estimated cheaply."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from radeid.config.config import ConfigError
from radeid.io.errors import FormatError
from radeid.io.formats import FORMAT_MODULES, InputFormat
from radeid.io.readers import estimate_total, read_documents
from radeid.io.registry import FORMATS, FormatHandler, UnknownFormatError, format_handler
from radeid.io.writers import open_writer


def test_every_format_has_a_handler_in_its_module() -> None:
    assert FORMATS.names() == sorted(f.value for f in InputFormat)
    for fmt in InputFormat:
        handler = format_handler(fmt)
        assert isinstance(handler, FormatHandler)
        assert handler is format_handler(fmt.value.upper()) is FORMATS.get(fmt.value)
        assert handler.read.__module__ == FORMAT_MODULES[fmt]


def test_unknown_format_is_a_config_and_a_format_error_listing_the_known(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    for call in (
        lambda: read_documents(src, "docx"),
        lambda: open_writer(tmp_path / "out", "docx"),
        lambda: format_handler("docx"),
        lambda: InputFormat.parse("docx"),
    ):
        with pytest.raises(UnknownFormatError) as info:
            call()
        assert isinstance(info.value, ConfigError) and isinstance(info.value, FormatError)
        assert str(info.value) == "unknown format 'docx'; known: brat, csv, dicom, fhir, hl7, i2b2, jsonl, parquet, txt"
    assert not (tmp_path / "out").exists()


def test_estimate_total_per_format(tmp_path: Path) -> None:
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "c", "text": "z"}', encoding="utf-8")
    assert estimate_total(jsonl) == 3  # a last line without a line break counts
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl.read_bytes()))
    assert estimate_total(gz) is None  # counting would mean decompressing everything

    csv = tmp_path / "a.csv"
    csv.write_text('id,text\na,"two\nlines"\n\nb,y\n', encoding="utf-8")
    assert estimate_total(csv) == 2  # rows, not lines; blank lines are not records

    parquet = tmp_path / "a.parquet"
    pq.write_table(pa.table({"id": [str(i) for i in range(700)], "text": ["x"] * 700}), parquet, row_group_size=300)
    assert estimate_total(parquet) == 700

    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    for name in ("a.txt", "sub/b.txt", "sub/b.ann", ".hidden.txt"):
        (folder / name).write_text("x", encoding="utf-8")
    assert estimate_total(folder) == 2  # brat: documents are .txt files
    assert estimate_total(folder, "txt") == 2
    assert estimate_total(folder, "i2b2") == 0
    assert estimate_total(folder / "a.txt") == 1

    assert estimate_total(tmp_path / "missing.jsonl") is None
    assert estimate_total(jsonl, "docx") is None
    assert estimate_total(tmp_path / "noformat.bin", None) is None
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    assert estimate_total(broken) is None


def test_estimate_matches_what_is_read(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "text": f"line {i}\r\nnext"} for i in range(50)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert estimate_total(src) == len(list(read_documents(src))) == 50
