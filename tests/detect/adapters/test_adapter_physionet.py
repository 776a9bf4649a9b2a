"""The PhysioNet deid adapter, against a fake `deid.pl` that writes the documented output format.

The fake follows the deid 1.1 package's README and gold-standard files (PhysioNet, "De-Identification
Software Package" 1.1): input `NAME.text` with `START_OF_RECORD=<patient>||||<note>||||` ...
`||||END_OF_RECORD` records; output `NAME.phi` (`Patient <p>\tNote <n>` headers, then `start start end`
per PHI, offsets in bytes from the first character of the note) and `NAME.res` (the notes with
`[**tag**]` markers). The real package is GPL and never fetched: set RADEID_PHYSIONET_DEID to its
folder to run the last test against it.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from radeid.config.config import Config, ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.detect.adapters.physionet_deid import align_markers, parse_phi, parse_res, write_text
from radeid.detect.base import build_detector

FAKE_DEID = textwrap.dedent(
    r"""
    import os, re, sys
    stem, config = sys.argv[1], sys.argv[2]
    assert os.path.exists(config), "run inside the deid folder"
    raw = open(stem + ".text", "rb").read()
    if os.environ.get("FAKE_DEID_FAIL"):
        sys.stderr.write(raw.decode("utf-8"))  # a real deid echoes PHI while it works
        sys.exit(3)
    rules = [(rb"\d{3}-\d{3}-\d{4}", b"Telephone/Fax (1) 12"), (rb"(?<=Dr\. )[A-Z][a-z]+", b"Doctor Last Name"),
             (rb"\bSmith\b", b"Last Name (un) "), (rb"\b\d{4}-\d\d-\d\d\b", b"2008-10-25"), (rb"Mercy", b"Hospital1")]
    phi, res = [], []
    records = re.finditer(rb"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\n(.*?)\n\|\|\|\|END_OF_RECORD", raw, re.S)
    for record in records:
        patient, note, body = record.groups()
        hits = sorted((m.start(), m.end(), tag) for pattern, tag in rules for m in re.finditer(pattern, body))
        phi.append(b"Patient %s\tNote %s\n" % (patient, note))
        out, at = b"", 0
        for start, end, tag in hits:
            phi.append(b"%d\t%d\t%d\n" % (start, start, end))
            out += body[at:start] + b"[**" + tag + b"**]"
            at = end
        res.append(b"START_OF_RECORD=%s||||%s||||\n%s\n||||END_OF_RECORD\n" % (patient, note, out + body[at:]))
    open(stem + ".phi", "wb").write(b"".join(phi))
    open(stem + ".res", "wb").write(b"".join(res))
    """
)


@pytest.fixture()
def fake(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "deid"
    folder.mkdir()
    (folder / "deid.pl").write_text(FAKE_DEID, encoding="utf-8")
    (folder / "deid-output.config").write_text("Gold standard comparison = 0\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    return {"path": str(folder), "workdir": str(work), "perl": sys.executable}  # the fake is Python


def build(section: dict[str, object]) -> object:
    return build_detector("physionet_deid", Config.from_dict({"detectors": {"physionet_deid": section}}))


def test_spans_have_exact_character_offsets_and_categories(fake: dict[str, str]) -> None:
    texts = [
        "Zoë Müller, seen by Dr. Adams at Mercy on 2019-03-04; call 617-555-1234.",
        "No PHI here.",
        "Mr. Smith\nsmith",
    ]
    detector = build(fake)
    first, second, third = detector.detect([Document(str(i), t) for i, t in enumerate(texts)])
    got = [(texts[0][s.start : s.end], s.category, s.source) for s in first]
    assert got == [
        ("Adams", Category.HCW, "physionet_deid/Doctor Last Name"),
        ("Mercy", Category.HOSPITAL, "physionet_deid/Hospital1"),
        ("2019-03-04", Category.DATE, "physionet_deid/2008-10-25"),
        ("617-555-1234", Category.PHONE, "physionet_deid/Telephone/Fax (1) 12"),
    ]
    assert second == []
    assert [(s.start, s.end, s.category) for s in third] == [(4, 9, Category.PATIENT)]
    assert list(Path(fake["workdir"]).iterdir()) == []  # the batch folder is gone


def test_a_failing_deid_says_so_without_document_text(fake: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_DEID_FAIL", "1")
    detector = build(fake)
    with pytest.raises(RuntimeError) as caught:
        detector.detect([Document("d", "Jane Secretname 617-555-1234")])
    assert str(caught.value) == "physionet_deid: deid exited with status 3"
    assert list(Path(fake["workdir"]).iterdir()) == []


def test_config_errors(fake: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="path must name the folder of the PhysioNet deid package"):
        build({"workdir": fake["workdir"]})
    with pytest.raises(ConfigError, match="no deid.pl in"):
        build({**fake, "path": str(tmp_path)})
    with pytest.raises(ConfigError, match="workdir must name a folder where document text may be written"):
        build({"path": fake["path"]})
    with pytest.raises(ConfigError, match="workdir: no such folder"):
        build({**fake, "workdir": str(tmp_path / "nowhere")})
    with pytest.raises(ConfigError, match="'no-such-perl' not found"):
        build({**fake, "perl": "no-such-perl"})
    with pytest.raises(ConfigError, match="unknown PHI category"):
        build({**fake, "tags": {"nurse": "NURSE"}})


def test_the_file_formats(tmp_path: Path) -> None:
    path = tmp_path / "x.text"
    write_text(["a\nb", "c"], path)
    assert path.read_text(encoding="utf-8") == (
        "START_OF_RECORD=1||||1||||\na\nb\n||||END_OF_RECORD\nSTART_OF_RECORD=1||||2||||\nc\n||||END_OF_RECORD\n"
    )
    assert parse_phi("Patient 1\tNote 1\n3\t3\t8\n10 12\nPatient 1\tNote 2\n") == {"1": [(3, 8), (10, 12)], "2": []}
    with pytest.raises(ValueError, match="unexpected line"):
        parse_phi("3 3 8\n")
    res = "START_OF_RECORD=1||||7||||\nMr. [**Last Name**] is [**Age over 90 **]\n||||END_OF_RECORD\n"
    assert parse_res(res) == {"7": "Mr. [**Last Name**] is [**Age over 90 **]"}
    assert align_markers("Mr. Jo Ann Smith is 93", parse_res(res)["7"]) == [
        (4, 16, "Last Name"),
        (20, 22, "Age over 90"),
    ]
    assert align_markers("Dr. Who", "Mr. [**Last Name**]") is None


@pytest.mark.skipif(
    not os.path.isfile(os.path.join(os.environ.get("RADEID_PHYSIONET_DEID", "/nonexistent"), "deid.pl")),
    reason="RADEID_PHYSIONET_DEID does not point at a PhysioNet deid folder",
)
def test_the_real_package(tmp_path: Path) -> None:
    detector = build({"path": os.environ["RADEID_PHYSIONET_DEID"], "workdir": str(tmp_path)})
    text = "Pt called from 617-555-1234 on 3/4/2019."
    [spans] = detector.detect([Document("d", text)])
    assert any(text[s.start : s.end] == "617-555-1234" for s in spans)


def test_named_in_the_pipeline_it_runs_beside_the_rules(fake: dict[str, str]) -> None:
    from radeid.pipeline.deidentifier import Deidentifier

    config = Config.from_dict(
        {"pipeline": {"detectors": ["rules", "physionet_deid"]}, "detectors": {"physionet_deid": fake}}
    )
    deid = Deidentifier(config)
    assert [d.name for d in deid.detectors] == ["rules", "physionet_deid"]
    text = "Seen by Dr. Adams at Mercy."
    [spans] = deid.detect([Document("d", text)])
    assert {(text[s.start : s.end], s.category) for s in spans} >= {("Mercy", Category.HOSPITAL)}
