"""Token-level accuracy of the default pipeline on the shared development data.

Prints, per data set: binary PHI token precision/recall/F1, per-category token recall, span recall
(a gold span counts as found if at least one of its tokens is predicted PHI), and for PHI-free
real radiology reports (Open-i) the false-positive tokens per 100 reports, ignoring the `XXXX`
placeholders left by the source's own de-identification.

    python benchmarks/accuracy.py                       # all sets found under ../shared/data
    python benchmarks/accuracy.py --data-dir DIR --config my.toml
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from radeid import Document
from radeid.config import Config
from radeid.evaluate.tokens import covered_tokens, word_tokens
from radeid.pipeline import Deidentifier

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
IGNORED_GOLD = {"OTHER"}  # presidio TITLE/NRP etc.: not PHI for radeid, scored as neither


def read_jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def score_labelled(deid: Deidentifier, records: list[dict]) -> dict:
    docs = [Document(r["id"], r["text"]) for r in records]
    start = time.perf_counter()
    predicted = deid.detect(docs)
    seconds = time.perf_counter() - start
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
        "docs_per_s": len(records) / seconds if seconds else float("inf"),
    }


def score_phi_free(deid: Deidentifier, records: list[dict]) -> dict:
    docs = [Document(r["id"], r["text"]) for r in records]
    predicted = deid.detect(docs)
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
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = parser.parse_args()
    deid = Deidentifier(Config.load(args.config))
    results: dict[str, dict] = {}
    presidio = args.data_dir / "presidio_synth.dev.jsonl"
    if presidio.exists():
        results["presidio_synth"] = score_labelled(deid, list(read_jsonl(presidio)))
    openi = args.data_dir / "openi_iu_reports.dev.jsonl"
    if openi.exists():
        results["openi_iu"] = score_phi_free(deid, list(read_jsonl(openi)))
    if args.json:
        print(json.dumps(results, indent=2))
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
