"""`--pseudonymize-ids` (issue 13): document ids and folder output file names become keyed
pseudonyms in the output, the audit and the vault; stable for one key, different for another."""

from __future__ import annotations

import json
import re
from pathlib import Path

from radeid.io.ids import pseudonymize_id

PSEUDO = re.compile(r"doc-[0-9a-f]{16}")
NAME = "SMITH_JOHN_MRN1234567_2019-03-05"


def _audit_ids(path: Path) -> set[str]:
    return {json.loads(line)["doc_id"] for line in path.read_text().splitlines()}


def test_ids_are_pseudonymized_in_output_audit_and_vault_and_reidentify_restores(
    tmp_path: Path, write_jsonl, cli, reports: list[dict], key_file: Path
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.parquet"
    args = ("--key-file", key_file, "--no-model", "-q", "--pseudonymize-ids")
    code, output = cli("deid", src, "-o", out, "--vault", vault, *args)
    assert code == 0, output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    key = bytes.fromhex(key_file.read_text().strip())
    assert [r["id"] for r in rows] == [pseudonymize_id(key, r["id"]) for r in reports]
    assert all(PSEUDO.fullmatch(r["id"]) for r in rows)
    audit = tmp_path / "out.jsonl.audit.jsonl"
    assert _audit_ids(audit) and all(PSEUDO.fullmatch(i) for i in _audit_ids(audit))
    assert not {r["id"] for r in reports} & (_audit_ids(audit) | {r["id"] for r in rows})
    assert "r1" not in audit.read_text().replace('"doc-', "")

    again = tmp_path / "again.jsonl"
    assert cli("deid", src, "-o", again, *args)[0] == 0
    assert again.read_text() == out.read_text()  # stable across runs with the same key

    other = tmp_path / "other.key"
    other.write_text("cd" * 32 + "\n", encoding="ascii")
    other.chmod(0o600)
    third = tmp_path / "third.jsonl"
    assert cli("deid", src, "-o", third, "--key-file", other, "--no-model", "-q", "--pseudonymize-ids")[0] == 0
    third_ids = [json.loads(line)["id"] for line in third.read_text().splitlines()]
    assert not set(third_ids) & {r["id"] for r in rows}

    restored = tmp_path / "restored.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored, "-q")
    assert code == 0, output
    back = [json.loads(line) for line in restored.read_text().splitlines()]
    assert [r["text"] for r in back] == [r["text"] for r in reports]
    assert [r["id"] for r in back] == [r["id"] for r in reports]  # the vault gives the original ids back


def test_folder_output_file_names_are_pseudonyms(tmp_path: Path, cli, key_file: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / f"{NAME}.txt").write_text("CT chest 03/05/2019. MRN: 1234567. Dr. Alan Grant.\n", encoding="utf-8")
    (src / "JONES_MARY_MRN7654321.txt").write_text("No acute findings.\n", encoding="utf-8")
    for fmt in ("txt", "brat", "i2b2"):
        out = tmp_path / f"out-{fmt}"
        args = ("--key-file", key_file, "--no-model", "-q", "--pseudonymize-ids", "--output-format", fmt)
        code, output = cli("deid", src, "-o", out, *args)
        assert code == 0, output
        names = sorted(p.name for p in out.rglob("*") if p.is_file())
        assert names and all(PSEUDO.fullmatch(n.split(".")[0]) for n in names), names
        assert not any("SMITH" in n or "1234567" in n for n in names)
        audit = out.with_name(out.name + ".audit.jsonl").read_text()
        assert "SMITH" not in audit and "MRN1234567" not in audit
    # without the option, names are copied as they are (the README's warning)
    plain = tmp_path / "plain"
    assert cli("deid", src, "-o", plain, "--key-file", key_file, "--no-model", "-q")[0] == 0
    assert (plain / f"{NAME}.txt").exists()


def test_pseudonyms_are_keyed_and_stable() -> None:
    a, b = b"a" * 32, b"b" * 32
    assert pseudonymize_id(a, NAME) == pseudonymize_id(a, NAME)
    assert pseudonymize_id(a, NAME) != pseudonymize_id(b, NAME)
    assert pseudonymize_id(a, NAME) != pseudonymize_id(a, NAME + "x")
    assert PSEUDO.fullmatch(pseudonymize_id(a, NAME))
