"""Surrogate replacement speed on synthetic radiology reports with gold spans.

    python benchmarks/surrogates.py [--n 2000] [--seed 0] [--repeat 3]

Single process, one core: the gold spans go straight to `SurrogateReplacer.replace`, so the
figures measure the replacer alone (no detection). Start-up (Faker pools) is timed apart, then
one warm-up pass over other reports fills the pure-function caches (parsed dates and names) the
way a long run would. Every timed run uses a fresh replacer and reports it has never seen (a
different seed per configuration and repeat), so no result is served from a cache of the same
text. The best of `--repeat` runs is reported, with the median in brackets.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate_reports  # noqa: E402

from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer  # noqa: E402
from radeid.secure.vault import VaultWriter  # noqa: E402

KEY = os.urandom(32)  # a throwaway key: nothing written here outlives the run


def _run(docs: list, options: SurrogateOptions, vault: bool, stats: Counter | None = None) -> tuple[float, int]:
    replacer = SurrogateReplacer(KEY, options)
    spans = 0
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        if vault:
            with VaultWriter(Path(tmp) / "vault.parquet", KEY) as writer:
                for doc in docs:
                    result = replacer.replace(doc, doc.spans)
                    writer.add(result)
                    spans += len(result.replacements)
        else:
            for doc in docs:
                spans += len(replacer.replace(doc, doc.spans).replacements)
        elapsed = time.perf_counter() - start
        if stats is not None:
            stats.update(replacer.stats)
        return elapsed, spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    docs = generate_reports(args.n, args.seed)
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    warm = SurrogateReplacer(KEY)
    warm.replace(docs[0], docs[0].spans)  # builds the name and place pools once
    t_start = time.perf_counter() - t0
    for doc in generate_reports(args.n, args.seed + 10_000):  # warm-up on other reports
        warm.replace(doc, doc.spans)

    configs = [
        ("surrogate (defaults)", SurrogateOptions(), False),
        ("surrogate, corpus scope", SurrogateOptions(scope="corpus"), False),
        ("surrogate, length_preserving", SurrogateOptions(length_preserving=True), False),
        ("surrogate + vault (AES-GCM)", SurrogateOptions(), True),
    ]
    words = sum(len(d.text.split()) for d in docs)
    print(
        f"{args.n} synthetic reports per run, {words / args.n:.0f} words and "
        f"{sum(len(d.spans) for d in docs) / args.n:.1f} gold spans per report "
        f"(generated in {t_gen:.2f} s); start-up (pools) {t_start * 1000:.0f} ms; "
        f"Python {sys.version.split()[0]}, one process"
    )
    print()
    print(f"| {'configuration':<30} | {'seconds':>7} | {'reports/s':>17} | {'replacements/s':>19} |")
    print(f"|{'-' * 32}|{'-' * 9}|{'-' * 19}|{'-' * 21}|")
    lengths: Counter[str] = Counter()
    for c, (name, options, vault) in enumerate(configs):
        runs = []
        for r in range(args.repeat):
            run_docs = docs if c == r == 0 else generate_reports(args.n, args.seed + 1 + c * args.repeat + r)
            runs.append(_run(run_docs, options, vault, lengths if options.length_preserving else None))
        runs.sort()
        (best, spans), (median, mspans) = runs[0], runs[len(runs) // 2]
        reports = f"{args.n / best:,.0f} ({args.n / median:,.0f})"
        reps = f"{spans / best:,.0f} ({mspans / median:,.0f})"
        print(f"| {name:<30} | {best:>7.3f} | {reports:>17} | {reps:>19} |")
    print()
    print(
        f"length_preserving over {args.repeat} x {args.n} reports: {lengths['spans']:,} spans, "
        f"{lengths['length_padded']} padded, {lengths['length_cut']} cut (the last resorts)"
    )


if __name__ == "__main__":
    main()
