#!/usr/bin/env python3
"""Writes the seed models of fuzz_onnx (tests/fuzz/corpus/onnx/) with python3-onnx: small graphs
that together use every op the loader takes, each under 4 KiB."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(1)
out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx")


def init(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def bn(name, c):
    return [numpy_helper.from_array(v.astype(np.float32), f"{name}.{p}") for p, v in
            zip("gbmv", [1 + 0.1 * rng.random(c), rng.random(c), rng.random(c), 1 + rng.random(c)])]


def save(name, nodes, inits, output="out", image=4):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, image, image])
    y = helper.make_tensor_value_info(output, TensorProto.FLOAT, None)
    model = helper.make_model(helper.make_graph(nodes, name, [x], [y], inits),
                              opset_imports=[helper.make_opsetid("", 13)])
    data = model.SerializeToString()
    assert len(data) <= 4096, (name, len(data))
    with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
        f.write(data)


n = helper.make_node
save("conv_bn_pool_gemm", [
    n("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    n("BatchNormalization", ["c", "bn.g", "bn.b", "bn.m", "bn.v"], ["d"], name="bn"),
    n("Relu", ["d"], ["r"], name="relu"),
    n("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    n("Flatten", ["p"], ["f"], name="flat"),
    n("Gemm", ["f", "fc", "fcb"], ["g"], name="fc", transB=1),
    n("Softmax", ["g"], ["out"], name="softmax", axis=1)],
    [init("w", 4, 3, 3, 3), init("b", 4), *bn("bn", 4), init("fc", 5, 16), init("fcb", 5)])
save("grouped_concat", [
    n("Conv", ["x", "w1"], ["a"], name="pointwise"),
    n("Conv", ["a", "dw"], ["b"], name="depthwise", group=6, pads=[1, 1, 1, 1]),
    n("Add", ["a", "b"], ["s"], name="residual"),
    n("Concat", ["s", "a"], ["c"], name="cat", axis=1),
    n("BatchNormalization", ["c", "bn.g", "bn.b", "bn.m", "bn.v"], ["d"], name="bn"),
    n("Clip", ["d", "lo", "hi"], ["e"], name="relu6"),
    n("GlobalAveragePool", ["e"], ["out"], name="gap")],
    [init("w1", 6, 3, 1, 1), init("dw", 6, 1, 3, 3), *bn("bn", 12),
     numpy_helper.from_array(np.array(0, np.float32), "lo"),
     numpy_helper.from_array(np.array(6, np.float32), "hi")])
save("matmul_reshape", [
    n("Constant", [], ["shape"], name="const",
      value=numpy_helper.from_array(np.array([0, -1], np.int64))),
    n("AveragePool", ["x"], ["p"], name="avg", kernel_shape=[2, 2], strides=[2, 2]),
    n("Identity", ["p"], ["i"], name="id"),
    n("Reshape", ["i", "shape"], ["f"], name="reshape"),
    n("MatMul", ["f", "m"], ["y"], name="matmul"),
    n("Add", ["y", "mb"], ["z"], name="bias"),
    n("Dropout", ["z"], ["out"], name="drop")],
    [init("m", 12, 7), init("mb", 7)])
