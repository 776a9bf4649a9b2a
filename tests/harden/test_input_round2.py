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
    with pytest.raises(
        FormatError, match=r"column 'text' appears 2 times in the header of .*dup\.csv \(columns 2, 3\)"
    ):
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


# ---------------------------------------------------------------- point 6: integers over 4,300 digits

HUGE = "9" * 5000  # over Python's int-from-string limit (4,300 digits)


def _huge_rows(tmp_path: Path, write_jsonl, reports: list[dict]) -> Path:
    rows = [reports[0], f'{{"id": "big", "text": "{SECRET}", "n": {HUGE}}}', reports[1], reports[2]]
    return write_jsonl(tmp_path / "in.jsonl", rows)


def test_jsonl_huge_integer_is_an_issue_naming_line_id_and_field(tmp_path: Path, write_jsonl, reports) -> None:
    src = _huge_rows(tmp_path, write_jsonl, reports)
    items = list(read_documents(src))
    issues = [i for i in items if hasattr(i, "severity")]
    assert [d.id for d in items if not hasattr(d, "severity")] == ["r1", "r2", "r3"]  # type: ignore[attr-defined]
    (issue,) = issues
    assert (issue.line, issue.doc_id, issue.severity) == (2, "big", "error")  # type: ignore[attr-defined]
    assert "'n'" in issue.reason and "5,000 digits" in issue.reason  # type: ignore[attr-defined]
    assert "Zorblat" not in issue.describe()  # type: ignore[attr-defined]


def test_jsonl_huge_integer_as_the_id_or_nested(tmp_path: Path, write_jsonl) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [f'{{"id": {HUGE}, "text": "x"}}', f'{{"id": "b", "text": "x", "meta": {{"k": [1, {HUGE}]}}}}'],
    )
    issues = [i for i in read_documents(src) if hasattr(i, "severity")]
    assert [(i.line, i.doc_id) for i in issues] == [(1, None), (2, "b")]  # type: ignore[attr-defined]
    assert "'id'" in issues[0].reason and "'meta'" in issues[1].reason  # type: ignore[attr-defined]


@pytest.mark.parametrize(("command", "workers"), [("deid", "1"), ("deid", "2"), ("detect", None)])
def test_cli_huge_integer_is_skipped_with_on_error_skip(
    tmp_path: Path, cli, write_jsonl, read_jsonl, reports, key_file: Path, command: str, workers: str | None
) -> None:
    src = _huge_rows(tmp_path, write_jsonl, reports)
    out = tmp_path / "o.jsonl"
    extra = ["--key-file", key_file, "-w", workers] if command == "deid" else []
    code, output = cli(command, src, "-o", out, "--no-model", "--on-error", "skip", *extra)
    assert code == 0, output
    assert "Traceback" not in output and "Zorblat" not in output
    flat = output.replace("\n", "")
    assert "line 2" in flat and "'big'" in flat
    assert [r["id"] for r in read_jsonl(out)] == ["r1", "r2", "r3"]


def test_cli_huge_integer_fails_cleanly_by_default(tmp_path: Path, cli, write_jsonl, reports, key_file) -> None:
    src = _huge_rows(tmp_path, write_jsonl, reports)
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--no-model", "--key-file", key_file)
    assert code == 1, output  # a bad record with --on-error fail, like malformed JSON
    assert "line 2 (doc 'big'): field 'n' holds an integer of 5,000 digits" in output
    assert "Traceback" not in output and "Zorblat" not in output and not out.exists()


def test_huge_integer_in_gold_or_audit_is_a_clean_error(tmp_path: Path) -> None:
    from radeid.evaluate.loading import EvaluationInputError, read_spans_jsonl
    from radeid.io.audit import AuditError, read_audit

    src = tmp_path / "spans.jsonl"
    src.write_text(f'{{"id": "a", "spans": [{{"start": {HUGE}, "end": 1}}]}}\n', encoding="utf-8")
    with pytest.raises(EvaluationInputError, match="line 1: a number too long"):
        list(read_spans_jsonl(src))
    audit = tmp_path / "a.audit.jsonl"
    audit.write_text(f'{{"doc_id": "a", "start": {HUGE}}}\n', encoding="utf-8")
    with pytest.raises(AuditError, match="line 1: a number too long"):
        list(read_audit(audit))


# ---------------------------------------------------------------- point 11: non-UTF-8 file names


def _latin1_folder(tmp_path: Path, suffix: str = ".txt") -> Path:
    import os

    folder = tmp_path / "tf"
    folder.mkdir()
    (folder / f"a{suffix}").write_text("Seen by Dr. Alan Grant.\n", encoding="utf-8")
    bad = Path(os.fsdecode(os.fsencode(folder) + b"/b\xe9" + suffix.encode()))
    bad.write_text(f"Patient {SECRET}.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("fmt", ["txt", "brat"])
def test_non_utf8_file_name_is_refused_up_front_by_its_escaped_name(tmp_path: Path, fmt: str) -> None:
    folder = _latin1_folder(tmp_path)
    with pytest.raises(FormatError, match=r"file name is not valid UTF-8: .*tf/b\\xe9\.txt;"):
        read_documents(folder, fmt)  # raised at call time, before any document is read


def test_non_utf8_single_file_is_refused(tmp_path: Path) -> None:
    folder = _latin1_folder(tmp_path)
    (bad,) = [f for f in folder.iterdir() if f.name != "a.txt"]
    with pytest.raises(FormatError, match=r"b\\xe9\.txt"):
        read_documents(bad, "txt")


@pytest.mark.parametrize(("command", "workers"), [("deid", "1"), ("deid", "2"), ("detect", None)])
def test_cli_non_utf8_file_name_exit_2_before_any_work(
    tmp_path: Path, cli, key_file: Path, command: str, workers: str | None
) -> None:
    folder = _latin1_folder(tmp_path)
    out = tmp_path / ("out" if command == "deid" else "d.jsonl")
    extra = ["--key-file", key_file, "-w", workers] if command == "deid" else []
    code, output = cli(command, folder, "-o", out, "--no-model", *extra)
    assert code == 2, output
    assert "b\\xe9.txt" in output.replace("\n", "") and "Traceback" not in output
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name not in ("tf", "site.key")] == []  # no work folder left


# ---------------------------------------------------------------- also seen: list files with a bad encoding


@pytest.mark.parametrize("option", ["--deny-list", "--allow-list", "--hospital-list", "--vendor-list"])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_list_file_not_utf8_is_exit_2_naming_file_and_line(
    tmp_path: Path, cli, write_jsonl, reports, key_file: Path, option: str, workers: str
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    listed = tmp_path / "my_list.txt"
    listed.write_bytes(b"# a comment\nAlan Grant\tHCW\nZorblat Quuxl\xe9y\tPATIENT\n")
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--no-model", "--key-file", key_file, "-w", workers, option, listed)
    assert code == 2, output
    flat = output.replace("\n", "")
    assert "my_list.txt line 3: not valid UTF-8 (byte 0xe9" in flat
    assert "Zorblat" not in output and "Traceback" not in output and not out.exists()


def test_pattern_and_label_map_files_not_utf8_name_the_file(tmp_path: Path) -> None:
    from radeid.core.labelmaps import load_label_map
    from radeid.patterns.pattern_files import read_pattern_file

    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[labels]\nNAME = "PATIENT"\n# caf\xe9\n')
    with pytest.raises(ValueError, match=r"bad\.toml: not valid UTF-8"):
        load_label_map(str(bad))
    with pytest.raises(ValueError, match=r"cannot read rule file .*bad\.toml: not valid UTF-8"):
        read_pattern_file(bad, ("labels",), "rule file")
