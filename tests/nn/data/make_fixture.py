#!/usr/bin/python3
"""Writes tests/nn/data/fixture.safetensors the way the safetensors package lays files out,
with numpy only (no ktune code): two F32 tensors, an I64 num_batches_tracked as PyTorch saves,
and __metadata__. tests/nn/test_safetensors.cpp reads it back.

    /usr/bin/python3 tests/nn/data/make_fixture.py tests/nn/data/fixture.safetensors
"""
import json
import struct
import sys

import numpy as np

tensors = {
    "conv1.weight": np.arange(2 * 3 * 1 * 2, dtype="<f4").reshape(2, 3, 1, 2) * 0.5 - 1.0,
    "bn1.num_batches_tracked": np.array(7, dtype="<i8"),
    "fc.bias": np.array([1e-3, -2.5, 3.25e4], dtype="<f4"),
}
header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
for name, array in tensors.items():
    data = array.tobytes()
    dtype = {"float32": "F32", "int64": "I64"}[str(array.dtype)]
    header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
    blobs.append(data)
    offset += len(data)
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
