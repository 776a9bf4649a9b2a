"""Gold spans from JSONL, i2b2 2014 XML and BRAT: exact offsets, label maps, broken annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.core.labelmaps import load_label_map
from radeid.io.errors import ReadIssue
from radeid.io.gold import OutputTag, UnknownLabel, brat_ann, brat_label, i2b2_xml, parse_i2b2, resolve_label
from radeid.io.readers import ReadOptions, read_documents


def split(items: object) -> tuple[list[Document], list[ReadIssue]]:
    docs: list[Document] = []
    issues: list[ReadIssue] = []
    for item in items:  # type: ignore[attr-defined]
        (docs if isinstance(item, Document) else issues).append(item)
    return docs, issues


def labelled(doc: Document) -> list[tuple[str, str]]:
    return [(s.text_in(doc.text), s.label) for s in doc.spans]


# --------------------------------------------------------------------------------------- labels


def test_resolve_label_forms() -> None:
    assert resolve_label("DATE") == (Category.DATE, None)
    assert resolve_label("id/mrn") == (Category.ID, "mrn")
    assert resolve_label("ID_MRN") == (Category.ID, "MRN")
    assert resolve_label("O") is None
    i2b2 = load_label_map("i2b2_2014")
    assert resolve_label("DOCTOR", i2b2) == (Category.HCW, None)
    assert resolve_label("MEDICALRECORD", i2b2) == (Category.ID, "MRN")
    assert resolve_label("PROFESSION", i2b2) is None  # known, not PHI here
    with pytest.raises(UnknownLabel, match="'GIBBERISH'"):
        resolve_label("GIBBERISH", i2b2)


# --------------------------------------------------------------------------------------- JSONL

TEXT = "Seen by Dr. Alan Grant on 03/04/2019.\r\nMRN 4455667 😀 at Mercy."


def test_jsonl_gold_spans_exact_offsets(tmp_path: Path) -> None:
    spans = [
        {"start": 12, "end": 22, "category": "HCW", "text": "Alan Grant"},
        {"start": 26, "end": 36, "label": "DATE", "score": 0.9, "source": "annotator1"},
        {"start": 43, "end": 50, "category": "ID/MRN"},
        {"start": 56, "end": 61, "label": "HOSPITAL"},
    ]
    src = tmp_path / "gold.jsonl"
    src.write_text(json.dumps({"id": "g1", "text": TEXT, "spans": spans}, ensure_ascii=False) + "\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert not issues
    (doc,) = docs
    assert labelled(doc) == [
        ("Alan Grant", "HCW"),
        ("03/04/2019", "DATE"),
        ("4455667", "ID/MRN"),
        ("Mercy", "HOSPITAL"),
    ]
    assert doc.spans[1].score == 0.9 and doc.spans[1].source == "annotator1" and doc.spans[0].source == "gold"


def test_jsonl_gold_with_label_map(tmp_path: Path) -> None:
    spans = [
        {"start": 12, "end": 22, "label": "DOCTOR"},
        {"start": 0, "end": 4, "label": "PROFESSION"},
        {"start": 43, "end": 50, "label": "MEDICALRECORD"},
    ]
    src = tmp_path / "gold.jsonl"
    src.write_text(json.dumps({"id": "g1", "text": TEXT, "spans": spans}) + "\n", encoding="utf-8")
    docs, issues = split(read_documents(src, options=ReadOptions(label_map="i2b2_2014")))
    assert not issues  # PROFESSION is ignored silently: it is not PHI for radeid ...
    assert labelled(docs[0]) == [("Alan Grant", "HCW"), ("4455667", "ID/MRN")]
    assert docs[0].metadata["ignored_spans"] == [(0, 4)]  # ... but evaluation may want the region


def test_jsonl_broken_gold_spans_warn_and_keep_the_document(tmp_path: Path) -> None:
    spans = [
        {"start": 12, "end": 22, "category": "HCW"},
        {"start": 60, "end": 999, "category": "DATE"},
        {"start": 5, "end": 3, "category": "DATE"},
        {"start": 0, "end": 4, "category": "SPACESHIP"},
        {"start": "a", "end": 4, "category": "DATE"},
        {"start": 26, "end": 36, "category": "DATE", "text": "Zorblat"},
        "not a span",
    ]
    src = tmp_path / "gold.jsonl"
    src.write_text(json.dumps({"id": "g1", "text": TEXT, "spans": spans}) + "\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert labelled(docs[0]) == [("Alan Grant", "HCW"), ("03/04/2019", "DATE")]  # mismatching text: kept
    assert all(i.severity == "warning" and i.doc_id == "g1" and i.line == 1 for i in issues)
    reasons = [i.reason for i in issues]
    assert len(reasons) == 6
    assert "gold span 2: offsets [60, 999) are outside the text" in reasons[0]
    assert "empty or reversed" in reasons[1] and "unknown label 'SPACESHIP'" in reasons[2]
    assert "must be integers" in reasons[3] and "differs" in reasons[4] and "not an object" in reasons[5]
    assert all("Zorblat" not in r and "Grant" not in r for r in reasons)


def test_jsonl_spans_not_a_list(tmp_path: Path) -> None:
    src = tmp_path / "gold.jsonl"
    src.write_text(json.dumps({"id": "g1", "text": "x", "spans": {"start": 0}}) + "\n", encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert docs[0].spans == () and "must be a list" in issues[0].reason


def test_many_problems_are_capped(tmp_path: Path) -> None:
    spans = [{"start": 100, "end": 200, "category": "DATE"}] * 30
    src = tmp_path / "gold.jsonl"
    src.write_text(json.dumps({"id": "g1", "text": "x", "spans": spans}) + "\n", encoding="utf-8")
    _, issues = split(read_documents(src))
    assert len(issues) == 11 and "and 20 more" in issues[-1].reason


# --------------------------------------------------------------------------------------- i2b2

I2B2_TEXT = "\n\n\nRecord date: 2067-05-03\nDr. Xavier Upton, MD & team\nAge: 93\nPt works as a chef.\n"


def i2b2_tag(tag: str, n: int, piece: str, type_: str) -> str:
    start = I2B2_TEXT.index(piece)
    return f'<{tag} id="P{n}" start="{start}" end="{start + len(piece)}" text="{piece}" TYPE="{type_}" comment="" />'


I2B2 = "\n".join(
    [
        '<?xml version="1.0" encoding="UTF-8" ?>',
        "<deIdi2b2>",
        f"<TEXT><![CDATA[{I2B2_TEXT}]]></TEXT>",
        "<TAGS>",
        i2b2_tag("DATE", 0, "2067-05-03", "DATE"),
        i2b2_tag("NAME", 1, "Xavier Upton", "DOCTOR"),
        i2b2_tag("AGE", 2, "93", "AGE"),
        i2b2_tag("PROFESSION", 3, "chef", "PROFESSION"),
        "</TAGS>",
        "</deIdi2b2>",
        "",
    ]
)


def test_i2b2_gold_exact_offsets(tmp_path: Path) -> None:
    src = tmp_path / "i2b2"
    src.mkdir()
    (src / "110-01.xml").write_text(I2B2, encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert not issues
    (doc,) = docs
    assert doc.id == "110-01" and doc.text == I2B2_TEXT
    assert labelled(doc) == [("2067-05-03", "DATE"), ("Xavier Upton", "HCW"), ("93", "AGE")]
    chef = I2B2_TEXT.index("chef")
    assert doc.metadata["ignored_spans"] == [(chef, chef + 4)]  # PROFESSION: a region, not PHI


def test_i2b2_type_falls_back_to_tag_name() -> None:
    xml = (
        b"<deIdi2b2><TEXT><![CDATA[at Acme 5]]></TEXT><TAGS>"
        b'<VENDOR id="P0" start="3" end="7" /><ID id="P1" start="8" end="9" TYPE="WEIRD"/>'
        b"</TAGS></deIdi2b2>"
    )
    text, gold = parse_i2b2(xml)
    assert [(s.text_in(text), s.label) for s in gold.spans] == [("Acme", "VENDOR"), ("5", "ID")]
    assert not gold.problems


def test_i2b2_bad_tags_warn() -> None:
    xml = (
        b"<deIdi2b2><TEXT><![CDATA[abc def]]></TEXT><TAGS>"
        b'<DATE id="P0" start="4" end="99" TYPE="DATE" />'
        b'<FOO id="P1" start="0" end="3" TYPE="BAR" />'
        b'<DATE id="P2" start="0" end="3" TYPE="DATE" text="xyz" />'
        b"</TAGS></deIdi2b2>"
    )
    text, gold = parse_i2b2(xml)
    assert [s.text_in(text) for s in gold.spans] == ["abc"]
    reasons = [reason for _, reason in gold.problems]
    assert "tag P0 <DATE>: offsets [4, 99) are outside" in reasons[0]
    assert "unknown TYPE 'BAR'" in reasons[1] and "differs" in reasons[2]


def test_malformed_xml_is_an_error_with_a_line(tmp_path: Path) -> None:
    src = tmp_path / "i2b2"
    src.mkdir()
    (src / "a.xml").write_text("<deIdi2b2>\n<TEXT><![CDATA[Zorblat]]></TEXT>\n<TAGS>\n</deIdi2b2>\n", encoding="utf-8")
    (src / "b.xml").write_text("<deIdi2b2><TAGS/></deIdi2b2>", encoding="utf-8")
    (src / "c.xml").write_text(I2B2, encoding="utf-8")
    docs, issues = split(read_documents(src))
    assert [d.id for d in docs] == ["c"]
    assert issues[0].doc_id == "a" and issues[0].line == 4 and "malformed XML" in issues[0].reason
    assert issues[1].doc_id == "b" and "no <TEXT>" in issues[1].reason
    assert all("Zorblat" not in i.describe() for i in issues)


def test_i2b2_xml_writer_is_exact_on_reparse() -> None:
    text = 'a]]>b\r\nc & <d> "e"\rf\x0cg 😀'
    tags = [OutputTag(0, 1, Category.ID, "MRN", "a"), OutputTag(11, 14, Category.VENDOR, None, "<d>")]
    back, gold = parse_i2b2(i2b2_xml(text, tags).encode("utf-8"))
    assert back == text.replace("\x0c", "\ufffd")  # XML 1.0 cannot hold a form feed: same length
    assert [(s.start, s.end, s.label) for s in gold.spans] == [(0, 1, "ID/MRN"), (11, 14, "VENDOR")]
    assert not gold.problems


# --------------------------------------------------------------------------------------- BRAT

BRAT_TEXT = "Pt Jane Roe seen 2019-01-02.\r\nMRN: 12345, Boston MA.\n"


def brat_doc(folder: Path, name: str, text: str, ann: str | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_bytes(text.encode("utf-8"))
    if ann is not None:
        (folder / f"{name}.ann").write_text(ann, encoding="utf-8")


def test_brat_gold_exact_offsets_and_discontinuous(tmp_path: Path) -> None:
    ann = (
        "T1\tPATIENT 3 11\tJane Roe\n"
        "T2\tDATE 17 27\t2019-01-02\n"
        "#1\tAnnotatorNotes T1\tnote\n"
        "T3\tID_MRN 35 40\t12345\n"
        "T4\tLOCATION 42 48;49 51\tBoston MA\n"
        "R1\tRel Arg1:T1 Arg2:T2\n"
    )
    brat_doc(tmp_path / "b", "doc1", BRAT_TEXT, ann)
    docs, issues = split(read_documents(tmp_path / "b"))
    assert not issues
    assert labelled(docs[0]) == [
        ("Jane Roe", "PATIENT"),
        ("2019-01-02", "DATE"),
        ("12345", "ID/MRN"),
        ("Boston", "LOCATION"),
        ("MA", "LOCATION"),
    ]


def test_brat_label_map(tmp_path: Path) -> None:
    brat_doc(tmp_path / "b", "d", BRAT_TEXT, "T1\tDOCTOR 3 11\tJane Roe\nT2\tPROFESSION 0 2\tPt\n")
    docs, issues = split(read_documents(tmp_path / "b", options=ReadOptions(label_map="i2b2_2014")))
    assert not issues and labelled(docs[0]) == [("Jane Roe", "HCW")]
    assert docs[0].metadata["ignored_spans"] == [(0, 2)]


def test_brat_bad_annotations_are_warnings(tmp_path: Path) -> None:
    ann = (
        "T1\tPATIENT 3 11\tJane Roe\n"
        "T2\tDATE 17 999\t2019-01-02\n"
        "T3\tDATE 17 27\tZorblat\n"
        "T4\tSPACESHIP 0 2\tPt\n"
        "T5\tDATE x y\tPt\n"
        "T6\n"
    )
    brat_doc(tmp_path / "b", "d", BRAT_TEXT, ann)
    docs, issues = split(read_documents(tmp_path / "b"))
    assert labelled(docs[0]) == [("Jane Roe", "PATIENT"), ("2019-01-02", "DATE")]
    assert all(i.severity == "warning" and i.doc_id == "d" for i in issues)
    assert [i.line for i in issues] == [2, 3, 4, 5, 6]
    assert issues[0].path == str(tmp_path / "b" / "d.ann")
    assert "outside the text" in issues[0].reason and "differs" in issues[1].reason
    # The label is never shown: a malformed line may have a name there (issue 27)
    assert "unknown label" in issues[2].reason and "SPACESHIP" not in issues[2].reason
    assert "malformed" in issues[3].reason and "malformed" in issues[4].reason
    assert all("Zorblat" not in i.describe() and "Jane" not in i.describe() for i in issues)


def test_brat_missing_ann_orphan_ann_and_single_file(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    brat_doc(folder, "a", "no annotations here", None)
    brat_doc(folder, "b", BRAT_TEXT, "T1\tPATIENT 3 11\tJane Roe\n")
    (folder / "orphan.ann").write_text("T1\tDATE 0 1\tx\n", encoding="utf-8")
    docs, issues = split(read_documents(folder, "brat"))
    assert [d.id for d in docs] == ["a", "b"]
    assert [(i.severity, i.doc_id) for i in issues] == [("warning", "a"), ("error", None)]
    assert "no .ann" in issues[0].reason and issues[1].path.endswith("orphan.ann")
    docs, issues = split(read_documents(folder / "b.ann"))
    assert [d.id for d in docs] == ["b"] and labelled(docs[0]) == [("Jane Roe", "PATIENT")]


def test_brat_writer_helpers() -> None:
    assert brat_label(Category.ID, "MRN") == "ID_MRN" and brat_label(Category.DATE, None) == "DATE"
    ann = brat_ann([OutputTag(0, 4, Category.DATE, None, "a\nb"), OutputTag(5, 5, Category.ID, None, "")])
    assert ann == "T1\tDATE 0 4\ta b\n"  # newlines flattened, zero-length left out
