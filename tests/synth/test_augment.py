"""Augmentation keeps labels aligned, changes the PHI, loses nothing; bad input fails clearly."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from radeid.core.document import Document
from radeid.synth.augment import AugmentOptions, augment
from radeid.synth.goldio import GoldDataError, read_gold, write_gold_jsonl

KEY = b"0123456789abcdef0123456789abcdef"


def test_augment_keeps_spans_aligned_and_changes_phi(corpus: list[Document]) -> None:
    docs = corpus[:60]
    stats: Counter[str] = Counter()
    out = list(augment(docs, KEY, AugmentOptions(copies=2, typo_rate=0.1), stats))
    assert len(out) == 3 * len(docs)
    changed = total = 0
    for i, doc in enumerate(docs):
        original, *copies = out[3 * i : 3 * i + 3]
        assert original is doc
        for copy in copies:
            assert copy.metadata["augmented_from"] == doc.id
            assert len(copy.spans) == len(doc.spans)
            for old, new in zip(doc.spans, copy.spans, strict=True):
                assert new.category is old.category and new.subtype == old.subtype
                assert copy.text[new.start : new.end]
                total += 1
                changed += copy.text[new.start : new.end] != doc.text[old.start : old.end]
        assert copies[0].text != copies[1].text
    assert changed / total > 0.95


def test_augment_is_deterministic_per_key(corpus: list[Document]) -> None:
    a = [d.text for d in augment(corpus[:5], KEY, AugmentOptions(copies=1, keep_original=False))]
    b = [d.text for d in augment(corpus[:5], KEY, AugmentOptions(copies=1, keep_original=False))]
    c = [d.text for d in augment(corpus[:5], KEY[::-1], AugmentOptions(copies=1, keep_original=False))]
    assert a == b and a != c


def test_round_trip_through_jsonl(tmp_path: Path, corpus: list[Document]) -> None:
    path = tmp_path / "gold.jsonl"
    assert write_gold_jsonl(corpus[:30], path) == 30
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    for row in rows:
        assert set(row) == {"id", "text", "spans", "source", "kind", "patient_id"}
        assert row["source"] == "radeid-synth"
        for s in row["spans"]:
            assert row["text"][s["start"] : s["end"]] == s["text"]
    back = list(read_gold(path))
    assert [(d.id, d.text, d.spans) for d in back] == [(d.id, d.text, d.spans) for d in corpus[:30]]
    assert back[0].metadata["columns"]["kind"] == corpus[0].metadata["kind"]


def test_malformed_line_names_the_line(tmp_path: Path, corpus: list[Document]) -> None:
    path = tmp_path / "bad.jsonl"
    write_gold_jsonl(corpus[:3], path)
    lines = path.read_text("utf-8").splitlines()
    lines.insert(2, '{"id": "broken", "text": ')
    path.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(GoldDataError, match=r"line 3.*malformed JSON"):
        list(read_gold(path))


def test_bad_span_and_overlap_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_text(
        json.dumps({"id": "a", "text": "Seen by Ann", "spans": [{"start": 8, "end": 99, "label": "HCW"}]}) + "\n"
    )
    with pytest.raises(GoldDataError, match="line 1"):
        list(read_gold(path))
    spans = [{"start": 0, "end": 4, "label": "HCW"}, {"start": 2, "end": 6, "label": "DATE"}]
    path.write_text(json.dumps({"id": "b", "text": "Seen by Ann", "spans": spans}) + "\n")
    with pytest.raises(GoldDataError, match="overlap"):
        list(read_gold(path))


def test_cli_synth_and_augment(tmp_path: Path) -> None:
    import typer

    from radeid.cli.synth import register

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    out = tmp_path / "s.jsonl"
    res = runner.invoke(app, ["synth", "-n", "12", "-o", str(out), "--seed", "4", "--kinds", "ct,ultrasound"])
    assert res.exit_code == 0, res.output
    aug = tmp_path / "a.jsonl"
    res = runner.invoke(app, ["augment", str(out), "-o", str(aug), "--copies", "2", "--seed", "1", "--typos", "0.1"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in aug.read_text("utf-8").splitlines()]
    assert len(rows) == 36 and {r["kind"] for r in rows} == {"ct", "ultrasound"}
    assert all(r["text"][s["start"] : s["end"]] == s["text"] for r in rows for s in r["spans"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(out.read_text("utf-8") + "not json\n", "utf-8")
    res = runner.invoke(app, ["augment", str(bad), "-o", str(tmp_path / "x.jsonl"), "--seed", "1"])
    assert res.exit_code == 1 and "line 13" in " ".join(res.output.split())  # rich wraps long paths
    res = runner.invoke(app, ["synth", "-n", "2", "-o", str(out), "--kinds", "nope"])
    assert res.exit_code == 2
