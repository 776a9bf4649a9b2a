"""Other de-identifiers as radeid detectors, each alone: speed and token accuracy on the shared data.

    python benchmarks/compare_peers.py                                  # every adapter whose extra is installed
    python benchmarks/compare_peers.py --detector presidio --detector spacy_ner --limit 200
    python benchmarks/compare_peers.py --config adapters.toml          # their [detectors.<name>] sections

Each detector is built by name from the registry (`radeid.detect.base.DETECTORS`) with the config's
section, run alone (no resolver, no protected-content veto) on `presidio_synth.dev.jsonl` (labelled:
binary PHI token precision/recall/F1, scored exactly as `benchmarks/accuracy.py` scores) and on the
PHI-free Open-i reports (false-positive tokens per 100 reports). `radeid` is the default pipeline's
detection for comparison, run on the same documents in the same process. Docs/s is detection time
only (model loading excluded), one process; "x radeid" is radeid's docs/s over the peer's, on
both sets together (above 1: radeid is faster).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import DEFAULT_DATA, find_data_sets, read_jsonl, score_spans  # noqa: E402

from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.base import build_detector  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402

ADAPTERS = ("presidio", "philter", "spacy_ner", "physionet_deid")


def overall_rate(by_set: dict[str, dict]) -> float | None:
    """Documents per second over every set a system ran on (total documents / total seconds)."""
    docs = sum(r.get("documents", 0) for r in by_set.values())
    seconds = sum(r.get("seconds", 0.0) for r in by_set.values())
    return docs / seconds if docs and seconds else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--config", type=Path, default=None, help="a radeid config with the adapters' sections")
    parser.add_argument("--detector", action="append", default=[], help="a registered detector (repeatable)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents of each set")
    parser.add_argument("--no-radeid", action="store_true", help="leave out the default pipeline's row")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    config = Config.load(args.config)
    sets = find_data_sets(args.data_dir, None)
    data = {name: list(read_jsonl(path))[: args.limit] for name, (path, _) in sets.items()}
    docs = {name: [Document(str(r["id"]), r["text"]) for r in records] for name, records in data.items()}
    rows: dict[str, dict] = {}
    runners = {} if args.no_radeid else {"radeid": Deidentifier(config).detect}
    for name in args.detector or ADAPTERS:
        t0 = time.perf_counter()
        try:
            runners[name] = build_detector(name, config).detect
        except ConfigError as error:
            print(f"note: {name} skipped: {error}", file=sys.stderr)
            continue
        print(f"{name}: built in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    for system, detect in runners.items():
        rows[system] = {}
        for set_name, (_, kind) in sets.items():
            start = time.perf_counter()
            predicted = detect(docs[set_name])
            seconds = time.perf_counter() - start
            rows[system][set_name] = {
                **score_spans(kind, data[set_name], predicted, seconds),
                "documents": len(docs[set_name]),
                "seconds": seconds,
            }
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| detector | presidio_synth P | R | F1 | docs/s | Open-i FP tokens/100 reports | docs/s | x radeid |")
    print("|---|---|---|---|---|---|---|---|")
    radeid_rate = overall_rate(rows.get("radeid", {}))
    for system, by_set in rows.items():
        lab, free = by_set.get("presidio_synth", {}), by_set.get("openi_iu", {})
        cells = [lab.get("precision"), lab.get("recall"), lab.get("f1"), lab.get("docs_per_s")]
        cells += [free.get("fp_tokens_per_100_reports"), free.get("docs_per_s")]
        shown = ["-" if c is None else (f"{c:.3f}" if c < 1 else f"{c:.1f}") for c in cells]
        rate = overall_rate(by_set)
        shown.append(f"{radeid_rate / rate:.2f}" if radeid_rate and rate else "-")
        print(f"| {system} | " + " | ".join(shown) + " |")
    print(f"\n{', '.join(f'{n}: {len(d)} docs' for n, d in data.items())}", file=sys.stderr)


if __name__ == "__main__":
    main()
