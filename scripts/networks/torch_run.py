#!/usr/bin/env python3
"""PyTorch side of the network check and benchmark (run on the GPU machine).

logits: loads a weights file of make_weights.py into torchvision's model and writes, for each
  input file, the logits in FP32 (cuDNN, TF32 off) and in float64 (the yardstick) as
  <out-dir>/<network>-input-<seed>.safetensors with tensors `fp32` and `fp64` [batch][1000],
  plus `tf32` (TF32 allowed in cuDNN and cuBLAS) and `bf16` (model and input in bfloat16,
  logits widened to FP32) when --precision names them.
bench: latency of one forward pass (torch.inference_mode, FP32, TF32 off, cudnn.benchmark on so
  cuDNN picks its fastest algorithms as the `cudnn` backend does), CUDA events around each
  pass, median of --reps passes after --warmup; rows `network,batch,backend,device,median_ms`
  with backend pytorch (NCHW), pytorch-channels-last, pytorch-cudagraph (NCHW, the pass
  captured once in a torch.cuda.CUDAGraph and replayed: no launch overhead), pytorch-compile
  (torch.compile default mode, NCHW; left out with a note when it fails),
  pytorch-channels-last-cudagraph (both), as --variants says, appended to --csv. --precision
  tf32 / bf16 runs the same variants with TF32 allowed / the model and input in bfloat16;
  their rows carry the precision after `pytorch` (pytorch-bf16-channels-last-cudagraph).

  torch_run.py logits --network vgg16 --weights vgg16.safetensors --inputs in/input-1.safetensors
  torch_run.py bench --network vgg16 --weights vgg16.safetensors --batch 1 16 --csv out.csv
      [--variants pytorch pytorch-channels-last pytorch-compile] [--precision fp32 tf32 bf16]
"""
import argparse
import os
import statistics
import sys

import torch
import torchvision

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")

PRECISIONS = ["fp32", "tf32", "bf16"]
NETWORKS = {"vgg16": torchvision.models.vgg16, "resnet50": torchvision.models.resnet50}


def load_tensors(path):
    try:
        from safetensors.torch import load_file
        return load_file(path)
    except ImportError:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import safetensors_io
        tensors, _ = safetensors_io.read(path)
        return {n: torch.tensor(v.tolist(), dtype=torch.float32).reshape(s)
                for n, (s, v) in tensors.items()}


LOADED = {}  # weights file -> its tensors: a bench loads one file for many variants


def load_model(network, weights):
    """torchvision's model with the file's weights; its own seeded random init without one."""
    torch.manual_seed(0)
    model = NETWORKS[network](weights=None)
    if weights is None:
        return model.eval()
    if weights not in LOADED:
        LOADED[weights] = load_tensors(weights)
    missing, unexpected = model.load_state_dict(LOADED[weights], strict=False)
    missing = [m for m in missing if not m.endswith("num_batches_tracked")]
    if missing or unexpected:
        sys.exit(f"{weights}: missing {missing[:3]} unexpected {unexpected[:3]}")
    return model.eval()


def save(path, tensors):
    try:
        from safetensors.torch import save_file
        save_file({n: t.contiguous().cpu() for n, t in tensors.items()}, path)
    except ImportError:
        import safetensors_io
        safetensors_io.write(path, {n: ("F64" if t.dtype == torch.float64 else "F32",
                                        list(t.shape), t.contiguous().cpu().numpy().tobytes())
                                    for n, t in tensors.items()})


def set_precision(precision):
    """TF32 allowed in cuDNN and cuBLAS for tf32 only; returns the model's dtype."""
    tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    return torch.bfloat16 if precision == "bf16" else torch.float32


def logits(args):
    torch.backends.cudnn.benchmark = False
    models = {}
    for precision in dict.fromkeys(["fp32"] + args.precision):
        models[precision] = load_model(args.network, args.weights).cuda().to(
            torch.bfloat16 if precision == "bf16" else torch.float32)
    model64 = load_model(args.network, args.weights).double().cuda()
    os.makedirs(args.out_dir, exist_ok=True)
    for path in args.inputs:
        x = load_tensors(path)["input"].cuda()
        tensors = {}
        with torch.inference_mode():
            for precision, model in models.items():
                dtype = set_precision(precision)
                tensors[precision] = model(x.to(dtype)).float()
            set_precision("fp32")
            fp64 = tensors["fp64"] = model64(x.double())
        name = os.path.basename(path).replace(".safetensors", "")
        out = os.path.join(args.out_dir, f"{args.network}-{name}.safetensors")
        save(out, tensors)
        for precision in models:
            err = ((tensors[precision].double() - fp64).abs().max().item()
                   / fp64.abs().max().item())
            print(f"{out}: PyTorch {precision} vs float64 max |error| / max |logit| = {err:.2e}")


def time_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def graph_of(model, x):
    """A CUDA graph of one forward pass (warmed up on a side stream first, as PyTorch's
    documentation does it, so cudnn.benchmark has chosen its algorithms); returns its replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(x)
    return graph.replay


def bench(args):
    torch.backends.cudnn.benchmark = True
    device = torch.cuda.get_device_name(0)
    for precision, batch, variant in ((p, b, v) for p in args.precision for b in args.batch
                                      for v in args.variants):
        dtype = set_precision(precision)
        x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(7)).cuda()
        channels_last = "channels-last" in variant
        memory_format = torch.channels_last if channels_last else torch.contiguous_format
        model = load_model(args.network, args.weights).cuda().to(dtype).to(
            memory_format=memory_format)
        xin = x.to(dtype).contiguous(memory_format=memory_format)
        backend = variant if precision == "fp32" else variant.replace(
            "pytorch", f"pytorch-{precision}", 1)
        try:
            if variant == "pytorch-compile":
                model = torch.compile(model)
            with torch.inference_mode():
                run = graph_of(model, xin) if variant.endswith("cudagraph") else lambda: model(xin)
                ms = time_ms(run, args.warmup, args.reps)
        except Exception as error:  # torch.compile needs a working Triton toolchain
            print(f"{args.network} batch {batch} {backend}: failed: {str(error).splitlines()[0]}")
            continue
        row = f"{args.network},{batch},{backend},{device},{ms:.4f}"
        print(row, flush=True)
        with open(args.csv, "a") as f:  # row by row: a run cut by a timeout keeps what it timed
            f.write(row + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("logits")
    p.add_argument("--network", choices=sorted(NETWORKS), required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--inputs", nargs="+", required=True)
    p.add_argument("--out-dir", default=".")
    p.add_argument("--precision", nargs="+", default=["fp32"], choices=PRECISIONS)
    p = sub.add_parser("bench")
    p.add_argument("--network", choices=sorted(NETWORKS), required=True)
    p.add_argument("--weights", help="default: torchvision's seeded random init (timing only)")
    p.add_argument("--batch", type=int, nargs="+", default=[1, 16])
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--variants", nargs="+", default=["pytorch", "pytorch-channels-last"],
                   choices=["pytorch", "pytorch-channels-last", "pytorch-cudagraph",
                            "pytorch-channels-last-cudagraph", "pytorch-compile"])
    p.add_argument("--precision", nargs="+", default=["fp32"], choices=PRECISIONS)
    p.add_argument("--csv", required=True)
    args = parser.parse_args()
    logits(args) if args.command == "logits" else bench(args)


if __name__ == "__main__":
    main()
