"""The HL7 field map as data (radeid.io.hl7_map): the bundled file, a site's map laid over it with
`[io] hl7_fields`, and a bad map stopped with exit 2 naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import hl7
import pytest

from radeid.core.categories import Category
from radeid.io.hl7_fields import FIELDS, map_message
from radeid.io.hl7_map import BUNDLED_NAME, FieldMapError, Part, bundled_field_map, load_field_map

MESSAGE = (
    "MSH|^~\\&|RIS|MERCY GENERAL|EHR|CITY CLINIC|20240312||ORU^R01|Z1|P|2.5\r"
    "PID|1||MRN12345^^^HOSP^MR||OYELARAN^VANCE||19560412|M|||12 ELM ST^^SPRINGFIELD^IL^62701\r"
    "ZPI|1|KOWALCZYK^BRONISLAWA|CODE7\r"
    "OBX|1|TX|IMP||No acute process.||||||F\r"
)


def _config(tmp_path: Path, fields: str | None) -> Path:
    config = tmp_path / "rules.toml"
    line = "" if fields is None else f'\n[io]\nhl7_fields = "{fields}"\n'
    config.write_text(f'[pipeline]\ndetectors = ["rules", "lexicon"]\n{line}', encoding="utf-8")
    return config


def _deid(tmp_path: Path, cli, fields: str | None) -> tuple[int, str, str]:
    src, out = tmp_path / "in.hl7", tmp_path / "out.hl7"
    src.write_bytes(MESSAGE.encode())
    out.unlink(missing_ok=True)
    code, log = cli("deid", src, "-o", out, "--config", _config(tmp_path, fields), "--mode", "tag", "--overwrite", "-q")
    return code, log, out.read_bytes().decode("utf-8") if out.exists() else ""


def test_the_bundled_file_is_the_map_the_reader_uses() -> None:
    assert bundled_field_map() == FIELDS == load_field_map("")
    assert FIELDS["PID"][5] == (Part(1, Category.PATIENT), Part(2, Category.PATIENT), Part(3, Category.PATIENT))
    assert FIELDS["PID"][7] == (Part(1, Category.DATE, date=True),)
    assert FIELDS["OBR"][32][0] == Part(1, Category.ID, sub=1)
    assert FIELDS["PID"][19] == (Part(0, Category.ID, "SSN"),)
    assert "ZPI" not in FIELDS and 5 not in FIELDS["OBX"]


def test_a_site_map_makes_a_z_segment_name_phi(tmp_path: Path, cli) -> None:
    """ZPI-2 is not in the bundled map: written as it is; with a site map naming it an XPN, its
    components are replaced like PID-5's (failed before: `io.hl7_fields` was an unknown key)."""
    code, log, plain = _deid(tmp_path, cli, None)
    assert code == 0, log
    assert "ZPI|1|KOWALCZYK^BRONISLAWA|CODE7\r" in plain
    site = tmp_path / "site_hl7.toml"
    site.write_text('[fields]\nZPI-2 = "XPN"\nZPI-3 = ["1 ID/SITE"]\nPID-11 = ""\n', encoding="utf-8")
    code, log, out = _deid(tmp_path, cli, str(site))
    assert code == 0, log
    assert "ZPI|1|[PATIENT]^[PATIENT]|[ID]\r" in out
    assert "PID|1||[ID]^^^HOSP^MR||[PATIENT]^[PATIENT]||[DATE]|M|||12 ELM ST^^SPRINGFIELD^IL^62701\r" in out
    assert out.replace("ZPI|1|[PATIENT]^[PATIENT]|[ID]", "").count("KOWALCZYK") == 0
    for message in out.split("MSH")[1:]:
        hl7.parse(("MSH" + message).rstrip("\r"))


def test_a_type_redefined_by_a_site_changes_every_field_of_that_type(tmp_path: Path) -> None:
    site = tmp_path / "site.toml"
    site.write_text('[types]\nXAD = ["1 LOCATION/STREET"]\n', encoding="utf-8")
    fields = load_field_map(site)
    assert fields["PID"][11] == fields["NK1"][4] == (Part(1, Category.LOCATION, "STREET"),)
    found = map_message(MESSAGE, fields)
    spans = {MESSAGE[s:e]: c for s, e, c, _ in found.structured}  # type: ignore[misc]
    assert "12 ELM ST" in spans and "SPRINGFIELD" not in spans and "62701" not in spans
    assert spans["OYELARAN"] == "PATIENT"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[fields]\nZPI-2 = "NAME"\n', "fields.'ZPI-2': unknown type 'NAME' (known: FACILITY, ID, ID_ANY, MRN, NDL,"),
        ('[fields]\nZPI2 = "XPN"\n', "fields.'ZPI2': a field is written SEGMENT-NUMBER, e.g. PID-5 or ZPI-2"),
        ('[fields]\nOBX-5 = "XPN"\n', "fields.'OBX-5': OBX-5 is the report text, which the pipeline reads"),
        ('[fields]\nMSH-2 = "ID"\n', "fields.'MSH-2': MSH-2 is the encoding characters; it stays"),
        ('[fields]\nMSH-10 = "ID"\n', "fields.'MSH-10': MSH-10 is the message control id, the record's id that"),
        ("[fields]\nZPI-2 = 3\n", "fields.'ZPI-2': a type name, a list of parts, or \"\" (not PHI)"),
        ('[types]\nNAME = ["1 PATEINT"]\n', "types.NAME[1]: unknown PHI category 'PATEINT' (known: DATE, PATIENT,"),
        ('[types]\nNAME = ["PATIENT"]\n', "types.NAME[1]: 'PATIENT' is not a part: write \"COMPONENT[.SUBCOMPONENT]"),
        ("[types]\nNAME = []\n", 'types.NAME: a non-empty list of parts, e.g. ["1 PATIENT"]'),
        ('[field]\nZPI-2 = "XPN"\n', "unknown key 'field' (known: fields, types)"),
        ("[fields\n", "not valid TOML: "),
    ],
)
def test_a_bad_map_is_an_error_naming_the_file_and_key(tmp_path: Path, text: str, problem: str) -> None:
    site = tmp_path / "site.toml"
    site.write_text(text, encoding="utf-8")
    with pytest.raises(FieldMapError) as caught:
        load_field_map(site)
    assert str(caught.value).startswith(f"HL7 field map {site}: {problem}")


def test_a_bad_map_stops_deid_with_exit_2_before_reading(tmp_path: Path, cli) -> None:
    site = tmp_path / "site_hl7.toml"
    site.write_text('[fields]\nZPI-2 = "NAME"\n', encoding="utf-8")
    code, log, out = _deid(tmp_path, cli, str(site))
    assert code == 2 and out == "" and not (tmp_path / "radeid.key").exists()  # stopped before a key was made
    assert f"HL7 field map {site}: fields.'ZPI-2': unknown type 'NAME'" in " ".join(log.split())
    missing = tmp_path / "nowhere.toml"
    code, log, _ = _deid(tmp_path, cli, str(missing))
    assert code == 2 and str(missing) in " ".join(log.split())


def test_detect_stops_on_a_bad_map_with_exit_2(tmp_path: Path, cli) -> None:
    site = tmp_path / "site_hl7.toml"
    site.write_text('[types]\nNAME = ["1 PATEINT"]\n', encoding="utf-8")
    src = tmp_path / "in.hl7"
    src.write_bytes(MESSAGE.encode())
    out = tmp_path / "spans.jsonl"
    code, log = cli("detect", src, "-o", out, "--config", _config(tmp_path, str(site)), "-q")
    assert code == 2 and not out.exists()
    assert f"HL7 field map {site}: types.NAME[1]: unknown PHI category 'PATEINT'" in " ".join(log.split())


def test_the_bundled_map_is_named_in_its_own_errors() -> None:
    assert BUNDLED_NAME == "radeid/data/hl7/fields.toml"
