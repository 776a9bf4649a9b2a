"""Integrity of the default pipeline in surrogate mode: does it change anything but PHI? (issue 10)

In surrogate mode a false positive is an invisible edit of research data, and a span with bad edges
damages the text around the PHI. This script runs the pipeline exactly as `radeid deid` does in
surrogate mode (keyed surrogates, here with a fixed test key, so runs are repeatable) and reports:

(a) changed tokens per 100 reports on PHI-free real prose (evaluation tokens of the original that the
    output altered, `radeid.evaluate.integrity.changed_tokens`): Open-i (`XXXX` placeholders ignored), for
    all reports and for the held-out half (ids with `int(sha1(id), 16) % 2 == 1`; the other half may be used
    for training, so the held-out half is the honest figure), and mtsamples, with the distinct span texts
    found there counted by category (`--show` prints them, so a human can tell genuine names from false
    positives; these are published sample texts, not patient data);
(b) on the hand-written trap lines (`tests/data/integrity_traps.jsonl`): PHI-free lines with any span, per
    class and per detector (`span.source`), numeric tokens outside gold PHI that the output altered, and on
    `phi_adjacent` lines the gold spans found (exact offsets / covered / overlapped) and token recall;
(c) predicted spans that break the edge rule (`radeid.evaluate.integrity.edge_violations`), per data set,
    with the gold's own count beside them;
(d) binary token precision and recall, as `benchmarks/accuracy.py` computes them, on `presidio_synth`,
    a held-out synthetic set (`--synth`) and the 12 bundled examples (`examples/*.txt` + BRAT `.ann`).

No document text is printed except with `--show`. Command lines:

    python benchmarks/integrity.py                           # default pipeline (rules + lexicons + model)
    python benchmarks/integrity.py --no-model                # rules + lexicons only
    python benchmarks/integrity.py --limit 40                # quick: 40 documents of each set (traps, examples whole)
    radeid synth -n 300 --seed 2 --start 500000 -o held_out_synth.jsonl
    python benchmarks/integrity.py --synth held_out_synth.jsonl --json integrity.json
    python benchmarks/integrity.py --config my.toml --data-dir ../shared/data --show
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accuracy import DEFAULT_DATA, read_jsonl, score_labelled_spans, score_phi_free_spans

from radeid.config import Config
from radeid.document import Document, Result, Span
from radeid.evaluate.integrity import changed_token_offsets, edge_violations
from radeid.io.gold import parse_brat_ann
from radeid.pipeline import Deidentifier
from radeid.spec import PipelineSpec

REPO = Path(__file__).resolve().parents[1]
TRAPS = REPO / "tests" / "data" / "integrity_traps.jsonl"
EXAMPLES = REPO / "examples"
#: A fixed key, so that the surrogates (and so the changed tokens) are the same on every run.
TEST_KEY = b"radeid-integrity-benchmark-fixed-test-key"
PLACEHOLDERS = frozenset({"XXXX"})
_DIGIT = re.compile(r"\d")


@dataclasses.dataclass
class Run:
    """One data set through the pipeline: its records, resolved spans and surrogate results."""

    records: list[dict]
    spans: list[list[Span]]
    results: list[Result]
    seconds: float


def build(config_path: Path | None, no_model: bool) -> Deidentifier:
    """The surrogate-mode pipeline `radeid deid` builds (same `PipelineSpec`), with the fixed test key."""
    config = Config.load(config_path)
    if no_model:
        detectors = tuple(d for d in config.pipeline.detectors if d != "transformer")
        config = dataclasses.replace(config, pipeline=dataclasses.replace(config.pipeline, detectors=detectors))
    return PipelineSpec.surrogates(TEST_KEY, config).build()


def run(deid: Deidentifier, records: list[dict]) -> Run:
    """Detect once and replace those very spans, so spans and output belong together."""
    docs = [Document(str(r["id"]), r["text"], r.get("patient_id")) for r in records]
    start = time.perf_counter()
    spans: list[list[Span]] = []
    results: list[Result] = []
    size = deid.config.pipeline.batch_size
    for i in range(0, len(docs), size):
        batch = docs[i : i + size]
        found = deid.detect(batch)
        spans.extend(found)
        results.extend(deid.replacer.replace(doc, s) for doc, s in zip(batch, found, strict=True))
    return Run(records, spans, results, time.perf_counter() - start)


def held_out(record_id: str) -> bool:
    """The held-out half of Open-i: never used for training by agreement."""
    return int(hashlib.sha1(record_id.encode()).hexdigest(), 16) % 2 == 1


def subset(r: Run, keep: Sequence[bool]) -> Run:
    pick = [i for i, k in enumerate(keep) if k]
    return Run([r.records[i] for i in pick], [r.spans[i] for i in pick], [r.results[i] for i in pick], r.seconds)


# -- (a) changed tokens on PHI-free prose ---------------------------------------------------------


def changes(r: Run, ignore: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Changed tokens per 100 reports, by category of the replacement, and reports with any change."""
    total = 0
    by_category: Counter[str] = Counter()
    docs_changed = 0
    for record, result in zip(r.records, r.results, strict=True):
        changed = changed_token_offsets(record["text"], result, ignore)
        total += len(changed)
        docs_changed += bool(changed)
        for rep in result.replacements:
            by_category[rep.span.category.value] += sum(
                1 for a, b in changed if a < rep.span.end and b > rep.span.start
            )
    return {
        "docs": len(r.records),
        "changed_tokens": total,
        "changed_tokens_per_100_reports": 100 * total / max(1, len(r.records)),
        "docs_with_a_change": docs_changed,
        "changed_tokens_by_category": {c: n for c, n in by_category.most_common() if n},
    }


def distinct_spans(r: Run) -> Counter[tuple[str, str]]:
    """(category, span text) -> occurrences: what a human checks for genuine names or dates."""
    found: Counter[tuple[str, str]] = Counter()
    for record, spans in zip(r.records, r.spans, strict=True):
        for span in spans:
            found[(span.category.value, " ".join(record["text"][span.start : span.end].split()))] += 1
    return found


# -- (b) the trap lines -----------------------------------------------------------------------------


def trap_figures(r: Run) -> dict[str, Any]:
    """PHI-free lines with spans per class and source, changed numbers outside gold, phi_adjacent recall."""
    per_class: dict[str, dict[str, int]] = {}
    sources: Counter[str] = Counter()
    offenders: list[dict[str, Any]] = []
    for record, spans, result in zip(r.records, r.spans, r.results, strict=True):
        row = per_class.setdefault(
            record["class"], {"lines": 0, "lines_with_a_span": 0, "spans": 0, "changed_numeric_tokens": 0}
        )
        row["lines"] += 1
        text = record["text"]
        gold = [(g["start"], g["end"]) for g in record["spans"]]
        for a, b in changed_token_offsets(text, result):
            in_gold = any(a < ge and b > gs for gs, ge in gold)
            row["changed_numeric_tokens"] += bool(_DIGIT.search(text[a:b])) and not in_gold
        if record["class"] == "phi_adjacent":
            continue
        row["spans"] += len(spans)
        row["lines_with_a_span"] += bool(spans)
        for span in spans:
            sources[span.source or "?"] += 1
            offenders.append(
                {
                    "id": record["id"],
                    "text": text[span.start : span.end],
                    "category": span.category.value,
                    "source": span.source,
                }
            )
    adjacent = subset(r, [rec["class"] == "phi_adjacent" for rec in r.records])
    phi_free_lines = [rec for rec in r.records if rec["class"] != "phi_adjacent"]
    return {
        "phi_free_lines": len(phi_free_lines),
        "phi_free_lines_with_a_span": sum(v["lines_with_a_span"] for c, v in per_class.items() if c != "phi_adjacent"),
        "changed_numeric_tokens": sum(v["changed_numeric_tokens"] for v in per_class.values()),
        "per_class": per_class,
        "phi_free_spans_by_source": dict(sources.most_common()),
        "phi_adjacent": gold_found(adjacent) | {"token": score_labelled_spans(adjacent.records, adjacent.spans, None)},
        "_offenders": offenders,
    }


def gold_found(r: Run) -> dict[str, Any]:
    """Gold spans found with exact offsets, covered in full by one span, only overlapped, or missed."""
    counts = Counter({"exact": 0, "covered": 0, "overlapped": 0, "missed": 0})
    for record, spans in zip(r.records, r.spans, strict=True):
        for g in record["spans"]:
            if any(s.start == g["start"] and s.end == g["end"] for s in spans):
                counts["exact"] += 1
            elif any(s.start <= g["start"] and s.end >= g["end"] for s in spans):
                counts["covered"] += 1
            elif any(s.start < g["end"] and s.end > g["start"] for s in spans):
                counts["overlapped"] += 1
            else:
                counts["missed"] += 1
    total = sum(counts.values())
    found = (counts["exact"] + counts["covered"]) / max(1, total)
    return {"gold_spans": total, **counts, "found_exact_or_covered": found}


# -- (c) edges ---------------------------------------------------------------------------------------


def edges(r: Run) -> dict[str, Any]:
    """Predicted spans breaking the edge rule, by reason; and the gold's own count for reference."""
    reasons: Counter[str] = Counter()
    bad = predicted = gold_bad = gold_total = 0
    for record, spans in zip(r.records, r.spans, strict=True):
        predicted += len(spans)
        found = edge_violations(record["text"], spans)
        bad += len({id(s) for s, _ in found})
        reasons.update(reason for _, reason in found)
        gold_spans = [g for g in record.get("spans", []) if g.get("category") != "OTHER"]
        gold_total += len(gold_spans)
        gold_bad += len({id(g) for g, _ in edge_violations(record["text"], gold_spans)})
    return {
        "predicted_spans": predicted,
        "spans_breaking_the_rule": bad,
        "by_reason": dict(reasons.most_common()),
        "gold_spans": gold_total,
        "gold_spans_breaking_the_rule": gold_bad,
    }


# -- data -------------------------------------------------------------------------------------------


def default_data_dir() -> Path:
    """`../shared/data` beside the repo; from a git worktree (`wt/NAME`), the same folder one level further up."""
    for base in (REPO.parent, *REPO.parent.parents):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return DEFAULT_DATA


def read_examples(folder: Path) -> list[dict]:
    """The bundled examples as gold records (BRAT `.ann` read by radeid's own parser)."""
    records = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        parsed = parse_brat_ann(txt.with_suffix(".ann").read_text(encoding="utf-8"), text)
        spans = [{"start": s.start, "end": s.end, "category": s.category.value} for s in parsed.spans]
        records.append({"id": f"examples/{txt.stem}", "text": text, "spans": spans})
    return records


def load_sets(data_dir: Path, synth: Path | None, limit: int | None) -> dict[str, list[dict]]:
    files = {
        "openi_iu": data_dir / "openi_iu_reports.dev.jsonl",
        "mtsamples": data_dir / "mtsamples_subset.jsonl",
        "presidio_synth": data_dir / "presidio_synth.dev.jsonl",
        "traps": TRAPS,
    }
    if synth is not None:
        files["synth"] = synth
    sets: dict[str, list[dict]] = {}
    for name, path in files.items():
        if not path.exists():
            print(f"note: {path} not found; {name} skipped", file=sys.stderr)
            continue
        sets[name] = list(read_jsonl(path))
    sets["examples"] = read_examples(EXAMPLES)
    # the traps and the examples are small and fast: always whole, so a quick run still covers every class
    return {n: recs[:limit] if limit and n not in ("traps", "examples") else recs for n, recs in sets.items()}


# -- report -----------------------------------------------------------------------------------------


def evaluate(deid: Deidentifier, sets: dict[str, list[dict]]) -> tuple[dict[str, Any], dict[str, Run]]:
    runs = {name: run(deid, records) for name, records in sets.items()}
    out: dict[str, Any] = {"docs_per_s": {n: len(r.records) / max(r.seconds, 1e-9) for n, r in runs.items()}}
    if "openi_iu" in runs:
        openi = runs["openi_iu"]
        half = subset(openi, [held_out(str(rec["id"])) for rec in openi.records])
        out["openi_iu"] = {
            "all": changes(openi, PLACEHOLDERS) | {"fp_tokens_per_100_reports": _fp(openi)},
            "held_out_half": changes(half, PLACEHOLDERS) | {"fp_tokens_per_100_reports": _fp(half)},
        }
    if "mtsamples" in runs:
        found = distinct_spans(runs["mtsamples"])
        out["mtsamples"] = changes(runs["mtsamples"]) | {
            "spans": sum(found.values()),
            "distinct_span_texts": len(found),
            "distinct_span_texts_by_category": dict(Counter(c for c, _ in found).most_common()),
        }
    if "traps" in runs:
        out["traps"] = trap_figures(runs["traps"])
    out["edges"] = {name: edges(r) for name, r in runs.items()}
    out["token_scores"] = {
        name: score_labelled_spans(runs[name].records, runs[name].spans, runs[name].seconds)
        for name in ("presidio_synth", "synth", "examples")
        if name in runs
    }
    return out, runs


def _fp(r: Run) -> float:
    return score_phi_free_spans(r.records, r.spans, None)["fp_tokens_per_100_reports"]


def _f(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def print_report(fig: dict[str, Any], runs: dict[str, Run], show: bool) -> None:
    if "openi_iu" in fig:
        print("\n(a) changed tokens on PHI-free prose (surrogate mode)")
        print(f"  {'set':<26}{'docs':>6}{'changed/100':>13}{'docs changed':>14}{'fp tok/100':>12}")
        for part, res in fig["openi_iu"].items():
            print(
                f"  {'openi_iu ' + part:<26}{res['docs']:>6}{_f(res['changed_tokens_per_100_reports']):>13}"
                f"{res['docs_with_a_change']:>14}{_f(res['fp_tokens_per_100_reports']):>12}"
            )
            print(f"    by category: {res['changed_tokens_by_category']}")
    if "mtsamples" in fig:
        res = fig["mtsamples"]
        print(
            f"  {'mtsamples':<26}{res['docs']:>6}{_f(res['changed_tokens_per_100_reports']):>13}"
            f"{res['docs_with_a_change']:>14}{'-':>12}"
        )
        print(f"    by category: {res['changed_tokens_by_category']}")
        print(
            f"    {res['spans']} spans, {res['distinct_span_texts']} distinct (category, text): "
            f"{res['distinct_span_texts_by_category']}"
        )
        if show:
            print("    count  category  text   (published sample texts: check genuine names/dates vs false positives)")
            listing = sorted(distinct_spans(runs["mtsamples"]).items(), key=lambda kv: (-kv[1], kv[0]))
            for (category, text), n in listing:
                print(f"    {n:>5}  {category:<9} {text}")
    if "traps" in fig:
        res = fig["traps"]
        print(
            f"\n(b) trap lines: {res['phi_free_lines_with_a_span']} of {res['phi_free_lines']} PHI-free lines get a "
            f"span; {res['changed_numeric_tokens']} numeric tokens outside gold PHI altered"
        )
        print(f"  {'class':<26}{'lines':>6}{'with span':>11}{'spans':>7}{'numbers changed':>17}")
        for cls, row in sorted(res["per_class"].items()):
            print(
                f"  {cls:<26}{row['lines']:>6}{row['lines_with_a_span']:>11}{row['spans']:>7}"
                f"{row['changed_numeric_tokens']:>17}"
            )
        print(f"  spans on PHI-free lines by source: {res['phi_free_spans_by_source']}")
        adj = res["phi_adjacent"]
        print(
            f"  phi_adjacent: {adj['gold_spans']} gold spans: {adj['exact']} exact, {adj['covered']} covered, "
            f"{adj['overlapped']} overlapped only, {adj['missed']} missed; token recall {_f(adj['token']['recall'])}, "
            f"precision {_f(adj['token']['precision'])}"
        )
        if show:
            print("  spans on PHI-free trap lines (invented text):")
            for item in res["_offenders"]:
                print(f"    {item['id']:<34} {item['category']:<9} {item['source']:<22} {item['text']!r}")
    print("\n(c) spans breaking the edge rule")
    print(f"  {'set':<16}{'spans':>7}{'breaking':>10}{'gold':>7}{'gold breaking':>15}  reasons")
    for name, res in fig["edges"].items():
        print(
            f"  {name:<16}{res['predicted_spans']:>7}{res['spans_breaking_the_rule']:>10}{res['gold_spans']:>7}"
            f"{res['gold_spans_breaking_the_rule']:>15}  {res['by_reason']}"
        )
    if fig["token_scores"]:
        print("\n(d) binary token scores (as benchmarks/accuracy.py)")
        print(f"  {'set':<16}{'docs':>6}{'precision':>11}{'recall':>9}{'f1':>8}{'span recall':>13}")
        for name, res in fig["token_scores"].items():
            print(
                f"  {name:<16}{res['docs']:>6}{_f(res['precision']):>11}{_f(res['recall']):>9}{_f(res['f1']):>8}"
                f"{_f(res['span_recall']):>13}"
            )
    print("\n  docs/s: " + ", ".join(f"{n} {_f(v)}" for n, v in fig["docs_per_s"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a config file merged over the defaults")
    parser.add_argument("--no-model", action="store_true", help="rules + lexicons only (no transformer)")
    parser.add_argument("--data-dir", type=Path, default=None, help="the shared data folder (default ../shared/data)")
    parser.add_argument("--synth", type=Path, default=None, help="a held-out labelled set from `radeid synth`")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents of each set")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write every figure as JSON")
    parser.add_argument("--show", action="store_true", help="print mtsamples span texts and trap false positives")
    args = parser.parse_args()
    if args.synth is not None and not args.synth.exists():
        parser.error(f"--synth: no such file {args.synth}")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    sets = load_sets(args.data_dir or default_data_dir(), args.synth, args.limit)
    deid = build(args.config, args.no_model)
    fig, runs = evaluate(deid, sets)
    fig["pipeline"] = {"detectors": list(deid.config.pipeline.detectors), "mode": "surrogate", "limit": args.limit}
    print(f"pipeline: {', '.join(deid.config.pipeline.detectors)} (surrogate mode, fixed test key)")
    print_report(fig, runs, args.show)
    if args.json is not None:
        public = dict(fig)
        if "traps" in public:  # trap text is invented, but keep the JSON free of any text all the same
            public["traps"] = {k: v for k, v in public["traps"].items() if not k.startswith("_")}
        args.json.write_text(json.dumps(public, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
