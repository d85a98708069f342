#!/usr/bin/env python3
"""torchvision models through ONNX on ktune's CPU backends, checked against PyTorch.

Each model is built with seeded random weights (torch.manual_seed; batch-norm statistics and
affine parameters drawn too, so folding them is tested), put in eval mode, exported to ONNX
(opset 13, batch dimension symbolic) and run by `ktune_infer --onnx` on the CPU backends given,
taking turns, on the same N(0, 1) input. Its logits are compared with PyTorch's in float64
(the model in double precision on the same input): the top-5 classes of every image must be
identical, and the largest |difference| over the largest |logit| must be under --bound.
PyTorch's float32 latency is measured in the same run (same threads, same input, median of
--reps after --warmup) beside ktune_infer's medians.

Writes OUT_DIR/agreement.csv (model,batch,backend,top5_identical,max_abs_diff,max_abs_logit,
relative,bound,notes) and, with --latency, OUT_DIR/latency.csv (model,batch,backend,device,
median_ms). Exit status 1 when any model disagrees.

Usage: examples/networks/onnx_torchvision.py BUILD_DIR OUT_DIR [--models a,b] [--batch 1]
       [--backends ktune,onednn] [--reps 5] [--warmup 1] [--latency] [--seed 1]
Needs python3-torch and python3-torchvision (scripts/install_deps.sh --torch).
"""
import argparse
import csv
import inspect
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torchvision

MODELS = ["resnet18", "resnet34", "resnet101", "vgg11", "vgg19", "googlenet", "densenet121",
          "mobilenet_v2", "resnext50_32x4d"]


def build(name, seed):
    torch.manual_seed(seed)
    kwargs = {"weights": None}
    if name == "googlenet":  # no auxiliary heads (they are training-only)
        kwargs.update(aux_logits=False, init_weights=True)
    model = getattr(torchvision.models, name)(**kwargs)
    gen = torch.Generator().manual_seed(seed + 1)
    for m in model.modules():  # batch-norm as a trained network has it, not the identity
        if isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.weight.data = 0.5 + torch.rand(c, generator=gen)
            m.bias.data = 0.1 * torch.randn(c, generator=gen)
            m.running_mean = 0.1 * torch.randn(c, generator=gen)
            m.running_var = 0.5 + torch.rand(c, generator=gen)
    return model.eval()


def export(model, x, path):
    """ONNX opset 13, batch symbolic, by the TorchScript exporter (PyTorch 2.9 and later default
    to the dynamo one, whose graph is another)."""
    dynamo = "dynamo" in inspect.signature(torch.onnx.export).parameters
    legacy = {"dynamo": False} if dynamo else {}
    torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, **legacy)


def save_input(path, x):
    """One F32 tensor 'input' in safetensors format (docs/networks.md), numpy only."""
    a = x.numpy().astype("<f4")
    header = {"input": {"dtype": "F32", "shape": list(a.shape), "data_offsets": [0, a.nbytes]}}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + a.tobytes())


def torch_median_ms(model, x, reps, warmup):
    with torch.no_grad():
        for _ in range(warmup):
            model(x)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def top5(row):
    return list(np.argsort(-row, kind="stable")[:5])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--backends", default="ktune,onednn")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bound", type=float, default=1e-4,
                    help="largest |logit difference| / largest |logit| allowed")
    ap.add_argument("--latency", action="store_true", help="also write latency.csv")
    args = ap.parse_args()
    infer = os.path.join(args.build, "bin", "ktune_infer")
    backends = args.backends.split(",")
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(os.cpu_count())
    agree_rows, latency_rows, failed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model = build(name, args.seed)
            x = torch.randn(args.batch, 3, 224, 224, generator=torch.Generator().manual_seed(
                args.seed + 2))
            onnx_path, in_path = os.path.join(tmp, name + ".onnx"), os.path.join(tmp, "in.st")
            logits_path = os.path.join(tmp, "logits.csv")
            export(model, x, onnx_path)
            save_input(in_path, x)
            with torch.no_grad():
                ref = model.double()(x.double()).numpy()
            model.float()
            torch_ms = torch_median_ms(model, x, args.reps, args.warmup)
            cmd = [infer, "--onnx", onnx_path, "--batch", str(args.batch), "--backend",
                   args.backends, "--input", in_path, "--logits", logits_path, "--reps",
                   str(args.reps), "--warmup", str(args.warmup)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode:
                print(f"{name}: ktune_infer failed: {run.stdout}{run.stderr}", flush=True)
                failed.append(name)
                agree_rows.extend([name, args.batch, b, "failed", "", "", "", args.bound, ""]
                                  for b in backends)
                continue
            notes = [line for line in run.stdout.splitlines() if line.startswith("note: ")]
            device = re.search(r"on backend \S+ \((.*)\); weights", run.stdout).group(1)
            medians = dict(re.findall(r"^(\S+): median ([0-9.]+) ms", run.stdout, re.M))
            scale = float(np.abs(ref).max())
            for b in backends:
                path = logits_path if len(backends) == 1 else logits_path.replace(
                    ".csv", f".{b}.csv")
                got = np.loadtxt(path, delimiter=",", ndmin=2)
                diff = float(np.abs(got - ref).max())
                same = all(top5(got[i]) == top5(ref[i]) for i in range(args.batch))
                ok = same and diff <= args.bound * scale
                if not ok:
                    failed.append(f"{name}/{b}")
                dense = sum(1 for line in notes if line.endswith(f" on {b} (no tuned kind covers "
                                                                 "grouped convs)"))
                agree_rows.append([name, args.batch, b, same, f"{diff:.3g}", f"{scale:.4g}",
                                   f"{diff / scale:.3g}", args.bound, dense])
                latency_rows.append([name, args.batch, b, device, medians[b]])
                print(f"{name} {b}: top-5 {'identical' if same else 'DIFFER'}, max |diff| "
                      f"{diff:.3g} of max |logit| {scale:.4g} ({diff / scale:.2g}); "
                      f"{medians[b]} ms vs PyTorch {torch_ms:.2f} ms (loaded machine, not a "
                      f"headline); {dense} grouped layers run dense", flush=True)
            latency_rows.append([name, args.batch, "pytorch", device, f"{torch_ms:.3f}"])
    with open(os.path.join(args.out, "agreement.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "batch", "backend", "top5_identical", "max_abs_diff",
                    "max_abs_logit", "relative", "bound", "dense_grouped_layers"])
        w.writerows(agree_rows)
    if args.latency:
        with open(os.path.join(args.out, "latency.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "batch", "backend", "device", "median_ms"])
            w.writerows(latency_rows)
    if failed:
        sys.exit("disagree: " + ", ".join(failed))


if __name__ == "__main__":
    main()
