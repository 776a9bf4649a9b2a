"""Model window length, stride and scoring variants: token recall/precision and model time per report.

Runs radeid's default pipeline (rules + lexicon + the transformer detector) on labelled sets with the
transformer detector swapped for each variant, and prints binary-PHI token precision/recall, the
documents whose spans differ from the first variant, the model windows scored and the model's own
time per report (`TransformerDetector.detect`: tokenization, windows, inference, merge, decoding).
Set `reports` (timing only) is 100 (or `--limit`) of `benchmarks/synthetic.py`'s 2,400-character
reports. Variants run interleaved per set, `--repeat` times for the timing (median and spread
shown); the accuracy figures come from the first round (every round gives the same spans).

A variant is `NAME=LENGTH/STRIDE[:MODEL[:ONNX_FILE[:BATCH]]]`: window length in word pieces
(special tokens included), overlap in word pieces, a model folder (default: the bundled model) and
file inside it, and windows per inference call. A length above the model's trained limit is
allowed here (MiniLM has 512 positions) to measure it; the detector refuses it otherwise.

    python benchmarks/windows.py                                  # default variants, all sets
    python benchmarks/windows.py --sets heldout --variant a=256/128 --variant b=256/32
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from gate import TimedDetector, default_data, detect_sorted, set_path  # noqa: E402

from radeid.config.config import Config  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.transformer import TransformerDetector, load_model  # noqa: E402
from radeid.evaluate.loading import load_gold, strip_gold  # noqa: E402
from radeid.evaluate.metrics import evaluate_documents  # noqa: E402
from radeid.evaluate.results import PHI  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402

SETS = ("heldout", "examples", "presidio", "openi", "reports")
UNLABELLED = ("openi", "reports")
DEFAULT_VARIANTS = ("256/128=256/128", "256/64=256/64", "256/32=256/32", "128/32=128/32", "384/64=384/64")


def build(spec: str, base: TransformerDetector) -> TransformerDetector:
    parts = spec.split(":")
    length, stride = (int(x) for x in parts[0].split("/"))
    folder = parts[1] if len(parts) > 1 and parts[1] else base.loaded.source
    onnx_file = parts[2] if len(parts) > 2 and parts[2] else None
    batch = int(parts[3]) if len(parts) > 3 and parts[3] else 16
    loaded = load_model(folder, backend="onnx", batch_size=batch, onnx_file=onnx_file)
    loaded = dataclasses.replace(loaded, max_length=max(loaded.max_length, length))
    det = TransformerDetector.from_loaded(
        loaded, threshold=base.threshold, max_length=length, stride=stride, name=base.name
    )
    det.check_forms, det.gate = base.check_forms, base.gate
    det.decoder.category_thresholds = base.decoder.category_thresholds
    return det


def run(deid: Deidentifier, index: int, det: TransformerDetector, docs: Sequence[Document]) -> dict[str, Any]:
    timed = TimedDetector(det)
    deid.detectors[index] = timed  # type: ignore[call-overload]
    det.windows_scored = det.windows_skipped = 0
    predicted = detect_sorted(deid, docs)
    return {"predicted": predicted, "windows": det.windows_scored, "ms": 1000 * timed.seconds / max(1, len(docs))}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--variant", action="append", help="NAME=LENGTH/STRIDE[:MODEL[:ONNX_FILE[:BATCH]]]")
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "gate")
    parser.add_argument("--limit", type=int, default=0, help="at most this many documents per set")
    parser.add_argument("--repeat", type=int, default=3, help="timing rounds (interleaved)")
    args = parser.parse_args(argv)

    deid = Deidentifier(Config.load())
    index = next(i for i, d in enumerate(deid.detectors) if isinstance(d, TransformerDetector))
    base = deid.detectors[index]
    assert isinstance(base, TransformerDetector)
    variants = {name: build(spec, base) for name, spec in (v.split("=", 1) for v in args.variant or DEFAULT_VARIANTS)}
    first = next(iter(variants))
    columns = ["set", "variant", "token R", "token P", "docs changed", "windows", "model ms/report (median, min-max)"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for name in args.sets:
        if name == "reports":  # timing only: benchmarks/synthetic.py's 2,400-character reports
            from synthetic import generate_reports

            docs, golds, ignored = generate_reports(args.limit or 100, seed=0), [], None
        else:
            gold = load_gold(set_path(name, args.data, args.work))
            docs = strip_gold(gold.documents)
            golds, ignored = gold.documents, gold.ignored
        if args.limit:
            docs = docs[: args.limit]
        results: dict[str, dict[str, Any]] = {}
        times: dict[str, list[float]] = {v: [] for v in variants}
        for det in variants.values():
            run(deid, index, det, docs[:8])  # warm-up
        for round_ in range(args.repeat):
            for vname, det in variants.items():
                result = run(deid, index, det, docs)
                times[vname].append(result["ms"])
                if round_ == 0:
                    results[vname] = result
        ids = {d.id for d in docs}
        golds = [d for d in golds if d.id in ids]
        for vname, result in results.items():
            changed = sum(result["predicted"][d.id] != results[first]["predicted"][d.id] for d in docs)
            cells = [name, vname]
            if name not in UNLABELLED:
                counts = evaluate_documents(golds, result["predicted"], ignored=ignored).total("token", PHI)
                cells += [f"{counts.recall:.4f}", f"{counts.precision:.4f}"]
            else:
                cells += ["-", "-"]
            ts = times[vname]
            cells += [
                str(changed),
                str(result["windows"]),
                f"{statistics.median(ts):.1f} ({min(ts):.1f}-{max(ts):.1f})",
            ]
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr, flush=True)
        deid.detectors[index] = base  # type: ignore[call-overload]
    print("\n".join(rows))


if __name__ == "__main__":
    main()
