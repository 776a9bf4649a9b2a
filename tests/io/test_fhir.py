"""The `fhir` format: records kept byte for byte, PHI elements, prose and resource ids found as offsets,
bad records and resources reported one by one (radeid.io.fhir, radeid.io.fhir_fields, radeid.io.fhir_json)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from radeid.core import metakeys
from radeid.core.categories import RESOURCE_ID, Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.errors import ReadIssue
from radeid.io.fhir_json import JObject, JString, decode_map, scan
from radeid.io.formats import InputFormat, detect_format
from radeid.io.readers import estimate_total, read_documents
from radeid.io.writers import open_writer
from radeid.pipeline import structured

DATA = Path(__file__).parent.parent / "data" / "fhir"
PATIENT = {
    "resourceType": "Patient",
    "id": "p1",
    "identifier": [{"value": "MRN12345"}],
    "name": [{"family": "Oyelaran", "given": ["Vance"]}],
    "birthDate": "1956-04-12",
}
REPORT = {
    "resourceType": "DiagnosticReport",
    "id": "r1",
    "status": "final",
    "code": {"text": "XR chest"},
    "subject": {"reference": "Patient/p1"},
    "effectiveDateTime": "2024-03-12T15:30:00+01:00",
    "conclusion": "Vance Oyelaran seen 03/12/2024.",
}


def _items(path: Path) -> tuple[list[Document], list[ReadIssue]]:
    items = list(read_documents(path))
    return [d for d in items if isinstance(d, Document)], [i for i in items if isinstance(i, ReadIssue)]


def _write_back(path: Path, out: Path) -> bytes:
    docs, issues = _items(path)
    assert not issues
    with open_writer(out, InputFormat.FHIR, input_path=path) as writer:
        for doc in docs:
            writer.write(Result.build(doc, []))
    return out.read_bytes()


def _texts(doc: Document, key: str) -> list[str]:
    return [doc.text[int(r[0]) : int(r[1])] for r in doc.metadata[key]]


def test_suffixes_and_bulk_exports_are_told_apart(tmp_path: Path) -> None:
    bundle, export, notes = tmp_path / "b.json", tmp_path / "Patient.ndjson", tmp_path / "notes.ndjson"
    bundle.write_text(json.dumps(PATIENT), encoding="utf-8")
    export.write_text(json.dumps(PATIENT) + "\n" + json.dumps(PATIENT | {"id": "p2"}) + "\n", encoding="utf-8")
    notes.write_text('{"id": "1", "text": "x"}\n', encoding="utf-8")
    assert detect_format(bundle) is InputFormat.FHIR
    assert detect_format(export) is InputFormat.FHIR  # a bulk export: FHIR by its first line
    assert detect_format(notes) is InputFormat.JSONL
    assert detect_format(tmp_path / "new.ndjson") is InputFormat.JSONL  # an output path: by its name
    assert (estimate_total(bundle), estimate_total(export)) == (1, 2)


@pytest.mark.parametrize(
    "layout",
    [
        lambda lines: "\n".join(lines) + "\n",
        lambda lines: "\r\n".join(lines),  # CRLF, no line end after the last
        lambda lines: "\n" + "\n\n".join(lines) + "\n\n",  # blank lines around and between
    ],
)
def test_ndjson_round_trips_byte_for_byte(tmp_path: Path, layout) -> None:
    src = tmp_path / "export.ndjson"
    data = layout([json.dumps(PATIENT), json.dumps(REPORT, ensure_ascii=False, indent=None)]).encode("utf-8")
    src.write_bytes(data)
    docs, _ = _items(src)
    assert [d.id.split("-")[0] for d in docs] == ["Patient", "DiagnosticReport"]
    assert [d.patient_id for d in docs] == ["p1", "p1"]  # Patient.id and subject's reference: one key
    assert _write_back(src, tmp_path / "out.ndjson") == data


def test_a_pure_ascii_record_is_read_decoded_and_written_back_escaped(tmp_path: Path) -> None:
    """`json.dumps` writes "Zoë" as `Zo\\u00eb`: the detectors see "Zoë", the output has the escapes."""
    src = DATA / "edge_ascii.ndjson"
    docs, _ = _items(src)
    assert "Zoë Ødegård" in docs[1].text and "😀" in docs[1].text
    assert all(d.metadata[metakeys.ESCAPE_NON_ASCII] for d in docs)
    assert _write_back(src, tmp_path / "out.ndjson") == src.read_bytes()
    (doc,) = (d for d in docs if d.id.startswith("Patient"))
    spans = [Span(int(s[0]), int(s[1]), Category(s[2])) for s in doc.metadata[metakeys.STRUCTURED_SPANS]]
    name = next(s for s in spans if s.text_in(doc.text) == "Ødegård")
    result = Result.build(doc, [Replacement(name, "Müller")])
    out = tmp_path / "one.ndjson"
    with open_writer(out, InputFormat.FHIR) as writer:
        writer.write(result)
    assert out.read_bytes().isascii() and json.loads(out.read_text())["name"][0]["family"] == "Müller"


def test_an_upper_case_or_mixed_record_is_read_as_written(tmp_path: Path) -> None:
    src = tmp_path / "x.ndjson"
    line = json.dumps(PATIENT | {"name": [{"family": "Renée"}]}).replace("\\u00e9", "\\u00E9")  # as Jackson writes
    src.write_text(line + "\n", encoding="ascii")
    (doc,), _ = _items(src)
    assert "Ren\\u00E9e" in doc.text and metakeys.ESCAPE_NON_ASCII not in doc.metadata
    assert _texts(doc, metakeys.ATOMIC) == ["\\u00E9"]


def test_bad_records_are_issues_and_the_others_are_kept(tmp_path: Path) -> None:
    src = tmp_path / "export.ndjson"
    lines = [
        json.dumps(PATIENT),
        '{"resourceType": "Patient", "id": "p2", "name": [{"family": "Secret"',  # cut short
        json.dumps({"id": "x", "text": "Secret"}),  # no resourceType
        json.dumps(REPORT | {"id": "bad1", "colour": "Secret"}),  # not an element of DiagnosticReport
        json.dumps(REPORT),
    ]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    docs, issues = _items(src)
    assert [d.id for d in docs] == ["Patient-1", "DiagnosticReport-5"]
    assert [(i.line, i.doc_id, i.severity) for i in issues] == [
        (2, None, "error"),
        (3, None, "error"),
        (4, "bad1", "error"),
    ]
    assert issues[2].reason.startswith("DiagnosticReport: does not validate as FHIR R5 or R4B (colour: extra_forbidden")
    assert not any("Secret" in i.describe() for i in issues)


def test_a_bad_entry_of_a_bundle_is_a_warning_and_the_bundle_is_kept(tmp_path: Path) -> None:
    bad = REPORT | {"id": "bad1", "colour": "x"}
    body = {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": PATIENT}, {"resource": bad}]}
    src = tmp_path / "b.json"
    src.write_text(json.dumps(body, indent=1), encoding="utf-8")
    (doc,), (issue,) = _items(src)
    assert (issue.severity, issue.doc_id, issue.line) == ("warning", "bad1", 26)  # where the entry's resource starts
    assert "Oyelaran" in _texts(doc, metakeys.STRUCTURED_SPANS)  # every entry still de-identified by element
    assert "Vance Oyelaran seen 03/12/2024." in _texts(doc, metakeys.NARRATIVE)


def test_the_edge_bundle_maps_every_element() -> None:
    (doc,), issues = _items(DATA / "edge_bundle.json")
    assert not issues and doc.id == "Bundle-1" and doc.patient_id == "6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f"
    spans = [(doc.text[int(s[0]) : int(s[1])], s[2], s[3]) for s in doc.metadata[metakeys.STRUCTURED_SPANS]]
    found = set(spans)
    assert {
        ("Öztürk", "PATIENT", None),
        ("Emre", "PATIENT", None),  # a contact's name
        ("MRN-557201", "ID", "MRN"),
        ("ACC99881", "ID", None),
        ("cagla.ozturk@example.com", "EMAIL", None),
        ("+1 (541) 555-0199", "PHONE", None),
        ("Apt 3", "LOCATION", "STREET"),
        ("97403", "LOCATION", "ZIP"),
        ("1956-04-12", "DATE", None),
        ("Whitfield", "HCW", None),  # a contained Practitioner, the display of `#rad1`, note.authorString
        ("Çağla", "PATIENT", None),  # the display of a `urn:uuid` reference: one span a word
        ("6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f", "ID", RESOURCE_ID),
    } <= found
    texts = [t for t, _c, _s in spans]
    assert "OR" not in texts and "US" not in texts and "2024-03" not in texts  # state, country, a month
    assert "rad1" not in texts and "Dr." not in texts  # contained ids are local; a title is no name
    assert texts.count("Whitfield") == 3 and "Renée O'Neill" not in texts  # HumanName.text: a span a word
    assert texts.count("2024-03-12") == 5  # the date part of each date (time and zone stay)
    assert ("61V5p+8geVTkp5I+ZlxrF2DsphU=", "ID", None) in found  # an attachment's hash
    prose = _texts(doc, metakeys.NARRATIVE)
    assert "Çağla Öztürk" in prose and " Öztürk " in prose  # an XHTML text node and a comment
    assert not any("<" in p or "xmlns" in p for p in prose)
    # text/plain attachments: read decoded (a JSON string of their text), prose, written as base64 again
    assert "Radiology report for Çağla Öztürk (MRN-557201), 03/12/2024.\\nDictated by Dr. Whitfield.\\n" in prose
    assert "Öztürk: impression unchanged." in prose
    assert doc.metadata[metakeys.ENCODED] == [
        [["entry", 1, "resource", "presentedForm", 0, "data"], "utf-8"],
        [["entry", 3, "resource", "content", 0, "attachment", "data"], "utf-8"],
    ]
    assert _texts(doc, metakeys.VERBATIM) == ["\\n", '\\"', '\\"', "\\t", "&amp;", "\\n", "\\n"]
    assert _texts(doc, metakeys.ATOMIC) == ["&#233;", "&#224;"]
    assert doc.metadata[metakeys.RESERVED]["<"] == "&lt;"  # a record with XHTML


def test_scan_gives_every_string_its_place() -> None:
    text = '{"a": ["x\\"y", 1, {"b": "\\u00e9\\ud83d\\ude00z"}], "c": null}'
    root = scan(text)
    assert isinstance(root, JObject)
    inner = root.items["a"].items[2]  # type: ignore[union-attr]
    node = inner.items["b"]
    assert isinstance(node, JString) and node.value(text) == "é😀z"
    value, places = decode_map(text, node)
    assert value == "é😀z" and [text[p] for p in places[:-1]] == ["\\", "\\", "z"] and places[-1] == node.end


def test_a_span_that_touches_an_atomic_escape_covers_it_whole() -> None:
    """A rule that finds "Neill" of `O\\u0027Neill` must not leave `O\\u0027` half replaced
    (failed before: the span stopped at the escape, which then read `O'` + surrogate)."""
    text = '{"conclusion": "Seen O\\u0027Neill today"}'
    start = text.index("Seen")
    escape = text.index("\\u0027")
    meta = {metakeys.NARRATIVE: [[start, text.index(" today") + 6]], metakeys.ATOMIC: [[escape, escape + 6]]}
    doc = Document("d", text, metadata=meta)
    (span,) = structured.impose(doc, [Span(escape + 2, text.index(" today"), Category.PATIENT)])
    assert span.text_in(text) == "\\u0027Neill"
    two = structured.impose(
        doc, [Span(start + 5, escape + 3, Category.PATIENT), Span(escape + 4, escape + 11, Category.PATIENT)]
    )
    assert [s.text_in(text) for s in two] == ["O\\u0027Neill"]  # two spans over one escape become one


def test_an_output_with_nothing_left_to_escape_still_restores_escaped(tmp_path: Path) -> None:
    """Every non-ASCII character of a `json.dumps` record replaced: the output says so (the first
    `"resourceType"` written as `"\\u0072esourceType"`), so the restored record is escaped again
    (failed before: re-read as a plain ASCII record, the restored names were written raw)."""
    src = tmp_path / "p.ndjson"
    src.write_text(json.dumps(PATIENT | {"name": [{"family": "Ødegård", "given": ["Zoë"]}]}) + "\n", encoding="ascii")
    (doc,), _ = _items(src)
    spans = sorted(
        (Span(int(s[0]), int(s[1]), Category(s[2])) for s in doc.metadata[metakeys.STRUCTURED_SPANS]),
        key=lambda s: s.start,
    )
    names = [s for s in spans if s.category is Category.PATIENT]
    out = tmp_path / "out.ndjson"
    with open_writer(out, InputFormat.FHIR) as writer:
        writer.write(Result.build(doc, [Replacement(names[0], "Lee"), Replacement(names[1], "Ann")]))
    written = out.read_text(encoding="ascii")
    assert written.startswith('{"\\u0072esourceType": "Patient"') and json.loads(written)["resourceType"] == "Patient"
    (again,), _ = _items(out)
    assert again.metadata[metakeys.ESCAPE_NON_ASCII] and again.text.startswith('{"resourceType"')
    back = tmp_path / "back.ndjson"
    with open_writer(back, InputFormat.FHIR) as writer:  # what reidentify writes: the original text
        writer.write(Result(document=again, text=doc.text, replacements=()))
    assert back.read_bytes() == src.read_bytes()


def test_an_attachment_that_is_not_canonical_base64_is_a_warning_and_left_as_it_is(tmp_path: Path) -> None:
    text = "Secret Oyelaran\n" * 8
    wrapped = base64.encodebytes(text.encode()).decode()  # MIME: a line break every 76 characters
    report = REPORT | {"presentedForm": [{"contentType": "text/plain", "data": wrapped}]}
    src = tmp_path / "r.json"
    src.write_text(json.dumps(report), encoding="utf-8")
    (doc,), (issue,) = _items(src)
    assert issue.severity == "warning" and issue.reason.startswith("the text/plain attachment at presentedForm/0/data")
    assert metakeys.ENCODED not in doc.metadata and "Secret" not in issue.describe()
    with open_writer(tmp_path / "out.json", InputFormat.FHIR) as writer:
        writer.write(Result.build(doc, []))
    assert (tmp_path / "out.json").read_bytes() == src.read_bytes()


def test_attachments_round_trip_through_a_replacement(tmp_path: Path) -> None:
    report = REPORT | {
        "presentedForm": [{"contentType": "text/plain", "data": base64.b64encode(b"Seen: Oyelaran.").decode()}]
    }
    src = tmp_path / "r.json"
    src.write_text(json.dumps(report), encoding="utf-8")
    (doc,), _ = _items(src)
    start = doc.text.index("Oyelaran.")
    result = Result.build(doc, [Replacement(Span(start, start + 8, Category.PATIENT), 'Le "Gu"')])
    result = structured.escape_reserved(result)
    out = tmp_path / "out.json"
    with open_writer(out, InputFormat.FHIR) as writer:
        writer.write(result)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert base64.b64decode(written["presentedForm"][0]["data"]) == b'Seen: Le "Gu".'
    (again,), _ = _items(out)
    assert again.text == result.text  # what reidentify reads back: the vault's offsets still fit


def test_a_display_alone_is_a_reference_and_a_coding_display_is_not(tmp_path: Path) -> None:
    """`{"display": "Dr. Ada Whitfield"}` is a Reference with no reference: its display is a person
    (failed before: only a Reference with `reference` or `type` had its display replaced)."""
    report = REPORT | {
        "performer": [{"display": "Dr. Ada Whitfield"}],
        "code": {"coding": [{"display": "Chest Xray"}], "text": "Chest Xray"},
        "extension": [{"url": "http://example.org/nok", "valueHumanName": {"family": "Lindqvist"}}],
    }
    src = tmp_path / "r.json"
    src.write_text(json.dumps(report), encoding="utf-8")
    (doc,), _ = _items(src)
    spans = doc.metadata[metakeys.STRUCTURED_SPANS]
    found = [(t, s[2]) for t, s in zip(_texts(doc, metakeys.STRUCTURED_SPANS), spans, strict=True)]
    assert ("Whitfield", "HCW") in found and ("Ada", "HCW") in found and ("Lindqvist", "PATIENT") in found
    assert not any(t in ("Chest", "Xray", "Dr.") for t, _c in found)


def test_a_neighbour_is_taken_in_only_when_written_like_the_name() -> None:
    text = "WILL OYELARAN | Oyelaran will return. Will Oyelaran came."
    meta = {
        metakeys.NARRATIVE: [[16, len(text)]],
        metakeys.STRUCTURED_SPANS: [[0, 4, "PATIENT", None], [5, 13, "PATIENT", None]],
    }
    doc = Document("d", text, metadata=meta)
    prose = [Span(m, m + 8, Category.PATIENT) for m in (16, text.index("Oyelaran came"))]
    spans = structured.impose(doc, prose)
    assert [s.text_in(text) for s in spans if s.start >= 16] == ["Oyelaran", "Will Oyelaran"]
