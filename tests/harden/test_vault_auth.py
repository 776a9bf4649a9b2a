"""Issue 12, points 10-12: every vault column and row count is authenticated; another run's vault,
a partial vault and a crafted key-derivation cost are refused."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from radeid import Document
from radeid.replace.surrogate import SurrogateReplacer
from radeid.secure.vault import VaultError, VaultWriter, read_vault

KEY = b"harden-vault-key-not-a-real-secret-01"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    from radeid.core.categories import Category
    from radeid.core.document import Span

    replacer = SurrogateReplacer(KEY)
    docs = [
        Document(
            "a", "Dr. Alan Grant met Ellie Sattler.", spans=(Span(4, 14, Category.HCW), Span(19, 32, Category.HCW))
        ),
        Document("b", "Call 555-201-3344 now.", spans=(Span(5, 17, Category.PHONE),)),
        Document("c", "Nothing here."),
    ]
    path = tmp_path / "v.parquet"
    with VaultWriter(path, KEY, scrypt_n=2**4) as writer:
        for doc in docs:
            writer.add(replacer.replace(doc, doc.spans))
    return path


def _rewrite(path: Path, change) -> None:  # noqa: ANN001
    table = pq.read_table(path)
    meta = table.schema.metadata
    rows = table.to_pylist()
    rows = change(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema).replace_schema_metadata(meta), path)


def _replacement_rows(rows: list[dict]) -> list[int]:
    return [i for i, r in enumerate(rows) if r["seq"] is not None and r["seq"] >= 0]


def test_swapping_plain_offsets_is_refused(vault: Path) -> None:
    def swap(rows: list[dict]) -> list[dict]:
        i, j = _replacement_rows(rows)[:2]
        for name in ("start", "end", "out_start", "out_end"):
            rows[i][name], rows[j][name] = rows[j][name], rows[i][name]
        return rows

    _rewrite(vault, swap)
    with pytest.raises(VaultError):
        read_vault(vault, KEY)


@pytest.mark.parametrize("column", ["category", "surrogate", "start"])
def test_editing_any_plain_column_is_refused(vault: Path, column: str) -> None:
    def edit(rows: list[dict]) -> list[dict]:
        i = _replacement_rows(rows)[0]
        rows[i][column] = 0 if column == "start" else "ID"
        return rows

    _rewrite(vault, edit)
    with pytest.raises(VaultError):
        read_vault(vault, KEY)


def test_deleting_a_row_is_refused(vault: Path) -> None:
    _rewrite(vault, lambda rows: [r for k, r in enumerate(rows) if k != _replacement_rows(rows)[1]])
    with pytest.raises(VaultError):
        read_vault(vault, KEY)


def test_deleting_the_last_rows_of_the_file_is_refused(vault: Path) -> None:
    _rewrite(vault, lambda rows: rows[:-2])
    with pytest.raises(VaultError):
        read_vault(vault, KEY)


def test_crafted_scrypt_cost_is_refused_fast(vault: Path) -> None:
    table = pq.read_table(vault)
    meta = dict(table.schema.metadata)
    meta[b"radeid.kdf.n"] = str(2**24).encode()
    meta[b"radeid.kdf.r"] = b"64"
    pq.write_table(table.replace_schema_metadata(meta), vault)
    started = time.perf_counter()
    with pytest.raises(VaultError):
        read_vault(vault, KEY)
    assert time.perf_counter() - started < 5


def test_reidentify_with_another_runs_vault_fails(
    tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli
) -> None:
    key = key_file
    one = write_jsonl(tmp_path / "one.jsonl", reports)
    two = write_jsonl(tmp_path / "two.jsonl", [{"id": f"x{r['id']}", "text": r["text"]} for r in reports])
    for src in (one, two):
        code, output = cli(
            "deid",
            src,
            "-o",
            src.with_suffix(".out.jsonl"),
            "--key-file",
            key,
            "--vault",
            src.with_suffix(".parquet"),
            "--no-model",
            "-q",
        )
        assert code == 0, output
    code, output = cli(
        "reidentify",
        one.with_suffix(".out.jsonl"),
        "--vault",
        two.with_suffix(".parquet"),
        "--key-file",
        key,
        "-o",
        tmp_path / "back.jsonl",
    )
    assert code != 0, output
    assert not (tmp_path / "back.jsonl").exists()


def test_reidentify_with_a_partial_input_or_vault_fails(
    tmp_path: Path, key_file: Path, write_jsonl, reports: list[dict], cli
) -> None:
    key = key_file
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out, vault = tmp_path / "out.jsonl", tmp_path / "v.parquet"
    code, output = cli("deid", src, "-o", out, "--key-file", key, "--vault", vault, "--no-model", "-q")
    assert code == 0, output
    lines = out.read_text().split("\n")
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("\n".join(lines[:2]) + "\n")
    code, output = cli("reidentify", fewer, "--vault", vault, "--key-file", key, "-o", tmp_path / "b.jsonl")
    assert code != 0, output
    assert "not in the input" in output
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key, "-o", tmp_path / "b.jsonl")
    assert code == 0, output
    assert (tmp_path / "b.jsonl").stat().st_mode & 0o777 == 0o600  # originals: private like the vault
    assert (tmp_path / "b.jsonl").read_text().split("\n")[:3] == [line for line in src.read_text().split("\n")[:3]]
