"""Build the training and validation sets for the default model (`python -m radeid.train.trainset`).

Training: `--n-train` synthetic documents (`radeid synth` with extras, seed `--train-seed`) plus
the PHI-free prose documents of `prose.py` (the `train` bucket of the sha1-even half of Open-i and
MTSamples). Validation: `--n-val` synthetic documents (seed `--val-seed`) plus the prose `val`
bucket (same half, disjoint documents). Seeds 2, 9001 and 4242 are refused: they are used for
held-out synthetic evaluation. Writes gzip-compressed gold JSONL and prints the counts.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from radeid.core import metakeys
from radeid.core.document import Document

__all__ = ["EVAL_SEEDS", "build", "main"]

#: Seeds of held-out synthetic evaluation sets: never train or validate on them.
EVAL_SEEDS = frozenset({2, 9001, 4242})
DATA = Path("/work/shared/data")


def _write(docs: Iterable[Document], path: Path) -> dict[str, object]:
    from radeid.synth.goldio import gold_record

    n = 0
    spans: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as handle:
        for doc in docs:
            record = gold_record(doc)
            if not doc.spans:
                record["phi_free"] = True
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
            spans.update(s.category.value for s in doc.spans)
            sources[str(doc.metadata.get(metakeys.ORIGIN) or doc.metadata.get(metakeys.SOURCE) or "")] += 1
    return {"documents": n, "by_source": dict(sources), "spans": dict(spans.most_common())}


def build(
    out: Path,
    n_train: int = 6000,
    n_val: int = 400,
    train_seed: int = 7,
    val_seed: int = 8,
    extras: float = 1.0,
    openi: Path | None = DATA / "openi_iu_reports.dev.jsonl",
    mtsamples: Path | None = DATA / "mtsamples_subset.jsonl",
) -> dict[str, object]:
    from radeid.synth.generate import SynthOptions, generate
    from radeid.train.prose import load_prose

    if train_seed in EVAL_SEEDS or val_seed in EVAL_SEEDS or train_seed == val_seed:
        raise ValueError(f"seeds must differ and avoid {sorted(EVAL_SEEDS)}")
    report: dict[str, object] = {"train_seed": train_seed, "val_seed": val_seed, "extras": extras}
    for part, n, seed in (("train", n_train, train_seed), ("val", n_val, val_seed)):
        stats: dict[str, int] = {}
        synth = generate(n, SynthOptions(seed=seed, extras=extras, id_prefix=f"synth{part}"))
        prose = list(load_prose(openi, mtsamples, part, stats))
        report[part] = _write([*synth, *prose], out / f"{part}.jsonl.gz")
        report[f"{part}_prose"] = stats
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for train.jsonl.gz and val.jsonl.gz")
    ap.add_argument("--n-train", type=int, default=6000)
    ap.add_argument("--n-val", type=int, default=400)
    ap.add_argument("--train-seed", type=int, default=7)
    ap.add_argument("--val-seed", type=int, default=8)
    ap.add_argument("--extras", type=float, default=1.0)
    ap.add_argument("--openi", type=Path, default=DATA / "openi_iu_reports.dev.jsonl")
    ap.add_argument("--mtsamples", type=Path, default=DATA / "mtsamples_subset.jsonl")
    a = ap.parse_args(argv)
    report = build(a.out, a.n_train, a.n_val, a.train_seed, a.val_seed, a.extras, a.openi, a.mtsamples)
    (a.out / "data.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
