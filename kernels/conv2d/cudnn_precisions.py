#!/usr/bin/env python3
"""cuDNN at its best per precision on the VGG16 + ResNet-50 conv layers (batch 1 and 16), through
PyTorch (run on the GPU machine): for each layer, precision and layout, torch.nn.functional.conv2d
(no bias) with torch.backends.cudnn.benchmark on, so cuDNN's engine search (PyTorch drives cuDNN 9
through its frontend/graph API and times every engine it offers) picks the fastest; then timed
with CUDA events around each call, median of adaptive repeats after warm-up, inputs rotated
among copies covering 2 x L2 (the ktune device protocol). The kernels of one profiled call are
recorded as the algorithm.

Precisions: fp32 (FP32 data, TF32 off: FMA math), tf32 (FP32 data, TF32 tensor-op math), bf16 and
fp16 (16-bit data and output, FP32 accumulation). Layouts: nchw (contiguous) and nhwc
(channels_last). Writes one row per layer x precision x layout, and a Markdown table of the
fastest layout per layer and precision.

  kernels/conv2d/cudnn_precisions.py --csv cudnn-precisions.csv --md cudnn-precisions.md
      [--precisions fp32 tf32 bf16 fp16] [--budget-ms 60]
"""
import argparse
import math
import os
import pathlib
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conv_vs_vendor import layers, geomean  # noqa: E402

DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16,
          "fp16": torch.float16}
LAYOUTS = {"nchw": torch.contiguous_format, "nhwc": torch.channels_last}


def time_layer(f, precision, layout, budget_ms, l2_bytes):
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    dtype, fmt = DTYPES[precision], LAYOUTS[layout]
    x_shape, w_shape = (f["n"], f["c"], f["h"], f["w"]), (f["k"], f["c"], f["r"], f["s"])
    per_copy = (math.prod(x_shape) + math.prod(w_shape)) * torch.tensor([], dtype=dtype).element_size()
    copies = max(1, min(64, math.ceil(2 * l2_bytes / per_copy)))
    xs = [torch.randn(x_shape, device="cuda", dtype=dtype).to(memory_format=fmt) for _ in range(copies)]
    ws = [torch.randn(w_shape, device="cuda", dtype=dtype).to(memory_format=fmt) for _ in range(copies)]

    def run(i):
        return F.conv2d(xs[i], ws[i], stride=f["stride"], padding=f["pad"])

    for i in range(3):  # the first call runs cuDNN's engine search
        run(i % copies)
    torch.cuda.synchronize()
    events, total, rep = [], 0.0, 0
    while rep < 10 or (total < budget_ms and rep < 500):
        batch = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run((rep + 1) % copies)
            end.record()
            batch.append((start, end))
            rep += 1
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e in batch]
        events += times
        total += sum(times)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        run(0)
        torch.cuda.synchronize()
    kernels = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return statistics.median(events), ";".join(k[:80] for k in kernels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", required=True)
    parser.add_argument("--md", required=True)
    parser.add_argument("--precisions", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--budget-ms", type=float, default=60.0)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.enabled = True
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    device = torch.cuda.get_device_name(0)
    rows = []
    for network, layer, f in layers():
        flops = 2.0 * f["n"] * f["k"] * f["c"] * f["r"] * f["s"] * \
            ((f["h"] + 2 * f["pad"] - f["r"]) // f["stride"] + 1) * \
            ((f["w"] + 2 * f["pad"] - f["s"]) // f["stride"] + 1)
        for precision in args.precisions:
            for layout in LAYOUTS:
                ms, kernels = time_layer(f, precision, layout, args.budget_ms, l2)
                rows.append(dict(network=network, layer=layer, f=f, precision=precision,
                                 layout=layout, ms=ms, gflops=flops / ms * 1e-6, kernels=kernels))
        print(f"{network} {layer} n={f['n']}: " + " ".join(
            f"{r['precision']}/{r['layout']} {r['ms']:.4f}" for r in rows[-2 * len(args.precisions):]),
            flush=True)
    features = ["n", "h", "w", "c", "k", "r", "s", "stride", "pad"]
    with open(args.csv, "w") as out:
        out.write("network,layer," + ",".join(features) + ",precision,layout,median_ms,gflops,kernels\n")
        for r in rows:
            out.write(f"{r['network']},{r['layer']}," + ",".join(str(r['f'][k]) for k in features) +
                      f",{r['precision']},{r['layout']},{r['ms']:.6f},{r['gflops']:.1f},\"{r['kernels']}\"\n")
    best = {}
    for r in rows:
        key = (r["network"], r["layer"], r["f"]["n"], r["precision"])
        if key not in best or r["ms"] < best[key]["ms"]:
            best[key] = r
    md = [f"cuDNN at its best per precision on `{device}` (PyTorch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version()}, cudnn.benchmark engine search), fastest of NCHW and NHWC per "
          "layer; GFLOP/s = direct-convolution FLOPs / median time.", "",
          "| network | batch | precision | layers | geomean GFLOP/s | total ms | NHWC fastest | NCHW fastest |",
          "|---|---:|---|---:|---:|---:|---:|---:|"]
    for network in ("vgg16", "resnet50"):
        for batch in (1, 16):
            for precision in args.precisions:
                g = [r for k, r in best.items() if k[0] == network and k[2] == batch and k[3] == precision]
                md.append(f"| {network} | {batch} | {precision} | {len(g)} | "
                          f"{geomean([r['gflops'] for r in g]):.0f} | {sum(r['ms'] for r in g):.3f} | "
                          f"{sum(r['layout'] == 'nhwc' for r in g)} | {sum(r['layout'] == 'nchw' for r in g)} |")
    md += ["", "| network | layer | batch | precision | layout | ms | GFLOP/s | kernels |",
           "|---|---|---:|---|---|---:|---:|---|"]
    for (network, layer, batch, precision), r in best.items():
        md.append(f"| {network} | {layer} | {batch} | {precision} | {r['layout']} | {r['ms']:.4f} | "
                  f"{r['gflops']:.0f} | `{r['kernels'][:120]}` |")
    pathlib.Path(args.md).write_text("\n".join(md) + "\n")
    print(f"cudnn_precisions: wrote {args.csv} and {args.md} ({len(rows)} rows) on {device}")


if __name__ == "__main__":
    main()
