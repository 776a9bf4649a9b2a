"""The format registry: every format found by name, unknown names listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.config import ConfigError
from radeid.io.errors import FormatError
from radeid.io.formats import FORMAT_MODULES, InputFormat
from radeid.io.readers import read_documents
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
        assert str(info.value) == "unknown format 'docx'; known: brat, csv, i2b2, jsonl, parquet, txt"
    assert not (tmp_path / "out").exists()
