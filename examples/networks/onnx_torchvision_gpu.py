#!/usr/bin/env python3
"""torchvision models through ONNX on ktune's CUDA backends, against PyTorch at its best.

The GPU side of onnx_torchvision.py (same seeded models, same export: ONNX opset 13, symbolic
batch, the TorchScript exporter). On one GPU, in one run:
1. every model is exported, and PyTorch's logits of --images N(0, 1) images are computed in FP32
   (TF32 off, as scripts/networks/torch_run.py sets it) and in float64;
2. per batch, `ktune_nn_cuda_bench --onnx` runs all models on every CUDA backend (ktune, cudnn,
   cublas; eager and as a CUDA graph, CUDA events around each pass, median of --reps after
   --warmup) and, at the first batch, writes each backend's logits of those images;
3. per batch, PyTorch's variants are timed the same way (torch_run.py's timing: cudnn.benchmark
   on, TF32 off, CUDA events): eager NCHW, eager channels_last, each as a CUDA graph, and, with
   --compile and while --budget lasts, torch.compile (default mode) NCHW;
4. each backend's logits against PyTorch's: top-5 identical on every image against float64 and
   max |difference| / max |logit| under --bound against float64 and against PyTorch FP32.
A phase that does not fit in --budget seconds is left out and said so (run.log, summary.md).

Writes OUT/agreement.csv (model,batch,backend,top5_identical,rel_vs_fp64,rel_vs_fp32,bound,
pass), OUT/latency.csv (model,batch,backend,device,median_ms; backends ktune, ktune-graph, cudnn,
..., pytorch, pytorch-channels-last, pytorch-cudagraph, pytorch-channels-last-cudagraph,
pytorch-compile), OUT/summary.md (per model and batch: ktune's fastest CUDA backend and PyTorch's
fastest variant, which won, their ratio) and OUT/bench.log. Exit status 1 when a model disagrees
or fails.

Usage: onnx_torchvision_gpu.py BENCH OUT [--models a,b] [--batches 1,16] [--budget 150]
Run with the GPU machine's python3 (PyTorch with CUDA, torchvision).
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "networks"))
import onnx_torchvision as cpu  # noqa: E402  the models and their seeds, export, input, top-5
import safetensors_io  # noqa: E402
import torch_run  # noqa: E402  TF32 off at import; timing with CUDA events, CUDA graphs

BACKENDS = ["ktune", "cudnn", "cublas"]


def torch_variants(model, batch, seed, warmup, reps, compile_too):
    """Median ms of one forward per PyTorch variant, on the GPU, FP32, TF32 off."""
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithms, as the cudnn backend
    x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(seed)).cuda()
    variants = [("pytorch", torch.contiguous_format, False),
                ("pytorch-channels-last", torch.channels_last, False),
                ("pytorch-cudagraph", torch.contiguous_format, True),
                ("pytorch-channels-last-cudagraph", torch.channels_last, True)]
    if compile_too:
        variants.append(("pytorch-compile", torch.contiguous_format, False))
    times = {}
    for name, memory_format, graph in variants:
        m = model.to(memory_format=memory_format)
        if name == "pytorch-compile":
            m = torch.compile(m)
        xin = x.contiguous(memory_format=memory_format)
        try:
            with torch.inference_mode():
                run = torch_run.graph_of(m, xin) if graph else (lambda: m(xin))
                times[name] = torch_run.time_ms(run, warmup, reps)
        except Exception as error:  # torch.compile needs a working Triton toolchain
            print(f"batch {batch} {name}: failed: {str(error).splitlines()[0]}", flush=True)
    model.to(memory_format=torch.contiguous_format)
    return times


def agreement(got, ref64, ref32, bound):
    scale64, scale32 = np.abs(ref64).max(), np.abs(ref32).max()
    rel64 = float(np.abs(got - ref64).max() / scale64)
    rel32 = float(np.abs(got - ref32).max() / scale32)
    same = all(cpu.top5(got[i]) == cpu.top5(ref64[i]) for i in range(len(got)))
    return same, rel64, rel32, same and rel64 <= bound and rel32 <= bound


def run_bench(args, tmp, models, batch, logits_dir, timeout, log):
    cmd = [args.bench, "--onnx", *[os.path.join(tmp, m + ".onnx") for m in models], "--batch",
           str(batch), "--warmup", str(args.warmup), "--reps", str(args.reps), "--csv",
           os.path.join(tmp, f"bench-{batch}.csv")]
    if logits_dir:
        cmd += ["--logits-dir", logits_dir, "--inputs", os.path.join(tmp, "images.safetensors")]
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    try:
        subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"batch {batch}: ktune_nn_cuda_bench cut at {timeout:.0f} s", flush=True)
    path = os.path.join(tmp, f"bench-{batch}.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(f)]


def summary(latency, models, batches, bound, agree):
    lines = ["| model | batch | ktune's fastest CUDA backend | ms | PyTorch's fastest variant | ms "
             "| ktune / PyTorch | agreement (max rel. diff vs float64) |",
             "| --- | ---: | --- | ---: | --- | ---: | ---: | --- |"]
    for m in models:
        for b in batches:
            ours = {r[2]: float(r[4]) for r in latency if r[0] == m and r[1] == b and
                    not r[2].startswith("pytorch")}
            theirs = {r[2]: float(r[4]) for r in latency if r[0] == m and r[1] == b and
                      r[2].startswith("pytorch")}
            if not ours or not theirs:
                continue
            o, t = min(ours, key=ours.get), min(theirs, key=theirs.get)
            rows = [a for a in agree if a[0] == m]
            worst = max((float(a[4]) for a in rows if a[4] != ""), default=float("nan"))
            ok = "all pass" if rows and all(a[7] for a in rows) else "FAIL"
            lines.append(f"| {m} | {b} | {o} | {ours[o]:.3f} | {t} | {theirs[t]:.3f} | "
                         f"{ours[o] / theirs[t]:.2f} | {ok} ({worst:.2g}, bound {bound:g}) |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="ktune_nn_cuda_bench")
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(cpu.MODELS))
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--images", type=int, default=4, help="images of the agreement check")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--bound", type=float, default=1e-3,
                    help="largest |logit difference| / largest |logit| allowed (cuDNN may pick "
                    "Winograd or FFT; scripts/networks/check_logits.py's default)")
    ap.add_argument("--budget", type=float, default=150, help="seconds for the whole run")
    ap.add_argument("--compile", action="store_true", help="also time torch.compile")
    args = ap.parse_args()
    start = time.monotonic()
    left = lambda: args.budget - (time.monotonic() - start)  # noqa: E731
    models, batches = args.models.split(","), [int(b) for b in args.batches.split(",")]
    os.makedirs(args.out, exist_ok=True)
    device = torch.cuda.get_device_name(0)
    refs, failed, latency, agree, skipped = {}, [], [], [], []
    log = open(os.path.join(args.out, "bench.log"), "w")
    with tempfile.TemporaryDirectory() as tmp:
        x = torch.randn(args.images, 3, 224, 224,
                        generator=torch.Generator().manual_seed(args.seed + 2))
        cpu.save_input(os.path.join(tmp, "images.safetensors"), x)
        for name in list(models):
            try:
                model = cpu.build(name, args.seed)
                cpu.export(model, x[:1], os.path.join(tmp, name + ".onnx"))
                with torch.inference_mode():
                    ref32 = model.cuda()(x.cuda()).double().cpu().numpy()
                    ref64 = model.double()(x.double().cuda()).cpu().numpy()
                refs[name] = (ref64, ref32)
                print(f"{name}: exported; PyTorch FP32 vs float64 "
                      f"{np.abs(ref32 - ref64).max() / np.abs(ref64).max():.2g} "
                      f"({time.monotonic() - start:.0f} s)", flush=True)
            except Exception as error:
                print(f"{name}: export failed: {error}", flush=True)
                failed.append(name)
                models.remove(name)
            model = None  # frees the GPU copies before the next model
        torch.cuda.empty_cache()
        logits_dir = os.path.join(tmp, "logits")
        os.makedirs(logits_dir)
        for i, batch in enumerate(batches):
            if left() < 20:
                skipped.append(f"batch {batch} (budget)")
                continue
            # PyTorch's variants take ~2 s a model (call of 2026-11-27): the rest is the bench's.
            rows = run_bench(args, tmp, models, batch, logits_dir if i == 0 else "",
                             max(left() - 3 * len(models), 10), log)
            latency += [[r["network"], batch, r["backend"], r["device"], r["median_ms"]]
                        for r in rows]
            print(f"batch {batch}: {len(rows)} ktune rows ({time.monotonic() - start:.0f} s)",
                  flush=True)
            for name in models:
                if left() < 5:
                    skipped.append(f"PyTorch {name} batch {batch} (budget)")
                    continue
                model = cpu.build(name, args.seed).cuda()
                times = torch_variants(model, batch, args.seed + 3, args.warmup, args.reps,
                                       args.compile and left() > 60)
                latency += [[name, batch, v, device, f"{ms:.4f}"] for v, ms in times.items()]
                del model
            print(f"batch {batch}: PyTorch timed ({time.monotonic() - start:.0f} s)", flush=True)
        for name in models:
            ref64, ref32 = refs[name]
            for b in BACKENDS:
                path = os.path.join(logits_dir, f"{name}-{b}-images.safetensors")
                if not os.path.exists(path):
                    agree.append([name, args.images, b, "", "", "", args.bound, False])
                    failed.append(f"{name}/{b}")
                    continue
                tensors, _ = safetensors_io.read(path)
                got = np.array(tensors["logits"][1], dtype=np.float64).reshape(ref64.shape)
                same, rel64, rel32, ok = agreement(got, ref64, ref32, args.bound)
                agree.append([name, args.images, b, same, f"{rel64:.3g}", f"{rel32:.3g}",
                              args.bound, ok])
                if not ok:
                    failed.append(f"{name}/{b}")
                print(f"{name} {b}: top-5 {'identical' if same else 'DIFFER'}, max |diff| / max "
                      f"|logit| {rel64:.2g} vs float64, {rel32:.2g} vs PyTorch FP32", flush=True)
    with open(os.path.join(args.out, "agreement.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "images", "backend", "top5_identical", "rel_vs_fp64", "rel_vs_fp32",
                    "bound", "pass"])
        w.writerows(agree)
    with open(os.path.join(args.out, "latency.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "batch", "backend", "device", "median_ms"])
        w.writerows(latency)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(f"{device}, FP32 (TF32 off), median ms of {args.reps} passes after "
                f"{args.warmup}, PyTorch {torch.__version__}\n\n")
        f.write(summary(latency, models, batches, args.bound, agree))
        if skipped:
            f.write("\nLeft out: " + ", ".join(skipped) + "\n")
    print(f"done in {time.monotonic() - start:.0f} s; left out: {skipped or 'nothing'}")
    if failed:
        sys.exit("failed or disagree: " + ", ".join(failed))


if __name__ == "__main__":
    main()
