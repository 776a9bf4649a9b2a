"""HL7 v2 through the whole pipeline: one identity in header and text and across files, only PHI
changed (a structural diff with the hl7 library), every byte restored (radeid.pipeline.structured)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import hl7
import pytest

from radeid.core import metakeys
from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.io.hl7_fields import FIELDS
from radeid.io.readers import read_documents
from radeid.pipeline import structured
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.hl7 import oru_messages

HEADER = (
    "MSH|^~\\&|RIS|MERCY GENERAL|EHR|CITY CLINIC|20240312153000-0500||ORU^R01|{id}|P|2.5\r"
    "PID|1||MRN12345^^^HOSP^MR||OYELARAN^VANCE||19560412|M\r"
    "OBR|1|PLC778|ACC99881|71020^CHEST XRAY|||20240312\r"
)
TEXT = "OBX|1|TX|IMP||{text}||||||F\r"


def _message(doc_id: str, text: str) -> str:
    return HEADER.format(id=doc_id) + TEXT.format(text=text)


def _docs(path: Path) -> list[Document]:
    return [d for d in read_documents(path) if isinstance(d, Document)]


def _segments(data: bytes) -> list[hl7.Segment]:
    text = data.decode("utf-8").replace("\x0b", "").replace("\x1c", "")  # MLLP framing is no segment
    return list(hl7.parse("\r".join(s for s in re.split(r"\r\n|\r|\n", text) if s)))


@pytest.fixture(scope="module")
def keyed(rules_only_config) -> Deidentifier:
    return Deidentifier(rules_only_config, key=b"\x07" * 32)


def _narrative(result: Result) -> str:
    return str(_segments(result.text.encode("utf-8"))[-1][5])


def test_one_identity_in_header_and_text(tmp_path: Path, keyed: Deidentifier) -> None:
    src = tmp_path / "in.hl7"
    text = "Vance Oyelaran, MRN12345, seen 03/12/2024 (accession ACC99881). Mr. Oyelaran is stable."
    src.write_bytes(_message("M1", text).encode())
    (result,) = keyed.deidentify(_docs(src))
    pid = _segments(result.text.encode())[1]
    family, given = str(pid[5][0][0]), str(pid[5][0][1])
    prose = _narrative(result)
    assert f"{given.title()} {family.title()}" in prose and f"Mr. {family.title()} is stable" in prose
    assert "Oyelaran" not in prose and "OYELARAN" not in result.text
    mrn = str(pid[3][0][0])
    assert mrn != "MRN12345" and f"{mrn}, seen" in prose
    accession = str(_segments(result.text.encode())[2][3])
    assert accession != "ACC99881" and f"accession {accession})" in prose
    shift = date.fromisoformat(_iso(str(pid[7]))) - date(1956, 4, 12)
    written = re.search(r"seen (\d\d)/(\d\d)/(\d{4})", prose)
    assert written is not None
    month, day, year = map(int, written.groups())
    assert date(year, month, day) - date(2024, 3, 12) == shift != date.resolution * 0
    assert str(_segments(result.text.encode())[0][7]).endswith("-0500")  # the zone stays


def _iso(ts: str) -> str:
    return f"{ts[:4]}-{ts[4:6]}-{ts[6:8]}"


def test_a_name_only_in_the_header_is_caught_in_the_text(tmp_path: Path, keyed: Deidentifier) -> None:
    """The rules alone do not know "Oyelaran"; PID-5 seeds it (fails without the structured seeds)."""
    src = tmp_path / "in.hl7"
    src.write_bytes(_message("M1", "Oyelaran tolerated the procedure; Oyelaran to return.").encode())
    (doc,) = _docs(src)
    (spans,) = keyed.detect([doc])
    prose = [s.text_in(doc.text) for s in spans if s.source.startswith("propagate")]
    assert prose == ["Oyelaran", "Oyelaran"]
    unseeded = Document(doc.id, doc.text, metadata={**doc.metadata, metakeys.STRUCTURED_SPANS: []})
    assert not [s for s in keyed.detect([unseeded])[0] if s.text_in(doc.text) == "Oyelaran"]


def test_spans_never_cut_an_escape_and_separators_are_escaped() -> None:
    text = "MSH|^~\\&|A|B\rOBX|1|TX|X||Smith\\T\\Jones\\.br\\next||||||F\r"
    start = text.index("Smith")
    end = text.index("next")
    verbatim = [[m.start() + start, m.end() + start] for m in re.finditer(r"\\[^\\]+\\", text[start:])]
    meta = {metakeys.NARRATIVE: [[start, text.index("||||||F")]], metakeys.VERBATIM: verbatim}
    doc = Document("d", text, metadata=meta)
    pieces = structured.impose(doc, [Span(start, end + 4, Category.PATIENT)])
    assert [p.text_in(text) for p in pieces] == ["Smith", "Jones", "next"]
    meta[metakeys.RESERVED] = {"&": "\\T\\", "|": "\\F\\"}
    result = Result.build(doc, [Replacement(pieces[0], "Lee & Co|x")])
    fixed = structured.escape_reserved(result)
    assert fixed.text[start:].startswith("Lee \\T\\ Co\\F\\x\\T\\Jones")
    assert fixed.output_offsets() == [(start, start + len("Lee \\T\\ Co\\F\\x"))]


def _phi_fields(segment: hl7.Segment) -> set[int]:
    name = str(segment[0])
    fields = set(FIELDS.get(name, {}))
    if (name, 5) in {("OBX", 5)} or (name, 3) == ("NTE", 3):
        fields.add(5 if name == "OBX" else 3)
    return fields  # python-hl7 numbers MSH fields as HL7 does (MSH-1, the separator, is index 1)


def _shape(field: object) -> list[int]:
    """Repetitions and their component counts: what a surrogate must keep."""
    reps = field if isinstance(field, hl7.Repetition) else [field]
    return [len(rep) if isinstance(rep, hl7.Field) else 1 for rep in reps]


def test_only_phi_changes_and_every_byte_comes_back(tmp_path: Path, cli, key_file: Path) -> None:
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    messages = oru_messages(6, seed=3, per_patient=3)
    a, b = tmp_path / "a.hl7", tmp_path / "b.hl7"
    a.write_bytes("".join(f"\x0b{m.text}\x1c\r" for m in messages[:3]).encode())  # MLLP
    b.write_bytes("".join(m.text.replace("\r", "\n") for m in messages[2:]).encode())  # one segment a line
    outs = []
    for src in (a, b):
        out, vault = tmp_path / f"out_{src.name}", tmp_path / f"{src.stem}.vault.parquet"
        code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "--vault", vault, "-q")
        assert code == 0, log
        back = tmp_path / f"back_{src.name}"
        code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
        assert code == 0, log
        assert back.read_bytes() == src.read_bytes()
        outs.append(out.read_bytes())
        assert (out.read_bytes()[:1] == b"\x0b") == (src is a)  # the framing is kept
    for src, out in ((a, outs[0]), (b, outs[1])):
        before, after = _segments(src.read_bytes()), _segments(out)
        assert [str(s[0]) for s in before] == [str(s[0]) for s in after]
        for old, new in zip(before, after, strict=True):
            assert len(old) == len(new)
            phi = _phi_fields(old)
            for n in range(1, len(old)):
                if n in phi:
                    assert _shape(old[n]) == _shape(new[n])
                else:
                    assert str(old[n]) == str(new[n]), (str(old[0]), n)
    # one patient in three messages and two files: one surrogate name, MRN and birth date (one shift)
    pid_a = [(str(s[5]), str(s[3]), str(s[7])) for s in _segments(outs[0]) if str(s[0]) == "PID"]
    pid_b = [(str(s[5]), str(s[3]), str(s[7])) for s in _segments(outs[1]) if str(s[0]) == "PID"]
    assert len(set(pid_a)) == 1 and pid_b[0] == pid_a[0] and pid_b[1] != pid_a[0]
    assert messages[0].patient.last.upper() not in outs[0].decode()


def test_mask_and_tag_modes_keep_every_message_parseable(tmp_path: Path, cli) -> None:
    src = tmp_path / "in.hl7"
    src.write_bytes("".join(m.text for m in oru_messages(3, seed=5)).encode())
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    for mode in ("tag", "mask"):
        out = tmp_path / f"{mode}.hl7"
        code, log = cli("deid", src, "-o", out, "--config", config, "--mode", mode, "-q")
        assert code == 0, log
        segments = _segments(out.read_bytes())
        pids = [s for s in segments if str(s[0]) == "PID"]
        assert len(pids) == 3
        assert str(pids[0][5]) == ("[PATIENT]^[PATIENT]^[PATIENT]" if mode == "tag" else str(pids[0][5]))
        assert "*" in str(pids[0][5]) or mode == "tag"


def test_a_patient_named_where_a_rule_expects_a_clinician_stays_the_patient(
    tmp_path: Path, keyed: Deidentifier
) -> None:
    """ "Discussed with Vance Oyelaran" reads like a clinician to the rules; PID-5 says it is the
    patient, so the text gets the header's surrogate (failed before: an HCW span and another name)."""
    src = tmp_path / "in.hl7"
    src.write_bytes(_message("M1", "Findings discussed with Vance Oyelaran by phone.").encode())
    (doc,) = _docs(src)
    (spans,) = keyed.detect([doc])
    assert [(s.text_in(doc.text), s.category) for s in spans if s.text_in(doc.text) == "Vance Oyelaran"] == [
        ("Vance Oyelaran", Category.PATIENT)
    ]
    (result,) = keyed.deidentify([doc])
    pid = _segments(result.text.encode())[1]
    assert f"{str(pid[5][0][1]).title()} {str(pid[5][0][0]).title()} by phone" in _narrative(result)


def test_explain_shows_what_detect_does(tmp_path: Path, keyed: Deidentifier) -> None:
    src = tmp_path / "in.hl7"
    src.write_bytes(_message("M1", "Oyelaran tolerated the procedure; Oyelaran to return.").encode())
    (doc,) = _docs(src)
    explained = keyed.explain(doc)
    assert list(explained.spans) == keyed.detect([doc])[0]
    assert explained.proposals["structured"]


def test_parallel_run_writes_what_a_serial_run_writes(tmp_path: Path, cli, key_file: Path) -> None:
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\nbatch_size = 2\n', encoding="utf-8")
    src = tmp_path / "in.hl7"
    src.write_bytes("".join(f"\x0b{m.text}\x1c\r" for m in oru_messages(7, seed=9, per_patient=2)).encode())
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.hl7"
        code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-w", workers, "-q")
        assert code == 0, log
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\x0bMSH") == 7


def test_pseudonymized_ids_still_reidentify(tmp_path: Path, cli, key_file: Path) -> None:
    """MSH-10 stays in the message, so the output reads back the original id, not its pseudonym
    (failed before: "this document is not in the vault")."""
    config = tmp_path / "rules.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    src, out, back, vault = (tmp_path / n for n in ("in.hl7", "out.hl7", "back.hl7", "v.parquet"))
    src.write_bytes("".join(m.text for m in oru_messages(3, seed=2)).encode())
    args = ("--config", config, "--key-file", key_file, "--vault", vault, "--pseudonymize-ids", "-q")
    assert cli("deid", src, "-o", out, *args)[0] == 0
    code, log = cli("reidentify", out, "-o", back, "--vault", vault, "--key-file", key_file, "-q")
    assert code == 0, log
    assert back.read_bytes() == src.read_bytes()
    assert b"doc-" in (tmp_path / "out.hl7.audit.jsonl").read_bytes()  # the audit has the pseudonyms


def test_non_ascii_names_repetitions_and_escapes(tmp_path: Path, keyed: Deidentifier) -> None:
    message = (
        "MSH|^~\\&|RIS|MERCY|EHR|CLINIC|20240401||ORU^R01|N1|P|2.5\r"
        "PID|1||M-77||ÖZTÜRK^ÇAĞLA~O\\T\\NEILL^MAIRE||19700101\r"
        "OBX|1|TX|IMP||Çağla Öztürk was seen.\\.br\\Öztürk consents \\T\\ agrees.||||||F\r"
    )
    src = tmp_path / "in.hl7"
    src.write_bytes(message.encode())
    (result,) = keyed.deidentify(_docs(src))
    assert "Öztürk" not in result.text and "ÖZTÜRK" not in result.text and "NEILL" not in result.text
    pid = _segments(result.text.encode())[1]
    assert len(pid[5]) == 2 and "\\T\\" in result.text.split("\r")[1]  # both repetitions, the escape kept
    prose = _narrative(result)
    assert prose.count("\\.br\\") == 1 and " consents \\T\\ agrees." in prose
    family = str(pid[5][0][0]).title()
    assert prose.startswith(f"{str(pid[5][0][1]).title()} {family} was seen.\\.br\\{family} consents")


def test_date_format_leaves_hl7_time_stamps_in_their_form(tmp_path: Path, cli, key_file: Path) -> None:
    """`[surrogate] date_format` rewrites the dates of the report text, never a TS field (failed
    before: MSH-7 became `2024-02-16153000` and PID-7 `1956-03-18`, which no HL7 reader takes)."""
    src = tmp_path / "in.hl7"
    messages = oru_messages(2, seed=11)
    src.write_bytes("".join(m.text for m in messages).encode())
    config = tmp_path / "df.toml"
    config.write_text(
        '[pipeline]\ndetectors = ["rules", "lexicon"]\n[surrogate]\ndate_format = "%Y-%m-%d"\n', encoding="utf-8"
    )
    out = tmp_path / "out.hl7"
    code, log = cli("deid", src, "-o", out, "--config", config, "--key-file", key_file, "-q")
    assert code == 0, log
    before, after = _segments(src.read_bytes()), _segments(out.read_bytes())
    checked = 0
    for old, new in zip(before, after, strict=True):
        if str(old[0]) in ("MSH", "PID") and str(old[7]):
            assert re.fullmatch(r"\d{8}(\d{4}(\d{2})?)?", str(new[7])), (str(old[0]), str(new[7]))
            assert len(str(new[7])) == len(str(old[7])) and str(new[7]) != str(old[7])
            checked += 1
    assert checked == 4  # MSH-7 and PID-7 of both messages
