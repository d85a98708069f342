"""torch.ops.ktune.gemm and torch.ops.ktune.conv2d: ktune's shipped CPU tuned libraries as
PyTorch custom ops (CPU float32 tensors), registered by importing this module (torch.library).

    import torch, ktune.torch_ops
    c = torch.ops.ktune.gemm(a, b)                      # a @ b
    y = torch.ops.ktune.conv2d(x, w, stride=1, padding=0)  # NCHW, OIHW: torch's conv2d layout
"""
import numpy as _np
import torch as _torch

import ktune as _ktune

_lib = _torch.library.Library("ktune", "DEF")
_lib.define("gemm(Tensor a, Tensor b) -> Tensor")
_lib.define("conv2d(Tensor input, Tensor weight, int stride=1, int padding=0) -> Tensor")


def _check(t, name, dims):
    if t.device.type != "cpu" or t.dtype != _torch.float32 or t.dim() != dims:
        raise ValueError(f"{name}: needs a {dims}-D float32 CPU tensor, got {t.dim()}-D "
                         f"{t.dtype} on {t.device}")


def _gemm(a, b):
    _check(a, "a", 2)
    _check(b, "b", 2)
    c = _torch.empty((a.shape[0], b.shape[1]), dtype=_torch.float32)
    # numpy views of the tensors' memory (no copy); ktune.gemm takes their strides as they are.
    _ktune.gemm(a.detach().numpy(), b.detach().numpy(), c.numpy())
    return c


def _conv2d(input, weight, stride=1, padding=0):
    _check(input, "input", 4)
    _check(weight, "weight", 4)
    # ktune's conv2d is NHWC / KRSC: torch's NCHW / OIHW permuted (one copy each way).
    x = _np.ascontiguousarray(input.detach().numpy().transpose(0, 2, 3, 1))
    w = _np.ascontiguousarray(weight.detach().numpy().transpose(0, 2, 3, 1))
    y = _ktune.conv2d(x, w, stride=stride, pad=padding)
    return _torch.from_numpy(y).permute(0, 3, 1, 2).contiguous()


_lib.impl("gemm", _gemm, "CPU")
_lib.impl("conv2d", _conv2d, "CPU")
