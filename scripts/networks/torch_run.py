#!/usr/bin/env python3
"""PyTorch side of the network check and benchmark (run on the GPU machine).

logits: loads a weights file of make_weights.py into torchvision's model and writes, for each
  input file, the logits in FP32 (cuDNN, TF32 off) and in float64 (the yardstick) as
  <out-dir>/<network>-input-<seed>.safetensors with tensors `fp32` and `fp64` [batch][1000].
bench: latency of one forward pass (torch.inference_mode, FP32, TF32 off, cudnn.benchmark on so
  cuDNN picks its fastest algorithms as the `cudnn` backend does), CUDA events around each
  pass, median of --reps passes after --warmup; rows `network,batch,backend,device,median_ms`
  with backend pytorch (NCHW), pytorch-channels-last, pytorch-cudagraph (NCHW, the pass
  captured once in a torch.cuda.CUDAGraph and replayed: no launch overhead), pytorch-compile
  (torch.compile default mode, NCHW; left out with a note when it fails), as --variants says,
  appended to --csv.

  torch_run.py logits --network vgg16 --weights vgg16.safetensors --inputs in/input-1.safetensors
  torch_run.py bench --network vgg16 --weights vgg16.safetensors --batch 1 16 --csv out.csv
      [--variants pytorch pytorch-channels-last pytorch-compile]
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


def load_model(network, weights):
    model = NETWORKS[network](weights=None)
    missing, unexpected = model.load_state_dict(load_tensors(weights), strict=False)
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


def logits(args):
    torch.backends.cudnn.benchmark = False
    model = load_model(args.network, args.weights).cuda()
    model64 = load_model(args.network, args.weights).double().cuda()
    os.makedirs(args.out_dir, exist_ok=True)
    for path in args.inputs:
        x = load_tensors(path)["input"].cuda()
        with torch.inference_mode():
            fp32 = model(x).float()
            fp64 = model64(x.double())
        name = os.path.basename(path).replace(".safetensors", "")
        out = os.path.join(args.out_dir, f"{args.network}-{name}.safetensors")
        save(out, {"fp32": fp32, "fp64": fp64})
        err = (fp32.double() - fp64).abs().max().item() / fp64.abs().max().item()
        print(f"{out}: PyTorch FP32 vs float64 max |error| / max |logit| = {err:.2e}")


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
    rows = []
    for batch in args.batch:
        x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(7)).cuda()
        formats = {"pytorch": torch.contiguous_format, "pytorch-channels-last": torch.channels_last,
                   "pytorch-cudagraph": torch.contiguous_format,
                   "pytorch-compile": torch.contiguous_format}
        for backend in args.variants:
            memory_format = formats[backend]
            model = load_model(args.network, args.weights).cuda().to(memory_format=memory_format)
            xin = x.contiguous(memory_format=memory_format)
            try:
                if backend == "pytorch-compile":
                    model = torch.compile(model)
                with torch.inference_mode():
                    run = graph_of(model, xin) if backend == "pytorch-cudagraph" else lambda: model(xin)
                    ms = time_ms(run, args.warmup, args.reps)
            except Exception as error:  # torch.compile needs a working Triton toolchain
                print(f"{args.network} batch {batch} {backend}: failed: {str(error).splitlines()[0]}")
                continue
            rows.append(f"{args.network},{batch},{backend},{device},{ms:.4f}")
            print(rows[-1], flush=True)
    with open(args.csv, "a") as f:
        for row in rows:
            f.write(row + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("logits")
    p.add_argument("--network", choices=sorted(NETWORKS), required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--inputs", nargs="+", required=True)
    p.add_argument("--out-dir", default=".")
    p = sub.add_parser("bench")
    p.add_argument("--network", choices=sorted(NETWORKS), required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--batch", type=int, nargs="+", default=[1, 16])
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--variants", nargs="+", default=["pytorch", "pytorch-channels-last"],
                   choices=["pytorch", "pytorch-channels-last", "pytorch-cudagraph",
                            "pytorch-compile"])
    p.add_argument("--csv", required=True)
    args = parser.parse_args()
    logits(args) if args.command == "logits" else bench(args)


if __name__ == "__main__":
    main()
