"""Recall cost and speed-up of the model gate (`[detectors.transformer] gate`), per gate variant.

Runs the default pipeline (rules + lexicon + bundled model) on each labelled set once per variant
(`--variants`: `off`, `window` = the window gate, `sentence:N` = the sentence gate with N word
pieces of context) and prints token precision/recall (binary PHI), the documents whose spans
differ from `off`, the share of word pieces the model did not score and the model's time per
report (the transformer detector's own `detect`, tokenization to spans; the rest of the pipeline
is the same every way). Open-i reports (`openi_iu_reports.dev.jsonl`, real chest X-ray reports,
already de-identified and unlabelled) and the mtsamples subset (unannotated) are timed only.

    python benchmarks/gate.py                          # all sets below
    python benchmarks/gate.py --sets heldout examples  # a subset
    python benchmarks/gate.py --limit 50               # quick run
    python benchmarks/gate.py --variants off window sentence:16 sentence:32

Sets: `heldout` (300 synthetic reports, `radeid synth -n 300 --seed 2 --start 500000`, made into
`--work` once), `reports` (300 of the speed benchmarks' 2,400-character reports with gold spans,
`benchmarks/synthetic.py`, seed 11: not the seed the speed runs use), `examples` (the bundled
BRAT examples), `presidio` (presidio_synth.dev.jsonl),
`meddocan` (meddocan.dev.jsonl, Spanish), `openi` and `mtsamples` (timing only), from `--data`
(default: the nearest `shared/data` beside the repository).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import generate_reports  # noqa: E402

from radeid.config.config import Config  # noqa: E402
from radeid.core.document import Document, Span  # noqa: E402
from radeid.detect.transformer import TransformerDetector  # noqa: E402
from radeid.evaluate.loading import GoldSet, load_gold, strip_gold  # noqa: E402
from radeid.evaluate.metrics import evaluate_documents  # noqa: E402
from radeid.evaluate.results import PHI  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402

SETS = ("heldout", "reports", "examples", "presidio", "meddocan", "openi", "mtsamples")
UNLABELLED = ("openi", "mtsamples")


class TimedDetector:
    """Wraps the transformer detector: times its `detect` and keeps its window counters."""

    def __init__(self, inner: TransformerDetector) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        start = time.perf_counter()
        out = self.inner.detect(docs)
        self.seconds += time.perf_counter() - start
        return out


def default_data() -> Path:
    """`shared/data` next to the repository or next to one of its parents (for worktrees)."""
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def heldout_path(work: Path) -> Path:
    path = work / "heldout.jsonl"
    if not path.exists():
        work.mkdir(parents=True, exist_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "radeid",
            "synth",
            "-n",
            "300",
            "--seed",
            "2",
            "--start",
            "500000",
            "-o",
            str(path),
        ]
        subprocess.run(cmd, check=True, env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")})
    return path


def set_path(name: str, data: Path, work: Path) -> Path:
    if name == "heldout":
        return heldout_path(work)
    if name == "examples":
        return ROOT / "examples"
    if name == "presidio":
        return data / "presidio_synth.dev.jsonl"
    if name == "meddocan":
        return data / "meddocan.dev.jsonl"
    if name == "mtsamples":
        return data / "mtsamples_subset.jsonl"
    return data / "openi_iu_reports.dev.jsonl"


def detect_sorted(deid: Deidentifier, docs: Sequence[Document]) -> dict[str, list[Span]]:
    """The pipeline's spans per document id, in the pipeline's batches, sorted for comparison."""
    size = deid.config.pipeline.batch_size
    predicted: dict[str, list[Span]] = {}
    for i in range(0, len(docs), size):
        batch = docs[i : i + size]
        for doc, spans in zip(batch, deid.detect(batch), strict=True):
            predicted[doc.id] = sorted(spans, key=lambda s: (s.start, s.end, s.category.value))
    return predicted


def set_variant(detector: TransformerDetector, variant: str) -> None:
    """`off`, `window` or `sentence:N` onto the detector's gate settings."""
    scope, _, context = variant.partition(":")
    detector.gate = scope != "off"
    detector.gate_scope = "sentence" if scope == "sentence" else "window"
    detector.gate_context = int(context or 16)


def run(deid: Deidentifier, timed: TimedDetector, docs: Sequence[Document], variant: str) -> dict[str, Any]:
    set_variant(timed.inner, variant)
    timed.inner.pieces_scored = timed.inner.pieces_skipped = 0
    timed.seconds = 0.0
    predicted = detect_sorted(deid, docs)
    pieces = timed.inner.pieces_scored + timed.inner.pieces_skipped
    return {
        "predicted": predicted,
        "skipped": timed.inner.pieces_skipped / max(1, pieces),
        "ms": 1000 * timed.seconds / max(1, len(docs)),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "gate")
    parser.add_argument("--limit", type=int, default=0, help="at most this many documents per set")
    parser.add_argument("--variants", nargs="+", default=["off", "window"], help="off, window, sentence:N")
    args = parser.parse_args(argv)

    config = Config.load()
    deid = Deidentifier(config)
    index = next(i for i, d in enumerate(deid.detectors) if isinstance(d, TransformerDetector))
    timed = TimedDetector(deid.detectors[index])  # type: ignore[arg-type]
    deid.detectors[index] = timed  # type: ignore[call-overload]

    if args.variants[0] != "off":
        args.variants.insert(0, "off")
    columns = ["set", "docs", "variant", "token P", "token R", "docs changed", "pieces skipped", "model ms/report"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for name in args.sets:
        if name == "reports":
            gold = GoldSet(documents=generate_reports(300, seed=11))
        else:
            gold = load_gold(set_path(name, args.data, args.work))
        docs = strip_gold(gold.documents)
        if args.limit:
            docs = docs[: args.limit]
        run(deid, timed, docs[:8], "off")  # warm-up
        results = {variant: run(deid, timed, docs, variant) for variant in args.variants}
        off = results["off"]
        for variant, result in results.items():
            changed = sum(off["predicted"][d.id] != result["predicted"][d.id] for d in docs)
            cells = [name, str(len(docs)), variant]
            if name not in UNLABELLED:
                ids = {d.id for d in docs}
                golds = [d for d in gold.documents if d.id in ids]
                counts = evaluate_documents(golds, result["predicted"], ignored=gold.ignored).total("token", PHI)
                cells += [f"{counts.precision:.4f}", f"{counts.recall:.4f}"]
            else:
                cells += ["-", "-"]
            cells += [str(changed), f"{result['skipped']:.0%}", f"{result['ms']:.1f}"]
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
