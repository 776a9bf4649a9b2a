"""Ensembles of detectors on our data: the table of Horng et al. (token-level voting of several
de-identifiers) for radeid's members.

Rows: each member alone, all members straight into the resolver (the pipeline without an
ensemble), vote:1, vote:2, vote:all, weighted, and the learned combiners (decision tree, Gaussian
naive Bayes, AdaBoost over depth-3 trees). Every row's spans go through the default resolver (what
`radeid detect` would output with that detector or ensemble). Scores: binary PHI token precision,
recall and F1 on the evaluation tokens (`radeid.core.tokens`), with 95% bootstrap intervals over
documents (`radeid.evaluate.bootstrap`), per data set.

Each member runs ONCE per document; its spans are cached (`--cache DIR`, JSONL per set and
member, keyed by the gold file's SHA-256 and by every file under src/radeid plus the member's
config section, so a changed member or model is run again) and every
strategy is evaluated from the cache. Seconds per document are reported per member (detection)
and per strategy (combining only, resolver excluded).

Learned combiners and the weighted strategy's weights are cross-fitted: documents of all sets are
split in two folds by a hash of (set, id); each fold is scored by a combiner fitted on the other,
so no document is scored by a combiner that saw it. Weighted: a member's weight for a category is
its unit precision for that category on the other fold, threshold 0.5 (a member alone counts
when it is right at least half the time, else it needs agreement).

    python benchmarks/ensembles.py                       # defaults below
    python benchmarks/ensembles.py --members rules,lexicon,transformer,presidio --limit 50
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from radeid.config.config import Config
from radeid.core.document import Document, Span
from radeid.detect.ensemble import Combiner, EnsembleDetector, UnitFeatures, gold_fingerprint, resolver_rank
from radeid.detect.ensemble.detector import protected_content
from radeid.detect.ensemble.training import build_members, training_rows
from radeid.evaluate.bootstrap import bootstrap
from radeid.evaluate.loading import GoldSet, load_gold
from radeid.evaluate.metrics import PHI, evaluate_documents
from radeid.resolve.resolver import Resolver

REPO = Path(__file__).resolve().parents[1]
PRESIDIO = REPO.parent / "shared" / "data" / "presidio_synth.dev.jsonl"
if not PRESIDIO.exists():
    PRESIDIO = Path("/work/shared/data/presidio_synth.dev.jsonl")
# held-out synthetic reports: radeid synth -n 300 --seed 2 --start 500000 -o runs/eval/synth_heldout.jsonl
HELDOUT = REPO / "runs" / "eval" / "synth_heldout.jsonl"
if not HELDOUT.exists():
    HELDOUT = Path("/work/main/runs/eval/synth_heldout.jsonl")
EXAMPLES = REPO / "examples"
MODELS = {"tree": "tree", "naive Bayes": "nb", "boosting": "boost"}


def gold_files(path: Path) -> list[Path]:
    """The gold file, or a folder's .txt/.ann pairs (other files there do not change the gold)."""
    return sorted([*path.glob("*.txt"), *path.glob("*.ann")]) if path.is_dir() else [path]


def fold_of(set_name: str, doc_id: str) -> int:
    return hashlib.sha256(f"{set_name}\0{doc_id}".encode()).digest()[0] % 2


def code_fingerprint(config: Config, member: str) -> str:
    """What a member's spans depend on besides the gold: radeid's code, data and models (every file
    under src/radeid) and the member's config section, so a changed member never reuses old spans."""
    digest = hashlib.sha256(repr(config.detectors.get(member)).encode())
    package = REPO / "src" / "radeid"
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def cached_member_spans(
    cache: Path, set_name: str, fingerprint: str, member: str, detector: object, docs: Sequence[Document], batch: int
) -> tuple[list[list[Span]], float]:
    """The member's spans per document (from the cache when there), and seconds per document."""
    path = cache / f"{set_name}.{fingerprint}.{member}.spans.jsonl"
    if path.exists():
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        header, rows = lines[0], lines[1:]
        if [r["id"] for r in rows] == [d.id for d in docs]:
            return [[Span.from_dict(s) for s in r["spans"]] for r in rows], float(header["seconds_per_doc"])
    found: list[list[Span]] = []
    start = time.perf_counter()
    for i in range(0, len(docs), batch):
        found.extend(detector.detect(docs[i : i + batch]))  # type: ignore[attr-defined]
    per_doc = (time.perf_counter() - start) / max(1, len(docs))
    cache.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"member": member, "seconds_per_doc": per_doc}) + "\n")
        for doc, spans in zip(docs, found, strict=True):
            out.write(json.dumps({"id": doc.id, "spans": [s.to_dict() for s in spans]}) + "\n")
    return found, per_doc


def precision_weights(
    rows: Sequence[tuple[int, ...]], labels: Sequence[str], members: Sequence[str], features: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Per member and category: the share of units it calls that category that are PHI in the gold."""
    weights: dict[str, dict[str, float]] = {}
    for m in members:
        for j, name in enumerate(features):
            if not name.startswith(f"{m}="):
                continue
            said = [label for row, label in zip(rows, labels, strict=True) if row[j]]
            if said:
                weights.setdefault(m, {})[name.split("=", 1)[1]] = sum(lab != "O" for lab in said) / len(said)
    return weights


def score(gold: GoldSet, predicted: dict[str, list[Span]], resamples: int) -> dict[str, tuple[float, float, float]]:
    result = evaluate_documents(gold.documents, predicted, ignored=gold.ignored)
    boot = bootstrap(result, resamples, seed=0, levels=("token",))
    out = {}
    for metric in ("precision", "recall", "f1"):
        interval = boot.get("token", PHI, metric)
        assert interval is not None
        out[metric] = (interval.point, interval.low, interval.high)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presidio", type=Path, default=PRESIDIO, help="presidio_synth dev JSONL")
    parser.add_argument("--heldout", type=Path, default=HELDOUT, help="held-out synthetic reports JSONL")
    parser.add_argument("--examples", type=Path, default=EXAMPLES, help="folder of bundled .txt/.ann examples")
    parser.add_argument("--members", default="rules,lexicon,transformer")
    parser.add_argument("--config", type=Path, default=None, help="config for the members' sections")
    parser.add_argument("--limit", type=int, default=0, help="first N documents of each set (0: all)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=REPO / "runs" / "ensembles-cache")
    parser.add_argument("--json", type=Path, default=None, help="also write the table as JSON")
    args = parser.parse_args(argv)

    config = Config.load(args.config)
    members = [m.strip() for m in args.members.split(",") if m.strip()]
    detectors = build_members(config, members)
    resolver = Resolver.from_config(config)
    rank = resolver_rank(config.resolver)
    features = UnitFeatures(members, protected_content(config))

    sets: dict[str, GoldSet] = {}
    for name, path in (
        ("presidio_synth.dev", args.presidio),
        ("synth held-out", args.heldout),
        ("examples", args.examples),
    ):
        if not path.exists():
            print(f"skipping {name}: {path} not found", file=sys.stderr)
            continue
        gold = load_gold(path)
        if args.limit:
            gold.documents = gold.documents[: args.limit]
        sets[name] = gold
    fingerprints = {name: gold_fingerprint(gold_files(p)) for name, p in (("presidio_synth.dev", args.presidio),
                    ("synth held-out", args.heldout), ("examples", args.examples)) if name in sets}  # fmt: skip

    member_spans: dict[str, list[list[list[Span]]]] = {}  # set -> doc -> member -> spans
    speed: dict[str, dict[str, float]] = {m: {} for m in members}  # member -> set -> seconds per document
    code = {member: code_fingerprint(config, member)[:12] for member in members}
    for name, gold in sets.items():
        docs = [Document(d.id, d.text, d.patient_id) for d in gold.documents]
        per_member = []
        for member, detector in zip(members, detectors, strict=True):
            spans, per_doc = cached_member_spans(
                args.cache,
                name.replace(" ", "_"),
                f"{fingerprints[name][:12]}.{code[member]}",
                member,
                detector,
                docs,
                config.pipeline.batch_size,
            )
            per_member.append(spans)
            speed[member][name] = per_doc
            print(f"{name}: {member} {per_doc * 1000:.1f} ms/doc", file=sys.stderr)
        member_spans[name] = [list(found) for found in zip(*per_member, strict=True)]

    # cross-fitting: training rows per fold over every set
    fold_rows: list[tuple[list[tuple[int, ...]], list[str]]] = []
    for fold in (0, 1):
        rows: list[tuple[int, ...]] = []
        labels: list[str] = []
        for name, gold in sets.items():
            picked = [i for i, d in enumerate(gold.documents) if fold_of(name, d.id) == fold]
            r, lab = training_rows(
                [gold.documents[i] for i in picked],
                [member_spans[name][i] for i in picked],
                features,
                rank,
                gold.ignored,
            )
            rows.extend(r)
            labels.extend(lab)
        fold_rows.append((rows, labels))

    def fitted(model: str, fold: int) -> Combiner:
        rows, labels = fold_rows[1 - fold]  # fitted on the other fold
        return Combiner.fit(members, model, features.names, rows, labels)

    strategies: dict[str, list[EnsembleDetector]] = {}  # row -> [detector for fold 0, for fold 1]
    n = len(members)
    for label, strategy in (("vote:1", "vote:1"), ("vote:2", "vote:2"), ("vote:all", "vote:all")):
        if strategy == "vote:2" and n < 2:
            continue
        det = EnsembleDetector(detectors, strategy, names=members, rank=rank)
        strategies[label] = [det, det]
    strategies["weighted (precision, >= 0.5)"] = [
        EnsembleDetector(
            detectors,
            "weighted",
            names=members,
            weights=precision_weights(*fold_rows[1 - fold], members, features.names),
            threshold=0.5,
            rank=rank,
        )
        for fold in (0, 1)
    ]
    for label, model in MODELS.items():
        strategies[label] = [
            EnsembleDetector(
                detectors, "learned", names=members, combiner=fitted(model, f), features=features, rank=rank
            )
            for f in (0, 1)
        ]

    table: dict[str, dict[str, object]] = {}
    for i, member in enumerate(members):
        table[member] = {"seconds_per_doc": speed[member], "sets": {}}
        for name, gold in sets.items():
            predicted = {d.id: resolver.resolve(d.text, member_spans[name][j][i]) for j, d in enumerate(gold.documents)}
            table[member]["sets"][name] = score(gold, predicted, args.resamples)  # type: ignore[index]
    # what the pipeline does without an ensemble: every member's spans straight into the resolver
    union = f"{'+'.join(members)}, no ensemble"
    table[union] = {"seconds_per_doc": {name: 0.0 for name in sets}, "sets": {}}
    for name, gold in sets.items():
        predicted = {
            d.id: resolver.resolve(d.text, [s for found in member_spans[name][j] for s in found])
            for j, d in enumerate(gold.documents)
        }
        table[union]["sets"][name] = score(gold, predicted, args.resamples)  # type: ignore[index]
    for label, pair in strategies.items():
        table[label] = {"sets": {}, "seconds_per_doc": {}}
        for name, gold in sets.items():
            seconds = 0.0
            predicted = {}
            for j, d in enumerate(gold.documents):
                det = pair[fold_of(name, d.id)]
                start = time.perf_counter()
                spans = det.combine(d.text, member_spans[name][j])
                seconds += time.perf_counter() - start
                predicted[d.id] = resolver.resolve(d.text, spans)
            table[label]["sets"][name] = score(gold, predicted, args.resamples)  # type: ignore[index]
            table[label]["seconds_per_doc"][name] = seconds / len(gold.documents)  # type: ignore[index]
    print_table(table, list(sets), {name: len(g.documents) for name, g in sets.items()})
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")


def print_table(table: dict[str, dict[str, object]], sets: list[str], sizes: dict[str, int]) -> None:
    def cell(v: tuple[float, float, float]) -> str:
        return f"{v[0]:.3f} ({v[1]:.3f}-{v[2]:.3f})"

    for name in sets:
        print(f"\n{name} ({sizes[name]} documents): token P / R / F1 (binary PHI), 95% bootstrap intervals\n")
        print("| system | precision | recall | F1 | ms/doc (members: detection; ensembles: combining only) |")
        print("|---|---|---|---|---|")
        for row, data in table.items():
            s = data["sets"][name]  # type: ignore[index]
            ms = float(data["seconds_per_doc"][name]) * 1000  # type: ignore[index]
            speed = f"{ms:.2f}" if "no ensemble" not in row else "-"  # nothing combined: resolver only
            print(f"| {row} | {cell(s['precision'])} | {cell(s['recall'])} | {cell(s['f1'])} | {speed} |")


if __name__ == "__main__":
    main()
