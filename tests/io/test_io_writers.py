"""Writers: exact round trips in every format, atomic replacement, audit and spans without text."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.errors import FormatError, OutputExistsError, ReadIssue
from radeid.io.formats import InputFormat
from radeid.io.readers import ReadOptions, read_documents
from radeid.io.writers import AuditWriter, SpansWriter, open_writer, output_format, write_spans_jsonl

TEXTS = {
    "r1": "MRN 4455667 seen by Dr. Alan Grant.\r\nFollow-up 😀 in 2 weeks.\r\n",
    "r2": 'Quotes "x", commas, tabs\tand a lone \r carriage return; ]]> & <tag>',
    "r3": "Ünïcödé: 東京, emoji 👩‍⚕️, café\n\nend",
}

OUT_NAMES = {
    InputFormat.JSONL: "out.jsonl",
    InputFormat.CSV: "out.csv",
    InputFormat.PARQUET: "out.parquet",
    InputFormat.TXT: "out_txt",
    InputFormat.I2B2: "out_i2b2",
    InputFormat.BRAT: "out_brat",
    InputFormat.HL7: "out.hl7",
    InputFormat.DICOM: "out_dicom",
    InputFormat.FHIR: "out.json",
}
#: Formats whose records may hold any text (an HL7 record is a message: tests/io/test_hl7v2.py; a
#: DICOM record is the rendering of a file: tests/io/test_dicom.py; a FHIR record a resource:
#: tests/io/test_fhir.py).
ANY_TEXT = [f for f in InputFormat if f not in (InputFormat.HL7, InputFormat.DICOM, InputFormat.FHIR)]


def split(items: object) -> tuple[list[Document], list[ReadIssue]]:
    docs: list[Document] = []
    issues: list[ReadIssue] = []
    for item in items:  # type: ignore[attr-defined]
        (docs if isinstance(item, Document) else issues).append(item)
    return docs, issues


def unchanged(doc: Document) -> Result:
    return Result.build(doc, [])


def masked(doc: Document, spans: list[Span], new: str = "[X]") -> Result:
    return Result.build(doc, [Replacement(s, new) for s in spans])


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".tmp")]


# --------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt", ANY_TEXT)
def test_round_trip_preserves_ids_text_and_order(tmp_path: Path, fmt: InputFormat) -> None:
    out = tmp_path / OUT_NAMES[fmt]
    docs = [Document(doc_id, text) for doc_id, text in TEXTS.items()]
    with open_writer(out, fmt) as writer:
        for doc in docs:
            writer.write(unchanged(doc))
    assert writer.count == 3 and writer.closed
    back, issues = split(read_documents(out, fmt))
    assert not issues
    assert [(d.id, d.text) for d in back] == [(d.id, d.text) for d in docs]  # exact, CR and all
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("fmt", [InputFormat.JSONL, InputFormat.CSV, InputFormat.PARQUET])
def test_empty_output_is_still_a_valid_file(tmp_path: Path, fmt: InputFormat) -> None:
    out = tmp_path / OUT_NAMES[fmt]
    with open_writer(out, fmt):
        pass
    docs, issues = split(read_documents(out, fmt))
    assert not docs and "no documents" in issues[0].reason


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\x0c\x0b\x1b"),
    max_size=40,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_TEXT, min_size=1, max_size=4))
def test_any_text_round_trips(tmp_path_factory: pytest.TempPathFactory, texts: list[str]) -> None:
    base = tmp_path_factory.mktemp("prop")
    docs = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    for fmt in (InputFormat.JSONL, InputFormat.CSV, InputFormat.I2B2):
        valid_xml = all(ord(c) >= 0x20 or c in "\t\n\r" for t in texts for c in t)
        if fmt is InputFormat.I2B2 and not valid_xml:
            continue
        out = base / OUT_NAMES[fmt]
        with open_writer(out, fmt) as writer:
            for doc in docs:
                writer.write(unchanged(doc))
        back, _ = split(read_documents(out, fmt))
        assert [(d.id, d.text) for d in back] == [(d.id, d.text) for d in docs], fmt


def test_gzip_jsonl_and_csv_round_trip(tmp_path: Path) -> None:
    for name in ("out.jsonl.gz", "out.csv.gz"):
        with open_writer(tmp_path / name) as writer:
            writer.write(unchanged(Document("a", TEXTS["r1"])))
        back, _ = split(read_documents(tmp_path / name))
        assert back[0].text == TEXTS["r1"]


def test_parquet_writes_in_batches(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    with open_writer(out) as writer:
        for i in range(2500):
            writer.write(unchanged(Document(f"d{i}", f"text {i}")))
    assert pq.ParquetFile(out).num_row_groups == 3
    back, _ = split(read_documents(out))
    assert [d.id for d in back] == [f"d{i}" for i in range(2500)]


# --------------------------------------------------------------------------------------- columns


@pytest.mark.parametrize("name", ["in.jsonl", "in.csv"])
def test_only_id_text_and_kept_columns_are_written(tmp_path: Path, name: str) -> None:
    src = tmp_path / name
    if name.endswith(".jsonl"):
        rows = [{"note": "n1", "body": "Pt Zorblat.", "patient_id": "P77", "site": "North", "mrn": "998877"}]
        src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        src.write_text("note,body,patient_id,site,mrn\nn1,Pt Zorblat.,P77,North,998877\n", encoding="utf-8")
    options = ReadOptions(id_col="note", text_col="body", keep_columns=("site",))
    (doc,) = split(read_documents(src, options=options))[0]
    assert doc.patient_id == "P77"
    out = tmp_path / ("out" + src.suffix)
    with open_writer(out, None, options) as writer:
        writer.write(masked(doc, [Span(3, 10, Category.PATIENT)]))
    written = out.read_text(encoding="utf-8")
    assert "998877" not in written and "P77" not in written and "Zorblat" not in written
    (back,) = split(read_documents(out, options=options))[0]
    assert (back.id, back.text, back.metadata["columns"]) == ("n1", "Pt [X].", {"site": "North"})
    # The patient id is written only when asked for explicitly.
    keep_patient = ReadOptions(id_col="note", text_col="body", keep_columns=("site", "patient_id"))
    (doc,) = split(read_documents(src, options=keep_patient))[0]
    with open_writer(out, None, keep_patient) as writer:
        writer.write(unchanged(doc))
    assert "P77" in out.read_text(encoding="utf-8")


def test_parquet_kept_columns_keep_their_types(tmp_path: Path) -> None:
    options = ReadOptions(keep_columns=("age_days", "site"))
    docs = [
        Document("a", "x", metadata={"columns": {"age_days": 3, "site": None}}),
        Document("b", "y", metadata={"columns": {"age_days": 5, "site": "S"}}),
    ]
    out = tmp_path / "out.parquet"
    with open_writer(out, None, options) as writer:
        for doc in docs:
            writer.write(unchanged(doc))
    table = pq.read_table(out)
    assert table.column_names == ["id", "text", "age_days", "site"]
    assert table.column("age_days").to_pylist() == [3, 5] and table.column("site").to_pylist() == [None, "S"]


# --------------------------------------------------------------------------------------- atomicity


class Boom(RuntimeError):
    pass


@pytest.mark.parametrize("fmt", [f for f in InputFormat if f is not InputFormat.DICOM])  # (test_dicom.py)
def test_failure_leaves_no_output_and_no_temp(tmp_path: Path, fmt: InputFormat) -> None:
    out = tmp_path / OUT_NAMES[fmt]
    with pytest.raises(Boom), open_writer(out, fmt) as writer:
        writer.write(unchanged(Document("a", "Pt Zorblat")))
        raise Boom
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ANY_TEXT)
def test_failure_keeps_the_previous_good_output(tmp_path: Path, fmt: InputFormat) -> None:
    out = tmp_path / OUT_NAMES[fmt]
    with open_writer(out, fmt) as writer:
        writer.write(unchanged(Document("good", "good output")))
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    with pytest.raises(Boom), open_writer(out, fmt) as writer:
        writer.write(unchanged(Document("new", "new output")))
        raise Boom
    after = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    assert after == before and leftovers(tmp_path) == []
    # ... and a successful run replaces it.
    with open_writer(out, fmt) as writer:
        writer.write(unchanged(Document("new", "new output")))
    assert [d.id for d in split(read_documents(out, fmt))[0]] == ["new"]
    assert leftovers(tmp_path) == []


def test_temp_file_is_next_to_the_output(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out.jsonl"
    writer = open_writer(out)
    writer.write(unchanged(Document("a", "x")))
    (temp,) = list(out.parent.iterdir())
    assert temp.name.startswith(".out.jsonl.") and temp.name.endswith(".tmp") and not out.exists()
    writer.commit()
    assert out.exists() and list(out.parent.iterdir()) == [out]
    with pytest.raises(ValueError, match="committed"):
        writer.write(unchanged(Document("b", "y")))


def test_committed_file_gets_normal_permissions(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with open_writer(out) as writer:
        writer.write(unchanged(Document("a", "x")))
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_abort_is_explicit_too(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    writer = open_writer(out)
    writer.write(unchanged(Document("a", "x")))
    writer.abort()
    writer.abort()  # idempotent
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------- folders


def test_folder_output_refuses_a_folder_with_other_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.docx").write_text("precious")
    with pytest.raises(OutputExistsError, match="thesis.docx"):
        open_writer(out, "txt")
    assert (out / "thesis.docx").read_text() == "precious" and leftovers(tmp_path) == []
    with open_writer(out, "txt", overwrite=True) as writer:
        writer.write(unchanged(Document("a", "x")))
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]


def test_overwrite_false_refuses_existing_output(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    with pytest.raises(OutputExistsError):
        open_writer(out, overwrite=False)
    with pytest.raises(OutputExistsError, match="is a folder"):
        open_writer(tmp_path, "jsonl")


def test_folder_output_keeps_relative_paths_and_stays_inside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ids = ["2019/ct/r1", "../../escape", "/etc/passwd", ".hidden", "a\x00b", "dup", "dup"]
    with open_writer(out, "txt") as writer:
        for doc_id in ids:
            writer.write(unchanged(Document(doc_id, doc_id.encode("unicode_escape").decode())))
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.txt"))
    assert files == sorted(
        ["2019/ct/r1.txt", "__/__/escape.txt", "_.hidden.txt", "a_b.txt", "dup.txt", "dup~2.txt", "etc/passwd.txt"]
    )
    assert not (tmp_path / "escape.txt").exists()
    back = {d.id for d in split(read_documents(out))[0]}
    assert {"2019/ct/r1", "dup", "dup~2"} <= back


def test_single_file_txt_output(tmp_path: Path) -> None:
    src = tmp_path / "note.txt"
    src.write_bytes(b"Pt Zorblat\r\n")
    (doc,) = split(read_documents(src))[0]
    out = tmp_path / "note.deid.txt"
    with open_writer(out) as writer:
        writer.write(masked(doc, [Span(3, 10, Category.PATIENT)]))
    assert out.read_bytes() == b"Pt [X]\r\n"
    with pytest.raises(ValueError, match="single document"), open_writer(out) as writer:
        writer.write(unchanged(doc))
        writer.write(unchanged(doc))
    assert out.read_bytes() == b"Pt [X]\r\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "note.deid.txt",
        "note.txt",
    ]


def test_single_brat_document_writes_txt_and_ann(tmp_path: Path) -> None:
    out = tmp_path / "one.ann"
    doc = Document("whatever", "On 2019-01-02 ok")
    with open_writer(out, "brat") as writer:
        writer.write(masked(doc, [Span(3, 13, Category.DATE)], "[DATE]"))
    assert (tmp_path / "one.txt").read_text() == "On [DATE] ok"
    assert (tmp_path / "one.ann").read_text() == "T1\tDATE 3 9\t[DATE]\n"


@pytest.mark.parametrize("fmt", [InputFormat.I2B2, InputFormat.BRAT])
def test_annotation_formats_mark_replacements_at_output_offsets(tmp_path: Path, fmt: InputFormat) -> None:
    text = "Dr. Alan Grant saw MRN 4455667 on 03/04/2019.\r\nFax 555-1234 😀"
    doc = Document("r1", text)
    spans = [
        Span(4, 14, Category.HCW),
        Span(23, 30, Category.ID, "MRN"),
        Span(34, 44, Category.DATE),
        Span(51, 59, Category.PHONE, "FAX"),
    ]
    news = ["Bob Li", "0000000000", "[DATE]", "555-0000"]
    result = Result.build(doc, [Replacement(s, n) for s, n in zip(spans, news, strict=True)])
    out = tmp_path / OUT_NAMES[fmt]
    with open_writer(out, fmt) as writer:
        writer.write(result)
    (back,) = split(read_documents(out, fmt))[0]
    assert back.text == result.text
    assert [(s.text_in(back.text), s.label) for s in back.spans] == [
        ("Bob Li", "HCW"),
        ("0000000000", "ID/MRN"),
        ("[DATE]", "DATE"),
        ("555-0000", "PHONE/FAX"),
    ]


def test_output_format_choice(tmp_path: Path) -> None:
    assert output_format(tmp_path / "x.jsonl") is InputFormat.JSONL
    assert output_format(tmp_path / "out") is InputFormat.TXT  # no suffix: a folder of .txt
    assert output_format(tmp_path / "out", "brat") is InputFormat.BRAT
    with pytest.raises(FormatError):
        output_format(tmp_path / "out.docx")
    with pytest.raises(FormatError, match="named like csv"):
        open_writer(tmp_path / "out.csv", "jsonl")  # JSONL content in a .csv: surely a mistake
    assert output_format(tmp_path / "one.txt", "brat") is InputFormat.BRAT  # single BRAT document
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------- audit, spans

REPORT = "MRN 4455667 seen by Dr. Alan Grant on 03/04/2019."


def report_result() -> Result:
    doc = Document("r1", REPORT, patient_id="P77")
    reps = [
        Replacement(Span(4, 11, Category.ID, "MRN", 0.97, "rules"), "[ID]"),
        Replacement(Span(24, 34, Category.HCW, None, 0.81234, "model"), "Zed Quill"),
        Replacement(Span(38, 48, Category.DATE, None, 1.0, "rules"), "[DATE]"),
    ]
    return Result.build(doc, reps)


def test_audit_has_offsets_and_never_text(tmp_path: Path) -> None:
    result = report_result()
    path = tmp_path / "out.audit.jsonl"
    with AuditWriter(path) as audit:
        assert audit.write(result) == 3
    raw = path.read_text(encoding="utf-8")
    for secret in ("4455667", "Alan", "Grant", "03/04/2019", "Zed Quill", "[ID]", "P77"):
        assert secret not in raw
    rows = [json.loads(line) for line in raw.splitlines()]
    assert rows[1] == {
        "doc_id": "r1",
        "start": 24,
        "end": 34,
        "category": "HCW",
        "subtype": None,
        "source": "model",
        "score": 0.8123,
        "out_start": 21,
        "out_end": 30,
    }
    for row, rep in zip(rows, result.replacements, strict=True):
        assert REPORT[row["start"] : row["end"]] == REPORT[rep.span.start : rep.span.end]
        assert result.text[row["out_start"] : row["out_end"]] == rep.new_text


def test_audit_patient_id_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    with AuditWriter(path, include_patient_id=True) as audit:
        audit.write(report_result())
    assert all(json.loads(line)["patient_id"] == "P77" for line in path.read_text().splitlines())


def test_audit_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "out.audit.jsonl"
    with pytest.raises(Boom), AuditWriter(path) as audit:
        audit.write(report_result())
        raise Boom
    assert list(tmp_path.iterdir()) == []


def test_spans_jsonl_has_no_text_and_is_atomic(tmp_path: Path) -> None:
    result = report_result()
    spans = [r.span for r in result.replacements]
    path = tmp_path / "spans.jsonl"
    assert write_spans_jsonl(path, [(result.document, spans), ("r2", [])]) == 2
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == {"id": "r1", "spans": [s.to_dict() for s in spans]} and rows[1] == {"id": "r2", "spans": []}
    assert "4455667" not in path.read_text() and "Grant" not in path.read_text()

    def failing():  # type: ignore[no-untyped-def]
        yield "r1", spans
        raise Boom

    with pytest.raises(Boom):
        write_spans_jsonl(path, failing())
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["r1", "r2"]  # untouched
    assert leftovers(tmp_path) == []
    with SpansWriter(tmp_path / "s2.jsonl") as writer:
        writer.write("x", [])
    assert writer.count == 1


def test_output_must_not_be_or_hold_the_input(tmp_path: Path) -> None:
    notes = tmp_path / "data" / "notes"
    notes.mkdir(parents=True)
    (notes / "a.txt").write_text("Pt Zorblat")
    for out in (notes, notes / "deid", tmp_path / "data"):
        with pytest.raises(FormatError):
            open_writer(out, "txt", input_path=notes)
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n')
    with pytest.raises(FormatError, match="is the input"):
        open_writer(src, input_path=src)
    assert src.read_text() == '{"id": "a", "text": "x"}\n' and (notes / "a.txt").exists()
    with open_writer(tmp_path / "deid", "txt", input_path=notes):
        pass
