"""One audit serializer and one audit reader: `radeid deid`, Spark and the review page agree."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.audit import (
    AUDIT_FIELDS,
    SPAN_FIELDS,
    AuditError,
    AuditRecord,
    AuditWriter,
    audit_rows,
    read_audit,
    span_rows,
)

TEXT = "Pt Zorblat Quuxley seen 03/04/2019."


def result() -> Result:
    doc = Document("r1", TEXT, patient_id="MRN-77")
    name = Span(3, 18, Category.PATIENT, "last", 0.98765, "model")
    date = Span(24, 34, Category.DATE, None, 1.0, "rules")
    return Result.build(doc, [Replacement(name, "[NAME]"), Replacement(date, "[DATE]", kind="shift")])


def test_writer_writes_the_serializer_rows_and_reader_reads_them_back(tmp_path: Path) -> None:
    path = tmp_path / "a.audit.jsonl"
    with AuditWriter(path, include_patient_id=True) as writer:
        assert writer.write(result()) == 2
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines == audit_rows(result(), include_patient_id=True)
    assert list(lines[0]) == [name for name, _ in AUDIT_FIELDS if name != "replacement_kind"]  # file order
    assert lines[1]["replacement_kind"] == "shift" and lines[0]["score"] == 0.9877
    assert all("Zorblat" not in json.dumps(line) and "[NAME]" not in json.dumps(line) for line in lines)

    records = list(read_audit(path))
    assert [r.to_dict() for r in records] == lines
    first = records[0]
    assert (first.doc_id, first.patient_id, first.category, first.out_start, first.out_end) == (
        "r1",
        "MRN-77",
        Category.PATIENT,
        3,
        9,
    )
    assert first.span == Span(3, 18, Category.PATIENT, "last", 0.9877, "model")
    assert result().text[first.out_start : first.out_end] == "[NAME]"


def test_patient_id_only_when_asked_and_spark_rows_are_the_span_fields() -> None:
    assert all("patient_id" not in row for row in audit_rows(result()))
    spark = span_rows(result())
    assert [list(row) for row in spark] == [[name for name, _ in SPAN_FIELDS]] * 2
    full = audit_rows(result())
    assert [{k: row[k] for k, _ in SPAN_FIELDS} for row in full] == spark


def test_reads_gzip_and_spark_folders(tmp_path: Path) -> None:
    rows = audit_rows(result())
    gz = tmp_path / "a.audit.jsonl.gz"
    with AuditWriter(gz) as writer:
        writer.write(result())
    assert [r.to_dict() for r in read_audit(gz)] == rows

    folder = tmp_path / "out.audit"  # what Spark's JSON writer leaves: part files, markers, checksums
    folder.mkdir()
    # Spark writes doc_id and the span struct's fields, and drops null ones
    spark_rows = [{"doc_id": "r1", **{k: v for k, v in row.items() if v is not None}} for row in span_rows(result())]
    (folder / "part-00000-x.json").write_text(json.dumps(spark_rows[0]) + "\n\n", encoding="utf-8")
    (folder / "part-00001-x.json").write_text(json.dumps(spark_rows[1]) + "\n", encoding="utf-8")
    (folder / "_SUCCESS").write_text("", encoding="utf-8")
    (folder / ".part-00000-x.json.crc").write_bytes(b"\x00\x01")
    records = list(read_audit(folder))
    assert [r.subtype for r in records] == ["last", None]
    assert [r.to_dict() for r in records] == [{k: v for k, v in r.items() if k != "replacement_kind"} for r in rows]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"doc_id": "Zorblat", "start": 1', "malformed JSON at column"),
        ('["Zorblat"]', "not a JSON object"),
        ('{"doc_id": "r1", "start": 0, "end": 5, "category": "PATIENT", "source": "x", "score": 1}', "no 'out_start'"),
        ('{"doc_id": "r1", "start": "Zorblat", "end": 5}', "'start' must be a non-negative integer"),
        (
            '{"doc_id": "r1", "start": 0, "end": 5, "category": "Zorblat", "source": "x", "score": 1, '
            '"out_start": 0, "out_end": 1}',
            "'category' is not one of",
        ),
        (
            '{"doc_id": "r1", "start": 5, "end": 5, "category": "PATIENT", "source": "x", "score": 1, '
            '"out_start": 0, "out_end": 1}',
            "offsets out of order",
        ),
        ('{"doc_id": "r1", "start": 0, "end": 5, "category": "PATIENT", "subtype": 3}', "'subtype' must be a string"),
    ],
)
def test_bad_lines_name_file_and_line_never_content(tmp_path: Path, line: str, reason: str) -> None:
    path = tmp_path / "a.audit.jsonl"
    good = json.dumps(audit_rows(result())[0])
    path.write_text(f"{good}\n\n{line}\n{good}\n", encoding="utf-8")
    records = read_audit(path)
    assert isinstance(next(records), AuditRecord)
    with pytest.raises(AuditError) as info:
        next(records)
    message = str(info.value)
    assert message.startswith(f"{path} line 3: ") and reason in message, message
    assert "Zorblat" not in message


def test_undecodable_truncated_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(json.dumps(audit_rows(result())[0]).encode() + b'\n{"doc_id": "caf\xe9"}\n')
    with pytest.raises(AuditError, match=r"bad.jsonl line 2: not valid UTF-8"):
        list(read_audit(bad))
    truncated = tmp_path / "t.jsonl.gz"
    truncated.write_bytes(gzip.compress(bad.read_bytes())[:-12])
    with pytest.raises(AuditError, match="cannot read the audit"):
        list(read_audit(truncated))
    with pytest.raises(FileNotFoundError):
        list(read_audit(tmp_path / "missing.jsonl"))


def _reference(res: Result, include_patient_id: bool) -> str:
    """The audit text as it was first written: `json.dumps` of each row."""
    rows = audit_rows(res, include_patient_id=include_patient_id)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


class IntLike(int):
    pass


@pytest.mark.parametrize("include_patient_id", [False, True])
def test_audit_text_is_json_dumps_of_each_row(include_patient_id: bool) -> None:
    """The direct writer of `audit_text` gives exactly the bytes of `json.dumps` per row, whatever
    the strings hold, and falls back to it for values it does not format itself."""
    from radeid.io.audit import _fast_lines, audit_text

    odd = 'id "quoted" \\ back\tslash\n\u2028 é 😀 \x00\x1f'
    texts = TEXT + " " + "x" * 40
    cases = [
        result(),
        Result.build(
            Document(odd, texts, patient_id=odd), [Replacement(Span(3, 18, Category.HCW, odd, 0.1234567, odd), "A\n\"")]
        ),
        Result.build(Document("n", texts), [Replacement(Span(0, 2, Category.ID, None, 1, "r"), "")]),
        Result.build(Document("n", texts), [Replacement(Span(0, 2, Category.ID, None, float("nan"), "r"), "x")]),
        Result.build(Document("n", texts), [Replacement(Span(IntLike(0), 2, Category.ID, None, 0.5, "r"), "x")]),
        Result.build(Document("n", texts, patient_id=None), []),
        Result.build(Document("m", texts, patient_id="p"), [
            Replacement(Span(0, 2, Category.DATE, "d", 1e-7, "rules"), "longer text"),
            Replacement(Span(5, 9, Category.AGE, None, 0.99999, "rules"), "9", kind='k"ind'),
            Replacement(Span(20, 30, Category.PHONE, "FAX", 2.5e20, "model"), "123"),
        ]),
    ]  # fmt: skip
    for res in cases:
        assert audit_text(res, include_patient_id=include_patient_id) == _reference(res, include_patient_id)
    written_directly = [_fast_lines(res, include_patient_id) is not None for res in cases]
    assert written_directly == [True, True, True, False, False, True, True]


def test_a_replacements_kind_survives_a_part_of_the_batch_runner(tmp_path: Path) -> None:
    """The runner's parts (Parquet, folders, gzip, vault) keep a replacer's `kind` for the audit."""
    from radeid.run.merge import _decode, _encode

    back = _decode(_encode(result()))
    assert [r.kind for r in back.replacements] == [None, "shift"]
    assert back.replacements == result().replacements
