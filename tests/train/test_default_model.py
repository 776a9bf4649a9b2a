"""The bundled default model: small enough, loads with ONNX Runtime alone, finds PHI with exact offsets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import radeid

FOLDER = Path(radeid.__file__).parent / "models" / "default"

pytestmark = pytest.mark.skipif(not (FOLDER / "model.onnx").exists(), reason="no bundled model")


def test_bundle_is_complete_and_under_25_mb() -> None:
    names = {p.name for p in FOLDER.iterdir()}
    assert {"model.onnx", "tokenizer.json", "radeid.json", "config.json", "MODEL_CARD.md"} <= names
    assert sum(p.stat().st_size for p in FOLDER.iterdir()) <= 25_000_000
    meta = json.loads((FOLDER / "radeid.json").read_text())
    assert meta["radeid_shape_features"]["version"] == 1 and meta["max_length"] == 256


def test_runs_without_torch_and_finds_phi() -> None:
    code = (
        "import sys\n"
        "for m in ('torch', 'transformers'): sys.modules[m] = None\n"
        "from radeid.detect.transformer import TransformerDetector\n"
        "from radeid.core.document import Document\n"
        f"det = TransformerDetector({str(FOLDER)!r})\n"
        "assert det.loaded.scorer.uses_shapes\n"
        "t = 'PATIENT NAME: Holloway, Marcus    MRN: 40718325\\nEXAM DATE: 03/14/2021\\n"
        "FINDINGS: No pleural effusion.'\n"
        "[spans] = det.detect([Document('d', t)])\n"
        "found = {(t[s.start:s.end], s.category.value) for s in spans}\n"
        "assert {('Holloway, Marcus', 'PATIENT'), ('40718325', 'ID'), ('03/14/2021', 'DATE')} <= found, found\n"
        "assert not any('effusion' in t[s.start:s.end] for s in spans)\n"
        "print('ok')\n"
    )
    assert run_python(code) == "ok"


def test_inference_imports_neither_torch_nor_the_training_package() -> None:
    """The bundled detector, built and run as the pipeline does, must not pull in `radeid.train` or torch."""
    code = (
        "import sys\n"
        "import radeid.detect.transformer\n"
        "from radeid.detect.transformer import TransformerDetector\n"
        "from radeid.core.document import Document\n"
        "det = TransformerDetector('bundled', backend='onnx')\n"
        "[spans] = det.detect([Document('d', 'Seen by Dr. Marcus Holloway on 03/14/2021.')])\n"
        "assert spans, 'the bundled model found nothing'\n"
        "print(sorted(m for m in ('radeid.train', 'torch') if m in sys.modules))\n"
    )
    assert run_python(code) == "[]"


def run_python(code: str) -> str:
    """Run `code` in a fresh interpreter (nothing imported yet); its stripped output."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip()


def test_default_pipeline_uses_the_bundled_model_and_no_model_turns_it_off(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from radeid.cli.main import app
    from radeid.config.config import Config
    from radeid.pipeline.deidentifier import Deidentifier

    deid = Deidentifier(Config.load())
    assert [d.name for d in deid.detectors] == ["rules", "lexicon", "transformer"]
    # a name with no cue: only the model can find it
    text = "Reviewed with Marcus Holloway yesterday; no pleural effusion."
    spans = deid.detect([radeid.Document("d", text)])[0]
    assert ("Marcus Holloway", "transformer") in {(text[s.start : s.end], s.source) for s in spans}

    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "text": text}) + "\n", encoding="utf-8")
    runner = CliRunner()
    for flag, hidden in (([], True), (["--no-model"], False)):
        out = tmp_path / f"out{len(flag)}.jsonl"
        run = runner.invoke(app, ["deid", str(source), "-o", str(out), "--mode", "tag", "-w", "1", "-q", *flag])
        assert run.exit_code == 0, run.output
        assert ("Holloway" not in out.read_text(encoding="utf-8")) is hidden


def test_model_spans_must_have_the_form_of_their_category() -> None:
    from radeid.core.categories import Category
    from radeid.core.document import Span
    from radeid.detect.transformer import plausible

    def ok(text: str, category: Category) -> bool:
        return plausible(text, Span(0, len(text), category, source="transformer"))

    assert not ok("786.52", Category.PHONE) and ok("555-201-3344", Category.PHONE)
    assert not ok("Xray", Category.ID) and ok("A1971139", Category.ID)
    assert not ok("today", Category.DATE) and not ok("/", Category.DATE)
    assert ok("March", Category.DATE) and ok("3/4", Category.DATE)
    assert not ok(",", Category.PATIENT) and ok("Smith", Category.PATIENT)
