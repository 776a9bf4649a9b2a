"""Build the Spanish model's training, validation and held-out files from MEDDOCAN.

    python scripts/build_meddocan_trainset.py ../shared/data/meddocan.dev.jsonl OUT --copies 2

Split by document, never by sentence (`radeid.evaluate.splits.meddocan_split`): a document whose
`sha1(id) % 5 == 0` is held out (never trained on, never used to pick a checkpoint;
`benchmarks/integrity.py` and `benchmarks/language.py` score it); of the rest, `(h // 5) % 8 == 0` goes
to validation. Training documents are written once as they are and `--copies` more times with new
Spanish surrogates (`radeid augment` with the `es_ES` locale), so names, places and numbers vary while
the sentence around them stays real.

Ages: radeid's policy treats an age as PHI only above 89 (HIPAA), so MEDDOCAN's age spans of 89 or less
are dropped from the training labels (the model learns them as plain text, as the English model does);
ages above 89 stay AGE."""

from __future__ import annotations

import argparse
import gzip
import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from radeid.config.sections import SurrogateOptions
from radeid.core.document import Document
from radeid.evaluate.splits import meddocan_split, without_policy_ages
from radeid.synth.augment import AugmentOptions, augment
from radeid.synth.goldio import read_gold, write_gold_jsonl


def _gz(path: Path) -> Path:
    return path.with_name(path.name + ".gz")


def _write(docs: Iterable[Document], path: Path) -> int:
    tmp = path.with_suffix(".tmp.jsonl")
    count = write_gold_jsonl(docs, tmp)
    with tmp.open("rb") as src, gzip.open(_gz(path), "wb") as dst:
        dst.write(src.read())
    tmp.unlink()
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", type=Path, help="meddocan.dev.jsonl")
    parser.add_argument("out", type=Path, help="Folder for train/val/heldout .jsonl.gz")
    parser.add_argument("--copies", type=int, default=2, help="Surrogate re-renderings per training document.")
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    parts: dict[str, list[Document]] = {"train": [], "val": [], "heldout": []}
    for doc in read_gold(args.gold, None, "meddocan"):
        parts[meddocan_split(doc.id)].append(without_policy_ages(doc))
    key = hashlib.sha256(f"radeid-meddocan-trainset:{args.seed}".encode()).digest()
    options = AugmentOptions(copies=args.copies, keep_original=True, surrogate=SurrogateOptions(locale="es_ES"))
    stats: Counter[str] = Counter()
    train: Iterator[Document] = augment(parts["train"], key, options, stats)
    counts = {
        "train": _write(train, args.out / "train.jsonl"),
        "val": _write(parts["val"], args.out / "val.jsonl"),
        "heldout": _write(parts["heldout"], args.out / "heldout.jsonl"),
    }
    print(" ".join(f"{name}={n}" for name, n in counts.items()), f"(train originals {len(parts['train'])})")


if __name__ == "__main__":
    main()
