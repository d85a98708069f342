"""Minimal safetensors reader and writer (F32/F64 only), standard library only.

The format (https://github.com/huggingface/safetensors): an 8-byte little-endian header length,
a JSON header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}},
then the raw little-endian tensor bytes. Used where the `safetensors` package is absent (here)
and so that the checker runs without numpy or torch.
"""
import array
import json
import struct
import sys

_SIZES = {"F32": ("f", 4), "F64": ("d", 8)}


def write(path, tensors, metadata=None):
    """tensors: {name: (dtype "F32"|"F64", shape list, flat array.array or bytes)}."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        dtype, shape, data = tensors[name]
        raw = data if isinstance(data, (bytes, bytearray)) else data.tobytes()
        count = 1
        for dim in shape:
            count *= dim
        if len(raw) != count * _SIZES[dtype][1]:
            raise ValueError(f"{name}: {len(raw)} bytes for shape {shape} {dtype}")
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the writer of the reference pads the header to 8 bytes
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def read(path):
    """{name: (shape list, array.array of floats)} and the metadata dict."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: truncated (no header length)")
    (length,) = struct.unpack("<Q", blob[:8])
    if 8 + length > len(blob):
        raise ValueError(f"{path}: truncated header")
    header = json.loads(blob[8 : 8 + length])
    data = blob[8 + length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        code, size = _SIZES.get(entry["dtype"], (None, 0))
        if code is None:
            raise ValueError(f"{path}: tensor {name} has dtype {entry['dtype']} (want F32 or F64)")
        begin, end = entry["data_offsets"]
        if end > len(data):
            raise ValueError(f"{path}: tensor {name} truncated")
        values = array.array(code)
        values.frombytes(data[begin:end])
        if sys.byteorder != "little":
            values.byteswap()
        tensors[name] = (entry["shape"], values)
    return tensors, header.get("__metadata__", {})
