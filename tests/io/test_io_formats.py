"""Format detection, option validation and the up-front errors of `read_documents`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radeid.io.errors import ColumnError, FormatError, InputNotFoundError, RadeidIOError, ReadIssue
from radeid.io.formats import InputFormat, detect_format
from radeid.io.readers import ReadOptions, read_documents


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.jsonl", InputFormat.JSONL),
        ("a.ndjson", InputFormat.JSONL),
        ("a.JSONL", InputFormat.JSONL),
        ("a.jsonl.gz", InputFormat.JSONL),
        ("a.csv", InputFormat.CSV),
        ("a.tsv", InputFormat.CSV),
        ("a.csv.gz", InputFormat.CSV),
        ("a.parquet", InputFormat.PARQUET),
        ("a.pq", InputFormat.PARQUET),
        ("a.txt", InputFormat.TXT),
        ("a.xml", InputFormat.I2B2),
        ("a.ann", InputFormat.BRAT),
    ],
)
def test_detect_by_suffix(tmp_path: Path, name: str, fmt: InputFormat) -> None:
    assert detect_format(tmp_path / name) is fmt


def test_detect_folder_by_content(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.txt").write_text("x")
    (tmp_path / "t" / ".hidden.ann").write_text("")  # hidden files never count
    assert detect_format(tmp_path / "t") is InputFormat.TXT
    (tmp_path / "x" / "sub").mkdir(parents=True)
    (tmp_path / "x" / "sub" / "a.xml").write_text("<a/>")
    assert detect_format(tmp_path / "x") is InputFormat.I2B2
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "a.txt").write_text("x")
    (tmp_path / "b" / "a.ann").write_text("")
    assert detect_format(tmp_path / "b") is InputFormat.BRAT


def test_unknown_suffix_lists_formats(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as info:
        detect_format(tmp_path / "report.docx")
    message = str(info.value)
    assert "report.docx" in message and all(f.value in message for f in InputFormat)


def test_json_suffix_hints_at_jsonl(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="jsonl"):
        detect_format(tmp_path / "notes.json")


def test_empty_folder_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no .txt, .xml, .ann, .dcm or FHIR .ndjson"):
        detect_format(tmp_path)


def test_format_names_parse_case_insensitively() -> None:
    assert InputFormat.parse("JSONL") is InputFormat.JSONL
    assert InputFormat.parse(InputFormat.BRAT) is InputFormat.BRAT
    with pytest.raises(FormatError) as info:
        InputFormat.parse("docx")
    assert "jsonl" in str(info.value) and "brat" in str(info.value)


def test_unknown_format_raises_before_reading(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n')
    with pytest.raises(FormatError):
        read_documents(src, "docx")


def test_missing_input_raises_up_front(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError) as info:
        read_documents(tmp_path / "missing.jsonl")  # no iteration needed: raised at call time
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, RadeidIOError)
    assert "missing.jsonl" in str(info.value)


def test_column_errors_are_format_errors() -> None:
    # The CLI reports FormatError cleanly; a wrong column must be reported the same way.
    assert issubclass(ColumnError, FormatError)


def test_options_validate_and_normalise() -> None:
    opts = ReadOptions(keep_columns=["site", "id", "site"])  # type: ignore[arg-type]
    assert opts.keep_columns == ("site",)  # a tuple, deduplicated, id dropped (always written)
    with pytest.raises(FormatError, match="un-de-identified"):
        ReadOptions(keep_columns=("text",))
    with pytest.raises(FormatError, match="encoding"):
        ReadOptions(encoding="no-such-codec")
    with pytest.raises(FormatError):
        ReadOptions(max_chars=0)
    with pytest.raises(FormatError, match="unknown label map"):
        read_documents(Path(__file__), "txt", ReadOptions(label_map="no_such_map"))


def test_issue_describe_names_place_and_id_never_text() -> None:
    issue = ReadIssue("examples.jsonl", 7, "r12", "malformed JSON: Expecting ',' delimiter at column 9")
    assert issue.describe() == "examples.jsonl line 7 (doc 'r12'): malformed JSON: Expecting ',' delimiter at column 9"
    assert str(issue) == issue.describe() and issue.is_error
    row_issue = ReadIssue("notes.csv", 5, None, "missing columns", "warning", row=3)
    assert row_issue.describe() == "notes.csv row 3, line 5: missing columns"
    assert not row_issue.is_error
    with pytest.raises(ValueError):
        ReadIssue("a", None, None, "x", severity="fatal")


def test_read_documents_is_lazy(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": "x"}) + "\n" for i in range(5)))
    items = read_documents(src)
    assert not isinstance(items, (list, tuple))
    assert next(items).id == "d0"  # type: ignore[union-attr]
