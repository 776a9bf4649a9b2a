"""Per-category control (issue 28): `[surrogate.scope]` per category, `[replace.categories]` per-category
modes (with `keep`), and the user's replacement dictionary (`[surrogate] replacements`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from surrogate_helpers import KEY, doc_with, new_texts

from radeid import Category
from radeid.config.config import Config, ConfigError
from radeid.config.sections import SurrogateOptions
from radeid.io.audit import audit_rows
from radeid.replace.base import build_replacer
from radeid.replace.surrogate import SurrogateReplacer
from radeid.replace.surrogate.dictionary import Replacements
from radeid.secure.vault import VaultWriter, read_vault, reidentify_text

TEXT = "Pt Jane Smith seen at Mercy General Hospital on 03/04/2019, age 92, MRN 12345678, CT by Siemens."
MARKS = [
    ("Jane Smith", Category.PATIENT),
    ("Mercy General Hospital", Category.HOSPITAL),
    ("03/04/2019", Category.DATE),
    ("92", Category.AGE),
    ("12345678", Category.ID),
    ("Siemens", Category.VENDOR),
]


def _two_patients(options: SurrogateOptions) -> tuple[dict[str, str], dict[str, str]]:
    replacer = SurrogateReplacer(KEY, options)
    first = new_texts(replacer.replace(*doc_with(TEXT, MARKS, doc_id="a", patient_id="p1")))
    second = new_texts(replacer.replace(*doc_with(TEXT, MARKS, doc_id="b", patient_id="p2")))
    return first, second


# ------------------------------------------------------------------------------ per-category scope


def test_hospital_and_vendor_corpus_wide_while_names_and_dates_follow_the_patient() -> None:
    config = Config.load(overrides={"surrogate": {"scope": {"HOSPITAL": "corpus", "VENDOR": "corpus"}}})
    first, second = _two_patients(config.surrogate)
    assert first["Mercy General Hospital"] == second["Mercy General Hospital"]
    assert first["Siemens"] == second["Siemens"]
    assert first["Jane Smith"] != second["Jane Smith"]
    assert first["12345678"] != second["12345678"]
    assert first["03/04/2019"] != second["03/04/2019"]


def test_a_corpus_hospital_is_the_one_plain_corpus_scope_gives() -> None:
    mixed = Config.load(overrides={"surrogate": {"scope": {"HOSPITAL": "corpus"}}}).surrogate
    corpus, _ = _two_patients(SurrogateOptions(scope="corpus"))
    patient, _ = _two_patients(SurrogateOptions())
    first, _ = _two_patients(mixed)
    assert first["Mercy General Hospital"] == corpus["Mercy General Hospital"]
    assert first["Jane Smith"] == patient["Jane Smith"]


def test_staff_corpus_wide_and_patients_per_patient_are_planned_apart() -> None:
    text = "Pt Jane Smith. Read by Dr. Alan Brown."
    marks = [("Jane Smith", Category.PATIENT), ("Alan Brown", Category.HCW)]
    options = Config.load(overrides={"surrogate": {"scope": {"HCW": "corpus"}}}).surrogate
    replacer = SurrogateReplacer(KEY, options)
    first = new_texts(replacer.replace(*doc_with(text, marks, doc_id="a", patient_id="p1")))
    second = new_texts(replacer.replace(*doc_with(text, marks, doc_id="b", patient_id="p2")))
    assert first["Alan Brown"] == second["Alan Brown"]
    assert first["Jane Smith"] != second["Jane Smith"]


def test_the_plain_scope_is_the_default_of_the_table_across_layers(tmp_path: Path) -> None:
    user = tmp_path / "radeid.toml"
    user.write_text('[surrogate.scope]\nHOSPITAL = "corpus"\n', encoding="utf-8")
    assert Config.load(user).surrogate.scope == {"*": "patient", "HOSPITAL": "corpus"}
    both = Config.load(user, {"surrogate": {"scope": "corpus"}}).surrogate  # --scope corpus over the file
    assert both.scope == {"*": "corpus", "HOSPITAL": "corpus"}
    assert both.scope_of(Category.PATIENT) == "corpus"
    assert Config.load().surrogate.scope == "patient"  # the plain value stays plain
    assert SurrogateOptions(scope={"*": "corpus"}).scope == "corpus"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"DATE": "corpus"}, "[surrogate] scope.DATE: dates and ages always shift per patient"),
        ({"AGE": "patient"}, "[surrogate] scope.AGE: dates and ages always shift per patient"),
        ({"HOSPITAL": "world"}, "[surrogate] scope.HOSPITAL must be 'patient' or 'corpus', not 'world'"),
        ({"PLACE": "corpus"}, "[surrogate] unknown PHI category 'PLACE'"),
    ],
)
def test_a_bad_scope_table_is_refused(table: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.load(overrides={"surrogate": {"scope": table}})
    assert str(caught.value).startswith(message)


# ------------------------------------------------------------------------------ per-category modes

MIXED = {"AGE": "keep", "ID": "mask", "VENDOR": "tag", "PATIENT": "surrogate"}


def _mixed() -> tuple[Config, object]:
    config = Config.load(overrides={"replace": {"categories": MIXED}})
    doc, spans = doc_with(TEXT, MARKS)
    return config, build_replacer(config, KEY).replace(doc, spans)


def test_each_category_is_replaced_by_its_own_mode() -> None:
    _, result = _mixed()
    new = new_texts(result)  # type: ignore[arg-type]
    assert new["92"] == "92"
    assert new["12345678"] == "********"
    assert new["Siemens"] == "[VENDOR]"
    plain = new_texts(SurrogateReplacer(KEY).replace(*doc_with(TEXT, MARKS)))
    for original in ("Jane Smith", "Mercy General Hospital", "03/04/2019"):
        assert new[original] == plain[original] != original


def test_kept_spans_are_audited_as_kept_and_other_modes_named() -> None:
    _, result = _mixed()
    kinds = {(row["category"], row.get("replacement_kind")) for row in audit_rows(result)}  # type: ignore[arg-type]
    assert kinds == {
        ("PATIENT", None), ("HOSPITAL", None), ("DATE", None),
        ("AGE", "kept"), ("ID", "mask"), ("VENDOR", "tag"),
    }  # fmt: skip


def test_a_mixed_output_reidentifies_exactly(tmp_path: Path) -> None:
    _, result = _mixed()
    with VaultWriter(tmp_path / "v.parquet", KEY, scrypt_n=2**4) as vault:
        vault.add(result)  # type: ignore[arg-type]
    rows = read_vault(tmp_path / "v.parquet", KEY)["d1"]
    assert reidentify_text(result.text, rows) == TEXT  # type: ignore[attr-defined]


def test_masks_only_with_a_surrogate_category_need_a_key() -> None:
    config = Config.load(overrides={"replace": {"mode": "tag", "categories": {"DATE": "surrogate"}}})
    with pytest.raises(ConfigError, match="surrogate mode needs a key"):
        build_replacer(config, None)
    tags = Config.load(overrides={"replace": {"mode": "tag", "categories": {"AGE": "keep"}}})
    result = build_replacer(tags, None).replace(*doc_with(TEXT, MARKS))
    assert new_texts(result)["92"] == "92" and new_texts(result)["Jane Smith"] == "[PATIENT]"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"AGE": "blur"},
            "replace.categories.AGE must be one of fixed, mask, numbered, surrogate, tag, keep, not 'blur'",
        ),
        ({"PLACE": "tag"}, "[replace] unknown PHI category 'PLACE'"),
    ],
)
def test_a_bad_mode_table_is_refused(table: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.load(overrides={"replace": {"categories": table}})
    assert str(caught.value).startswith(message)


def test_keep_is_not_a_mode_for_everything() -> None:
    with pytest.raises(ConfigError, match="replace.mode must be one of"):
        Config.load(overrides={"replace": {"mode": "keep"}})


# ------------------------------------------------------------------------------ the user's dictionary


def _tsv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "map.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_original_in_the_dictionary_gets_exactly_its_surrogate(tmp_path: Path) -> None:
    path = _tsv(
        tmp_path,
        "category\toriginal\tsurrogate\n# our own\nHOSPITAL\tmercy  general HOSPITAL\tSt. Elsewhere\n*\tsiemens\tAcme\n"
        "PATIENT\tSiemens\tnot this one\n",
    )
    options = dataclasses.replace(SurrogateOptions(), replacements=str(path), typo_rate=1.0)
    replacer = SurrogateReplacer(KEY, options)
    new = new_texts(replacer.replace(*doc_with(TEXT, MARKS)))
    assert new["Mercy General Hospital"] == "St. Elsewhere"
    assert new["Siemens"] == "Acme"  # `*`, case aside; the PATIENT line is for another category
    assert new["Jane Smith"] != "Jane Smith"
    assert replacer.stats["dictionary"] == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("HOSPITAL\tMercy\n", "line 1: expected 3 tab-separated fields (category, original, surrogate), found 2"),
        ("\nPLACE\tMercy\tX\n", "line 2: the category must be * or one of DATE"),
        ("*\t \tX\n", "line 1: the original and the surrogate must not be empty"),
        ("*\tMercy\tA\n*\tMERCY\tB\n", "line 2: this original is listed before with a different surrogate"),
    ],
)
def test_a_bad_dictionary_line_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = _tsv(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        Replacements.load(path)
    assert str(caught.value).startswith(f"replacements file {path}, {message}")
    assert "Mercy" not in str(caught.value)


def test_deid_refuses_a_bad_dictionary_before_any_work(cli, tmp_path: Path, key_file: Path, write_jsonl) -> None:  # noqa: ANN001
    path = _tsv(tmp_path, "HOSPITAL\tMercy\n")
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": TEXT}])
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--replacements", path, "--key-file", key_file, "--no-model", "-q")
    assert code == 2
    assert f"replacements file {path}, line 1: expected 3 tab-separated fields" in " ".join(output.split())
    assert not out.exists()


def test_deid_uses_the_dictionary(cli, tmp_path: Path, key_file: Path, write_jsonl) -> None:  # noqa: ANN001
    path = _tsv(tmp_path, "PATIENT\tjane smith\tMary Major\n")
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "Patient: Jane Smith\nSeen 03/04/2019."}])
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--replacements", path, "--key-file", key_file, "--no-model", "-q")
    assert code == 0, output
    assert json.loads(out.read_text(encoding="utf-8"))["text"].startswith("Patient: Mary Major\nSeen ")


# ------------------------------------------------------------------------------ patient_from = "mrn"


def test_the_first_mrn_normalised_is_the_patient_key() -> None:
    from radeid.replace.surrogate.dictionary import mrn_patient

    date = ("03/04/2019", Category.DATE)
    a = doc_with(
        "Acc 99887766. MRN: 00-123 45a, seen 03/04/2019.",
        [("99887766", Category.ID), ("00-123 45a", Category.ID), date],
        doc_id="a",
        patient_id=None,
    )
    b = doc_with(
        "Medical record number 12345A; seen 03/04/2019.", [("12345A", Category.ID), date], doc_id="b", patient_id=None
    )
    c = doc_with("Acc 99887766; seen 03/04/2019.", [("99887766", Category.ID), date], doc_id="c", patient_id=None)
    assert mrn_patient(a[0].text, a[1]) == mrn_patient(b[0].text, b[1]) == "12345A"
    assert mrn_patient(c[0].text, c[1]) is None
    replacer = SurrogateReplacer.from_config(Config.load(overrides={"io": {"patient_from": "mrn"}}), KEY)
    shifted = [new_texts(replacer.replace(*pair))["03/04/2019"] for pair in (a, b)]
    assert shifted[0] == shifted[1] != "03/04/2019"
    assert replacer.date_offset("12345A") == SurrogateReplacer(KEY).date_offset("12345A")


def test_a_record_patient_beats_the_mrn() -> None:
    config = Config.load(overrides={"io": {"patient_from": "mrn"}})
    replacer = SurrogateReplacer.from_config(config, KEY)
    text = "MRN 12345; seen 03/04/2019."
    marks = [("12345", Category.ID), ("03/04/2019", Category.DATE)]
    own = new_texts(replacer.replace(*doc_with(text, marks, doc_id="a", patient_id="p9")))
    plain = new_texts(SurrogateReplacer(KEY).replace(*doc_with(text, marks, doc_id="b", patient_id="p9")))
    assert own == plain


def test_deid_with_mixed_modes_and_a_vault_reidentifies_exactly(
    cli, tmp_path: Path, key_file: Path, write_jsonl
) -> None:  # noqa: ANN001
    rows = [{"id": "a", "text": "Patient: Jane Smith, 92-year-old, MRN 12345678, seen 03/04/2019 at Mercy Hospital."}]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    config = tmp_path / "radeid.toml"
    config.write_text('[replace.categories]\nAGE = "keep"\nID = "mask"\n', encoding="utf-8")
    out, vault = tmp_path / "o.jsonl", tmp_path / "v.parquet"
    args = ("--config", config, "--key-file", key_file, "--no-model", "-q")
    code, output = cli("deid", src, "-o", out, "--vault", vault, *args)
    assert code == 0, output
    text = json.loads(out.read_text(encoding="utf-8"))["text"]
    assert "92-year-old" in text and "MRN ********" in text and "Jane Smith" not in text
    audit = [json.loads(line) for line in (tmp_path / "o.jsonl.audit.jsonl").read_text().splitlines()]
    assert {(r["category"], r.get("replacement_kind")) for r in audit if r["category"] in ("AGE", "ID")} == {
        ("AGE", "kept"), ("ID", "mask"),
    }  # fmt: skip
    restored = tmp_path / "r.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored, "-q")
    assert code == 0, output
    assert json.loads(restored.read_text(encoding="utf-8"))["text"] == rows[0]["text"]
