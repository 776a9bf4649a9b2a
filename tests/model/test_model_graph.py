"""`radeid.model.graph.drop_softmax_nan_guards`: the exported attention's NaN guard removed, exactly."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

from radeid.model.graph import drop_softmax_nan_guards  # noqa: E402


def _attention_like(extra_isnan_user: bool = False) -> onnx.ModelProto:
    """scores + mask -> Softmax -> Where(IsNaN(p), 0, p) -> MatMul v, as torch's dynamo export writes it."""
    nodes = [
        helper.make_node("Add", ["scores", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),
        helper.make_node("MatMul", ["guarded", "v"], ["out"]),
    ]
    outputs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)]
    if extra_isnan_user:
        nodes.append(helper.make_node("Not", ["nan"], ["not_nan"]))
        outputs.append(helper.make_tensor_value_info("not_nan", TensorProto.BOOL, None))
    graph = helper.make_graph(
        nodes,
        "attention",
        [
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 4, 4]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, [2, 1, 4]),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 4, 3]),
        ],
        outputs,
        initializer=[helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: onnx.ModelProto, feed: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(["out"], feed)[0]


def _feed(mask: np.ndarray) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(2, 4, 4)).astype(np.float32)
    return {"scores": scores, "mask": mask.astype(np.float32), "v": rng.normal(size=(2, 4, 3)).astype(np.float32)}


def test_guard_removed_and_outputs_bit_identical_when_every_row_has_a_key() -> None:
    original = _attention_like()
    edited = _attention_like()
    assert drop_softmax_nan_guards(edited) == 1
    assert [n.op_type for n in edited.graph.node] == ["Add", "Softmax", "MatMul"]
    assert list(edited.graph.node[2].input) == ["p", "v"]
    # padding as radeid sends it: the last key of the second window masked, never all of them
    feed = _feed(np.array([[[0, 0, 0, 0]], [[0, 0, 0, -np.inf]]]))
    assert np.array_equal(_run(original, feed), _run(edited, feed))


def test_the_guard_only_mattered_for_rows_with_every_key_masked() -> None:
    """Why the precondition matters: a fully masked row is NaN without the guard (radeid never sends one)."""
    original = _attention_like()
    edited = _attention_like()
    drop_softmax_nan_guards(edited)
    feed = _feed(np.array([[[0, 0, 0, 0]], [[-np.inf] * 4]]))
    assert not np.isnan(_run(original, feed)).any()
    assert np.isnan(_run(edited, feed)[1]).all()


def test_a_guard_whose_isnan_is_used_elsewhere_is_kept() -> None:
    model = _attention_like(extra_isnan_user=True)
    assert drop_softmax_nan_guards(model) == 0
    assert "IsNaN" in [n.op_type for n in model.graph.node]


def test_bundled_model_has_no_nan_guard_left() -> None:
    from radeid.detect.transformer.folder import bundled_model_path

    model = onnx.load(str(bundled_model_path() / "model.onnx"), load_external_data=False)
    ops = [n.op_type for n in model.graph.node]
    assert "IsNaN" not in ops
    assert ops.count("Softmax") == 6  # six attention layers still there
    assert drop_softmax_nan_guards(model) == 0
