"""Issue 27, points 1, 4 and 5 and the review of another run's audit: every path a command writes
is checked, in one place (`radeid.io.paths.check_paths`), against every path it reads, the key
above all: the key file a run generates or reuses beside the output, and a key that the run
would read as a document."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from radeid.io.paths import PathConflictError, check_paths


@pytest.fixture
def src(tmp_path: Path, write_jsonl, reports: list[dict], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("RADEID_KEY", raising=False)  # the key file beside the output is the one used
    return write_jsonl(tmp_path / "in.jsonl", reports)


@pytest.mark.parametrize("option", ["--vault", "--audit", "-o"])
@pytest.mark.parametrize("existing", [False, True])
def test_the_generated_key_file_is_never_overwritten(
    tmp_path: Path, src: Path, cli, option: str, existing: bool
) -> None:
    key = tmp_path / "radeid.key"
    if existing:
        assert cli("keygen", "-o", key)[0] == 0
    before = key.read_bytes() if existing else None
    args = ["-o", tmp_path / "o.jsonl", option, key] if option != "-o" else ["-o", key, "--output-format", "jsonl"]
    code, output = cli("deid", src, *args, "--no-model", "-q")
    assert code == 2, output
    assert "the key file beside the output" in output
    assert (key.read_bytes() if key.exists() else None) == before  # neither replaced nor generated
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.jsonl"] + (["radeid.key"] if existing else []))


def test_a_mask_run_needs_no_key_so_its_place_is_free(tmp_path: Path, src: Path, cli) -> None:
    code, output = cli("deid", src, "-o", tmp_path / "radeid.key", "--output-format", "jsonl", "--mode", "tag",
                       "--no-model", "-q")  # fmt: skip
    assert code == 0, output


def _folder_input(tmp_path: Path) -> Path:
    folder = tmp_path / "kin"
    folder.mkdir()
    (folder / "a.txt").write_text("Seen by Dr. Alan Grant on 03/04/2019.\n", encoding="utf-8")
    return folder


def test_a_key_inside_the_input_folder_is_refused(tmp_path: Path, cli, key_file: Path) -> None:
    folder = _folder_input(tmp_path)
    inside = folder / "key.txt"
    inside.write_bytes(key_file.read_bytes())
    code, output = cli("deid", folder, "-o", tmp_path / "kout", "--key-file", inside, "--no-model", "-q")
    assert code == 2, output
    assert "--key-file" in output and "copied into the output" in output
    assert not (tmp_path / "kout").exists()


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_key_linked_from_the_input_folder_is_refused(tmp_path: Path, cli, key_file: Path, link: str) -> None:
    folder = _folder_input(tmp_path)
    (os.symlink if link == "symlink" else os.link)(key_file, folder / "key.txt")
    code, output = cli("deid", folder, "-o", tmp_path / "kout", "--key-file", key_file, "--no-model", "-q")
    assert code == 2, output
    assert not (tmp_path / "kout").exists()


def test_a_passphrase_file_read_as_the_input_is_refused(tmp_path: Path, cli) -> None:
    phrase = tmp_path / "pp.txt"
    phrase.write_text("my long secret passphrase here\n", encoding="utf-8")
    phrase.chmod(0o600)
    out = tmp_path / "pp.out.txt"
    code, output = cli("deid", phrase, "-o", out, "--key-file", phrase, "--no-model", "-q")
    assert code == 2, output
    assert not out.exists()
    code, output = cli("reidentify", phrase, "--vault", tmp_path / "v.parquet", "--key-file", phrase, "-o", out)
    assert code == 2 and "copied into the output" in output, output
    code, output = cli("review", phrase, "-o", tmp_path / "p.html", "--audit", phrase, "--vault", tmp_path / "v",
                       "--key-file", phrase)  # fmt: skip
    assert code == 2 and "copied into the output" in output, output


def test_ensemble_fit_cannot_replace_its_gold(tmp_path: Path, cli, write_jsonl) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [{"id": "1", "text": "Seen on 03/04/2019.", "spans": []}])
    before = gold.read_bytes()
    code, output = cli("ensemble", "fit", gold, "-o", gold, "--members", "rules")
    assert code == 2, output
    assert "--output" in output and "GOLD" in output
    assert gold.read_bytes() == before


def test_train_and_model_export_cannot_replace_what_they_read(tmp_path: Path, cli, write_jsonl) -> None:
    gold = write_jsonl(tmp_path / "t.jsonl", [{"id": "1", "text": "Seen on 03/04/2019.", "spans": []}])
    code, output = cli("train", gold, "-o", tmp_path)  # the model folder would hold the training file
    assert code == 2 and "contains TRAIN_FILE" in output, output
    code, output = cli("model", "export", tmp_path, tmp_path / "onnx")
    assert code == 2 and "DST" in output, output


def test_augment_cannot_replace_its_generated_key(tmp_path: Path, src: Path, cli, write_jsonl) -> None:
    gold = write_jsonl(tmp_path / "g.jsonl", [{"id": "1", "text": "Seen on 03/04/2019.", "spans": []}])
    code, output = cli("augment", gold, "-o", tmp_path / "radeid.key")
    assert code == 2 and "the key file beside the output" in output, output
    assert not (tmp_path / "radeid.key").exists()


def test_review_refuses_the_audit_of_another_run(tmp_path: Path, cli, write_jsonl, key_file: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": "1", "text": "Seen on 03/04/2019, MRN 4455667."}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "9", "text": "Seen on 03/04/2019, MRN 4455667."}])
    for name in (a, b):
        code, output = cli("deid", name, "-o", tmp_path / f"{name.stem}.out.jsonl", "--key-file", key_file,
                           "--no-model", "-q")  # fmt: skip
        assert code == 0, output
    page = tmp_path / "p.html"
    code, output = cli("review", tmp_path / "a.out.jsonl", "-o", page, "--audit", tmp_path / "b.out.jsonl.audit.jsonl")
    assert code == 2, output
    assert "does not match the output" in output and "(e.g. id '9')" in output
    assert 'id="audit-banner"' in page.read_text(encoding="utf-8")  # the page says so too
    code, output = cli("review", tmp_path / "a.out.jsonl", "-o", page, "--sample", "1")
    assert code == 0 and "replacements" in output, output


def test_check_paths_secrets(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    key = tmp_path / "k"
    key.write_text("x")
    os.symlink(key, folder / "sub" / "link")
    with pytest.raises(PathConflictError, match="would be read as the input"):
        check_paths({"the input": folder}, {}, secrets={"--key-file": key})
    with pytest.raises(PathConflictError, match="same path"):
        check_paths({}, {"--vault": tmp_path / "x" / ".." / "k"}, secrets={"--key-file": key})
    with pytest.raises(PathConflictError, match="same path"):  # a key not generated yet is a path all the same
        check_paths({}, {"--audit": tmp_path / "new.key"}, secrets={"the key": tmp_path / "new.key"})
    (folder / "sub" / "link").unlink()
    check_paths({"the input": folder}, {"--output": tmp_path / "o"}, secrets={"--key-file": key})
