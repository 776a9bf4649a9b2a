"""One CLI (issue 29): messages in the command line's words, help placeholders that read as words,
`--quiet` on every command that prints."""

from __future__ import annotations

from pathlib import Path


def test_a_missing_audit_names_options_that_exist(tmp_path: Path, cli, write_jsonl, reports: list[dict]) -> None:
    out = write_jsonl(tmp_path / "deid.jsonl", reports)
    code, output = cli("review", out, "-o", tmp_path / "page.html", "--audit", tmp_path / "missing.jsonl")
    assert code == 2, output
    assert (
        f"error: audit not found: {tmp_path / 'missing.jsonl'} (pass --audit with the audit the run wrote: " in output
    )
    assert "--no-audit" not in output


def _command_paths() -> list[list[str]]:
    import typer.main

    from radeid.cli.main import app

    found: list[list[str]] = [[]]

    def walk(group: object, prefix: list[str]) -> None:
        for name, command in getattr(group, "commands", {}).items():
            found.append([*prefix, name])
            walk(command, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return found


def test_help_placeholders_read_as_words_in_every_command() -> None:
    import re

    from typer.testing import CliRunner

    from radeid.cli.main import app

    paths = _command_paths()
    assert ["deid"] in paths and ["spark-deid"] in paths and ["model", "export"] in paths
    python_types = re.compile(r"<(bool|str|path|Path|int|float|int range|float range)>|list\[")
    for path in paths:
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "250"})
        assert result.exit_code == 0, (path, result.output)
        assert not python_types.search(result.output), (path, python_types.findall(result.output))
    deid_help = CliRunner().invoke(app, ["deid", "--help"], env={"COLUMNS": "250"}).output
    assert re.search(r"--output +-o +PATH ", deid_help)
    assert re.search(r"--hospital-list +PATH ", deid_help) and re.search(r"--keep-column +TEXT ", deid_help)
    assert re.search(r"--workers +-w +N \[x>=1\]", deid_help) and re.search(r"--on-error +fail\|skip ", deid_help)
    assert re.search(r"--resume +Continue", deid_help)  # a flag takes no value: no placeholder at all


def test_spark_deid_refuses_an_existing_output_before_spark_starts(tmp_path: Path, cli, write_jsonl, reports) -> None:
    """No Spark (nor Java) is needed to be told: the check comes before the session."""
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out = tmp_path / "out"
    out.mkdir()
    (out / "part-0.json").write_text("{}\n", encoding="utf-8")
    code, output = cli("spark-deid", src, out, "--no-model", "--mode", "tag", "-q")
    assert code == 2, output
    assert f"error: OUTPUT {str(out)!r} already exists; pass --overwrite to replace it, or choose another output" in (
        output
    )
    assert [p.name for p in out.iterdir()] == ["part-0.json"]


def test_spark_deid_lists_deids_options(cli) -> None:
    code, output = cli("spark-deid", "--help", env={"COLUMNS": "250"})
    assert code == 0
    for option in ("--no-model", "--overwrite", "--quiet", "--scope", "--date-shift", "--deny-list", "--batch-size",
                   "--lang", "--model", "--threshold", "--mask-char"):  # fmt: skip
        assert f" {option} " in output, option


def test_every_command_that_prints_a_status_takes_quiet(cli) -> None:
    commands = [
        ["deid"],
        ["detect"],
        ["reidentify"],
        ["keygen"],
        ["ensemble", "fit"],
        ["evaluate"],
        ["model", "export"],
    ]
    commands += [["review"], ["serve"], ["spark-deid"], ["synth"], ["augment"], ["train"]]
    for command in commands:
        code, output = cli(*command, "--help", env={"COLUMNS": "250"})
        assert code == 0 and " --quiet " in output and " -q " in output, command


def test_synth_and_keygen_are_silent_with_quiet(tmp_path: Path, cli) -> None:
    code, output = cli("synth", "-n", "3", "-o", tmp_path / "s.jsonl", "-q")
    assert (code, output) == (0, "")
    assert (tmp_path / "s.jsonl").read_text(encoding="utf-8").count("\n") == 3
    code, output = cli("synth", "-n", "3", "-o", tmp_path / "t.jsonl")
    assert code == 0 and output.startswith(f"wrote 3 documents to {tmp_path / 't.jsonl'} in ")
    code, output = cli("keygen", "-o", tmp_path / "k.key", "-q")
    assert (code, output) == (0, "") and (tmp_path / "k.key").stat().st_mode & 0o777 == 0o600
    code, output = cli("augment", tmp_path / "s.jsonl", "-o", tmp_path / "a.jsonl", "--seed", "1", "-q")
    assert (code, output) == (0, "") and (tmp_path / "a.jsonl").exists()


def test_review_is_silent_with_quiet(tmp_path: Path, cli, write_jsonl, reports) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", reports)
    out = tmp_path / "o.jsonl"
    assert cli("deid", src, "-o", out, "--no-model", "--mode", "tag", "-q")[0] == 0
    code, output = cli("review", out, "-o", tmp_path / "page.html", "-q")
    assert (code, output) == (0, "") and (tmp_path / "page.html").exists()
