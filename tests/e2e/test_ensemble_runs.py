"""`examples/ensemble.toml` through `radeid detect`, `radeid deid -w 2` and Spark: one output everywhere."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from radeid.cli.main import app
from radeid.config.config import Config
from radeid.core.document import Document
from radeid.detect.ensemble import EnsembleDetector
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.run.plan import RunPlan
from radeid.run.serial import deidentify_path

REPO = Path(__file__).resolve().parents[2]
ENSEMBLE_TOML = REPO / "examples" / "ensemble.toml"
KEY = bytes(range(32))
FIRST = ["Alan", "Ellie", "Ian", "Maria", "Wei", "Fatima", "Olga", "Pedro"]
LAST = ["Grant", "Sattler", "Malcolm", "Lopez", "Chen", "Okafor", "Ivanova", "Silva"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(5)
    path = tmp_path_factory.mktemp("ensemble") / "notes.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(24):
            text = (
                f"PATIENT: {rng.choice(FIRST)} {rng.choice(LAST)}\nMRN: {rng.randint(1000000, 9999999)}\n"
                f"EXAM DATE: {rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2000, 2023)}\n"
                f"FINDINGS: Stable {i % 7} mm nodule, BP 120/80. Discussed with Dr. {rng.choice(LAST)} "
                f"at Riverbend Hospital, ({rng.randint(200, 999)}) 555-{rng.randint(1000, 9999)}."
            )
            handle.write(json.dumps({"id": f"d{i:02d}", "patient_id": f"p{i % 7}", "text": text}) + "\n")
        for name in ("chest_xray", "mri_brain"):
            text = (REPO / "examples" / f"{name}.txt").read_text(encoding="utf-8")
            handle.write(json.dumps({"id": name, "patient_id": "px", "text": text}) + "\n")
    return path


def test_the_example_config_builds_the_recommended_ensemble() -> None:
    config = Config.load(ENSEMBLE_TOML)
    deid = Deidentifier(config)
    [ensemble] = deid.detectors
    assert isinstance(ensemble, EnsembleDetector)
    assert ensemble.member_names == ("rules", "lexicon", "transformer") and ensemble.tag == "vote:1"


def test_detect_command_writes_the_ensembles_resolved_spans(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["detect", str(corpus), "-o", str(out), "--config", str(ENSEMBLE_TOML), "-q"])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r["spans"] for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    deid = Deidentifier(Config.load(ENSEMBLE_TOML))
    docs = [Document(r["id"], r["text"]) for r in map(json.loads, corpus.read_text(encoding="utf-8").splitlines())]
    expected = {d.id: [s.to_dict() for s in spans] for d, spans in zip(docs, deid.detect(docs), strict=True)}
    assert rows == expected
    sources = {s["source"] for spans in rows.values() for s in spans}
    assert sources and all(s.startswith("ensemble/vote:1/") for s in sources)
    assert any("/transformer" in s for s in sources) and any("/rules/" in s for s in sources)
    text = docs[0].text
    found = [text[s["start"] : s["end"]] for s in rows[docs[0].id]]
    assert "120/80" not in found  # protected content still vetoes the model's proposals through the ensemble


@pytest.mark.parametrize("mode", ["tag", "surrogate"])
def test_two_workers_write_what_one_process_writes(corpus: Path, tmp_path: Path, mode: str) -> None:
    config = Config.load(ENSEMBLE_TOML).with_section("replace", mode=mode)
    spec = PipelineSpec(config, KEY if mode == "surrogate" else None)
    reference = tmp_path / "one.jsonl"
    deidentify_path(RunPlan(spec, corpus, reference))
    key_file = tmp_path / "site.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    out = tmp_path / "two.jsonl"
    args = ["deid", str(corpus), "-o", str(out), "--config", str(ENSEMBLE_TOML), "--mode", mode, "-w", "2", "-q"]
    result = CliRunner().invoke(app, [*args, "--key-file", str(key_file)] if mode == "surrogate" else args)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == reference.read_bytes()
    assert Path(f"{out}.audit.jsonl").read_bytes() == Path(f"{reference}.audit.jsonl").read_bytes()
    assert b"ensemble/vote:1/" in Path(f"{out}.audit.jsonl").read_bytes()


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'radeid[spark]')")
    from pyspark.sql import SparkSession

    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("radeid-ensemble-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.mark.slow
def test_spark_writes_what_one_process_writes(spark: Any, corpus: Path, tmp_path: Path) -> None:
    from radeid.spark.dataframe import deidentify_dataframe

    spec = PipelineSpec(Config.load(ENSEMBLE_TOML).with_section("replace", mode="surrogate"), KEY)
    reference = tmp_path / "one.jsonl"
    deidentify_path(RunPlan(spec, corpus, reference))
    texts = {r["id"]: r["text"] for r in map(json.loads, reference.read_text(encoding="utf-8").splitlines())}
    audit: dict[str, list[dict]] = {}
    for row in map(json.loads, Path(f"{reference}.audit.jsonl").read_text(encoding="utf-8").splitlines()):
        audit.setdefault(row.pop("doc_id"), []).append(row)
    frame = spark.read.schema("id string, patient_id string, text string").json(str(corpus)).repartition(3)
    out = deidentify_dataframe(frame, "text", "id", "patient_id", config=spec)
    got_texts, got_spans = {}, {}
    for row in out.collect():
        got_texts[row["id"]] = row["text"]
        got_spans[row["id"]] = [s.asDict() for s in row["phi_spans"]]
    assert got_texts == texts
    assert {k: v for k, v in got_spans.items() if v} == audit
