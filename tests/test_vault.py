"""The re-identification vault and key handling."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from synthetic import generate_reports  # noqa: E402

from radeid import Category, Document, Span  # noqa: E402
from radeid.replace.surrogate import SurrogateReplacer  # noqa: E402
from radeid.secure.keys import ENV_VAR, KEY_FILE_NAME, decode_key, resolve_key  # noqa: E402
from radeid.secure.vault import (  # noqa: E402
    VaultError,
    VaultMismatchError,
    VaultWriter,
    WrongKeyError,
    read_vault,
    reidentify,
    reidentify_text,
)

KEY = b"vault-tests-key-not-a-real-secret-0001"
WRONG = b"vault-tests-key-not-a-real-secret-0002"
FAST = {"scrypt_n": 2**4}  # tests need no brute-force resistance


@pytest.fixture(scope="module")
def results():  # noqa: ANN201
    docs = generate_reports(25, seed=11)
    docs.append(Document("no-phi", "Nothing to hide."))
    docs.append(Document("unicode", "Pt İlker Öz, 3/4/2019 ✓", patient_id=None))
    replacer = SurrogateReplacer(KEY)
    out = [replacer.replace(d, d.spans) for d in docs[:-1]]
    uni = docs[-1]
    out.append(replacer.replace(uni, [Span(3, 11, Category.PATIENT), Span(13, 21, Category.DATE)]))
    return out


def write(path: Path, results, key: bytes = KEY) -> Path:  # noqa: ANN001
    with VaultWriter(path, key, **FAST) as vault:
        for r in results:
            vault.add(r)
    return path


def test_round_trip_restores_every_original_exactly(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = write(tmp_path / "vault.parquet", results)
    vault = read_vault(path, KEY)
    for r in results:
        assert reidentify_text(r.text, vault.get(r.document.id, [])) == r.document.text
    restored = reidentify({r.document.id: r.text for r in results}, vault)
    assert restored == {r.document.id: r.document.text for r in results}
    rows = vault[results[0].document.id]
    assert [row.seq for row in rows] == list(range(len(rows)))
    assert rows[0].patient_id == results[0].document.patient_id
    assert {(row.start, row.end) for row in rows} == {(x.span.start, x.span.end) for x in results[0].replacements}


def test_one_row_per_replacement_and_no_phi_in_clear(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = write(tmp_path / "vault.parquet", results)
    table = pq.read_table(path)
    # one row per replacement, one per document (PHI or not), one trailer
    assert table.num_rows == sum(len(r.replacements) for r in results) + len(results) + 1
    raw = path.read_bytes()
    doc = results[0].document
    for secret in [doc.id, doc.patient_id or ""] + [doc.text[s.start : s.end] for s in doc.spans if len(s) > 4]:
        assert secret.encode() not in raw, "an original value is stored in clear"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_wrong_key_gives_a_clear_error_and_no_output(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = write(tmp_path / "vault.parquet", results)
    with pytest.raises(WrongKeyError, match="does not open the vault"):
        read_vault(path, WRONG)


def test_tampered_rows_are_refused(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = write(tmp_path / "vault.parquet", results)
    table = pq.read_table(path)
    originals = table.column("original").to_pylist()
    originals[0], originals[1] = originals[1], originals[0]  # swap two ciphertexts
    swapped = table.set_column(table.schema.get_field_index("original"), "original", [originals])
    pq.write_table(swapped, path)
    with pytest.raises(VaultError, match="altered"):
        read_vault(path, KEY)


def test_not_a_vault(tmp_path: Path) -> None:
    other = tmp_path / "other.parquet"
    plain = pq.read_table(write(tmp_path / "v.parquet", [])).replace_schema_metadata({})
    pq.write_table(plain, other)
    with pytest.raises(VaultError, match="not a radeid vault"):
        read_vault(other, KEY)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(VaultError):
        read_vault(junk, KEY)


def test_edited_output_is_detected(tmp_path: Path, results) -> None:  # noqa: ANN001
    vault = read_vault(write(tmp_path / "vault.parquet", results), KEY)
    r = results[0]
    with pytest.raises(VaultMismatchError, match="edited"):
        reidentify_text("XX" + r.text, vault[r.document.id])


def test_reading_some_documents_only(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = write(tmp_path / "vault.parquet", results)
    wanted = [results[2].document.id, "absent"]
    assert set(read_vault(path, KEY, doc_ids=wanted)) == {results[2].document.id}


def test_writing_is_atomic(tmp_path: Path, results) -> None:  # noqa: ANN001
    path = tmp_path / "vault.parquet"
    write(path, results[:2])
    before = path.read_bytes()
    with pytest.raises(RuntimeError), VaultWriter(path, KEY, **FAST) as vault:
        vault.add(results[3])
        raise RuntimeError("crash mid-run")
    assert path.read_bytes() == before  # the old vault is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault.parquet"]  # no temporary left
    fresh = tmp_path / "new" / "vault.parquet"
    with pytest.raises(RuntimeError), VaultWriter(fresh, KEY, **FAST):
        raise RuntimeError
    assert not fresh.exists()


# --- keys ------------------------------------------------------------------------------------


def test_generated_key_file_is_0600_reused_and_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    key, message = resolve_key(None, tmp_path / "out")
    path = tmp_path / "out" / KEY_FILE_NAME
    assert len(key) == 32 and path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert str(path) in message and "--key-file" in message
    assert key.hex() not in message and path.read_text().strip() == key.hex()
    again, message2 = resolve_key(None, tmp_path / "out")
    assert again == key and "reusing" in message2
    from_file, note = resolve_key(path, tmp_path / "elsewhere")
    assert from_file == key and note == ""
    assert not (tmp_path / "elsewhere").exists()


def test_key_from_environment_and_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "a passphrase that is long enough")
    key, message = resolve_key(None, tmp_path)
    # a passphrase is stretched (scrypt) into 32 bytes before it seeds anything (issue 12)
    assert len(key) == 32 and key != b"a passphrase that is long enough" and message == ""
    assert key == decode_key("  a passphrase that is long enough\n", "again")
    assert not (tmp_path / KEY_FILE_NAME).exists()
    monkeypatch.setenv(ENV_VAR, "short")
    assert "short" in resolve_key(None, tmp_path)[1]
    assert decode_key("base64:AAECAw==", "test") == bytes([0, 1, 2, 3])
    assert decode_key("00" * 32 + "\n", "test") == bytes(32)
    with pytest.raises(ValueError, match="empty"):
        decode_key("  \n", "test")


def test_key_file_problems(tmp_path: Path) -> None:
    loose = tmp_path / "loose.key"
    loose.write_text("ab" * 32)
    os.chmod(loose, 0o644)
    key, message = resolve_key(loose, tmp_path)
    assert key == bytes.fromhex("ab" * 32) and "chmod 600" in message
    with pytest.raises(ValueError, match="cannot read"):
        resolve_key(tmp_path / "missing.key", tmp_path)
    raw = tmp_path / "raw.key"
    raw.write_bytes(b"\xff\xfe" + bytes(range(30)))
    os.chmod(raw, 0o600)
    assert resolve_key(raw, tmp_path) == (b"\xff\xfe" + bytes(range(30)), "")
    empty = tmp_path / "empty.key"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="empty"):
        resolve_key(empty, tmp_path)


def test_pseudonymized_ids_are_stored_encrypted_and_read_back(tmp_path: Path, results) -> None:  # noqa: ANN001
    """Issue 13: with `pseudonymize_ids` the vault keeps each document's own id (encrypted) beside
    the pseudonym, so `radeid reidentify` can restore it; a format-2 vault (no such column) reads
    as before, and a removed or swapped original id is refused."""
    from radeid.io.ids import pseudonymize_id, pseudonymize_result
    from radeid.secure.vault import read_vault_ids

    id_key = b"i" * 32
    renamed = [pseudonymize_result(r, id_key) for r in results[:5]] + list(results[5:7])
    path = write(tmp_path / "vault.parquet", renamed)
    rows, ids = read_vault_ids(path, KEY)
    assert ids == {pseudonymize_id(id_key, r.document.id): r.document.id for r in results[:5]}
    assert set(rows) == {r.document.id for r in renamed}  # rows are keyed by the id written out
    assert read_vault(path, KEY) == rows
    some = pseudonymize_id(id_key, results[0].document.id)
    assert read_vault_ids(path, KEY, [some])[1] == {some: results[0].document.id}
    assert results[0].document.id.encode() not in path.read_bytes()

    table = pq.read_table(path)
    column = table.schema.get_field_index("original_id")
    values = table.column("original_id").to_pylist()
    first, second = [i for i, v in enumerate(values) if v is not None][:2]
    for edit in ("drop", "swap"):
        changed = list(values)
        if edit == "drop":
            changed[first] = None
        else:
            changed[first], changed[second] = changed[second], changed[first]
        pq.write_table(table.set_column(column, "original_id", [changed]), tmp_path / f"{edit}.parquet")
        with pytest.raises(VaultError, match="altered"):
            read_vault_ids(tmp_path / f"{edit}.parquet", KEY)

    old = table.remove_column(column).replace_schema_metadata(
        {**table.schema.metadata, b"radeid.secure.vault": b"2"}
    )  # what format 2 wrote: no original ids
    pq.write_table(old, tmp_path / "v2.parquet")
    rows2, ids2 = read_vault_ids(tmp_path / "v2.parquet", KEY)
    assert rows2 == rows and ids2 == {}
