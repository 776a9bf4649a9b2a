"""Issue 27, also seen: the vault binds each document's de-identified text (a SHA-256, stored
encrypted), so a same-length edit between surrogates is refused (exit 2, naming the document) instead
of being "restored"; vaults of older formats stay readable, with a note that such edits go unseen."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from radeid.secure.vault import read_vault_contents, text_digest

ROWS = [
    {"id": "r1", "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. No acute process."},
    {"id": "r2", "text": "No acute cardiopulmonary process."},
]


def _run(tmp_path: Path, cli, write_jsonl, key_file: Path) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.parquet"
    code, output = cli("deid", src, "-o", out, "--key-file", key_file, "--vault", vault, "--no-model", "-q")
    assert code == 0, output
    return out, vault


def _edit_between_surrogates(out: Path) -> None:
    """'No acute' -> 'An acute': same length, outside every surrogate."""
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert "No acute process" in lines[0]["text"]
    lines[0]["text"] = lines[0]["text"].replace("No acute process", "An acute process")
    out.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")


def test_same_length_edit_between_surrogates_is_refused(tmp_path: Path, cli, write_jsonl, key_file) -> None:  # type: ignore[no-untyped-def]
    out, vault = _run(tmp_path, cli, write_jsonl, key_file)
    _edit_between_surrogates(out)
    restored = tmp_path / "restored.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored)
    assert code == 2, output
    flat = output.replace("\n", "")
    assert "document 'r1'" in flat and "SHA-256 differs" in flat
    assert "Alan" not in output and "acute" not in output
    assert not restored.exists()


def test_unedited_output_is_restored_and_digests_are_recorded(tmp_path: Path, cli, write_jsonl, key_file) -> None:  # type: ignore[no-untyped-def]
    out, vault = _run(tmp_path, cli, write_jsonl, key_file)
    contents = read_vault_contents(vault, bytes.fromhex("ab" * 32))
    deid = {r["id"]: r["text"] for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert contents.binds_text and contents.digests == {k: text_digest(v) for k, v in deid.items()}
    restored = tmp_path / "restored.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored, "-q")
    assert code == 0, output
    assert [json.loads(x) for x in restored.read_text(encoding="utf-8").splitlines()] == ROWS


def test_a_moved_surrogate_names_the_document_exit_2(tmp_path: Path, cli, write_jsonl, key_file) -> None:  # type: ignore[no-untyped-def]
    out, vault = _run(tmp_path, cli, write_jsonl, key_file)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    lines[0]["text"] = "X" + lines[0]["text"]
    out.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", tmp_path / "r.jsonl")
    assert code == 2 and "document 'r1'" in output.replace("\n", ""), output


def test_an_older_vault_without_digests_is_still_read_with_a_note(tmp_path: Path, cli, write_jsonl, key_file) -> None:  # type: ignore[no-untyped-def]
    out, vault = _run(tmp_path, cli, write_jsonl, key_file)
    table = pq.read_table(vault)
    meta = dict(table.schema.metadata)
    meta[b"radeid.secure.vault"] = b"3"
    old = table.drop_columns(["text_digest"]).replace_schema_metadata(meta)
    pq.write_table(old, vault)
    contents = read_vault_contents(vault, bytes.fromhex("ab" * 32))
    assert not contents.binds_text and contents.digests == {}
    restored = tmp_path / "restored.jsonl"
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key_file, "-o", restored)
    assert code == 0, output
    assert "does not record the de-identified texts" in output.replace("\n", "")
    assert [json.loads(x) for x in restored.read_text(encoding="utf-8").splitlines()] == ROWS


def test_a_tampered_digest_is_an_altered_vault(tmp_path: Path, cli, write_jsonl, key_file) -> None:  # type: ignore[no-untyped-def]
    import pyarrow as pa

    from radeid.secure.vault import VaultError

    _, vault = _run(tmp_path, cli, write_jsonl, key_file)
    table = pq.read_table(vault)
    digests = table.column("text_digest").to_pylist()
    first, second = (i for i, d in enumerate(digests) if d is not None)
    digests[first], digests[second] = digests[second], digests[first]  # swap two documents' digests
    swapped = table.set_column(
        table.schema.get_field_index("text_digest"), "text_digest", pa.array(digests, pa.binary())
    )
    pq.write_table(swapped.replace_schema_metadata(table.schema.metadata), vault)
    with pytest.raises(VaultError, match="altered"):
        read_vault_contents(vault, bytes.fromhex("ab" * 32))
