"""Throughput and latency of `radeid serve` from a local client, against the pipeline in process.

Starts `radeid serve` on a free loopback port (tag mode: no key needed), then sends single-report
requests and 32-report batch requests over one keep-alive connection (httpx) and reports requests/s,
documents/s and p50/p99 latency; the baseline is `Deidentifier.deidentify` in this process over the
same reports in `pipeline.batch_size` batches (what `radeid deid` runs, less reading and writing).

    python benchmarks/server.py                    # rules only and with the bundled model
    python benchmarks/server.py --no-model -n 512
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from synthetic import generate_reports  # noqa: E402

from radeid.cli.options import load_job_config  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(no_model: bool) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    command = [sys.executable, "-m", "radeid", "serve", "--port", str(port), "--mode", "tag", "--max-documents", "64"]
    if no_model:
        command.append("--no-model")
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/v1/health").status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _client_run(url: str, docs: list[dict[str, str]], batch: int) -> dict[str, float]:
    latencies: list[float] = []
    with httpx.Client(base_url=url, timeout=300) as client:
        client.post("/v1/deidentify", json={"documents": docs[:batch]}).raise_for_status()  # warm-up
        started = time.perf_counter()
        for i in range(0, len(docs), batch):
            t0 = time.perf_counter()
            client.post("/v1/deidentify", json={"documents": docs[i : i + batch]}).raise_for_status()
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
    return {
        "requests_s": len(latencies) / elapsed,
        "docs_s": len(docs) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * _percentile(latencies, 0.99),
    }


def _in_process(no_model: bool, docs: list) -> float:
    config = load_job_config(None, {"replace.mode": "tag"}, no_model=no_model)
    pipeline = Deidentifier(config)
    size = config.pipeline.batch_size
    pipeline.deidentify(docs[:size])  # warm-up
    started = time.perf_counter()
    for i in range(0, len(docs), size):
        pipeline.deidentify(docs[i : i + size])
    return len(docs) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--reports", type=int, default=256)
    parser.add_argument("--no-model", action="store_true", help="only the rules-only pipeline")
    args = parser.parse_args()
    reports = generate_reports(args.reports, seed=7)
    payload = [{"id": d.id, "text": d.text} for d in reports]
    print(f"{args.reports} synthetic reports; mode tag; one client, one connection")
    print(f"{'pipeline':<10} {'request':<10} {'req/s':>8} {'docs/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for no_model in [True] if args.no_model else [True, False]:
        name = "rules" if no_model else "model"
        baseline = _in_process(no_model, reports)
        process, url = _start(no_model)
        try:
            for batch in (1, 32):
                r = _client_run(url, payload, batch)
                share = r["docs_s"] / baseline
                row = f"{r['requests_s']:>8.1f} {r['docs_s']:>8.1f} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f}"
                print(f"{name:<10} {f'{batch} doc(s)':<10} {row}  ({share:.0%} of in-process)")
        finally:
            process.terminate()
            process.wait(timeout=30)
        print(f"{name:<10} {'in-process':<10} {'':>8} {baseline:>8.1f}")


if __name__ == "__main__":
    main()
