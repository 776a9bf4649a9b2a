"""Per-language accuracy: token and span (exact and overlapping) precision, recall and F1 per category
on a language's held-out labelled documents, run with that language's pack (as `radeid deid --lang CODE`).

Spanish: MEDDOCAN's held-out fifth (`radeid.evaluate.splits.meddocan_split`: 158 documents the Spanish
model never saw), ages of 89 or less dropped from the gold (radeid's policy: only ages over 89 are
PHI), professions and sex scored as neither (the `meddocan` label map). The integrity figures of the
same documents (the veto audit, edges) come from `benchmarks/integrity.py --sets meddocan`.

    python benchmarks/language.py                       # Spanish pack, with its model
    python benchmarks/language.py --no-model            # Spanish pack, rules and word lists only
    python benchmarks/language.py --lang en             # the same documents through the English pipeline
    python benchmarks/language.py --data-dir DIR --json es.json

German: reports and doctor's letters written by hand for the German pack (`tests/data/make_de_reports.py`;
no German training corpus exists, so the German pack is rules and word lists, and runs no model unless
`--model` names one). Three sets: `de` (15 reports the German rules were written against), `de2`
(8 written after the first rules, measured once, then used for one round of fixes; Austrian and Swiss
forms) and `de-heldout` (6 written after every rule change and never used to tune anything: the
honest figure).

    python benchmarks/language.py --lang de --set de-heldout                  # German pack
    python benchmarks/language.py --lang de --set de-heldout --model bundled  # ... with the English model
    python benchmarks/language.py --lang en --set de-heldout                  # the English pipeline
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from radeid.config import Config
from radeid.core.document import Document
from radeid.evaluate.metrics import evaluate_documents
from radeid.evaluate.splits import meddocan_split, without_policy_ages
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.goldio import read_gold


def heldout_meddocan(data_dir: Path) -> list[Document]:
    """MEDDOCAN's held-out documents, ages of 89 or less taken out of the gold."""
    docs = []
    for doc in read_gold(data_dir / "meddocan.dev.jsonl", None, "meddocan"):
        if meddocan_split(doc.id) != "heldout":
            continue
        docs.append(without_policy_ages(doc))
    return docs


GERMAN_REPORTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "de_reports.jsonl"
GERMAN_SECOND = GERMAN_REPORTS.with_name("de_reports_2.jsonl")
GERMAN_HELDOUT = GERMAN_REPORTS.with_name("de_reports_heldout.jsonl")


def gold_set(name: str, data_dir: Path) -> tuple[str, list[Document]]:
    """The labelled documents of set `name` (`es`: MEDDOCAN held-out; `de`, `de2`, `de-heldout`: the
    German reports, see the module docstring)."""
    if name == "de":
        return "German reports", list(read_gold(GERMAN_REPORTS, None, None))
    if name == "de2":
        return "German reports, second set", list(read_gold(GERMAN_SECOND, None, None))
    if name == "de-heldout":
        return "German reports, held out", list(read_gold(GERMAN_HELDOUT, None, None))
    return "MEDDOCAN held-out", heldout_meddocan(data_dir)


def configured(lang: str, no_model: bool, model: str | None) -> Config:
    """Pack `lang`, without the model (`--no-model`) or with another one (`--model`, gate off)."""
    overrides: dict[str, dict[str, object]] = {"pipeline": {"language": lang}}
    if model is not None:
        overrides["detectors"] = {"transformer": {"model": model, "gate": False}}
    config = Config.load(overrides=overrides)
    if model is not None and "transformer" not in config.pipeline.detectors:
        detectors = (*config.pipeline.detectors, "transformer")
        config = dataclasses.replace(config, pipeline=dataclasses.replace(config.pipeline, detectors=detectors))
    if no_model:
        detectors = tuple(d for d in config.pipeline.detectors if d != "transformer")
        config = dataclasses.replace(config, pipeline=dataclasses.replace(config.pipeline, detectors=detectors))
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", default="es", help="the language pack to run (default es)")
    parser.add_argument(
        "--set", choices=("es", "de", "de2", "de-heldout"), default=None, help="the labelled set (default: --lang's)"
    )
    parser.add_argument("--no-model", action="store_true", help="rules and word lists only")
    parser.add_argument("--model", default=None, help="run this model (e.g. bundled) with the gate off")
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args()
    config = configured(args.lang, args.no_model, args.model)
    deid = Deidentifier(config)
    title, gold = gold_set(args.set or ("de" if args.lang == "de" else "es"), args.data_dir)
    bare = [dataclasses.replace(d, spans=()) for d in gold]
    began = time.perf_counter()
    spans = [s for i in range(0, len(bare), 16) for s in deid.detect(bare[i : i + 16])]
    seconds = time.perf_counter() - began
    result = evaluate_documents(gold, {d.id: s for d, s in zip(gold, spans, strict=True)})
    figures = result.to_dict()
    print(f"{title}: {len(gold)} documents, pack {args.lang!r}, detectors "
          f"{', '.join(config.pipeline.detectors)}, {len(gold) / seconds:.1f} docs/s")  # fmt: skip
    for level in ("token", "exact", "overlap"):  # word tokens; whole spans exactly; spans that overlap
        rows = figures["levels"][level]
        print(f"\n{level:<8}{'category':<10}{'precision':>10}{'recall':>8}{'f1':>7}{'gold':>7}")
        for name, row in rows.items():
            print(f"        {name:<10}{row['precision']:>10.3f}{row['recall']:>8.3f}{row['f1']:>7.3f}{row['gold']:>7}")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
