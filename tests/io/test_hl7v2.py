"""The `hl7` format: framing kept byte for byte, PHI fields and prose found as offsets, bad messages
reported one by one (radeid.io.hl7v2, radeid.io.hl7_fields)."""

from __future__ import annotations

from pathlib import Path

import hl7
import pytest

from radeid.core import metakeys
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat, detect_format
from radeid.io.hl7_fields import map_message
from radeid.io.hl7v2 import split_messages
from radeid.io.readers import estimate_total, read_documents
from radeid.io.writers import open_writer

MSG1 = (
    "MSH|^~\\&|RIS|MERCY GENERAL|EHR|CITY CLINIC|20240312153000-0500||ORU^R01|MSG1|P|2.5\r"
    "PID|1||MRN12345^^^HOSP^MR~XX999^^^OTHER||OYELARAN^VANCE^J~O\\T\\NEIL^VANCE||19560412|M|||"
    "742 Evergreen^^Springfield^OR^97403||(541)555-0199^PRN^PH^vance@example.com\r"
    "\r"  # an empty segment
    "OBR|1|PLC778|ACC99881|71020^CHEST XRAY|||202403121530" + "|" * 9 + "1234^HOUSE^GREGORY\r"  # OBR-16
    "OBX|1|TX|IMP||Vance Oyelaran seen 03/12/2024.\\.br\\Mr. Oyelaran ok.~Second line \\F\\ here.||||||F\r"
    "OBX|2|NM|SIZE||12|mm\r"
    "NTE|1||Call Oyelaran.\r"
)
MSG2 = "MSH|^~\\&|RIS|MERCY|EHR|CLINIC|20240401||ORU^R01|MSG2|P|2.5\rPID|1||MRN12345||ÖZTÜRK^ÇAĞLA\r"


def _docs(path: Path) -> tuple[list[Document], list[ReadIssue]]:
    items = list(read_documents(path))
    return [d for d in items if isinstance(d, Document)], [i for i in items if isinstance(i, ReadIssue)]


def _write_back(path: Path, out: Path) -> bytes:
    docs, issues = _docs(path)
    assert not issues
    with open_writer(out, input_path=path) as writer:
        for doc in docs:
            writer.write(Result.build(doc, []))
    return out.read_bytes()


@pytest.mark.parametrize(
    "framing",
    [
        lambda m: m,  # one after another, CR only
        lambda m: m.replace("\r", "\n"),  # one segment a line
        lambda m: m.replace("\r", "\r\n") + "\n",  # CRLF, blank lines between messages
        lambda m: f"\x0b{m}\x1c\r",  # MLLP
        lambda m: f"\n\x0b{m}\x1c\r\n",  # MLLP with line ends around the frames
    ],
)
def test_framing_round_trips_byte_for_byte(tmp_path: Path, framing) -> None:
    data = (framing(MSG1) + framing(MSG2)).encode("utf-8")
    src = tmp_path / "in.hl7"
    src.write_bytes(data)
    assert detect_format(src) is InputFormat.HL7
    assert estimate_total(src) == 2
    docs, _ = _docs(src)
    assert [d.id for d in docs] == ["MSG1", "MSG2"]
    assert [d.patient_id for d in docs] == ["MRN12345", "MRN12345"]  # the patient key from PID-3
    assert _write_back(src, tmp_path / "out.hl7") == data


def test_split_accounts_for_every_byte() -> None:
    data = f"  \x0b{MSG1}\x1c\r\n\x0b{MSG2}\x1c\r\n\n".encode()
    parts = list(split_messages(data))
    assert all(not isinstance(p, str) for p in parts)
    assert b"".join(p.prefix + p.body + p.suffix for p in parts if not isinstance(p, str)) == data


def test_bad_messages_are_issues_and_the_others_are_kept(tmp_path: Path) -> None:
    src = tmp_path / "in.hl7"
    src.write_bytes(b"junk\r" + MSG1.encode() + b"MSH|^~\\&|X\xff|Y\r" + MSG2.encode())
    docs, issues = _docs(src)
    assert [d.id for d in docs] == ["MSG1", "MSG2"]
    reasons = [i.reason for i in issues]
    assert reasons[0] == "bytes before the first MSH segment are not a message; left out"
    assert reasons[1].startswith("not valid utf-8: byte 0xff") and issues[1].line == 1
    src.write_bytes(f"\x0b{MSG1}\x1c\rjunk\x0b{MSG2}".encode())
    docs, issues = _docs(src)
    assert [d.id for d in docs] == ["MSG1"]
    opened = len(f"\x0b{MSG1}\x1c\rjunk".encode())
    assert [i.reason for i in issues] == [f"the MLLP frame opened at byte offset {opened} is never closed; left out"]


def test_phi_fields_by_type_and_prose_regions() -> None:
    found = map_message(MSG1)
    spans = {(MSG1[s:e], c) for s, e, c, _ in found.structured}
    assert {
        ("MERCY GENERAL", "HOSPITAL"),
        ("CITY CLINIC", "HOSPITAL"),
        ("20240312153000", "DATE"),  # the zone offset stays
        ("MRN12345", "ID"),
        ("XX999", "ID"),  # every repetition
        ("OYELARAN", "PATIENT"),
        ("VANCE", "PATIENT"),
        ("J", "PATIENT"),
        ("O\\T\\NEIL", "PATIENT"),
        ("19560412", "DATE"),
        ("742 Evergreen", "LOCATION"),
        ("Springfield", "LOCATION"),
        ("97403", "LOCATION"),
        ("(541)555-0199", "PHONE"),
        ("vance@example.com", "EMAIL"),
        ("PLC778", "ID"),
        ("ACC99881", "ID"),
        ("202403121530", "DATE"),
        ("1234", "ID"),
        ("HOUSE", "HCW"),
        ("GREGORY", "HCW"),
    } == spans
    assert [MSG1[s:e] for s, e in found.narrative] == [
        "Vance Oyelaran seen 03/12/2024.\\.br\\Mr. Oyelaran ok.",
        "Second line \\F\\ here.",
        "Call Oyelaran.",
    ]  # OBX-5 of a TX observation (each repetition) and NTE-3; not the NM value "12"
    assert [MSG1[s:e] for s, e in found.verbatim] == ["\\T\\", "\\.br\\", "~", "\\F\\"]
    assert (found.patient_id, found.control_id) == ("MRN12345", "MSG1")
    assert found.reserved["|"] == "\\F\\" and found.reserved["^"] == "\\S\\"


def test_other_separators_are_read_from_msh() -> None:
    text = "MSH#*!/$#RIS#MERCY#EHR#CLINIC#20240312##ORU*R01#ID7#P#2.5\rPID#1##M77##DOE*JANE\r"
    found = map_message(text)
    assert {text[s:e] for s, e, *_ in found.structured} == {"MERCY", "CLINIC", "20240312", "M77", "DOE", "JANE"}
    assert found.reserved["#"] == "/F/" and found.reserved["*"] == "/S/"


def test_output_with_replacements_still_parses(tmp_path: Path) -> None:
    src = tmp_path / "in.hl7"
    src.write_text(MSG1, encoding="utf-8", newline="")
    (doc,), _ = _docs(src)
    spans = [Span(int(s), int(e), c) for s, e, c, _ in doc.metadata[metakeys.STRUCTURED_SPANS]]
    out = tmp_path / "out.hl7"
    with open_writer(out) as writer:
        writer.write(Result.build(doc, [Replacement(s, "X") for s in spans]))
    parsed = hl7.parse(out.read_bytes().decode("utf-8").replace("\r\r", "\r"))
    assert str(parsed.segment("PID")[5]) == "X^X^X~X^X"


def test_a_control_id_used_twice_gives_way_to_the_place(tmp_path: Path) -> None:
    src = tmp_path / "in.hl7"
    src.write_text(MSG1 + MSG1 + MSG2.replace("|MSG2|", "||"), encoding="utf-8", newline="")
    docs, issues = _docs(src)
    assert [d.id for d in docs] == ["MSG1", "message-2", "message-3"] and not issues


def _segment(name: str, fields: dict[int, str]) -> str:
    return "|".join([name, *(fields.get(n, "") for n in range(1, max(fields) + 1))]) + "\r"


def test_guarantor_and_insurance_fields() -> None:
    text = (
        "MSH|^~\\&|A|B|C|D|20240101||ADT^A04|X|P|2.5\r"
        "GT1|1||DOE^JOHN||1 Main St^^Salem^OR^97301|(503)555-0100||19600101||||123-45-6789\r"
        + _segment("IN1", {4: "ACME INSURANCE", 8: "GRP77", 16: "ROE^JANE", 18: "19620202", 36: "POL-991"})
    )
    found = {(text[s:e], c) for s, e, c, _ in map_message(text).structured}
    assert {("DOE", "PATIENT"), ("1 Main St", "LOCATION"), ("123-45-6789", "ID"), ("19600101", "DATE")} <= found
    assert {("ACME INSURANCE", "HOSPITAL"), ("GRP77", "ID"), ("ROE", "PATIENT"), ("POL-991", "ID")} <= found
