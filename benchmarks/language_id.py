"""`--lang auto` on mixed input: how often each document gets the right pack, what it costs, and the
PHI found with `auto` against one fixed language for every document.

Sets: English = Presidio's synthetic dev split and Open-i's real chest X-ray reports (first `--n` of
each) and the bundled examples; Spanish = MEDDOCAN's held-out fifth (never trained on); any more as
`--set FILE:CODE` (gold JSONL, e.g. a German set). Identification reads each document alone.
The detection figures are binary token precision and recall on the labelled sets (Open-i has no
gold PHI and is left out of them), with the model unless `--no-model`.

    python benchmarks/language_id.py [--n 300] [--no-model] [--set tests/data/de_reports.jsonl:de]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter
from pathlib import Path

from language import heldout_meddocan

from radeid.config import Config
from radeid.core.document import Document
from radeid.evaluate.metrics import evaluate_documents
from radeid.pipeline.language_id import LanguageIdentifier
from radeid.pipeline.multilingual import build_deidentifier
from radeid.synth.goldio import read_gold

ROOT = Path(__file__).resolve().parents[1]


def _sets(data_dir: Path, n: int, extra: list[str]) -> list[tuple[str, str, list[Document], bool]]:
    """(name, true language, documents, labelled)."""
    sets = [
        ("presidio_synth", "en", list(read_gold(data_dir / "presidio_synth.dev.jsonl", None, None))[:n], True),
        ("openi", "en", list(read_gold(data_dir / "openi_iu_reports.dev.jsonl", None, None))[:n], False),
        ("meddocan_heldout", "es", heldout_meddocan(data_dir), True),
    ]
    for item in extra:
        path, _, code = item.rpartition(":")
        sets.append((Path(path).stem, code, list(read_gold(Path(path), None, None)), True))
    return sets


def _identify(sets: list[tuple[str, str, list[Document], bool]]) -> None:
    identifier = LanguageIdentifier(sorted({code for _, code, _, _ in sets} | {"en", "es", "de"}), "en")
    identifier.identify("warm up the models")
    print(f"{'set':<18}{'true':>5}{'docs':>6}{'right':>8}  got                      ms/doc")
    for name, code, docs, _ in sets:
        began = time.perf_counter()
        got = Counter(identifier.identify(d.text) for d in docs)
        ms = 1000 * (time.perf_counter() - began) / max(len(docs), 1)
        share = got[code] / max(len(docs), 1)
        print(f"{name:<18}{code:>5}{len(docs):>6}{share:>8.3f}  {dict(got)!s:<24}{ms:>7.2f}")


def _binary(config: Config, docs: list[Document]) -> tuple[float, float]:
    deid = build_deidentifier(config)
    bare = [dataclasses.replace(d, spans=()) for d in docs]
    spans = [s for i in range(0, len(bare), 16) for s in deid.detect(bare[i : i + 16])]
    figures = evaluate_documents(docs, {d.id: s for d, s in zip(docs, spans, strict=True)}).to_dict()
    row = figures["levels"]["token"]["PHI"]
    return row["precision"], row["recall"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="documents per English set")
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--set", action="append", default=[], help="FILE:CODE, a labelled set of another language")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    sets = _sets(args.data_dir, args.n, args.set)
    _identify(sets)
    print(f"\nbinary token precision / recall ({'no model' if args.no_model else 'with the model'})")
    labelled = [(name, code, docs) for name, code, docs, gold in sets if gold]
    languages = ["auto", *dict.fromkeys(code for _, code, _ in labelled)]
    print(f"{'set':<18}" + "".join(f"{'--lang ' + c:>16}" for c in languages))
    for name, _code, docs in labelled:
        cells = []
        for lang in languages:
            overrides: dict = {"pipeline": {"language": lang}}
            if args.no_model:
                overrides["pipeline"]["detectors"] = ["rules", "lexicon"]
            p, r = _binary(Config.load(overrides=overrides), docs)
            cells.append(f"{p:.3f} / {r:.3f}")
        print(f"{name:<18}" + "".join(f"{c:>16}" for c in cells))


if __name__ == "__main__":
    main()
