"""Learned combiners: deterministic fits, JSON files without pickle, the `radeid ensemble fit` command."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("sklearn", reason="learned combiners need scikit-learn")

from typer.testing import CliRunner  # noqa: E402

from radeid.cli.main import app  # noqa: E402
from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.config.sections import ResolverConfig  # noqa: E402
from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document, Span  # noqa: E402
from radeid.detect.base import build_detector  # noqa: E402
from radeid.detect.ensemble import Combiner, EnsembleDetector, UnitFeatures, resolver_rank  # noqa: E402
from radeid.detect.ensemble.combiner import MODELS, CombinerError  # noqa: E402
from radeid.detect.ensemble.training import training_rows, unit_labels  # noqa: E402


def table(seed: int = 1, n: int = 600) -> tuple[list[tuple[int, ...]], list[str]]:
    """Rows of 6 bits; the label is PATIENT when bit 0 is set, DATE when bit 1 is, else O (10% noise)."""
    rng = random.Random(seed)
    rows, labels = [], []
    for _ in range(n):
        row = tuple(rng.randint(0, 1) for _ in range(6))
        label = "PATIENT" if row[0] else "DATE" if row[1] else "O"
        if rng.random() < 0.1:
            label = rng.choice(["O", "PATIENT", "DATE"])
        rows.append(row)
        labels.append(label)
    return rows, labels


FEATURES = [f"f{i}" for i in range(6)]
EVERY_ROW = [tuple((i >> b) & 1 for b in range(6)) for i in range(64)]


@pytest.mark.parametrize("model", MODELS)
def test_fit_is_deterministic_and_survives_the_json_round_trip(model: str, tmp_path: Path) -> None:
    rows, labels = table()
    first = Combiner.fit(["a", "b"], model, FEATURES, rows, labels, {"gold_sha256": "x"})
    second = Combiner.fit(["a", "b"], model, FEATURES, rows, labels, {"gold_sha256": "x"})
    assert first.to_dict() == second.to_dict()
    predicted = first.predict(EVERY_ROW)
    assert predicted == second.predict(EVERY_ROW)
    path = tmp_path / "combiner.json"
    first.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "radeid-ensemble-combiner" and data["version"] == 1
    assert data["members"] == ["a", "b"] and data["model"] == model and data["features"] == FEATURES
    assert data["training"]["gold_sha256"] == "x" and data["sklearn"]
    assert sum(map(sum, data["counts"])) == 600 and len(data["rows"]) == len(set(rows)) <= 64
    loaded = Combiner.load(path)
    assert loaded.predict(EVERY_ROW) == predicted
    if model == "tree":  # the tree learns the rule under the noise
        assert [label for label, _ in predicted[:4]] == ["O", "PATIENT", "DATE", "PATIENT"]


def test_bad_combiner_files_are_named_and_refused(tmp_path: Path) -> None:
    rows, labels = table()
    good = Combiner.fit(["a"], "tree", FEATURES, rows, labels).to_dict()
    cases = {
        "notjson.json": "{not json",
        "format.json": json.dumps({**good, "format": "pickle"}),
        "model.json": json.dumps({**good, "model": "svm"}),
        "bits.json": json.dumps({**good, "rows": [[2] * 6] + good["rows"][1:]}),
        "counts.json": json.dumps({**good, "counts": good["counts"][:-1]}),
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        with pytest.raises(CombinerError, match=str(path)):
            Combiner.load(path)


class Fixed:
    def __init__(self, name: str, spans: dict[str, list[Span]]) -> None:
        self.name = name
        self.spans = spans

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        return [self.spans.get(d.id, []) for d in docs]


def test_learned_ensemble_follows_the_member_the_gold_agrees_with() -> None:
    """Member `good` finds the gold names; member `noisy` also calls the word after them a name."""
    docs, good, noisy = [], {}, {}
    names = ["Ann", "Bob", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal"]
    for i in range(40):
        name = names[i % len(names)]
        text = f"Seen by {name} today and again later."
        start = 8
        gold = [Span(start, start + 3, Category.PATIENT)]
        docs.append(Document(f"d{i}", text, spans=tuple(gold)))
        good[f"d{i}"] = [Span(start, start + 3, Category.PATIENT, source="good")]
        noisy[f"d{i}"] = [Span(start, start + 3, Category.HCW, source="noisy"),
                          Span(start + 4, start + 9, Category.PATIENT, source="noisy")]  # fmt: skip
    members = [Fixed("good", good), Fixed("noisy", noisy)]
    rank = resolver_rank(ResolverConfig())
    features = UnitFeatures(["good", "noisy"])
    spans = [[m.detect([d])[0] for m in members] for d in docs]
    rows, labels = training_rows(docs, spans, features, rank)
    combiner = Combiner.fit(["good", "noisy"], "tree", features.names, rows, labels)
    ensemble = EnsembleDetector(members, "learned", combiner=combiner, features=features, rank=rank)  # type: ignore[arg-type]
    found = ensemble.detect([Document(d.id, d.text) for d in docs[:3]])
    for doc, got in zip(docs[:3], found, strict=True):
        # the name comes back from both members, as PATIENT (the combiner's category, not noisy's
        # HCW); noisy's "today" is voted out
        assert sorted((s.start, s.end, s.category, s.source) for s in got) == [
            (8, 11, Category.PATIENT, "ensemble/learned:tree/good"),
            (8, 11, Category.PATIENT, "ensemble/learned:tree/noisy"),
        ], doc.id
    voted = EnsembleDetector(members, "vote:1").detect([Document("d0", docs[0].text)])[0]  # type: ignore[arg-type]
    assert (12, 17) in [(s.start, s.end) for s in voted]
    with pytest.raises(ConfigError, match="fitted for members good, noisy"):
        EnsembleDetector(members[::-1], "learned", combiner=combiner, features=features)  # type: ignore[arg-type]


def test_unit_labels_follow_token_overlap_and_skip_ignored_regions() -> None:
    units = [(0, 3), (4, 7), (8, 10), (11, 14)]
    gold = [Span(4, 10, Category.DATE), Span(12, 13, Category.ID)]
    assert unit_labels(units, gold) == ["O", "DATE", "DATE", "ID"]
    assert unit_labels(units, gold, [(0, 2)]) == [None, "DATE", "DATE", "ID"]


GOLD_TEXTS = [
    ("Patient: Maria Lopez\nMRN: 4839201\nExam date: 03/14/2021\nNo acute findings.", [(9, 20, "PATIENT"),
     (26, 33, "ID"), (45, 55, "DATE")]),
    ("Seen by Dr. Ahmed Khan on 05/02/2019 at Riverbend Hospital. Stable 4 mm nodule.", [(12, 22, "HCW"),
     (26, 36, "DATE"), (40, 58, "HOSPITAL")]),
    ("Compared with 11/30/2018. Discussed with Ivan Petrov at (555) 201-3344.", [(14, 24, "DATE"),
     (41, 52, "PATIENT"), (56, 70, "PHONE")]),
]  # fmt: skip


def test_cli_fit_on_a_tiny_gold_file_then_detect(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    with open(gold, "w", encoding="utf-8") as out:
        for i in range(8):
            text, spans = GOLD_TEXTS[i % 3]
            for s, e, _ in spans:
                assert text[s:e].strip() == text[s:e] and text[s:e]
            rows = [{"start": s, "end": e, "category": c} for s, e, c in spans]
            out.write(json.dumps({"id": f"g{i}", "text": text, "spans": rows}) + "\n")
    combiner = tmp_path / "combiner.json"
    result = CliRunner().invoke(
        app, ["ensemble", "fit", str(gold), "-o", str(combiner), "--members", "rules,lexicon", "--model", "tree"]
    )
    assert result.exit_code == 0, result.output
    for word in ("Maria", "Lopez", "4839201", "Khan", "Petrov"):
        assert word not in result.output
    assert "8 documents" in result.output
    data = json.loads(combiner.read_text(encoding="utf-8"))
    assert data["members"] == ["rules", "lexicon"] and data["model"] == "tree"
    assert data["training"]["gold_sha256"] == hashlib.sha256(gold.read_bytes()).hexdigest()
    assert data["training"]["documents"] == 8 and "PATIENT" in data["labels"]
    assert "Maria" not in combiner.read_text(encoding="utf-8")
    config = Config.load(
        overrides={
            "pipeline": {"detectors": ["ensemble"]},
            "detectors": {
                "ensemble": {"members": ["rules", "lexicon"], "strategy": "learned", "combiner": str(combiner)}
            },
        }
    )
    ensemble = build_detector("ensemble", config)
    text = GOLD_TEXTS[0][0]
    spans = ensemble.detect([Document("x", text)])[0]
    assert ("03/14/2021", Category.DATE) in [(text[s.start : s.end], s.category) for s in spans]
    # the combiner's members must be the ensemble's
    config = config.with_section("detectors.ensemble", members=("lexicon", "rules"))
    with pytest.raises(ConfigError, match=f"detectors.ensemble \\({combiner}\\).*fitted for members rules, lexicon"):
        build_detector("ensemble", config)


def test_cli_fit_refuses_bad_options(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "a", "text": "x", "spans": []}) + "\n", encoding="utf-8")
    runner = CliRunner()
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["ensemble", "fit", str(gold), "-o", str(out), "--model", "svm"])
    assert result.exit_code == 2 and "--model must be one of tree, nb, boost" in result.output
    result = runner.invoke(app, ["ensemble", "fit", str(gold), "-o", str(out), "--members", "rules,nosuch"])
    assert result.exit_code == 2 and "unknown member 'nosuch'" in result.output
    result = runner.invoke(app, ["ensemble", "fit", str(tmp_path / "none.jsonl"), "-o", str(out)])
    assert result.exit_code == 2 and "gold not found" in result.output
    assert not out.exists()


def test_the_run_fingerprint_covers_the_combiner_file(tmp_path: Path) -> None:
    """A resumed run must notice a refitted combiner (the spec hashes every file the config names)."""
    from radeid.pipeline.spec import PipelineSpec

    rows, labels = table()
    path = tmp_path / "combiner.json"
    Combiner.fit(["rules"], "tree", FEATURES, rows, labels).save(path)
    config = Config.load(
        overrides={
            "pipeline": {"detectors": ["ensemble"]},
            "detectors": {"ensemble": {"members": ["rules"], "strategy": "learned", "combiner": str(path)}},
            "replace": {"mode": "tag"},
        }
    )
    before = PipelineSpec(config).fingerprint()
    Combiner.fit(["rules"], "nb", FEATURES, rows, labels).save(path)
    assert PipelineSpec(config).fingerprint() != before


def test_a_combiner_from_another_scikit_learn_version_loads_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rows, labels = table()
    data = Combiner.fit(["a"], "tree", FEATURES, rows, labels).to_dict()
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**data, "sklearn": "0.0.1"}), encoding="utf-8")
    with caplog.at_level("WARNING", logger="radeid.detect.ensemble.combiner"):
        Combiner.load(path)
    assert "scikit-learn 0.0.1" in caplog.text and str(path) in caplog.text
    caplog.clear()
    path.write_text(json.dumps(data), encoding="utf-8")
    with caplog.at_level("WARNING", logger="radeid.detect.ensemble.combiner"):
        Combiner.load(path)
    assert caplog.text == ""
