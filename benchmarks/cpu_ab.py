"""CPU cost of `radeid deid --no-model` for two source trees, interleaved, with a byte-for-byte check.

    git -C /path/to/repo archive main src | tar -x -C /tmp/base      # the "before" tree
    python benchmarks/cpu_ab.py --base /tmp/base/src --new src --reports 6000 --pairs 3 --workers 1

Runs `radeid deid reports.jsonl -o OUT --no-model --key-file K --audit AUD -q -w W` (as the
`radeid` script a user runs, or with `--entry module` as `python -m radeid`) once per tree per
pair, alternating (base, new, base, new, ...), and prints the CPU seconds (user + system, the
whole process tree, so every worker counts), CPU ms per report and wall reports/s of each run,
then the medians of each tree. Both trees are byte-compiled first, as an installed package is.
CPU time is the steadier figure, because a shared machine slows the wall clock of
both trees alike but not evenly. The output JSONL and the audit of every run must be identical
to the first base run: a speed change must not change a byte. Synthetic reports only (no PHI);
everything is written under a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate_reports  # noqa: E402
from tree_cpu import run_tree  # noqa: E402

# What pip writes as the `radeid` script, for a tree of either entry point (`radeid.__main__:main`
# now, `radeid.cli:app` before). Workers run this file again as their main module, as they do
# the real script, so its import cost counts as it does for a user.
SCRIPT = """import sys
try:
    from radeid.__main__ import main
except ImportError:
    from radeid.cli import app as main
if __name__ == "__main__":
    sys.exit(main())
"""


def run(
    src: Path, entry: list[str], reports: Path, key: Path, out: Path, audit: Path, workers: int
) -> tuple[float, float]:
    """Wall and CPU seconds of one `radeid deid` run with `src` first on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    command = [*entry, "deid", str(reports), "-o", str(out), "--no-model",
               "--key-file", str(key), "--audit", str(audit), "-q", "-w", str(workers)]  # fmt: skip
    return run_tree(command, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, required=True, help="the `src` folder of the reference tree")
    parser.add_argument("--new", type=Path, required=True, help="the `src` folder of the changed tree")
    parser.add_argument("--reports", type=int, default=6000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--input", type=Path, help="a JSONL file of reports instead of synthetic ones")
    parser.add_argument(
        "--entry",
        choices=("script", "module"),
        default="script",
        help="run as the `radeid` script a user runs (default), or as `python -m radeid`",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="radeid-cpu-ab-") as tmp:
        work = Path(tmp)
        reports, key = args.input or work / "reports.jsonl", work / "site.key"
        if args.input is None:
            with open(reports, "w", encoding="utf-8") as handle:
                for doc in generate_reports(args.reports, seed=7):
                    handle.write(json.dumps({"id": doc.id, "patient_id": doc.patient_id, "text": doc.text}) + "\n")
        with open(reports, encoding="utf-8") as handle:
            n = sum(1 for line in handle if line.strip())
        key.write_bytes(os.urandom(32))
        key.chmod(0o600)
        script = work / "radeid"
        script.write_text(SCRIPT, encoding="utf-8")
        entry = [sys.executable, str(script)] if args.entry == "script" else [sys.executable, "-m", "radeid"]
        cpu: dict[str, list[float]] = {"base": [], "new": []}
        wall: dict[str, list[float]] = {"base": [], "new": []}
        for src in (args.base, args.new):
            # an installed package has byte-code; a source tree run with PYTHONDONTWRITEBYTECODE
            # would compile radeid again in every process (~0.1-0.2 CPU s each)
            compileall.compile_dir(src, quiet=1)
        reference: tuple[Path, Path] | None = None
        for pair in range(args.pairs):
            for name, src in (("base", args.base), ("new", args.new)):
                out, audit = work / f"{name}{pair}.jsonl", work / f"{name}{pair}.audit.jsonl"
                elapsed, seconds = run(src, entry, reports, key, out, audit, args.workers)
                cpu[name].append(seconds)
                wall[name].append(elapsed)
                print(f"pair {pair + 1} {name:<4} {seconds:7.2f} CPU s  {1000 * seconds / n:6.3f} CPU ms/report  "
                      f"{n / elapsed:7.1f} reports/s wall")  # fmt: skip
                if reference is None:
                    reference = (out, audit)
                    continue
                if not (filecmp.cmp(out, reference[0], shallow=False) and filecmp.cmp(audit, reference[1], False)):
                    sys.exit(f"{name} run {pair + 1}: output or audit differs from the first base run")
                out.unlink()  # checked: keep the disk (and its write-back) as it was for the next run
                audit.unlink()
        base, new = statistics.median(cpu["base"]), statistics.median(cpu["new"])
        print(f"{n} reports, -w {args.workers}: base {1000 * base / n:.3f}, new {1000 * new / n:.3f} CPU ms/report "
              f"(median of {args.pairs}; {100 * (new - base) / base:+.1f}%), outputs identical")  # fmt: skip
        rates = {name: n / statistics.median(values) for name, values in wall.items()}
        print(f"wall (median): base {rates['base']:.0f}, new {rates['new']:.0f} reports/s")


if __name__ == "__main__":
    main()
