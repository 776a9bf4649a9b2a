"""Spark in local mode (`local[2]`) gives, document by document, what `radeid deid` gives.

One small session for the whole module (UI off, two shuffle partitions). Skipped when PySpark
(`pip install 'radeid[spark]'`) or Java (17+) is missing.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'radeid[spark]')")


def _java_ok() -> bool:
    java = shutil.which("java") or (Path(os.environ.get("JAVA_HOME", "/nonexistent")) / "bin" / "java")
    try:
        probe = subprocess.run([str(java), "-version"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


if not _java_ok():
    pytest.skip("Java is not installed (PySpark needs Java 17: apt-get install openjdk-17-jre-headless)",
                allow_module_level=True)  # fmt: skip

import typer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from radeid.cli.main import app as radeid_app  # noqa: E402
from radeid.cli.spark import register  # noqa: E402
from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.pipeline.spec import PipelineSpec  # noqa: E402
from radeid.run.parallel import RunPlan, run  # noqa: E402
from radeid.spark.dataframe import deidentify_dataframe  # noqa: E402

pytestmark = pytest.mark.slow
KEY = bytes(range(7, 39))
SCHEMA = "id string, patient_id string, text string, site string"  # no inference job per read
NAMES = ["Alan Grant", "Ellie Sattler", "Ian Malcolm", "John Hammond", "Sarah Harding", "Wei Chen"]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable  # executors: this venv
    session = (
        SparkSession.builder.master("local[2]")
        .appName("radeid-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
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


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(3)
    path = tmp_path_factory.mktemp("spark") / "notes.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(80):
            text = (
                f"PATIENT: {rng.choice(NAMES)}\nMRN: {rng.randint(1000000, 9999999)}\n"
                f"EXAM DATE: {rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2000, 2023)}\n"
                f"Compared with {rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/2019. Signed by Dr. "
                f"{rng.choice(NAMES).split()[1]}, call ({rng.randint(200, 999)}) 555-{rng.randint(1000, 9999)}."
            )
            row = {"id": f"d{i}", "patient_id": f"p{i % 25}", "text": text, "site": f"s{i % 4}"}
            handle.write(json.dumps(row) + "\n")
    return path


def read_pairs(output: Path) -> tuple[dict[str, str], dict[str, list[dict]]]:
    """`radeid deid` output as {id: text} and its audit as {id: [span rows]}."""
    texts = {}
    for line in output.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts[row["id"]] = row["text"]
    audit: dict[str, list[dict]] = defaultdict(list)
    for line in Path(f"{output}.audit.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        audit[row.pop("doc_id")].append(row)
    return texts, audit


def collected(frame: Any, id_col: str = "id", text_col: str = "text", spans_col: str = "phi_spans") -> tuple:
    texts, spans = {}, {}
    for row in frame.collect():
        texts[row[id_col]] = row[text_col]
        spans[row[id_col]] = [s.asDict() for s in row[spans_col]]
    return texts, spans


def test_mask_mode_matches_radeid_deid_document_by_document(spark: Any, corpus: Path, tmp_path: Path) -> None:
    output = tmp_path / "deid.jsonl"
    result = CliRunner().invoke(radeid_app, ["deid", str(corpus), "-o", str(output), "--mode", "tag", "-q"])
    assert result.exit_code == 0, result.output
    texts, audit = read_pairs(output)

    df = spark.read.schema(SCHEMA).json(str(corpus)).repartition(3)
    config = Config.load(overrides={"replace": {"mode": "tag"}})
    out = deidentify_dataframe(df, "text", "id", patient_col="patient_id", config=config)
    assert out.schema["phi_spans"].dataType.simpleString() == (
        "array<struct<start:int,end:int,category:string,subtype:string,source:string,score:double,"
        "out_start:int,out_end:int>>"
    )
    assert set(out.columns) == {"id", "patient_id", "text", "site", "phi_spans"}
    got_texts, got_spans = collected(out)
    assert got_texts == texts and len(texts) == 80
    assert {k: v for k, v in got_spans.items() if v} == dict(audit)
    assert sum(len(v) for v in got_spans.values()) > 200


def test_surrogates_match_the_single_machine_run_for_the_same_key(spark: Any, corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("radeid.replace.surrogate", reason="the surrogate engine is not available")
    spec = PipelineSpec.surrogates(KEY, Config.load())
    output = tmp_path / "deid.jsonl"
    run(RunPlan(spec, corpus, output, workers=1))  # what `radeid deid --mode surrogate` runs
    texts, audit = read_pairs(output)
    df = spark.read.schema(SCHEMA).json(str(corpus)).repartition(4)  # other partitions, other order: same output
    got_texts, got_spans = collected(deidentify_dataframe(df, "text", "id", "patient_id", config=spec))
    assert got_texts == texts
    assert {k: v for k, v in got_spans.items() if v} == dict(audit)
    other = PipelineSpec.surrogates(b"some other key, also 32 bytes..", Config.load())
    other_texts, _ = collected(deidentify_dataframe(df, "text", "id", "patient_id", config=other))
    assert sum(other_texts[k] != texts[k] for k in texts) > 60


def test_spark_deid_command_writes_what_radeid_deid_writes(spark: Any, corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("radeid.replace.surrogate", reason="the surrogate engine is not available")
    key_file = tmp_path / "site.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    reference = tmp_path / "deid.jsonl"
    args = ["--mode", "surrogate", "--key-file", str(key_file)]
    result = CliRunner().invoke(
        radeid_app, ["deid", str(corpus), "-o", str(reference), "--keep-column", "site", "-q", *args]
    )
    assert result.exit_code == 0, result.output
    texts, audit = read_pairs(reference)

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    out = tmp_path / "spark-out.parquet"
    result = CliRunner().invoke(
        app, ["spark-deid", str(corpus), str(out), "--keep-column", "site", "--partitions", "3", *args]
    )
    assert result.exit_code == 0, result.output
    frame = spark.read.parquet(str(out))
    assert sorted(frame.columns) == ["id", "site", "text"]  # patient_id (maybe PHI) is not copied
    rows = {r["id"]: r for r in frame.collect()}
    assert {k: r["text"] for k, r in rows.items()} == texts
    assert all(r["site"] == f"s{int(k[1:]) % 4}" for k, r in rows.items())
    spark_audit: dict[str, list[dict]] = defaultdict(list)
    for part in sorted(Path(f"{out}.audit").glob("part-*.json")):
        for line in part.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            spark_audit[row.pop("doc_id")].append(row)
    for rows_ in (spark_audit, audit):
        for spans in rows_.values():
            for span in spans:
                span.setdefault("subtype", None)  # Spark's JSON writer leaves nulls out
    assert {k: sorted(v, key=lambda s: s["start"]) for k, v in spark_audit.items()} == dict(audit)

    again = CliRunner().invoke(app, ["spark-deid", str(corpus), str(out), *args])
    assert again.exit_code == 2, again.output  # never replaced without --overwrite, a usage error
    assert f"error: OUTPUT {str(out)!r} and --audit {str(out) + '.audit'!r} already exist; pass --overwrite" in (
        again.output
    )
    surrogate = CliRunner().invoke(app, ["spark-deid", str(corpus), str(tmp_path / "s")], env={"RADEID_KEY": ""})
    assert surrogate.exit_code == 2 and "--key-file" in surrogate.output


def test_integer_ids_null_texts_and_bad_columns(spark: Any) -> None:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType(
        [StructField("nid", LongType()), StructField("body", StringType()), StructField("n", LongType())]
    )
    df = spark.createDataFrame([(7, "MRN: 4455667 seen 03/04/2019.", 1), (8, None, 2)], schema)
    config = Config.load(overrides={"replace": {"mode": "tag"}})
    rows = {r["nid"]: r for r in deidentify_dataframe(df, "body", "nid", config=config).collect()}
    from radeid.pipeline.deidentifier import Deidentifier

    expected = Deidentifier(config).deidentify_text("MRN: 4455667 seen 03/04/2019.", doc_id="7")
    assert rows[7]["body"] == expected.text and len(rows[7]["phi_spans"]) == len(expected.replacements) == 2
    assert rows[8]["body"] is None and rows[8]["phi_spans"] == []
    with pytest.raises(ConfigError, match="text column 'text' not found"):
        deidentify_dataframe(df, "text", "nid", config=config)
    with pytest.raises(ConfigError, match="has type bigint, not string"):
        deidentify_dataframe(df, "n", "nid", config=config)
    with pytest.raises(ConfigError, match="surrogate mode needs a key"):
        deidentify_dataframe(df, "body", "nid")  # the defaults are the CLI's: surrogates, which need a key


def test_null_ids_or_texts_are_errors_as_in_deid(spark: Any, tmp_path: Path) -> None:
    """Issue 12, point 17: the files command refuses what `radeid deid` refuses, naming ids only."""
    from radeid.pipeline.spec import PipelineSpec
    from radeid.spark.dataframe import SparkInputError, spark_deidentify_files

    src = tmp_path / "nulls.jsonl"
    rows = [{"id": "a", "text": "Dr. Zanzibar Quill"}, {"id": "b", "text": None}, {"id": None, "text": "Zanzibar"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = PipelineSpec(Config.load(overrides={"replace": {"mode": "tag"}}))
    with pytest.raises(SparkInputError) as caught:
        spark_deidentify_files(spark, str(src), str(tmp_path / "out"), spec=spec, audit_path=None)
    assert "2 record(s)" in str(caught.value) and "'b'" in str(caught.value)
    assert "Zanzibar" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_local_dir_option_sets_spark_local_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pyspark.sql import SparkSession

    from radeid.spark.dataframe import _spark_session

    seen: dict[str, str] = {}

    def fake_get_or_create(self: Any) -> str:
        seen.update(self._options)
        return "session"

    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", fake_get_or_create)
    assert _spark_session("local[1]", tmp_path / "scratch") == "session"
    assert seen["spark.local.dir"] == str((tmp_path / "scratch").resolve())


SECRET = "Zebulon Quixote-Vantablack"


@pytest.fixture
def failing_rules(tmp_path: Path) -> Path:
    """A site rule whose validator raises on every match (its `min` is not a number): the pipeline
    fails on exactly the documents holding `BOOM7`, inside Spark's Python workers."""
    rules = tmp_path / "site_rules.toml"
    rules.write_text(
        '[[rule]]\nname = "site_boom"\ncategory = "ID"\npattern = "BOOM\\\\d"\n'
        'validator = "digits"\nvalidator_args = { min = "x" }\n',
        encoding="utf-8",
    )
    config = tmp_path / "site.toml"
    config.write_text(
        f'[pipeline]\ndetectors = ["rules"]\n[detectors.rules]\nextra_files = ["{rules}"]\n[replace]\nmode = "tag"\n',
        encoding="utf-8",
    )
    return config


def test_a_document_the_pipeline_fails_on_is_skipped_or_stops_by_id(
    spark: Any, tmp_path: Path, failing_rules: Path
) -> None:
    """Issue 12, point 8 inside Spark executors: `--on-error skip` leaves the document out and names
    it by id and exception type; `fail` stops with its id; neither prints its text."""
    src = tmp_path / "in.jsonl"
    rows = [{"id": f"d{i}", "text": f"Seen by Dr. Quill on 03/0{i + 1}/2019."} for i in range(6)]
    rows[3]["text"] = f"BOOM7 {SECRET} seen on 03/04/2019."
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    app = radeid_app
    args = ["--mode", "tag", "--config", str(failing_rules), "--master", "local[2]"]

    out = tmp_path / "skip"
    result = CliRunner().invoke(app, ["spark-deid", str(src), str(out), *args, "--on-error", "skip"])
    assert result.exit_code == 0, result.output
    assert "skipped: document 'd3': ValueError" in result.output and SECRET not in result.output
    assert "de-identified 5 documents" in result.output
    written = [json.loads(line) for f in sorted(out.glob("part-*")) for line in f.read_text().splitlines()]
    assert sorted(r["id"] for r in written) == ["d0", "d1", "d2", "d4", "d5"]
    audit = [
        json.loads(line) for f in sorted(Path(f"{out}.audit").glob("part-*")) for line in f.read_text().splitlines()
    ]
    assert "d3" not in {r["doc_id"] for r in audit} and len(audit) == 10  # Dr. Quill and a date each

    result = CliRunner().invoke(app, ["spark-deid", str(src), str(tmp_path / "fail"), *args])
    assert result.exit_code == 1, result.output
    assert "document 'd3': ValueError" in result.output and SECRET not in result.output
    assert "Traceback" not in result.output


def test_partition_body_reports_failures_by_id_and_type_only(failing_rules: Path) -> None:
    """The mapInPandas body itself, without Spark: a failing document's text never reaches the error."""
    import pandas as pd

    from radeid.spark.dataframe import SparkDocumentError, _deid_partition

    spec = PipelineSpec(Config.load(failing_rules))
    frame = pd.DataFrame({"id": ["a", "b"], "text": ["Dr. Quill on 03/04/2019.", f"BOOM7 {SECRET}"]})
    common = {"spec": spec, "cache_key": spec.cache_key(), "text_col": "text", "id_col": "id", "patient_col": None,
              "output_col": "text", "spans_col": "spans", "batch_size": 8}  # fmt: skip
    (out,) = list(_deid_partition(iter([frame]), error_col="err", on_error="skip", **common))
    assert out["err"].tolist() == [None, "ValueError"]
    assert out["text"].tolist()[1] is None and out["spans"].tolist()[1] == []
    assert out["text"].tolist()[0] == "Dr. [HCW] on [DATE]."
    with pytest.raises(SparkDocumentError) as caught:
        list(_deid_partition(iter([frame]), error_col=None, on_error="fail", **common))
    assert str(caught.value).startswith("document 'b': ValueError") and SECRET not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_spark_deid_takes_the_whole_job_from_a_toml_file(spark: Any, corpus: Path, tmp_path: Path) -> None:
    """Issue 11: surrogate options, the key file and kept columns come from the config, as for
    `radeid deid`; the same file gives the same text for every document."""
    key_file = tmp_path / "site.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    job = tmp_path / "job.toml"
    job.write_text(
        '[pipeline]\ndetectors = ["rules", "lexicon"]\n[replace]\nmode = "surrogate"\n'
        '[surrogate]\nscope = "corpus"\ndate_shift = "fixed:45"\n'
        f'[io]\nkey_file = "{key_file}"\nkeep_columns = ["site"]\n',
        encoding="utf-8",
    )
    reference = tmp_path / "deid.jsonl"
    result = CliRunner().invoke(radeid_app, ["deid", str(corpus), "-o", str(reference), "-q", "--config", str(job)])
    assert result.exit_code == 0, result.output
    texts, _ = read_pairs(reference)
    out = tmp_path / "spark-out"
    result = CliRunner().invoke(
        radeid_app, ["spark-deid", str(corpus), str(out), "--config", str(job), "--master", "local[2]"]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for f in sorted(out.glob("part-*")) for line in f.read_text().splitlines()]
    assert {r["id"]: r["text"] for r in rows} == texts
    assert all(set(r) == {"id", "text", "site"} for r in rows)


def test_pseudonymize_ids_gives_the_ids_radeid_deid_gives(spark: Any, corpus: Path, tmp_path: Path) -> None:
    """Issue 13: `--pseudonymize-ids` on Spark writes the pseudonyms of the local run, in the
    output and the audit; the texts (keyed by the original ids) are the local run's too."""
    pytest.importorskip("radeid.replace.surrogate", reason="the surrogate engine is not available")
    from radeid.io.ids import pseudonymize_id

    key_file = tmp_path / "site.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    args = ["--mode", "surrogate", "--key-file", str(key_file), "--pseudonymize-ids"]
    reference = tmp_path / "deid.jsonl"
    result = CliRunner().invoke(radeid_app, ["deid", str(corpus), "-o", str(reference), "-q", *args])
    assert result.exit_code == 0, result.output
    texts, audit = read_pairs(reference)
    assert all(k.startswith("doc-") for k in texts)

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    out = tmp_path / "spark-out.parquet"
    result = CliRunner().invoke(app, ["spark-deid", str(corpus), str(out), "--partitions", "3", *args])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r["text"] for r in spark.read.parquet(str(out)).collect()}
    assert rows == texts
    spark_ids = set()
    for part in sorted(Path(f"{out}.audit").glob("part-*.json")):
        spark_ids |= {json.loads(line)["doc_id"] for line in part.read_text(encoding="utf-8").splitlines()}
    assert spark_ids == {k for k, v in audit.items() if v}

    # the DataFrame API: integer ids become their pseudonyms as strings, null ids stay null
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType([StructField("id", LongType()), StructField("text", StringType())])
    df = spark.createDataFrame([(7, "Seen by Dr. Alan Grant."), (None, "No PHI.")], schema)
    spec = PipelineSpec.surrogates(KEY, Config.load())
    got = deidentify_dataframe(df, "text", "id", config=spec, pseudonymize_ids=True).collect()
    assert [r["id"] for r in got] == [pseudonymize_id(KEY, "7"), None]
    plain = deidentify_dataframe(df, "text", "id", config=spec).collect()
    assert [r["id"] for r in plain] == [7, None]
    tag = Config.load(overrides={"replace": {"mode": "tag"}})
    with pytest.raises(ConfigError, match="pseudonymize_ids needs a key"):
        deidentify_dataframe(df, "text", "id", config=tag, pseudonymize_ids=True)


def test_spark_deid_takes_deids_options_and_refuses_an_existing_output_before_any_work(
    spark: Any, tmp_path: Path
) -> None:
    """Issue 29: `--no-model`, `--deny-list`, `--batch-size`, `-q` as in `radeid deid`; an existing output
    (a cluster URI too) is a usage error naming --overwrite, said before Spark reads the input."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "Seen by Zorblat on 03/04/2019."}) + "\n", encoding="utf-8")
    deny = tmp_path / "deny.tsv"
    deny.write_text("Zorblat\tPATIENT\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()  # an empty folder: Spark would refuse it, so radeid does
    args = ["spark-deid", str(src), str(out), "--no-model", "--mode", "tag", "--deny-list", str(deny),
            "--batch-size", "4"]  # fmt: skip
    refused = CliRunner().invoke(radeid_app, args)
    assert refused.exit_code == 2, refused.output
    assert f"error: OUTPUT {str(out)!r} already exists; pass --overwrite to replace it" in refused.output
    uri = CliRunner().invoke(radeid_app, [*args[:2], out.as_uri(), *args[3:]])  # checked on Spark's file system
    assert uri.exit_code == 2, uri.output
    assert f"error: OUTPUT {out.as_uri()!r} already exists; pass --overwrite to replace it" in uri.output
    done = CliRunner().invoke(radeid_app, [*args, "--overwrite", "-q"])
    assert done.exit_code == 0, done.output
    assert "de-identified" not in done.output  # -q: no summary line
    rows = [json.loads(line) for part in sorted(out.glob("part-*.json")) for line in part.read_text().splitlines()]
    assert rows == [{"id": "a", "text": "Seen by [PATIENT] on [DATE]."}]


def _structured_job(tmp_path: Path) -> tuple[Path, list[str]]:
    """A rules-only surrogate job (a config file and a key file) for `radeid deid` and `spark-deid` alike."""
    key_file = tmp_path / "site.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    config = tmp_path / "job.toml"
    config.write_text('[pipeline]\ndetectors = ["rules", "lexicon"]\n', encoding="utf-8")
    return config, ["--config", str(config), "--key-file", str(key_file), "--mode", "surrogate", "-q"]


def _audit_rows(folder: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = defaultdict(list)
    for part in sorted(folder.glob("part-*.json")):
        for line in part.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            row.setdefault("subtype", None)  # Spark's JSON writer leaves nulls out
            rows[row.pop("doc_id")].append(row)
    return {k: sorted(v, key=lambda s: s["start"]) for k, v in rows.items()}


def _local_audit(output: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = defaultdict(list)
    for line in Path(f"{output}.audit.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[row.pop("doc_id")].append(row)
    return dict(rows)


def test_hl7_messages_give_what_radeid_deid_gives_byte_for_byte(spark: Any, tmp_path: Path) -> None:
    """Issue 31: one HL7 message per row (`record_format="hl7"`) and `spark-deid messages.hl7`
    write the bytes `radeid deid` writes for the same key, MLLP framing kept; a row that is no
    message is one failed record, named by id and reason, never its text."""
    pytest.importorskip("hl7")
    from radeid.core import metakeys
    from radeid.io.readers import read_documents
    from radeid.synth.hl7 import MLLP_END, MLLP_START, oru_messages

    config, args = _structured_job(tmp_path)
    src = tmp_path / "oru.hl7"
    src.write_bytes("".join(f"{MLLP_START}{m.text}{MLLP_END}" for m in oru_messages(4, per_patient=2)).encode())
    reference = tmp_path / "ref.hl7"
    result = CliRunner().invoke(radeid_app, ["deid", str(src), "-o", str(reference), *args])
    assert result.exit_code == 0, result.output
    audit = _local_audit(reference)

    docs = list(read_documents(src))
    rows = [(n, d.id, "".join((d.metadata[metakeys.FRAME][0], d.text, d.metadata[metakeys.FRAME][1])))
            for n, d in enumerate(docs)]  # fmt: skip
    rows.append((9, "bad", f"PID|1||{SECRET}"))
    df = spark.createDataFrame(rows, "n long, id string, message string")
    spec = PipelineSpec.surrogates(KEY, Config.load(config))
    out = deidentify_dataframe(df, "message", "id", config=spec, record_format="hl7", on_error="skip")
    got = sorted(out.collect(), key=lambda r: r["n"])
    assert "".join(r["message"] for r in got[:-1]).encode() == reference.read_bytes()
    assert {r["id"]: [s.asDict() for s in r["phi_spans"]] for r in got[:-1]} == dict(audit)
    assert got[-1]["message"] is None and got[-1]["phi_error"] == "no MSH segment: this is not an HL7 v2 message file"

    spark_out = tmp_path / "spark.hl7"
    result = CliRunner().invoke(radeid_app, ["spark-deid", str(src), str(spark_out), "--master", "local[2]", *args])
    assert result.exit_code == 0, result.output
    assert spark_out.read_bytes() == reference.read_bytes()
    assert _audit_rows(Path(f"{spark_out}.audit")) == dict(audit)


def test_dicom_files_give_what_radeid_deid_gives_byte_for_byte(spark: Any, tmp_path: Path) -> None:
    """Issue 31: DICOM SR files as binary cells (`record_format="dicom"`) and `spark-deid srdir/
    --format dicom` write the files `radeid deid` writes for the same key (pydicom's bytes are
    deterministic); a cell that is no DICOM file is one failed record."""
    pytest.importorskip("pydicom")
    from radeid.synth.dicom import sr_reports, write_sr

    config, args = _structured_job(tmp_path)
    srdir = tmp_path / "sr"
    (srdir / "ct").mkdir(parents=True)
    for n, report in enumerate(sr_reports(3, per_patient=2)):
        write_sr(report.dataset, srdir / ("ct" if n else "") / f"r{n}.dcm")
    reference = tmp_path / "ref"
    result = CliRunner().invoke(radeid_app, ["deid", str(srdir), "-o", str(reference), *args])
    assert result.exit_code == 0, result.output
    expected = {p.relative_to(reference).as_posix(): p.read_bytes() for p in reference.rglob("*.dcm")}
    assert sorted(expected) == ["ct/r1.dcm", "ct/r2.dcm", "r0.dcm"]

    cells = [(name.removesuffix(".dcm"), (srdir / name).read_bytes()) for name in expected]
    df = spark.createDataFrame([*cells, ("junk", SECRET.encode())], "id string, content binary")
    spec = PipelineSpec.surrogates(KEY, Config.load(config))
    out = deidentify_dataframe(df, "content", "id", config=spec, record_format="dicom", on_error="skip").collect()
    assert {f"{r['id']}.dcm": bytes(r["content"]) for r in out if r["id"] != "junk"} == expected
    junk = next(r for r in out if r["id"] == "junk")
    assert junk["content"] is None and junk["phi_error"] == "not a DICOM file (no DICM marker after the preamble)"

    spark_out = tmp_path / "spark-out"
    result = CliRunner().invoke(
        radeid_app, ["spark-deid", str(srdir), str(spark_out), "--format", "dicom", "--master", "local[2]", *args]
    )
    assert result.exit_code == 0, result.output
    assert {p.relative_to(spark_out).as_posix(): p.read_bytes() for p in spark_out.rglob("*.dcm")} == expected
    audit = _local_audit(reference)
    assert _audit_rows(Path(f"{spark_out}.audit")) == audit and sum(len(v) for v in audit.values()) > 20


def test_partition_body_reads_hl7_rows_and_the_records_own_patient_wins() -> None:
    """The mapInPandas body without Spark: a message's PID-3 is its patient even when the patient
    column says otherwise (as in `radeid deid`); the column serves a message without PID-3; the row
    id is the document id."""
    import pandas as pd

    from radeid.io.hl7v2 import message_document
    from radeid.io.records import ReadOptions
    from radeid.spark.dataframe import _deid_partition

    header = "MSH|^~\\&|RIS|MERCY|EHR|CLINIC|20240312153000||ORU^R01|{id}|P|2.5\r"
    body = "OBR|1|PLC1|ACC99881|71020^CHEST|||20240312\rOBX|1|TX|IMP||Seen 03/12/2024 by Dr. Quill.||||||F\r"
    messages = [header.format(id="M1") + "PID|1||MRN12345^^^HOSP^MR||OYELARAN^VANCE||19560412\r" + body,
                header.format(id="M2") + "PID|1||||OYELARAN^VANCE||19560412\r" + body]  # fmt: skip
    spec = PipelineSpec.surrogates(KEY, Config.load(overrides={"pipeline": {"detectors": ["rules", "lexicon"]}}))
    frame = pd.DataFrame({"id": ["a", "b"], "msg": messages, "patient": ["p-other", "p9"]})
    (out,) = _deid_partition(iter([frame]), spec=spec, cache_key=spec.cache_key(), text_col="msg", id_col="id",
                             patient_col="patient", output_col="msg", spans_col="spans", error_col=None,
                             batch_size=8, on_error="fail", record_format="hl7")  # fmt: skip
    docs = [message_document(m, "", ReadOptions()) for m in messages]
    assert [d.patient_id for d in docs] == ["MRN12345", None]  # type: ignore[union-attr]
    expected = spec.build().deidentify(
        [replace(docs[0], id="a"), replace(docs[1], id="b", patient_id="p9")]  # type: ignore[type-var]
    )
    assert out["msg"].tolist() == [r.text for r in expected]
    assert out["msg"].tolist()[0] != messages[0] and "OYELARAN" not in "".join(out["msg"])


def test_partition_body_reads_fhir_rows_as_radeid_deid_reads_a_bulk_export(tmp_path: Path) -> None:
    """`record_format="fhir"`: one resource or Bundle per string cell gives, with the reader's
    ids, the lines `radeid deid` writes for a bulk export (line ends are the file's, not the cell's);
    a cell that is not a resource is one failed record named by its reason, never its text."""
    pytest.importorskip("fhir.resources")
    import pandas as pd

    from radeid.core import metakeys
    from radeid.io.readers import read_documents
    from radeid.spark.dataframe import _deid_partition
    from radeid.synth.fhir import bundles, write_bulk_export

    config, args = _structured_job(tmp_path)
    src = tmp_path / "export.ndjson"
    write_bulk_export(bundles(3, per_patient=2, indent=None), src)
    reference = tmp_path / "ref.ndjson"
    result = CliRunner().invoke(radeid_app, ["deid", str(src), "-o", str(reference), *args])
    assert result.exit_code == 0, result.output
    docs = list(read_documents(src))
    frame = pd.DataFrame({"id": [d.id for d in docs] + ["bad"], "json": [d.text for d in docs] + [f'"{SECRET}"']})
    spec = PipelineSpec.surrogates(KEY, Config.load(config))
    (out,) = _deid_partition(iter([frame]), spec=spec, cache_key=spec.cache_key(), text_col="json", id_col="id",
                             patient_col=None, output_col="json", spans_col="spans", error_col="err",
                             batch_size=8, on_error="skip", record_format="fhir")  # fmt: skip
    cells = out["json"].tolist()
    written = "".join(c + d.metadata[metakeys.FRAME][1] for c, d in zip(cells, docs, strict=False))
    assert written.encode() == reference.read_bytes() and cells[0] != docs[0].text
    assert cells[-1] is None and out["err"].tolist()[-1] == "not a FHIR resource: no resourceType"
