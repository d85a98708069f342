"""ktune.conv2d (the shipped CPU tuned conv library) and ktune.infer_onnx (the engine's ONNX
loader) against numpy float64 references on random data."""
import numpy as np
import pytest

import ktune

RNG = np.random.default_rng(29)


def conv_reference(x, f, stride, pad):
    """NHWC input, KRSC filter -> NHWC output, float64 (cross-correlation, zero padding)."""
    n, h, w, c = x.shape
    k, r, s, _ = f.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    p, q = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - s) // stride + 1
    out = np.zeros((n, p, q, k))
    for i in range(r):
        for j in range(s):
            patch = xp[:, i:i + stride * p:stride, j:j + stride * q:stride, :]
            out += patch @ f[:, i, j, :].astype(np.float64).T
    return out


@pytest.mark.parametrize("n,h,c,k,r,stride,pad", [(1, 8, 3, 4, 3, 1, 1), (2, 9, 8, 16, 1, 1, 0),
                                                  (1, 12, 5, 7, 3, 2, 1), (2, 7, 4, 6, 5, 1, 2)])
def test_conv2d_matches_float64(n, h, c, k, r, stride, pad):
    x = RNG.standard_normal((n, h, h, c)).astype(np.float32)
    f = RNG.standard_normal((k, r, r, c)).astype(np.float32)
    y = ktune.conv2d(x, f, stride=stride, pad=pad)
    want = conv_reference(x, f, stride, pad)
    assert y.dtype == np.float32 and y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-4 * r * r * c)


def test_conv2d_errors_name_the_argument():
    x = np.zeros((1, 8, 8, 3), np.float32)
    with pytest.raises(ValueError, match="^filter: has 4 input channels, input has 3$"):
        ktune.conv2d(x, np.zeros((2, 3, 3, 4), np.float32))
    with pytest.raises(ValueError, match="^input: needs dtype float32"):
        ktune.conv2d(x.astype(np.float64), np.zeros((2, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match="^input: needs a C-contiguous array$"):
        strided = np.zeros((1, 8, 8, 6), np.float32)[..., ::2]
        ktune.conv2d(strided, np.zeros((2, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match="pad"):  # ktune::Conv2dError: the library's own line
        ktune.conv2d(x, np.zeros((2, 3, 3, 3), np.float32), pad=3)
    info = ktune.tuned_conv2d_info()
    assert info["backend"] == "cpu" and 0 <= info["baseline"] < len(info["configs"])


def test_infer_onnx_refuses_a_non_model(tmp_path):
    bad = tmp_path / "not-a-model.onnx"
    bad.write_bytes(b"\x00 plainly not protobuf")
    with pytest.raises(ktune.Error, match="not-a-model.onnx") as info:
        ktune.infer_onnx(bad, np.zeros((1, 3, 8, 8), np.float32), backend="reference")
    assert "\n" not in str(info.value)
    with pytest.raises(ktune.Error, match="unknown backend 'no-such' \\(known: .*reference"):
        ktune.infer_onnx(bad, np.zeros((1, 3, 8, 8), np.float32), backend="no-such")


@pytest.mark.parametrize("backend", ["reference", "ktune"])
def test_infer_onnx_matches_numpy(tmp_path, backend):
    onnx = pytest.importorskip("onnx", reason="python3-onnx (install_deps.sh --torch) absent")
    from onnx import TensorProto, helper, numpy_helper
    w = RNG.standard_normal((8, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)
    fc_w = RNG.standard_normal((5, 8)).astype(np.float32)
    fc_b = RNG.standard_normal(5).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1],
                              kernel_shape=[3, 3]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1)]
    inits = [numpy_helper.from_array(a, name) for a, name in
             [(w, "w"), (b, "b"), (fc_w, "fc_w"), (fc_b, "fc_b")]]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["N", 3, 8, 8])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, ["N", 5])], inits)
    path = tmp_path / "tiny.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))

    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    nhwc = x.transpose(0, 2, 3, 1)
    conv = conv_reference(nhwc, w.transpose(0, 2, 3, 1), 1, 1) + b
    pooled = np.maximum(conv, 0).mean(axis=(1, 2))
    want = pooled @ fc_w.T.astype(np.float64) + fc_b
    logits = ktune.infer_onnx(path, x, backend=backend)
    assert logits.shape == (2, 5)
    np.testing.assert_allclose(logits, want, rtol=0, atol=1e-3)
