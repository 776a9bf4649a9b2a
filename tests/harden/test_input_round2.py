"""Issue 27, input points: messages that echoed a record (2, 3), huge integers (6), non-UTF-8 file
names (11), list files with a bad encoding, duplicate CSV columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.io.errors import ColumnError, FormatError
from radeid.io.readers import ReadOptions, read_documents

SECRET = "Zorblat Quuxley"  # stands for PHI: must never appear in a message


# ---------------------------------------------------------------- point 2: CSV without a header row


def test_csv_without_header_never_prints_its_first_row(tmp_path: Path) -> None:
    src = tmp_path / "nohdr.csv"
    src.write_text(f"a1,Patient {SECRET} seen,p1\na2,other,p2\n", encoding="utf-8")
    with pytest.raises(ColumnError) as info:
        read_documents(src)
    message = str(info.value)
    assert "Zorblat" not in message and "a1" not in message and "p1" not in message
    assert "3 columns" in message and "--id-col" in message


def test_csv_text_col_error_names_columns_by_position(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text(f"id,{SECRET}\na,b\n", encoding="utf-8")
    with pytest.raises(ColumnError) as info:
        read_documents(src, options=ReadOptions(text_col="Zorblat Quuxly"))
    message = str(info.value)
    assert "Zorblat Quuxley" not in message
    assert "did you mean column 2?" in message and "--text-col" in message


def test_jsonl_read_as_csv_never_prints_its_first_record(tmp_path: Path) -> None:
    src = tmp_path / "j.jsonl"
    src.write_text(f'{{"text": "{SECRET}", "id": "a"}}\n', encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_documents(src, "csv")
    assert "Zorblat" not in str(info.value)


@pytest.mark.parametrize("command", ["deid", "detect"])
def test_cli_csv_without_header_exit_2_no_text(tmp_path: Path, cli, key_file: Path, command: str) -> None:
    src = tmp_path / "nohdr.csv"
    src.write_text(f"a1,Patient {SECRET} seen,p1\n", encoding="utf-8")
    extra = ["--key-file", key_file] if command == "deid" else []
    code, output = cli(command, src, "-o", tmp_path / "o.jsonl", "--no-model", *extra)
    assert code == 2, output
    assert "Zorblat" not in output and "column" in output


# ---------------------------------------------------------------- also seen: duplicate CSV columns


def test_csv_duplicate_text_column_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "dup.csv"
    src.write_text(f"id,text,text\na,{SECRET},other\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"column 'text' appears 2 times in the header of .*dup\.csv \(columns 2, 3\)"):
        read_documents(src)


def test_cli_csv_duplicate_column_exit_2(tmp_path: Path, cli, key_file: Path) -> None:
    src = tmp_path / "dup.csv"
    src.write_text(f"id,text,text\na,{SECRET},other\n", encoding="utf-8")
    out = tmp_path / "o.csv"
    code, output = cli("deid", src, "-o", out, "--no-model", "--key-file", key_file)
    assert code == 2, output
    assert "'text'" in output and "Zorblat" not in output
    assert not out.exists()


def test_csv_duplicate_unused_column_is_fine(tmp_path: Path) -> None:
    src = tmp_path / "dup.csv"
    src.write_text("id,text,note,note\na,hello,x,y\n", encoding="utf-8")
    docs = [d for d in read_documents(src) if not hasattr(d, "severity")]
    assert [d.id for d in docs] == ["a"]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- point 3: malformed BRAT lines


@pytest.mark.parametrize(
    "line",
    [
        f"T1 PATIENT 0 10 {SECRET}",  # spaces instead of tabs: the whole line is one field
        f"T{SECRET}\tPATIENT 0 10\tx",  # not an annotation id
        f"T1\t{SECRET} 0 10\tx",  # text where the label should be
        f"T1\tZorblat 0 10\t{SECRET}",  # an unknown label that is a name
        f"T1\tPATIENT {SECRET}\tx",  # text where the offsets should be
    ],
)
def test_brat_malformed_line_is_named_by_file_and_line_only(tmp_path: Path, line: str) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "d.txt").write_text("Pt Jane Roe seen.\n", encoding="utf-8")
    (folder / "d.ann").write_text(f"T9\tPATIENT 3 11\tJane Roe\n{line}\n", encoding="utf-8")
    issues = [i for i in read_documents(folder, "brat") if hasattr(i, "severity")]
    (issue,) = issues
    assert issue.line == 2 and issue.path == str(folder / "d.ann")  # type: ignore[attr-defined]
    assert "Zorblat" not in issue.describe() and "Quuxley" not in issue.describe()  # type: ignore[attr-defined]
