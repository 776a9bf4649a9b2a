"""Issue 11: one configuration describes the whole job. A TOML file alone (input and output on the
command line, nothing else) gives byte for byte what the documented options give; the defaults of
the CLI, `radeid default-config` and the Python API are one and the same."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from radeid.cli.main import app
from radeid.config.config import Config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

runner = CliRunner()
KEY_HEX = bytes(range(40, 72)).hex()
REPORTS = [
    {"id": "r1", "patient_id": "p1", "site": "a",
     "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344."},
    {"id": "r2", "patient_id": "p1", "site": "b", "text": "Follow-up 04/05/2019 for Mr. Malcolm, 93 years old."},
    {"id": "r3", "patient_id": "p2", "site": "c",
     "text": "Accession: CT-2019-004512. Email results to agrant@jurassic-health.org."},
]  # fmt: skip


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], env=env)
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes is not None else "")


@pytest.fixture
def job(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in REPORTS), encoding="utf-8")
    key = tmp_path / "site.key"
    key.write_text(KEY_HEX + "\n")
    key.chmod(0o600)
    return src, key


CASES = {
    "surrogate": (
        ["--mode", "surrogate", "--scope", "corpus", "--date-shift", "fixed:30", "--age-mode", "aggregate",
         "--keep-column", "site", "--length-preserving"],
        '[replace]\nmode = "surrogate"\n[surrogate]\nscope = "corpus"\ndate_shift = "fixed:30"\n'
        'age_mode = "aggregate"\nlength_preserving = true\n[io]\nkeep_columns = ["site"]\n',
    ),
    "tag": (["--mode", "tag", "--id-col", "id"], '[replace]\nmode = "tag"\n[io]\nid_col = "id"\n'),
    "numbered": (
        ["--mode", "numbered", "--on-error", "skip"],
        '[replace]\nmode = "numbered"\n[io]\non_error = "skip"\n',
    ),
    "mask": (["--mode", "mask", "--mask-char", "#"], '[replace]\nmode = "mask"\nchar = "#"\n'),
    "fixed": (["--mode", "fixed", "--mask-length", "3"], '[replace]\nmode = "fixed"\nfixed_length = 3\n'),
}  # fmt: skip


@pytest.mark.parametrize("mode", list(CASES))
def test_a_toml_file_alone_reproduces_the_command_line(tmp_path: Path, job: tuple[Path, Path], mode: str) -> None:
    src, key = job
    options, toml = CASES[mode]
    by_options = tmp_path / "options.jsonl"
    code, output = invoke("deid", src, "-o", by_options, "--no-model", "--key-file", key, *options, "-q")
    assert code == 0, output
    config = tmp_path / "job.toml"
    config.write_text(
        f'[pipeline]\ndetectors = ["rules", "lexicon"]\n{toml}'.replace("[io]\n", f'[io]\nkey_file = "{key}"\n', 1)
        if "[io]" in toml
        else f'[pipeline]\ndetectors = ["rules", "lexicon"]\n{toml}[io]\nkey_file = "{key}"\n',
        encoding="utf-8",
    )
    by_file = tmp_path / "file.jsonl"
    code, output = invoke("deid", src, "-o", by_file, "--config", config, "-q")
    assert code == 0, output
    assert by_file.read_bytes() == by_options.read_bytes()
    assert Path(f"{by_file}.audit.jsonl").read_bytes() == Path(f"{by_options}.audit.jsonl").read_bytes()
    assert by_file.read_bytes() != src.read_bytes()
    assert not (tmp_path / "radeid.key").exists()  # the key came from the file both times


def test_options_override_the_file_and_lists_add_to_it(tmp_path: Path, job: tuple[Path, Path]) -> None:
    src, key = job
    config = tmp_path / "job.toml"
    config.write_text('[replace]\nmode = "numbered"\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    code, output = invoke("deid", src, "-o", out, "--no-model", "--config", config, "--mode", "tag", "-q")
    assert code == 0, output
    assert "[DATE]" in out.read_text() and "-1]" not in out.read_text()
    # an option left out never hides the file's value (`--mode` defaults to nothing, not to surrogate)
    code, output = invoke("deid", src, "-o", tmp_path / "n.jsonl", "--no-model", "--config", config, "-q")
    assert code == 0 and "[DATE-1]" in (tmp_path / "n.jsonl").read_text()


def test_default_config_is_what_the_cli_and_the_api_run(tmp_path: Path, job: tuple[Path, Path]) -> None:
    code, printed = invoke("default-config")
    assert code == 0
    assert Config.from_dict(tomllib.loads(printed)) == Config.load()
    assert Config.load().replace.mode == "surrogate"
    src, key = job
    out = tmp_path / "cli.jsonl"
    code, output = invoke("deid", src, "-o", out, "--no-model", "--key-file", key, "-q")
    assert code == 0, output
    from radeid.core.document import Document
    from radeid.pipeline.deidentifier import Deidentifier

    api = Deidentifier(
        Config.load(overrides={"pipeline": {"detectors": ["rules", "lexicon"]}}), key=bytes.fromhex(KEY_HEX)
    )
    docs = [Document(r["id"], r["text"], r["patient_id"]) for r in REPORTS]
    expected = [res.text for res in api.deidentify(docs)]
    assert [json.loads(line)["text"] for line in out.read_text().splitlines()] == expected


def test_keygen_writes_a_private_key_once(tmp_path: Path) -> None:
    key = tmp_path / "site.key"
    code, output = invoke("keygen", "-o", key)
    assert code == 0, output
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    text = key.read_text()
    assert len(text.strip()) == 64 and int(text, 16) >= 0 and text.strip() not in output
    code, output = invoke("keygen", "-o", key)
    assert code == 2 and "already exists" in output and key.read_text() == text


def test_no_key_is_generated_when_the_run_cannot_start(tmp_path: Path, job: tuple[Path, Path]) -> None:
    """The key is created only after paths and config are checked; its notice names the vault only
    when one is written."""
    src, _ = job
    out = tmp_path / "out" / "deid.jsonl"
    out.parent.mkdir()
    env = {"RADEID_KEY": ""}
    code, output = invoke("deid", src, "-o", out, "--no-model", "--audit", src, env=env)
    assert code == 2 and not list(tmp_path.rglob("radeid.key"))
    bad = tmp_path / "deny.tsv"
    bad.write_text("Alan Grant\n", encoding="utf-8")  # no category label
    code, output = invoke("deid", src, "-o", out, "--no-model", "--deny-list", bad, env=env)
    assert code == 2 and "no category label" in output and not list(tmp_path.rglob("radeid.key"))
    code, output = invoke("deid", src, "-o", out, "--no-model", env=env)
    assert code == 0 and "generated a new random key" in output and "vault" not in output
    os.remove(out.parent / "radeid.key")
    code, output = invoke("deid", src, "-o", out.with_name("v.jsonl"), "--no-model", "--vault", tmp_path / "v.parquet",
                          env=env)  # fmt: skip
    assert code == 0 and "vault cannot be decrypted" in output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_bad_config_stops_a_keyed_run_before_anything_is_written(
    tmp_path: Path, job: tuple[Path, Path], workers: str
) -> None:
    """With a key at hand the coordinator does not build the pipeline itself (issue 14: a second
    start-up per job); a worker's failure to build it is the same usage error as in one process."""
    src, key = job
    out = tmp_path / "out" / "deid.jsonl"
    out.parent.mkdir()
    bad = tmp_path / "deny.tsv"
    bad.write_text("Alan Grant\n", encoding="utf-8")  # no category label
    code, output = invoke("deid", src, "-o", out, "--no-model", "--key-file", key, "--deny-list", bad, "-w", workers)
    assert code == 2 and "no category label" in output and "Traceback" not in output
    assert sorted(p.name for p in out.parent.iterdir()) == []  # no output, audit or work folder


def test_model_and_no_model_contradict(tmp_path: Path, job: tuple[Path, Path]) -> None:
    src, _ = job
    code, output = invoke("deid", src, "-o", tmp_path / "o.jsonl", "--model", "some-model", "--no-model")
    assert code == 2 and "contradict" in output


def test_model_info_describes_the_bundled_model() -> None:
    for args in (["model", "info"], ["model", "info", "bundled"]):
        code, output = invoke(*args)
        assert code == 0, output
        assert "format: onnx" in output and "B-PATIENT" in output


def test_evaluate_runs_rules_only_with_no_model(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    text = "Seen by Dr. Alan Grant on 03/04/2019."
    spans = [{"start": 12, "end": 22, "label": "HCW"}, {"start": 26, "end": 36, "label": "DATE"}]
    gold.write_text(json.dumps({"id": "g1", "text": text, "spans": spans}) + "\n", encoding="utf-8")
    code, output = invoke("evaluate", gold, "--no-model", "--bootstrap", "0")
    assert code == 0, output
    assert "DATE" in output


def test_plain_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path, job: tuple[Path, Path]) -> None:
    src, key = job
    code, output = invoke("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--key-file", key, "-w", "1",
                          "--batch-size", "1", "--progress-interval", "0")  # fmt: skip
    assert code == 0, output
    # the input size is cheap to know (a JSONL line count): a total and a percentage
    assert "de-identifying: 1 of 3 (33%) documents" in output and "docs/s" in output
