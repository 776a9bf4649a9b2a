"""Scaling: documents/s of whole `radeid deid` jobs with 1 and 2 worker processes, and on Spark.

Each figure is a whole job as a user runs it: read JSONL, de-identify, write output + audit (the
parallel runner also fingerprints the input, appends each batch in order and journals it). Rows:

* single process   `serial.deidentify_path` (no journal: the baseline);
* N workers        `parallel.run(RunPlan(workers=N))` (pool start-up included);
* Spark local[N]   `spark.spark_deidentify_files` JSONL -> Parquet + audit JSONL (what
                   `radeid spark-deid` runs), and `deidentify_dataframe` alone (read + de-identify,
                   no writes), after a warm-up job (session and Python worker start-up are
                   reported, not counted).

    python benchmarks/scaling.py                       # 2,000 synthetic reports, rules-only, surrogates
    python benchmarks/scaling.py -n 4000 --workers 1,2,4 --repeat 3
    python benchmarks/scaling.py --model models/radeid-onnx   # with the transformer (ONNX folder)
    python benchmarks/scaling.py --config my-model.toml       # any config (e.g. one naming a model)
    python benchmarks/scaling.py --no-spark                   # without PySpark / Java
    python benchmarks/scaling.py --no-spark --cpu -n 6000 --workers 2   # + the serial fraction

`--cpu` adds, per worker count, the CPU seconds per document of the coordinating process (this
one: splitting a JSONL input into lines, or reading another format, dispatch, appending bytes,
journal, commit) and of the workers (parsing their lines, de-identification and serialization,
summed over them), measured with `getrusage`, and the serial fraction
main / (main + workers). Both are given for the whole job and as the marginal cost per document
(the difference between a run of n and of n/4 documents), which leaves out the fixed start-up
(imports, building the pipeline in each worker, the input's fingerprint).

Figures on a shared machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate_reports  # noqa: E402
from tree_cpu import DescendantsCpu  # noqa: E402

from radeid.config.config import Config  # noqa: E402
from radeid.pipeline.spec import PipelineSpec  # noqa: E402
from radeid.run.parallel import RunPlan, default_workers, run  # noqa: E402
from radeid.run.serial import deidentify_path  # noqa: E402

KEY = bytes(range(32))


def write_corpus(path: Path, n: int, seed: int) -> int:
    """Synthetic reports as JSONL; returns the number of characters."""
    chars = 0
    with open(path, "w", encoding="utf-8") as handle:
        for doc in generate_reports(n, seed=seed):
            chars += len(doc.text)
            handle.write(json.dumps({"id": doc.id, "patient_id": doc.patient_id, "text": doc.text}) + "\n")
    return chars


def timed(job: Callable[[Path], Any], work: Path, repeat: int) -> float:
    """Median wall time of `job(output_folder)` over `repeat` runs, each into a fresh folder."""
    times = []
    for i in range(repeat):
        out = work / f"run-{time.monotonic_ns()}-{i}"
        out.mkdir()
        start = time.perf_counter()
        job(out)
        times.append(time.perf_counter() - start)
        shutil.rmtree(out)
    return statistics.median(times)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_split(spec: PipelineSpec, corpus: Path, work: Path, workers: int) -> tuple[float, float]:
    """(main-process CPU s, workers' CPU s) of one parallel job. Workers are forked from a fork
    server (not this process's children for getrusage), so descendants are sampled from /proc;
    the fork server's own warm-up counts where it falls inside the job."""
    out = work / f"cpu-{time.monotonic_ns()}"
    out.mkdir()
    main0 = time.process_time()
    with DescendantsCpu() as kids_cpu:
        run(RunPlan(spec, corpus, out / "deid.jsonl", workers=workers))
    main, kids = time.process_time() - main0 - kids_cpu.overhead, kids_cpu.seconds
    shutil.rmtree(out)
    return main, kids


def cpu_rows(spec: PipelineSpec, corpus: Path, n: int, work: Path, counts: list[int]) -> list[str]:
    """Main vs worker CPU per document and the serial fraction, whole job and marginal."""
    small = work / "reports-quarter.jsonl"
    with open(corpus, encoding="utf-8") as src, open(small, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i < n // 4:
                dst.write(line)
    lines = [
        "| workers | main ms/doc | workers ms/doc | serial fraction | marginal main ms/doc | marginal workers "
        "ms/doc | marginal serial fraction |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for count in counts:
        main, kids = cpu_split(spec, corpus, work, count)
        main_q, kids_q = cpu_split(spec, small, work, count)
        d = n - n // 4
        m_main, m_kids = (main - main_q) / d, (kids - kids_q) / d
        lines.append(
            f"| {count} | {1000 * main / n:.3f} | {1000 * kids / n:.3f} | {main / (main + kids):.1%} "
            f"| {1000 * m_main:.3f} | {1000 * m_kids:.3f} | {m_main / (m_main + m_kids):.1%} |"
        )
    return lines


def spark_rows(
    spec: PipelineSpec, corpus: Path, n: int, work: Path, cores: int, repeat: int
) -> tuple[list[tuple[str, float]], str]:
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return [], "Spark skipped: PySpark is not installed (pip install 'radeid[spark]')"
    from radeid.spark.dataframe import deidentify_dataframe, spark_deidentify_files

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    start = time.perf_counter()
    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("radeid-scaling")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(2 * cores))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    session = time.perf_counter() - start
    try:
        start = time.perf_counter()  # warm-up: start the Python workers, build their pipelines
        sample = spark.read.json(str(corpus)).limit(4 * cores).repartition(cores)
        deidentify_dataframe(sample, "text", "id", "patient_id", spec).count()
        warm = time.perf_counter() - start

        def job(out: Path) -> None:
            spark_deidentify_files(
                spark, str(corpus), str(out / "deid.parquet"), spec=spec, audit_path=str(out / "audit"),
                partitions=2 * cores,
            )  # fmt: skip

        def pipeline_only(_out: Path) -> None:  # read + de-identify, nothing written
            frame = spark.read.json(str(corpus)).repartition(2 * cores)
            deidentify_dataframe(frame, "text", "id", "patient_id", spec).write.format("noop").mode("overwrite").save()

        seconds = timed(job, work, repeat)
        bare = timed(pipeline_only, work, repeat)
    finally:
        spark.stop()
    note = f"Spark: session start {session:.1f} s and warm-up {warm:.1f} s not counted"
    return [
        (f"Spark local[{cores}] spark-deid", n / seconds),
        (f"Spark local[{cores}] no writes", n / bare),
    ], note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--reports", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per row; the median is reported")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--mode", default="surrogate", help="surrogate (default, as radeid deid) or a mask mode")
    parser.add_argument("--batch-size", type=int, default=None, help="documents per batch (default: config's)")
    parser.add_argument("--config", type=Path, default=None, help="config TOML (e.g. one that adds a model)")
    parser.add_argument("--model", type=Path, default=None, help="model folder: adds the transformer detector")
    parser.add_argument("--spark-cores", type=int, default=2, help="Spark local[N]")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="also print CPU s/doc of main and workers, serial fraction")
    args = parser.parse_args()

    overrides: dict[str, Any] = {}
    if args.batch_size:
        overrides["pipeline"] = {"batch_size": args.batch_size}
    if args.model is None and args.config is None:  # rules-only unless a model or config is named
        overrides.setdefault("pipeline", {})["detectors"] = ["rules", "lexicon"]
    if args.model is not None:
        base = Config.load(args.config)
        detectors = [*base.pipeline.detectors, *(() if "transformer" in base.pipeline.detectors else ("transformer",))]
        overrides.setdefault("pipeline", {})["detectors"] = detectors
        overrides["transformer"] = {"model": str(args.model.resolve())}
    config = Config.load(args.config, overrides)
    spec = PipelineSpec.surrogates(KEY, config) if args.mode == "surrogate" else PipelineSpec.masking(config, args.mode)
    detectors = "+".join(config.pipeline.detectors)

    with tempfile.TemporaryDirectory(prefix="radeid-scaling-") as tmp:  # synthetic data only
        work = Path(tmp)
        corpus = work / "reports.jsonl"
        chars = write_corpus(corpus, args.reports, args.seed)
        n = args.reports
        rows: list[tuple[str, float]] = []
        deid = spec.build()
        deid.deidentify(generate_reports(20, seed=args.seed + 1))  # warm caches, as a long run would be
        seconds = timed(
            lambda out: deidentify_path(RunPlan(spec, corpus, out / "deid.jsonl"), deidentifier=deid), work, args.repeat
        )
        rows.append(("single process (no journal)", n / seconds))
        phases: list[str] = []
        for count in (int(w) for w in args.workers.split(",")):
            split: list[float] = []  # [start-up + de-identify (to the last batch), the commit after it]

            def job(out: Path, c: int = count, split: list[float] = split) -> None:
                start, last = time.perf_counter(), [0.0]

                def mark(_n: int) -> None:
                    last[0] = time.perf_counter()

                run(RunPlan(spec, corpus, out / "deid.jsonl", workers=c), on_batch=mark)
                split[:] = [last[0] - start, time.perf_counter() - last[0]]

            seconds = timed(job, work, args.repeat)
            rows.append((f"{count} worker{'s' if count > 1 else ''}", n / seconds))
            phases.append(f"{count} worker(s): start-up + de-identify {split[0]:.1f} s, then commit {split[1]:.1f} s")
        notes = list(phases)
        if args.cpu:
            counts = [int(w) for w in args.workers.split(",") if int(w) > 1]
            notes += cpu_rows(spec, corpus, n, work, counts)
        if not args.no_spark:
            spark, note = spark_rows(spec, corpus, n, work, args.spark_cores, args.repeat)
            rows += spark
            notes.append(note)

    base = next((rate for name, rate in rows if name == "1 worker"), rows[0][1])
    print(
        f"{n} synthetic reports ({chars / n:,.0f} characters each), detectors {detectors}, mode {spec.mode}, "
        f"batch size {config.pipeline.batch_size}; {default_workers()} cores here, load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"| {'run':<28} | {'docs/s':>8} | {'vs 1 worker':>11} |")
    print(f"|{'-' * 30}|{'-' * 10}:|{'-' * 12}:|")
    for name, rate in rows:
        print(f"| {name:<28} | {rate:>8,.1f} | {rate / base:>10.2f}x |")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
