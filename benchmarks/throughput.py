"""Throughput and peak memory of the rules-only pipeline (rules + lexicons + resolver + masking).

One process, one core. Two figures: the in-memory pipeline (`Deidentifier.deidentify` over batches)
and the whole job as `radeid deid` runs it (read JSONL, de-identify, write output + audit).

    python benchmarks/throughput.py              # 2,000 synthetic reports
    python benchmarks/throughput.py -n 5000 --repeat 3
    python benchmarks/throughput.py --cli 6000      # + `radeid deid` itself, every core, surrogates

`--cli N` also times the command a user runs, in a subprocess on every core this process may use
(start-up included): `radeid deid reports.jsonl -o out.jsonl --no-model --key-file K --audit A -q`
on N synthetic reports, and prints its reports/s and CPU seconds per report (all processes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate_reports  # noqa: E402
from tree_cpu import run_tree  # noqa: E402

from radeid.config.config import Config  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402
from radeid.pipeline.spec import PipelineSpec  # noqa: E402
from radeid.run.plan import RunPlan  # noqa: E402
from radeid.run.serial import deidentify_path  # noqa: E402


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_rows(n: int, repeat: int) -> None:
    """`radeid deid`, rules only, surrogates + audit, as a user runs it (all cores, start-up included)."""
    with tempfile.TemporaryDirectory(prefix="radeid-throughput-") as tmp:  # synthetic data only
        work = Path(tmp)
        src, key = work / "reports.jsonl", work / "site.key"
        with open(src, "w", encoding="utf-8") as handle:
            for doc in generate_reports(n, seed=7):
                handle.write(json.dumps({"id": doc.id, "patient_id": doc.patient_id, "text": doc.text}) + "\n")
        radeid = [sys.executable, "-m", "radeid"]
        subprocess.run([*radeid, "keygen", "-o", str(key)], check=True, capture_output=True)
        walls, cpus = [], []
        for i in range(repeat):
            out = work / f"out{i}.jsonl"
            command = [*radeid, "deid", str(src), "-o", str(out), "--no-model", "--key-file", str(key),
                       "--audit", str(work / f"audit{i}.jsonl"), "-q"]  # fmt: skip
            wall, used = run_tree(command)  # workers of a fork server are not our children
            walls.append(wall)
            cpus.append(used)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        rates = sorted(n / w for w in walls)
        print(f"radeid deid --no-model, {n} reports, {cores} cores, load average {os.getloadavg()[0]:.2f}: "
              f"{statistics.median(rates):,.0f} reports/s (runs: {', '.join(f'{r:,.0f}' for r in rates)}), "
              f"{1000 * statistics.median(cpus) / n:.3f} CPU ms/report")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--reports", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions; the median is reported")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--with-model", action="store_true", help="the full default pipeline (bundled model too), not rules-only"
    )
    parser.add_argument("--cli", type=int, default=0, metavar="N", help="also time `radeid deid` on N reports")
    args = parser.parse_args()
    if args.cli:
        cli_rows(args.cli, args.repeat)
    try:  # one core, as the target says
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        pass

    docs = generate_reports(args.reports, seed=7)
    chars = sum(len(d.text) for d in docs)
    words = sum(len(d.text.split()) for d in docs)
    pipeline: dict[str, object] = {"batch_size": args.batch_size}
    if not args.with_model:
        pipeline["detectors"] = ["rules", "lexicon"]
    # mask mode: the detection pipeline's cost (surrogates are measured in benchmarks/surrogates.py)
    config = Config.load(overrides={"pipeline": pipeline, "replace": {"mode": "mask"}})
    print(f"detectors: {' + '.join(config.pipeline.detectors)}")
    start = time.perf_counter()
    deid = Deidentifier(config)
    startup = time.perf_counter() - start
    deid.deidentify(docs[:50])  # warm-up

    in_memory = []
    spans = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        spans = 0
        for i in range(0, len(docs), args.batch_size):
            spans += sum(len(r.replacements) for r in deid.deidentify(docs[i : i + args.batch_size]))
        in_memory.append(time.perf_counter() - start)

    end_to_end = []
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "reports.jsonl"
        with open(src, "w", encoding="utf-8") as handle:
            for doc in docs:
                handle.write(json.dumps({"id": doc.id, "text": doc.text}) + "\n")
        for _ in range(args.repeat):
            start = time.perf_counter()
            plan = RunPlan(PipelineSpec.masking(config, "mask"), src, Path(tmp) / "out.jsonl")
            deidentify_path(plan, deidentifier=deid)
            end_to_end.append(time.perf_counter() - start)

    t_mem, t_e2e = statistics.median(in_memory), statistics.median(end_to_end)
    print(f"reports: {len(docs)}  mean length: {chars / len(docs):,.0f} chars / {words / len(docs):,.0f} words")
    print(f"pipeline start-up: {startup * 1000:,.0f} ms   spans per run: {spans}")
    print(f"{'stage':<34}{'reports/s':>12}{'ms/report':>12}{'MB/s':>8}")
    for name, seconds in (("in-memory pipeline", t_mem), ("end to end (jsonl in/out + audit)", t_e2e)):
        rate, ms_each = len(docs) / seconds, 1000 * seconds / len(docs)
        print(f"{name:<34}{rate:>12,.0f}{ms_each:>12.3f}{chars / seconds / 1e6:>8.2f}")
    print(f"peak RSS: {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
