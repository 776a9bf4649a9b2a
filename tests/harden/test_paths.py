"""Issue 12, point 1: no written path may be a read path or another written path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from radeid.io.paths import PathConflictError, check_paths


@pytest.fixture
def setup(tmp_path: Path, write_jsonl, reports: list[dict], key_file: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "c.jsonl", reports), key_file


def _unchanged(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before


def test_audit_cannot_replace_the_input(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, key = setup
    before = src.read_bytes()
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--key-file", key, "--audit", src, "--no-model")
    assert code == 2, output
    assert "--audit" in output
    _unchanged(src, before)


def test_vault_cannot_replace_the_key(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, key = setup
    before = key.read_bytes()
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--key-file", key, "--vault", key, "--no-model")
    assert code == 2, output
    _unchanged(key, before)


def test_vault_through_a_symlink_to_the_input_is_refused(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, key = setup
    link = tmp_path / "link.parquet"
    os.symlink(src, link)
    before = src.read_bytes()
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--key-file", key, "--vault", link, "--no-model")
    assert code == 2, output
    _unchanged(src, before)


def test_output_audit_and_vault_must_differ(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, key = setup
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, "--key-file", key, "--audit", out, "--no-model")
    assert code == 2, output
    code, output = cli(
        "deid",
        src,
        "-o",
        out,
        "--key-file",
        key,
        "--vault",
        tmp_path / "a.jsonl",
        "--audit",
        tmp_path / "a.jsonl",
        "--no-model",
    )
    assert code == 2, output


def test_reidentify_cannot_overwrite_the_vault_or_key(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, key = setup
    out, vault = tmp_path / "o.jsonl", tmp_path / "v.parquet"
    code, output = cli("deid", src, "-o", out, "--key-file", key, "--vault", vault, "--no-model", "-q")
    assert code == 0, output
    before = vault.read_bytes()
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key, "-o", vault)
    assert code == 2, output
    _unchanged(vault, before)
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key, "-o", key)
    assert code == 2, output
    code, output = cli("reidentify", out, "--vault", vault, "--key-file", key, "-o", out)
    assert code == 2, output


def test_detect_cannot_overwrite_its_config(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, _ = setup
    config = tmp_path / "c.toml"
    config.write_text("")
    code, output = cli("detect", src, "-o", config, "--config", config, "--no-model")
    assert code == 2, output


def test_helper_covers_folders_and_nesting(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    with pytest.raises(PathConflictError):
        check_paths({"the input": folder}, {"--output": folder / "sub"})
    with pytest.raises(PathConflictError):
        check_paths({"the input": folder / "a.txt"}, {"--output": folder})
    with pytest.raises(PathConflictError):
        check_paths({}, {"--output": tmp_path / "o", "--audit": tmp_path / "o" / "a.jsonl"})
    check_paths({"the input": folder / "a.txt"}, {"--output": tmp_path / "o.txt", "--audit": tmp_path / "x"})


def test_generated_key_never_inside_an_input_folder_or_the_output_folder(tmp_path: Path) -> None:
    from radeid.secure.keys import key_dir_for

    inp = tmp_path / "in"
    inp.mkdir()
    with pytest.raises(ValueError, match="--key-file"):
        key_dir_for(inp / "sub" / "out.jsonl", inp)
    out = tmp_path / "out"
    assert key_dir_for(out, inp) == tmp_path.resolve()  # beside the output folder, not inside it


def test_passphrase_is_stretched_before_use() -> None:
    from radeid.secure.keys import decode_key

    key = decode_key("correct horse battery staple", "test")
    assert len(key) == 32 and key != b"correct horse battery staple"
    assert key == decode_key("correct horse battery staple", "again")


def test_evaluate_cannot_overwrite_its_gold(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    src, _ = setup
    before = src.read_bytes()
    code, output = cli("evaluate", src, "--markdown", src)
    assert code == 2, output
    _unchanged(src, before)
    code, output = cli("compare", src, src, src, "--json", src)
    assert code == 2, output
    _unchanged(src, before)


def test_spark_deid_cannot_write_its_audit_onto_the_input(tmp_path: Path, setup: tuple[Path, Path], cli) -> None:
    pytest.importorskip("pyspark")
    src, key = setup
    before = src.read_bytes()
    code, output = cli("spark-deid", src, tmp_path / "out", "--audit", src, "--key-file", key)
    assert code == 2, output
    _unchanged(src, before)
