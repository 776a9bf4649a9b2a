"""The operator's view of `deid` and `detect` (issue 29): progress lines in a log (cron, nohup, a
scheduler), as text or JSON; an existing output is never replaced without `--overwrite`; a missing
output folder is created with a note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
TEXT_WORDS = ("Alan", "Grant", "4455667", "Parkinson", "agrant")


def _cron(*args: str | Path, cwd: Path) -> tuple[int, str]:
    """`radeid ARGS 2> log`, as cron runs it: stderr a file, not a terminal; the log's text."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("RADEID_KEY", None)
    log = cwd / "job.log"
    with log.open("wb") as stderr:
        code = subprocess.run(
            [sys.executable, "-m", "radeid", *map(str, args)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=stderr, timeout=300, check=False,
        ).returncode  # fmt: skip
    return code, log.read_text(encoding="utf-8")


@pytest.fixture
def src(tmp_path: Path, write_jsonl, reports: list[dict]) -> Path:
    return write_jsonl(tmp_path / "in.jsonl", reports)


FAST = ("--no-model", "--mode", "tag", "-w", "1", "--batch-size", "1")


def test_a_cron_run_writes_progress_lines_to_its_log(tmp_path: Path, src: Path) -> None:
    code, log = _cron("deid", src, "-o", tmp_path / "o.jsonl", *FAST, "--progress-interval", "0", cwd=tmp_path)
    assert code == 0, log
    lines = log.splitlines()
    assert "de-identifying: 1 of 3 (33%) documents" in lines[0] and "docs/s, ETA " in lines[0], log
    assert any(line.startswith("de-identifying: 3 of 3 (100%) documents") for line in lines), log
    assert any(line.startswith("de-identifying: done, 3 documents in ") for line in lines), log
    assert not any(word in log for word in TEXT_WORDS)


def test_a_cron_run_logs_json_lines_for_a_scheduler(tmp_path: Path, src: Path) -> None:
    code, log = _cron(
        "deid", src, "-o", tmp_path / "o.jsonl", *FAST, "--progress-interval", "0", "--log-format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert code == 0, log
    events = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    progress = [e for e in events if e["event"] == "progress"]
    assert [e["done"] for e in progress] == [1, 2, 3], log
    assert all(e["total"] == 3 and e["task"] == "de-identifying" for e in progress)
    assert set(progress[0]) == {"event", "task", "done", "total", "rate", "eta_s", "elapsed_s"}
    assert progress[-1]["eta_s"] == 0.0 and isinstance(progress[0]["rate"], float)
    assert events[-1]["event"] == "done" and events[-1]["done"] == 3
    assert not any(word in log for word in TEXT_WORDS)


def test_the_interval_is_a_config_key(tmp_path: Path, src: Path) -> None:
    config = tmp_path / "job.toml"
    config.write_text('[io]\nprogress_interval = 0\nlog_format = "json"\n', encoding="utf-8")
    code, log = _cron("detect", src, "-o", tmp_path / "spans.jsonl", *FAST[:1], "--batch-size", "1", "-c", config,
                      cwd=tmp_path)  # fmt: skip
    assert code == 0, log
    events = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert [e["done"] for e in events if e["event"] == "progress"] == [1, 2, 3]
    assert events[-1] == {**events[-1], "event": "done", "task": "detecting", "done": 3}


def test_quiet_and_none_write_no_progress_but_an_explicit_progress_wins(tmp_path: Path, src: Path) -> None:
    out = tmp_path / "o.jsonl"
    for extra in (["-q"], ["--progress", "none"]):
        code, log = _cron("deid", src, "-o", out, *FAST, "--progress-interval", "0", "--overwrite", *extra,
                          cwd=tmp_path)  # fmt: skip
        assert code == 0, log
        assert "de-identifying" not in log, (extra, log)
    code, log = _cron("deid", src, "-o", out, *FAST, "-q", "--progress", "log", "--progress-interval", "0",
                      "--overwrite", cwd=tmp_path)  # fmt: skip
    assert code == 0, log
    assert "de-identifying: 3 of 3 (100%) documents" in log and "category" not in log  # no summary table


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("progress", '"loud"', "io.progress must be"),
        ("log_format", '"xml"', "io.log_format must be"),
        ("progress_interval", "-1", "io.progress_interval must not be negative"),
    ],
)
def test_bad_progress_keys_are_usage_errors(tmp_path: Path, src: Path, cli, key: str, value: str, message: str) -> None:
    config = tmp_path / "job.toml"
    config.write_text(f"[io]\n{key} = {value}\n", encoding="utf-8")
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "-c", config)
    assert code == 2, output
    assert message in output
    assert not (tmp_path / "o.jsonl").exists()


def test_the_default_config_lists_the_progress_keys(cli) -> None:
    code, output = cli("default-config")
    assert code == 0
    assert 'progress = "auto"' in output and "progress_interval = 30.0" in output and 'log_format = "text"' in output


# ------------------------------------------------------------------------------ --overwrite


def test_deid_refuses_an_existing_output_and_names_overwrite(tmp_path: Path, src: Path, cli) -> None:
    out = tmp_path / "o.jsonl"
    code, output = cli("deid", src, "-o", out, *FAST, "-q")
    assert code == 0, output
    audit = tmp_path / "o.jsonl.audit.jsonl"
    before = out.read_bytes(), audit.read_bytes()
    out.write_bytes(b"an earlier run\n")
    code, output = cli("deid", src, "-o", out, *FAST, "-q", "--mode", "mask")
    assert code == 2, output
    report = tmp_path / "o.jsonl.report.json"
    assert (
        f"error: --output {str(out)!r}, --audit {str(audit)!r} and --report {str(report)!r} already exist; "
        "pass --overwrite to replace them" in output
    )
    assert out.read_bytes() == b"an earlier run\n" and audit.read_bytes() == before[1]  # untouched
    code, output = cli("deid", src, "-o", out, *FAST, "-q", "--overwrite")
    assert code == 0, output
    assert out.read_bytes() == before[0]


def test_an_existing_audit_alone_is_refused_too(tmp_path: Path, src: Path, cli) -> None:
    audit = tmp_path / "a.jsonl"
    audit.write_bytes(b"keep me\n")
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--audit", audit, *FAST, "-q")
    assert code == 2, output
    assert f"--audit {str(audit)!r} already exists; pass --overwrite to replace it" in output
    assert audit.read_bytes() == b"keep me\n" and not (tmp_path / "o.jsonl").exists()


def test_resume_continues_an_existing_output_without_overwrite(tmp_path: Path, src: Path, cli) -> None:
    out = tmp_path / "o.jsonl"
    assert cli("deid", src, "-o", out, *FAST, "-q")[0] == 0
    code, output = cli("deid", src, "-o", out, *FAST, "-q", "--resume")
    assert code == 0, output
    assert "--overwrite" not in output


def test_an_empty_output_folder_is_not_an_existing_output(tmp_path: Path, cli, reports: list[dict]) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "n1.txt").write_text(reports[0]["text"], encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    code, output = cli("deid", folder, "-o", out, *FAST, "-q")
    assert code == 0, output
    assert (out / "n1.txt").exists()
    code, output = cli("deid", folder, "-o", out, *FAST, "-q")
    assert code == 2 and f"--output {str(out)!r}, --audit" in output and "pass --overwrite" in output


def test_detect_refuses_an_existing_output(tmp_path: Path, src: Path, cli) -> None:
    out = tmp_path / "spans.jsonl"
    out.write_bytes(b"earlier spans\n")
    code, output = cli("detect", src, "-o", out, "--no-model", "-q")
    assert code == 2, output
    assert f"error: --output {str(out)!r} already exists; pass --overwrite to replace it" in output
    assert out.read_bytes() == b"earlier spans\n"
    code, output = cli("detect", src, "-o", out, "--no-model", "-q", "--overwrite")
    assert code == 0, output
    assert out.read_bytes().count(b"\n") == 3


@pytest.mark.parametrize("command", ["deid", "detect"])
def test_a_missing_output_folder_is_created_with_a_note(tmp_path: Path, src: Path, cli, command: str) -> None:
    out = tmp_path / "new" / "deeper" / "o.jsonl"
    code, output = cli(command, src, "-o", out, "--no-model", "-q")
    assert code == 0, output
    assert f"created folder {out.parent}\n" in output
    assert out.exists()
    code, output = cli(command, src, "-o", tmp_path / "new" / "deeper" / "p.jsonl", "--no-model", "-q")
    assert code == 0 and "created folder" not in output  # only when one was made
