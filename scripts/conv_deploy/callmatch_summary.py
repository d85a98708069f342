#!/usr/bin/env python3
"""The summary (stdout, markdown) and run.json draft of scripts/conv_deploy/gpu_bf16_callmatch.sh's
directory: each bench table's all-layers row (geomean, time-weighted, worst layer), the share
served by ktune's own kernels, the own-kernel and vendor-served layers' ratios, the deployed
cuDNN call's searches (engine or legacy kept), the GPU tests' outcome. Figures are copied from the
files the run wrote; a missing file is said, never filled in. --output bf16 (gpu_bf16_output.sh:
the deployed call writes bf16 like the vendor column; the tables' FP32 -> bf16 output lines) also
writes DIR/call-vs-engine.md: each vendor-served layer's deployed call (the bench's median, CSV)
beside the engine its search kept (the search's time of that engine, KTUNE_CONV2D_CUDNN_LOG).
  scripts/conv_deploy/callmatch_summary.py --dir DIR --commit SHA --seconds S [--output bf16]
    > DIR/summary.md"""
import argparse
import csv
import datetime
import json
import math
import os
import re
import sys

# (table, the bench's log, what it measured)
TABLES = (("conv-deployed-bf16-vs-cudnn.md", "bench.log",
           "in sample: VGG16 + ResNet-50, batch 1 and 16"),
          ("heldout-trained-vgg16.md", "bench-heldout-trained-vgg16.log",
           "held out: trained on VGG16, run on ResNet-50"),
          ("heldout-trained-resnet50.md", "bench-heldout-trained-resnet50.log",
           "held out: trained on ResNet-50, run on VGG16"))
LAYER_LINE = re.compile(r"^(\S+) (\S+) n=(\d+): deployed ([\d.]+) \((.*?)\) vendor ([\d.]+) ")


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def table_summary(text):
    """The all-layers row and the served / per-half lines of one bench markdown."""
    row = re.search(r"^\| all \| 0 \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([^|]+) \|", text, re.M)
    lines = [l.strip() for l in text.splitlines()
             if l.startswith(("Served by", "Own-kernel layers", "Vendor-served layers"))]
    if not row:
        return None, lines
    layers, geo, tw, worst = row.groups()
    return (f"{layers} layers: deployed / cuDNN {geo} geomean, {tw} time-weighted, "
            f"worst {worst.strip()}"), lines


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def log_summary(text):
    """A bench cut short writes no table: the per-layer lines it printed, geomeans only."""
    own, vendor = [], []
    for line in text.splitlines():
        m = LAYER_LINE.match(line)
        if not m or float(m.group(4)) <= 0 or float(m.group(6)) <= 0:
            continue
        ratio = float(m.group(4)) / float(m.group(6))
        (vendor if m.group(5).startswith("vendor=") else own).append(ratio)
    if not own and not vendor:
        return None
    return (f"PARTIAL (no table: the bench was cut short; from its log, geomeans only) "
            f"{len(own) + len(vendor)} layers: deployed / cuDNN {geomean(own + vendor):.3f}; "
            f"own-kernel layers {len(own)}: {geomean(own):.3f}; vendor-served layers "
            f"{len(vendor)}: {geomean(vendor):.3f}")


def search_summary(text):
    """The deployed call's search lines (vendor_cudnn.hpp, KTUNE_CONV2D_CUDNN_LOG): what was kept."""
    kept = re.findall(r"; kept (16-bit-output engine|fp32-output engine|legacy|none)", text)
    return (f"{len(kept)} deployed cuDNN searches: backend engine kept on "
            f"{kept.count('16-bit-output engine') + kept.count('fp32-output engine')} (FP32 output "
            f"on {kept.count('fp32-output engine')}), legacy Find on {kept.count('legacy')}, "
            f"none on {kept.count('none')}")


SEARCH_LINE = re.compile(
    r"^ktune::conv2d_ex cudnn n=(\d+) (\d+)x(\d+) c=(\d+) k=(\d+) (\d+)x(\d+)/(\d+) pad=(\d+) "
    r"align=(\d+) output=(\w+): legacy (-?[\d.]+) ms.*?; engines (-?[\d.]+) ms.*?; kept "
    r"(16-bit-output engine|fp32-output engine|legacy|none)")


def kept_engines(text, output):
    """(n, h, w, c, k, r, s, stride, pad) -> the fastest kept search time (ms) over the layer's
    alignments, of the searches for `output`."""
    kept = {}
    for line in text.splitlines():
        m = SEARCH_LINE.match(line)
        if not m or m.group(11) != output or m.group(14) == "none":
            continue
        ms = float(m.group(12) if m.group(14) == "legacy" else m.group(13))
        if ms <= 0:
            continue
        key = tuple(int(g) for g in m.group(1, 2, 3, 4, 5, 6, 7, 8, 9))
        kept[key] = min(kept.get(key, ms), ms)
    return kept


def call_vs_engine(csv_text, search_text):
    """Markdown of the vendor-served layers' deployed call against its kept engine's search
    time, and its one-line summary (None when no layer matched)."""
    kept = kept_engines(search_text, "bf16")
    rows, extra = [], []
    for r in csv.DictReader(csv_text.splitlines()):
        if not r.get("config", "").startswith("vendor=") or not r.get("deployed_gflops"):
            continue
        key = tuple(int(r[x]) for x in ("n", "h", "w", "c", "k", "r", "s", "stride", "pad"))
        if key not in kept:
            continue
        n, h, w, c, k, fr, fs, st, pad = key
        p, q = (h + 2 * pad - fr) // st + 1, (w + 2 * pad - fs) // st + 1
        flop = 2.0 * n * p * q * k * c * fr * fs
        call_ms = flop / (float(r["deployed_gflops"]) * 1e6)
        alone = (f"{1e-3 * flop / float(r['engine_alone_gflops']):.1f}"
                 if r.get("engine_alone_gflops") else "–")
        extra.append(1e3 * (call_ms - kept[key]))
        rows.append(f"| {r['network']} | {r['layer']} | {n} | {1e3 * call_ms:.1f} | {alone} | "
                    f"{1e3 * kept[key]:.1f} | {1e3 * (call_ms - kept[key]):.1f} |")
    if not rows:
        return None, None
    extra.sort()
    median = extra[len(extra) // 2] if len(extra) % 2 else (
        extra[len(extra) // 2 - 1] + extra[len(extra) // 2]) / 2
    line = (f"{len(rows)} vendor-served layers: the deployed bf16-output call's median took "
            f"{median:.1f} us more than its kept engine's search time (median; not the same "
            f"protocol: the search's fastest of 3 back to back on one tensor set, the bench's "
            f"median over rotated copies)")
    md = ("# The deployed cuDNN call (bf16 output) against the engine its search kept\n\n" +
          line + ". cuDNN NHWC alone: the bench's own find in the call's search space, timed like "
          "the call (the table's same-protocol line).\n\n| network | layer | batch | call us "
          "(bench median) | cuDNN NHWC alone us (bench median) | kept engine us (search) | call − "
          "kept engine us |\n|---|---|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n")
    return line, md


def tests_summary(text):
    passed = re.search(r"\[  PASSED  \] (\d+) test", text)
    failed = re.findall(r"^\[  FAILED  \] (\S+)", text, re.M)
    return (f"GPU tests: {passed.group(1) if passed else 0} passed, "
            f"{len(set(failed))} failed{': ' + ', '.join(sorted(set(failed))) if failed else ''}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--seconds", required=True)
    parser.add_argument("--output", choices=("fp32", "bf16"), default="fp32",
                        help="the deployed call's output type in the run (gpu_bf16_output.sh: bf16)")
    args = parser.parse_args()
    out16 = args.output == "bf16"
    smi = (read(os.path.join(args.dir, "nvidia-smi.txt")) or "").strip().splitlines()
    card = smi[1].split(", ") if len(smi) > 1 else []
    device = (f"{card[0]} (lent, driver {card[1]}, {card[2]})" if len(card) >= 3
              else "unknown: nvidia-smi.txt missing")
    measures = []
    title = "bf16 output" if out16 else "cuDNN call matched to the rows"
    print(f"# Deployed bf16 conv2d ({title}) on {device}\n")
    print("The H100-trained library (bf16 selector K = 16 of the H100 sweeps) run on this card; "
          "cuDNN at its best in bf16 (legacy Find + backend engines, NHWC or NCHW, bf16 output) "
          "in the same run. " + ("Deployed output bf16 (Conv2dOutput::bf16), vendor column bf16: "
                                 "like with like; the FP32-output call timed beside it (the "
                                 "FP32 -> bf16 output lines).\n" if out16 else
                                 "Deployed output FP32, vendor column bf16.\n"))
    for name, log, what in TABLES:
        text = read(os.path.join(args.dir, name))
        if text is None:
            partial = log_summary(read(os.path.join(args.dir, log)) or "")
            print(f"- {what}: {partial or f'not run ({name} missing)'}")
            measures.append(f"{what}: {partial or 'not run'}")
            continue
        head, lines = table_summary(text)
        print(f"- {what}: {head or 'no all-layers row'}")
        for line in lines:
            print(f"  - {line}")
        measures.append(f"{what}: {head or 'no all-layers row'}; " + " ".join(lines))
    search = read(os.path.join(args.dir, "cudnn-search.log"))
    if search is not None:
        print(f"- {search_summary(search)}")
        measures.append(search_summary(search))
    table_csv = read(os.path.join(args.dir, "conv-deployed-bf16-vs-cudnn.csv"))
    if out16 and search is not None and table_csv is not None:
        line, md = call_vs_engine(table_csv, search)
        if md:
            with open(os.path.join(args.dir, "call-vs-engine.md"), "w", encoding="utf-8") as f:
                f.write(md)
        print(f"- {line or 'call vs engine: no vendor-served layer matched a search line'}")
        if line:
            measures.append(line)
    tests = read(os.path.join(args.dir, "gpu-tests.log"))
    print(f"- {tests_summary(tests) if tests is not None else 'GPU tests: no log'}")
    if tests is not None:
        measures.append(tests_summary(tests))
    files = sorted(f for f in os.listdir(args.dir) if f not in ("run.json",))
    script = "gpu_bf16_output.sh" if out16 else "gpu_bf16_callmatch.sh"
    what = ("ktune::conv2d_ex bf16 with bf16 output (Conv2dOutput::bf16; its FP32-output call "
            "timed beside it" if out16 else "ktune::conv2d_ex bf16 (FP32 output")
    run = {
        "command": (f"BUILD=/tmp/b OUT_DIR=$OUT bash scripts/conv_deploy/{script} "
                    "(BUILD by scripts/gpu_build_remote.sh, EXAMPLES=ON, targets ktune_gpu_tests "
                    "tuned_conv_bench tuned_conv_bench_bf16_vgg16 tuned_conv_bench_bf16_resnet50; "
                    f"{args.seconds} s)"),
        "commit": args.commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "device": device,
        "measures": (what + "; its vendor=cudnn call keeps the faster "
                     "of cuDNN's legacy Find and backend engines, NHWC) against cuDNN at its best "
                     "in bf16 (bf16 output), same run; the selector was trained on H100 rows (the "
                     "H100-trained library on this card). " + " | ".join(measures)),
        "files": files,
        "in_sample": None,
        "vendors": ["cudnn (the conv2d family's CudnnConv in bf16: legacy Find + backend-API "
                    "engines, NHWC and NCHW, fastest kept; same run, same protocol)"],
        "note": ("in_sample null: the dnn table's layers are the selector's training layers (in "
                 "sample) but its rows were timed on the H100; heldout-trained-* are held out."),
    }
    with open(os.path.join(args.dir, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
