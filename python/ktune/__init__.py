"""ktune from Python: the whole pipeline (bench, prune, train, eval, codegen, deploy and every
other CLI verb, run in this process by the CLI's own code), stores and datasets as numpy arrays,
the shipped tuned GEMM and conv2d on numpy arrays and DLPack tensors (CPU and CUDA), and ONNX
models on the inference engine. torch.ops.ktune.gemm / conv2d: `import ktune.torch_ops`.

Errors keep ktune's one-line messages: bad arguments and options raise ValueError (naming
them), failures of the pipeline raise ktune.Error (a RuntimeError). See docs/python.md.
"""
import functools as _functools

import numpy as _np

from . import _ktune

Error = _ktune.Error

__all__ = ["Error", "gemm", "tuned_gemm_info", "conv2d", "tuned_conv2d_info", "infer_onnx",
           "backends", "cpu_device", "open_store", "load_dataset", "run", "bench", "prune", "train",
           "codegen", "deploy"]  # and ktune.eval, left out of `import *` (the builtin's name)


def _as_array(x, name):
    if isinstance(x, _np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        # A DLPack tensor on the CPU: a numpy view of the same memory (no copy).
        try:
            return _np.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError) as e:
            raise ValueError(f"{name}: DLPack tensor not readable on the CPU ({e})") from None
    raise ValueError(f"{name}: needs a numpy array or a DLPack tensor, got {type(x).__name__}")


_KDLCUDA = 2  # DLPack's device type of CUDA memory


def _on_cuda(*tensors):
    """Whether any of the tensors is a DLPack tensor in CUDA memory."""
    for x in tensors:
        device = getattr(x, "__dlpack_device__", None)
        if device is not None and type(x) is not _np.ndarray and device()[0] == _KDLCUDA:
            return True
    return False


def _cuda():
    try:
        from . import _ktune_cuda
    except ImportError:
        raise Error("CUDA tensors: this ktune was built without CUDA (no module "
                    "ktune._ktune_cuda; docs/python.md)") from None
    return _ktune_cuda


def _stream(stream, tensors):
    """The CUDA stream to run on: `stream` if given, else the current stream of the tensors'
    framework (PyTorch's or CuPy's), else 0, the legacy default stream."""
    if stream is not None:
        return int(stream)
    for x in tensors:
        module = type(x).__module__.split(".")[0]
        if module == "torch" and getattr(x, "is_cuda", False):
            import torch
            return torch.cuda.current_stream(x.device).cuda_stream
        if module == "cupy":
            import cupy
            return cupy.cuda.get_current_stream().ptr
    return 0


def gemm(a, b, c, alpha=1.0, beta=0.0, stream=None):
    """c[:] = alpha * a @ b + beta * c with ktune's tuned GEMM (in place; returns c).

    a (m, k), b (k, n), c (m, n): 2-D float32, each C- or Fortran-ordered or a transposed view
    of one (any unit-stride layout runs without a copy). On the CPU (the tuned CPU library):
    a and b numpy arrays or CPU DLPack tensors (objects with __dlpack__), c a writable numpy
    array (numpy imports DLPack tensors read-only). On a GPU (the tuned CUDA library): a, b, c
    all CUDA DLPack tensors (PyTorch, CuPy, ...) on one device, run asynchronously on `stream`
    (a cudaStream_t as an int) or, by default, the tensors' framework's current stream.
    c is not read when beta == 0. Raises ValueError naming the bad argument.
    """
    nd = _np.ndarray
    if type(a) is nd and type(b) is nd and type(c) is nd:  # the common case, kept short
        _ktune.gemm(a, b, c, alpha, beta)
    elif _on_cuda(a, b, c):
        _cuda().gemm(a, b, c, alpha, beta, _stream(stream, (a, b, c)))
    else:
        _ktune.gemm(_as_array(a, "a"), _as_array(b, "b"), _as_array(c, "c"), alpha, beta)
    return c


def tuned_gemm_info(device="cpu"):
    """What a tuned GEMM library ships: {"backend", "configs" (K config strings), "baseline"};
    device "cpu" or "cuda"."""
    return (_cuda() if device == "cuda" else _ktune).tuned_gemm_info()


def conv2d(input, filter, stride=1, pad=0, out=None, stream=None):
    """The shipped tuned conv2d (FP32, dilation 1, groups 1, symmetric zero padding).

    input NHWC (n, h, w, c), filter KRSC (k, r, s, c), C-contiguous float32; the output is NHWC
    (n, p, q, k), p = (h + 2 pad - r) // stride + 1 (q likewise). On the CPU: numpy arrays or
    CPU DLPack tensors, returns a new array (out must be None). On a GPU: CUDA DLPack tensors
    on one device and `out`, the output tensor (ktune allocates no GPU memory), written
    asynchronously on `stream` as in gemm; returns out. Bad arguments raise ValueError naming
    them.
    """
    if _on_cuda(input, filter, out):
        if out is None:
            raise ValueError("out: CUDA tensors need out=, an (n, p, q, k) float32 CUDA tensor")
        return _cuda().conv2d(input, filter, out, int(stride), int(pad),
                              _stream(stream, (input, filter, out)))
    if out is not None:
        raise ValueError("out: only with CUDA tensors (on the CPU conv2d returns a new array)")
    return _ktune.conv2d(_as_array(input, "input"), _as_array(filter, "filter"), int(stride),
                         int(pad))


def tuned_conv2d_info(device="cpu"):
    """What a tuned conv library ships: {"backend", "configs", "baseline"}; device "cpu" or
    "cuda"."""
    return (_cuda() if device == "cuda" else _ktune).tuned_conv2d_info()


def infer_onnx(path, input, backend="ktune"):
    """Logits (n, classes) of the ONNX model at `path` on a batch of images.

    input: float32 NCHW (n, 3, h, h) as PyTorch takes it (numpy or CPU DLPack). backend: one of
    ktune.backends() (the engine's CPU backends: "ktune", "onednn", "onednn_winograd", "auto",
    "reference"). The model is loaded and prepared on every call (docs/networks.md, "ONNX
    models").
    """
    x = _as_array(input, "input")
    if x.dtype != _np.float32 or x.ndim != 4:
        raise ValueError(f"input: needs a 4-D float32 NCHW array, got {x.ndim}-D {x.dtype}")
    return _ktune.infer_onnx(str(path), _np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
                             str(backend))


def backends():
    """The inference engine's backends in this build: [(name, summary)]."""
    return _ktune.backends()


def open_store(path, device="", family=""):
    """The measurements of a store (.sqlite), CSV export (.csv[.gz]) or T4 file (.json[.gz]).

    Returns a dict of equal-length numpy arrays, one row per measurement: device, family,
    problem, config, status (str: ok, refused, failed, wrong, timeout), config_id (int64, -1 for
    vendor rows), vendor (bool), median_ms, min_ms, max_ms, mad_ms, rel_error, perf (float64;
    perf: higher is better, GFLOP/s for GEMM, 0 unless ok) and reps (int64). device and family
    filter a store.
    """
    columns = _ktune.open_store(str(path), device, family)
    return {name: (_np.array(col, dtype=str) if isinstance(col, list) else col)
            for name, col in columns.items()}


def cpu_device():
    """This CPU as ktune names it in stores and results: {"slug", "name"}."""
    return _ktune.cpu_device()


def load_dataset(path, device="", family=""):
    """The dense problems x configs view the learning verbs use (ktune/dataset.hpp).

    Returns a dict: family, device (str); problems, configs, feature_names, config_param_names,
    vendors (lists of str); problem_groups (list of lists); features (problems x features),
    work (problems), config_params (configs x params), perf (problems x configs; higher is
    better, 0 unless valid), valid, measured (bool, problems x configs), vendor_perf (problems x
    vendors, NaN where not measured): numpy arrays.
    """
    return _ktune.load_dataset(str(path), device, family)


@_functools.lru_cache(maxsize=None)
def _verb_options():
    return _ktune.verb_options()


def _command_line(verb, args, options):
    known = _verb_options()
    if verb not in known:
        raise ValueError(f"unknown verb '{verb}' (verbs: {', '.join(sorted(known))})")
    line = [verb] + [str(a) for a in args]
    for key, value in options.items():
        name = "--" + key.replace("_", "-")
        if name not in known[verb]:
            raise ValueError(f"{verb}: unknown option '{key}' ({name}); options: "
                             + ", ".join(o[2:].replace("-", "_") for o in known[verb]))
        if value is None or value is False:
            continue
        if not known[verb][name]:  # a flag
            if value is not True:
                raise ValueError(f"{verb}: option '{key}' is a flag: pass True or False")
            line.append(name)
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            line += [name, str(v)]
    return line


def run(verb, *args, **options):
    """Runs `ktune VERB ARGS... --option value ...` in this process (the CLI's own code).

    Keyword arguments are the verb's long options with '_' for '-' (family_file=... is
    --family-file); True passes a flag, None or False leaves an option out, a list repeats the
    option. Output goes to stdout as on the command line; help=True prints the verb's help.
    Raises ValueError for an unknown verb or option or a value the CLI refuses, ktune.Error
    for a failure of the verb (both with ktune's one-line message).
    """
    status = _ktune.run(_command_line(verb, args, options))
    if status != 0:
        raise Error(f"ktune {verb}: exit status {status}")


def bench(**options):
    """Measure a family's configs over a workload on a device into a store (`ktune bench`).

    E.g. bench(family="gemm", device="cpu", workload="tiny", store="cpu.sqlite",
    strategy="random", budget="5%"), or family_file="dot.json" for a kernel of yours.
    """
    run("bench", **options)


def prune(**options):
    """Pick K configs to ship (`ktune prune`): data=, method=, k=, norm=, output=."""
    run("prune", **options)


def train(**options):
    """Fit a selector over the shipped configs (`ktune train`): data=, selector=, output=."""
    run("train", **options)


def eval(**options):  # noqa: A001 - the verb's name
    """The pruner x selector matrix on held-out problems (`ktune eval`): data=, markdown=, csv=."""
    run("eval", **options)


def codegen(**options):
    """A trained tree selector as a C++ header (`ktune codegen`): model=, output=."""
    run("codegen", **options)


def deploy(**options):
    """Datasets and a recipe, or trained models, to a CMake package (`ktune deploy`)."""
    run("deploy", **options)
