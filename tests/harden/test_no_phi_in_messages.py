"""Issue 12: every message, log line and traceback of a suite of failing runs is searched for
planted PHI strings; none may appear."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

import pytest

PLANTED = ["Zanzibar Quillfeather", "MRN 77441236", "quill@zanzibar.example", "Bartholomew-Xu"]
TEXT = f"Seen by Dr. {PLANTED[0]}, {PLANTED[1]}, mail {PLANTED[2]}. Patient {PLANTED[3]} stable."


def good(doc_id: str, text: str = TEXT) -> str:
    return json.dumps({"id": doc_id, "text": text})


def failing_runs(tmp_path: Path, key: Path, monkeypatch: pytest.MonkeyPatch, run, jsonl) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    t = tmp_path
    # malformed JSON, bad bytes, control characters, a missing id: all on lines full of PHI
    bad = jsonl(t / "bad.jsonl", [good("a"), '{"id": "b", "text": "' + TEXT + '"', '{"text": "' + TEXT + '"}',
                                  '{"id": "c", "text": "' + TEXT + '\x01"}'])  # fmt: skip
    out.append(run("deid", bad, "-o", t / "o1.jsonl", "--no-model", "--key-file", key))
    out.append(run("deid", bad, "-o", t / "o2.jsonl", "--no-model", "--key-file", key, "--on-error", "skip"))
    (t / "bytes.jsonl").write_bytes(good("d").encode() + b"\n" + f'{{"id": "e", "text": "{TEXT}\xff"}}\n'.encode(
        "latin-1", "replace"))  # fmt: skip
    out.append(run("deid", t / "bytes.jsonl", "-o", t / "o3.jsonl", "--no-model", "--key-file", key))
    # a CSV row broken by an unquoted multi-line cell: the report text lands in the id column
    (t / "bad.csv").write_text(f"id,text\nr1,ok\nr2,Seen\n{PLANTED[0]} {PLANTED[1]},{PLANTED[3]},x\n")
    out.append(run("deid", t / "bad.csv", "-o", t / "o4.csv", "--no-model", "--key-file", key, "--on-error", "skip"))
    # duplicate ids
    dup = jsonl(t / "dup.jsonl", [good("a"), good("a")])
    out.append(run("deid", dup, "-o", t / "o5.jsonl", "--no-model", "--key-file", key))
    # a pipeline exception whose message quotes the text
    from radeid.pipeline.deidentifier import Deidentifier

    def boom(self, docs):  # noqa: ANN001, ANN202
        raise ValueError(f"validator choked on {docs[0].text!r}")

    with monkeypatch.context() as patch:
        patch.setattr(Deidentifier, "deidentify", boom)
        src = jsonl(t / "boom.jsonl", [good("x")])
        out.append(run("deid", src, "-o", t / "o6.jsonl", "--no-model", "-w", "1", "--key-file", key))
        out.append(run("deid", src, "-o", t / "o7.jsonl", "--no-model", "-w", "1", "--key-file", key,
                       "--on-error", "skip"))  # fmt: skip
    # path clashes, a wrong key, another run's vault, an edited output
    src = jsonl(t / "in.jsonl", [good("p"), good("q")])
    out.append(run("deid", src, "-o", t / "o8.jsonl", "--key-file", key, "--audit", src, "--no-model"))
    vault, deid = t / "v.parquet", t / "deid.jsonl"
    out.append(run("deid", src, "-o", deid, "--key-file", key, "--vault", vault, "--no-model"))
    other = t / "other.key"
    other.write_text("34" * 32)
    other.chmod(0o600)
    out.append(run("reidentify", deid, "--vault", vault, "--key-file", other, "-o", t / "r1.jsonl"))
    edited = jsonl(
        t / "edited.jsonl",
        [json.dumps({"id": "p", "text": "XX" + json.loads(line)["text"]}) for line in deid.read_text().split("\n")[:1]]
        + [deid.read_text().split("\n")[1]],
    )  # noqa: E501
    out.append(run("reidentify", edited, "--vault", vault, "--key-file", key, "-o", t / "r2.jsonl"))
    lonely = jsonl(t / "lonely.jsonl", [good("zz")])
    out.append(run("reidentify", lonely, "--vault", vault, "--key-file", key, "-o", t / "r3.jsonl"))
    # the input changed during the run
    from radeid.config.config import Config
    from radeid.pipeline.spec import PipelineSpec
    from radeid.run.parallel import RunPlan, run

    spec = PipelineSpec(
        Config.load(overrides={"pipeline": {"batch_size": 1, "detectors": ["rules"]}, "replace": {"mode": "tag"}})
    )
    changing = jsonl(t / "changing.jsonl", [good("m"), good("n")])

    def change(_n: int) -> None:
        jsonl(changing, [good("m"), good("n", TEXT.replace("stable", "stabel"))])

    try:
        run(RunPlan(spec, changing, t / "o9.jsonl", workers=1), on_batch=change)
    except Exception as exc:  # noqa: BLE001
        out.append((1, "".join(traceback.format_exception(exc))))
    return out


def test_no_planted_phi_in_any_message(
    tmp_path: Path, key_file: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, cli, write_jsonl
) -> None:
    caplog.set_level(logging.DEBUG)
    runs = failing_runs(tmp_path, key_file, monkeypatch, cli, write_jsonl)
    codes = [code for code, _ in runs]
    assert sum(1 for c in codes if c != 0) >= 9, codes  # the suite really fails
    everything = "\n".join(text for _, text in runs) + "\n" + caplog.text
    flat = everything.replace("\n", "")
    for secret in PLANTED:
        assert secret not in everything and secret not in flat, f"{secret!r} leaked: {everything}"
