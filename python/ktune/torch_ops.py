"""torch.ops.ktune.gemm and torch.ops.ktune.conv2d: ktune's shipped tuned libraries as PyTorch
custom ops on float32 tensors, registered by importing this module (torch.library): CPU tensors
on the CPU libraries, CUDA tensors on the CUDA ones (ktune.gemm / conv2d on DLPack, on PyTorch's
current stream; where ktune was built with CUDA).

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


def _check(t, name, dims, device="cpu"):
    if t.device.type != device or t.dtype != _torch.float32 or t.dim() != dims:
        raise ValueError(f"{name}: needs a {dims}-D float32 {device.upper()} tensor, got "
                         f"{t.dim()}-D {t.dtype} on {t.device}")


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


def _gemm_cuda(a, b):
    _check(a, "a", 2, "cuda")
    _check(b, "b", 2, "cuda")
    c = _torch.empty((a.shape[0], b.shape[1]), dtype=_torch.float32, device=a.device)
    _ktune.gemm(a.detach(), b.detach(), c)  # the tensors themselves, through DLPack
    return c


def _conv2d_cuda(input, weight, stride=1, padding=0):
    _check(input, "input", 4, "cuda")
    _check(weight, "weight", 4, "cuda")
    x = input.detach().permute(0, 2, 3, 1).contiguous()  # NHWC / KRSC, one copy each way
    w = weight.detach().permute(0, 2, 3, 1).contiguous()
    (n, h, wd, _), (k, r, s, _) = x.shape, w.shape
    # Sizes ktune refuses give no output shape: a 1 x 1 one lets it name them.
    p = max((h + 2 * padding - r) // stride + 1, 1) if stride >= 1 else 1
    q = max((wd + 2 * padding - s) // stride + 1, 1) if stride >= 1 else 1
    y = _torch.empty((n, p, q, k), dtype=_torch.float32, device=x.device)
    _ktune.conv2d(x, w, stride=stride, pad=padding, out=y)
    return y.permute(0, 3, 1, 2).contiguous()


_lib.impl("gemm", _gemm, "CPU")
_lib.impl("conv2d", _conv2d, "CPU")
_lib.impl("gemm", _gemm_cuda, "CUDA")
_lib.impl("conv2d", _conv2d_cuda, "CUDA")
