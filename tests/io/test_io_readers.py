"""Readers: every bad-input case yields a clear issue (never text) and never stops other records."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from radeid.core.document import Document
from radeid.io.errors import ColumnError, FormatError, ReadIssue
from radeid.io.readers import ReadOptions, read_documents

SECRET = "Zorblat Quuxley"  # stands for PHI: must never appear in an issue


def jsonl(path: Path, rows: list[dict | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def split(items: object) -> tuple[list[Document], list[ReadIssue]]:
    docs: list[Document] = []
    issues: list[ReadIssue] = []
    for item in items:  # type: ignore[attr-defined]
        (docs if isinstance(item, Document) else issues).append(item)
    return docs, issues


def only(issues: list[ReadIssue], severity: str) -> list[ReadIssue]:
    return [i for i in issues if i.severity == severity]


def assert_no_text(issues: list[ReadIssue]) -> None:
    for issue in issues:
        assert SECRET not in issue.describe() and "Zorblat" not in issue.describe()


# --------------------------------------------------------------------------------------- JSONL


def test_jsonl_reads_ids_text_patient_and_location(tmp_path: Path) -> None:
    src = jsonl(
        tmp_path / "in.jsonl",
        [{"id": "a", "text": f"Pt {SECRET}", "patient_id": "p1", "mrn": "123"}, {"id": 7, "text": "b"}],
    )
    docs, issues = split(read_documents(src))
    assert not issues
    assert [d.id for d in docs] == ["a", "7"]  # integer ids become strings
    assert docs[0].patient_id == "p1" and docs[1].patient_id is None
    assert docs[0].metadata == {"path": str(src), "line": 1}  # other fields are not carried
    assert docs[1].metadata["line"] == 2


def test_jsonl_keep_columns_go_to_metadata(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x", "site": "N", "extra": 1}, {"id": "b", "text": "y"}])
    docs, _ = split(read_documents(src, options=ReadOptions(keep_columns=("site",))))
    assert docs[0].metadata["columns"] == {"site": "N"}
    assert docs[1].metadata["columns"] == {}


def test_jsonl_custom_fields(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"note_id": "n1", "body": "x", "pid": 5}])
    docs, _ = split(read_documents(src, options=ReadOptions(id_col="note_id", text_col="body", patient_col="pid")))
    assert (docs[0].id, docs[0].text, docs[0].patient_id) == ("n1", "x", "5")


def test_malformed_json_line_is_one_error_and_the_rest_is_read(tmp_path: Path) -> None:
    src = jsonl(
        tmp_path / "examples.jsonl",
        [{"id": "r1", "text": SECRET}, f'{{"id": "r2", "text": "{SECRET}" oops}}', {"id": "r3", "text": "c"}],
    )
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["r1", "r3"]
    (issue,) = issues
    assert issue.severity == "error" and issue.line == 2 and issue.path == str(src)
    assert issue.describe().startswith(f"{src} line 2: malformed JSON: Expecting")
    assert_no_text(issues)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[1, 2]", "expected a JSON object, got an array"),
        ('"just a string"', "expected a JSON object, got a string"),
        ("42", "expected a JSON object, got a number"),
        ('{"id": "x"}', "no 'text' field"),
        ('{"text": "Zorblat"}', "no 'id' field"),
        ('{"id": null, "text": "Zorblat"}', "'id' is null"),
        ('{"id": 1.5, "text": "Zorblat"}', "'id' must be a string or an integer"),
        ('{"id": "  ", "text": "Zorblat"}', "'id' is empty"),
        ('{"id": "x", "text": null}', "'text' is null"),
        ('{"id": "x", "text": 12}', "'text' must be a string"),
        ('{"id": "x", "text": "bad \\ud800 escape"}', "not valid utf-8"),
    ],
)
def test_bad_json_records_are_errors(tmp_path: Path, line: str, reason: str) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "first", "text": "ok"}, line, {"id": "last", "text": "ok"}])
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["first", "last"]
    (issue,) = issues
    assert issue.severity == "error" and issue.line == 2 and reason in issue.reason
    assert_no_text(issues)


def test_missing_text_names_the_document(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "ok"}, {"id": "r12", "body": "x"}])
    _, issues = split(read_documents(src))
    assert issues[0].doc_id == "r12"


def test_wrong_field_name_is_one_error_up_front(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"note_id": "a", "body": "x"}] * 50)
    with pytest.raises(ColumnError) as info:
        read_documents(src)  # raised before iterating, once, not per line
    message = str(info.value)
    assert "'id'" in message and "'note_id'" in message and "'body'" in message and "line 1" in message
    with pytest.raises(ColumnError, match="did you mean 'body'"):
        read_documents(src, options=ReadOptions(id_col="note_id", text_col="bdy"))


def test_jsonl_non_utf8_line_names_file_line_and_id(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"id": "a", "text": "ok"}\n{"id": "r2", "text": "caf\xe9 Zorblat"}\n{"id": "c", "text": "ok"}\n')
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["a", "c"]
    (issue,) = issues
    assert (issue.line, issue.doc_id, issue.severity) == (2, "r2", "error")
    assert "not valid utf-8" in issue.reason and "0xe9" in issue.reason
    assert_no_text(issues)


def test_jsonl_needs_an_ascii_compatible_encoding(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n', encoding="utf-16")
    with pytest.raises(FormatError, match="ASCII-compatible"):
        read_documents(src, options=ReadOptions(encoding="utf-16"))


def test_jsonl_other_encoding_and_bom(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes('{"id": "a", "text": "café"}\n'.encode("latin-1"))
    docs, _ = split(read_documents(src, options=ReadOptions(encoding="latin-1")))
    assert docs[0].text == "café"
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"id": "a", "text": "x"}\n')
    docs, issues = split(read_documents(bom))
    assert [d.id for d in docs] == ["a"] and not issues


def test_jsonl_blank_lines_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('\n{"id": "a", "text": "x"}\n\n   \n{"id": "b", "text": oops}\n', encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert docs[0].metadata["line"] == 2 and issues[0].line == 5


def test_gzip_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl.gz"
    with gzip.open(src, "wt", encoding="utf-8") as handle:
        handle.write('{"id": "a", "text": "x\\r\\ny"}\n')
    docs, _ = split(read_documents(src))
    assert docs[0].text == "x\r\ny"


def test_truncated_gzip_is_an_error_not_a_crash(tmp_path: Path) -> None:
    good = gzip.compress(b"".join(b'{"id": "d%d", "text": "x"}\n' % i for i in range(2000)))
    src = tmp_path / "in.jsonl.gz"
    src.write_bytes(good[: len(good) // 2])
    docs, issues = split(read_documents(src))
    assert docs and issues[-1].severity == "error" and "cannot read the rest" in issues[-1].reason
    corrupt = bytearray(good)
    corrupt[len(good) // 2 : len(good) // 2 + 64] = b"\x00" * 64
    src.write_bytes(bytes(corrupt))
    docs, issues = split(read_documents(src))
    assert issues and issues[-1].severity == "error"


# --------------------------------------------------------------------------------------- warnings


def test_empty_document_is_a_warning_and_still_yielded(tmp_path: Path) -> None:
    src = jsonl(
        tmp_path / "in.jsonl", [{"id": "e", "text": ""}, {"id": "w", "text": " \r\n\t"}, {"id": "x", "text": "ok"}]
    )
    items = list(read_documents(src))
    docs, issues = split(items)
    assert [d.id for d in docs] == ["e", "w", "x"]
    assert [d.text for d in docs][:2] == ["", " \r\n\t"]  # passes through unchanged
    assert [(i.doc_id, i.severity) for i in issues] == [("e", "warning"), ("w", "warning")]
    assert "empty document" in issues[0].reason and "whitespace" in issues[1].reason
    assert items.index(issues[0]) < items.index(docs[0])  # the warning comes before its document


def test_duplicate_ids_warn_and_keep_both(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "1"}, {"id": "b", "text": "2"}, {"id": "a", "text": "3"}])
    docs, issues = split(read_documents(src))
    assert [d.text for d in docs] == ["1", "2", "3"]
    (issue,) = issues
    assert (issue.severity, issue.doc_id, issue.line) == ("warning", "a", 3) and "duplicate" in issue.reason
    _, issues = split(read_documents(src, options=ReadOptions(warn_duplicates=False)))
    assert not issues


def test_no_documents_is_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("\n\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert not docs and issues[0].severity == "warning" and "no documents" in issues[0].reason


# --------------------------------------------------------------------------------------- size


def test_five_megabyte_document_is_fine(tmp_path: Path) -> None:
    text = ("Findings: no acute process. \r\n" * 200_000)[:5_000_000]
    src = jsonl(tmp_path / "big.jsonl", [{"id": "big", "text": text}, {"id": "small", "text": "x"}])
    docs, issues = split(read_documents(src))
    assert not issues and docs[0].text == text


def test_document_over_max_chars_is_an_error(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [{"id": "big", "text": "x" * 101}, {"id": "ok", "text": "x" * 100}])
    docs, issues = split(read_documents(src, options=ReadOptions(max_chars=100)))
    assert [d.id for d in docs] == ["ok"]
    (issue,) = issues
    assert (issue.severity, issue.doc_id, issue.line) == ("error", "big", 1) and "max_chars=100" in issue.reason
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "huge.txt").write_text("y" * 1000)
    (folder / "ok.txt").write_text("y")
    docs, issues = split(read_documents(folder, options=ReadOptions(max_chars=100)))
    assert [d.id for d in docs] == ["ok"] and issues[0].doc_id == "huge" and issues[0].severity == "error"


def test_reading_is_streaming(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    row = json.dumps({"id": "x", "text": "Some report text. " * 20}) + "\n"
    src.write_text(row * 5_000, encoding="utf-8")  # ~2 MB
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_documents(src, options=ReadOptions(warn_duplicates=False)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 5_000
    assert peak < 500_000  # a few records at a time, not the file


# --------------------------------------------------------------------------------------- CSV


def test_csv_columns_multiline_crlf_and_patient(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_bytes(
        b"\xef\xbb\xbfnote_id,body,patient_id,mrn\r\n"
        b'n1,"line one\r\nline two, with comma and ""quotes""",p9,123\r\n'
        b"n2,plain,,456\r\n"
    )
    options = ReadOptions(id_col="note_id", text_col="body")
    docs, issues = split(read_documents(src, options=options))
    assert not issues
    assert docs[0].text == 'line one\r\nline two, with comma and "quotes"'
    assert (docs[0].patient_id, docs[1].patient_id) == ("p9", None)  # patient_id picked up automatically
    assert docs[0].metadata == {"path": str(src), "line": 2, "row": 1}  # mrn not carried
    assert docs[1].metadata["line"] == 4 and docs[1].metadata["row"] == 2


def test_csv_wrong_column_is_one_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text("note_id,body\n" + "n1,hello\n" * 100, encoding="utf-8")
    with pytest.raises(ColumnError) as info:
        read_documents(src)
    message = str(info.value)
    # Columns by position only: a file without a header row would show a record (issue 27)
    assert "2 columns" in message and "note_id" not in message and "--id-col" in message
    with pytest.raises(ColumnError, match="kept"):
        read_documents(src, options=ReadOptions(id_col="note_id", text_col="body", keep_columns=("site",)))
    with pytest.raises(ColumnError, match="patient"):
        read_documents(src, options=ReadOptions(id_col="note_id", text_col="body", patient_col="pid"))


def test_csv_header_whitespace_is_tolerated(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text(" id , text \na,b\n", encoding="utf-8")
    docs, _ = split(read_documents(src))
    assert (docs[0].id, docs[0].text) == ("a", "b")


def test_csv_missing_and_extra_columns_are_row_errors(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text(f'id,text,site\nr1,ok,A\nr2,"{SECRET}"\nr3,"{SECRET}",B,extra\nr4,ok,C\n', encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["r1", "r4"]
    # A malformed row may have report text where the id should be: its "id" is never printed (issue 12)
    assert [(i.row, i.line, i.doc_id) for i in issues] == [(2, 3, None), (3, 4, None)]
    assert "missing columns" in issues[0].reason and "too many columns" in issues[1].reason
    assert issues[0].describe() == f"{src} row 2, line 3: missing columns: row has 2 fields, the header has 3"
    assert_no_text(issues)


def test_csv_malformed_quoting_is_a_row_error(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text('id,text\nr1,ok\nr2,"Zorblat"x\nr3,ok\n', encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["r1", "r3"]
    assert issues[0].severity == "error" and "malformed CSV" in issues[0].reason and issues[0].line == 3
    assert_no_text(issues)


def test_csv_non_utf8_row_names_row_and_id(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_bytes(b"id,text\nr1,ok\nr2,caf\xe9 Zorblat\nr3,ok\n")
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["r1", "r3"]
    (issue,) = issues
    assert (issue.row, issue.line, issue.doc_id) == (2, 3, "r2") and "not valid utf-8" in issue.reason
    assert_no_text(issues)


def test_csv_empty_id_and_empty_text(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text("id,text\n,Zorblat\nr2,\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["r2"]
    assert issues[0].severity == "error" and "'id' is empty" in issues[0].reason
    assert issues[1].severity == "warning" and issues[1].doc_id == "r2"


def test_csv_large_field_and_tsv(tmp_path: Path) -> None:
    big = "word " * 100_000  # over the csv module's default 128 KiB field limit
    src = tmp_path / "notes.tsv"
    src.write_text(f"id\ttext\nr1\t{big}\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert not issues and docs[0].text == big


def test_csv_empty_file_is_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text("", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert not docs and "no documents" in issues[0].reason


def test_csv_keep_columns(tmp_path: Path) -> None:
    src = tmp_path / "notes.csv"
    src.write_text("id,text,site,mrn\na,x,North,1\n", encoding="utf-8")
    docs, _ = split(read_documents(src, options=ReadOptions(keep_columns=("site",))))
    assert docs[0].metadata["columns"] == {"site": "North"}


# --------------------------------------------------------------------------------------- Parquet


def test_parquet_reads_in_batches_in_order(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    n = 1300
    table = pa.table(
        {"id": [f"d{i}" for i in range(n)], "text": [f"t{i}\r\n😀" for i in range(n)], "mrn": list(range(n))}
    )
    pq.write_table(table, src, row_group_size=500)
    docs, issues = split(read_documents(src))
    assert not issues
    assert [d.id for d in docs] == [f"d{i}" for i in range(n)]
    assert docs[1299].text == "t1299\r\n😀" and docs[1299].metadata == {"path": str(src), "row": 1300}


def test_parquet_bad_values_are_row_errors(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(
        pa.table({"id": ["a", None, "c", "d"], "text": ["x", "Zorblat", None, ""], "patient_id": [1, 2, 3, None]}), src
    )
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["a", "d"] and docs[0].patient_id == "1"
    assert [(i.row, i.severity) for i in issues] == [(2, "error"), (3, "error"), (4, "warning")]
    assert "'id' is null" in issues[0].reason and "'text' is null" in issues[1].reason
    assert_no_text(issues)


def test_parquet_wrong_columns_and_types(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"note": ["a"], "body": ["x"], "n": [1]}), src)
    with pytest.raises(ColumnError, match="'note'"):
        read_documents(src)
    with pytest.raises(ColumnError, match="int64"):
        read_documents(src, options=ReadOptions(id_col="note", text_col="n"))


def test_parquet_binary_text_and_gold_spans(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    spans = [[{"start": 3, "end": 13, "label": "DATE"}], []]
    pq.write_table(
        pa.table({"id": ["a", "b"], "text": [b"On 2019-01-02", b"caf\xe9"], "spans": spans}),
        src,
    )
    docs, issues = split(read_documents(src))
    assert docs[0].text == "On 2019-01-02" and docs[0].spans[0].text_in(docs[0].text) == "2019-01-02"
    assert issues[0].doc_id == "b" and "not valid utf-8" in issues[0].reason


def test_not_a_parquet_file(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    src.write_bytes(b"this is not parquet")
    with pytest.raises(FormatError, match="not a readable Parquet file"):
        read_documents(src)


# --------------------------------------------------------------------------------------- txt


def test_txt_folder_ids_are_relative_paths(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    (root / "2019" / "ct").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"first\r\nline\r")
    (root / "2019" / "ct" / "r.12.txt").write_bytes("émoji 😀".encode())
    (root / "2019" / "skip.md").write_text("not a document")
    (root / ".ipynb_checkpoints").mkdir()
    (root / ".ipynb_checkpoints" / "a.txt").write_text("copy")
    docs, issues = split(read_documents(root))
    assert not issues
    assert [d.id for d in docs] == ["a", "2019/ct/r.12"]
    assert docs[0].text == "first\r\nline\r"  # exact bytes, no newline translation
    assert docs[1].metadata == {"path": str(root / "2019" / "ct" / "r.12.txt"), "relpath": "2019/ct/r.12.txt"}


def test_single_txt_file(tmp_path: Path) -> None:
    src = tmp_path / "report 7.txt"
    src.write_text("hello", encoding="utf-8")
    docs, _ = split(read_documents(src))
    assert [(d.id, d.text) for d in docs] == [("report 7", "hello")]


def test_txt_non_utf8_names_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.txt").write_bytes(b"line 1\nline 2\nZorblat caf\xe9\n")
    (root / "b.txt").write_text("fine")
    docs, issues = split(read_documents(root))
    assert [d.id for d in docs] == ["b"]
    (issue,) = issues
    assert (issue.path, issue.line, issue.doc_id) == (str(root / "a.txt"), 3, "a")
    assert "not valid utf-8" in issue.reason
    assert_no_text(issues)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain ASCII report", None),
        ("", None),
        ("Müller, São Paulo, 北京, emoji \U0001f600", None),  # valid non-ASCII, astral too
        ("abc\ud800def", 3),  # a lone high surrogate
        ("é\udfff", 1),  # a lone low surrogate after non-ASCII
        ("x\udc00y\ud800", 1),  # the first of two
    ],
)
def test_bad_unicode_finds_the_first_lone_surrogate(value: str, expected: int | None) -> None:
    from radeid.io.records import bad_unicode

    assert bad_unicode(value) == expected
