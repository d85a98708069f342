#!/usr/bin/env python3
"""README.md's headline figures, computed from the data files in results/.

Rewrites the block between `<!-- figures:begin -->` and `<!-- figures:end -->` in README.md;
every figure there comes from a file of results/ and names that file, its device (from the run's
manifest) and whether it is in-sample or held out for the selector.

  scripts/readme_figures.py            # rewrite the block
  scripts/readme_figures.py --check    # exit 1 if README.md's block differs from the data
  --root DIR                           # the repository (default: this script's parent's parent)
"""
import csv
import json
import math
import os
import sys

import results_index  # the manifests' walk and the shared command line

BEGIN, END = "<!-- figures:begin -->", "<!-- figures:end -->"
# The conv2d tables' vendor: the fastest FP32 FMA algorithm of cuDNN's legacy Find and backend
# engines, NCHW or NHWC (kernels/conv2d/cuda/conv2d_cudnn.hpp).
CUDNN_BEST = "cuDNN FP32 at its best (FMA; Find + engines, NCHW/NHWC)"


class Data:
    """Reads results/ files and the manifests that name them."""

    def __init__(self, root):
        self.results = os.path.join(root, "results")
        self.owner = {}  # results-relative file -> its manifest
        for rel in results_index.walk(self.results)[0]:
            with open(os.path.join(self.results, rel), encoding="utf-8") as f:
                m = json.load(f)
            for p in m.get("files", []):
                self.owner[os.path.normpath(os.path.join(os.path.dirname(rel), p))] = m

    def rows(self, rel):
        with open(os.path.join(self.results, rel), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def device(self, rel):
        if rel not in self.owner:
            raise SystemExit(f"error: results/{rel}: no manifest lists it (scripts/results_index.py)")
        return self.owner[rel]["device"]

    def link(self, rel):
        return f"[{os.path.basename(rel)}](results/{rel})"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def gemm_flop(r):
    return 2.0 * int(r["m"]) * int(r["n"]) * int(r["k"]) * int(r["batch"])


def conv_flop(r):
    p, q = (int(r["h"]) + 2 * int(r["pad"]) - int(r["r"])) // int(r["stride"]) + 1, \
           (int(r["w"]) + 2 * int(r["pad"]) - int(r["s"])) // int(r["stride"]) + 1
    return 2.0 * int(r["n"]) * int(r["k"]) * int(r["r"]) * int(r["s"]) * int(r["c"]) * p * q


def ratios(rows, flop, ours="deployed_gflops", theirs="vendor_gflops"):
    """geomean of ours/theirs, time-weighted (sum of their times / sum of ours), count below 0.8."""
    r = [float(x[ours]) / float(x[theirs]) for x in rows]
    tw = sum(flop(x) / float(x[theirs]) for x in rows) / sum(flop(x) / float(x[ours]) for x in rows)
    return geomean(r), tw, sum(v < 0.8 for v in r)


def pct_of_oracle(rows):
    r = [float(x["deployed_gflops"]) / float(x["oracle_gflops"]) for x in rows if x["oracle_gflops"]]
    return f"{100 * geomean(r):.1f} %" if r else ""


def gemm_deployed(d):
    """Deployed GEMM libraries vs vendor: the H100 runs (set column); the CPU: gemm_cpu_headers."""
    out = ["**Deployed tuned GEMM library vs the vendor library** (ratio = vendor time / ktune "
           "time, > 1 is faster; in-sample = shapes the selector was trained on; the H100 rows: "
           "the FP32 library with its kernels-only header, the default until 2026-11-29):", "",
           "| device | vendor | shapes | selector saw them? | geomean | time-weighted | below 0.8× "
           "| % of oracle | source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    h100 = [("h100-80gb-hbm3/gemm-vs-vendor.csv", ""),
            ("h100-80gb-hbm3/gemm-vs-vendor-run2.csv", ", repeat run")]
    for rel, repeat in h100:
        rows = d.rows(rel)
        for name in ("in-sample-dnn+large", "in-sample-dnn", "in-sample-large", "held-out-large"):
            if repeat and name in ("in-sample-dnn", "in-sample-large"):
                continue
            rs = [r for r in rows if r["set"] == name]
            g, tw, below = ratios(rs, gemm_flop)
            label = "in-sample" if name.startswith("in-sample") else \
                "**held out** (selector trained on `dnn` only)"
            what = name.split("-", 2)[2].replace("+", " + ")
            out.append(f"| {d.device(rel)} | cuBLAS FP32 (TF32 off) | {len(rs)} `{what}`{repeat} | "
                       f"{label} | **{g:.3f}** | {tw:.3f} | {below} | {pct_of_oracle(rs)} | "
                       f"{d.link(rel)} |")
    return out


def gemm_cpu_headers(d):
    """The CPU library's default header (samplez6r-vendors-floor: all 431 dnn shapes, re-timed, the
    leaf floor) beside the one it replaced, in one window each on the dnn shapes and on the
    held-out ViT ones, against the faster of OpenBLAS and oneDNN in the same run: each side's
    median of rounds, and (gemm_rounds_summary.py) its fastest round, which the guest's stalled
    turns do not reach."""
    out = ["", "**Deployed CPU GEMM library (`ktune::gemm`, AVX-512)**: the default `vendors-floor` "
           "header (oneDNN a candidate, the leaf floor; `samplez6r`, trained on every dnn shape of "
           "this CPU model, re-timed; the default since 2026-11-29) and the `vendors` header it "
           "replaced, taking turns in one window, each shape timed in rounds that alternate which "
           "library starts, against the faster of OpenBLAS and oneDNN in the same run; ViT's shapes "
           "are in no sweep. Each side's median of rounds, then its fastest round (a turn of this "
           "2-core guest can stall a call by milliseconds):", "",
           "| device | header | shapes | selector saw them? | geomean | time-weighted | below 0.9× "
           "| below 0.8× | worst | own kernels | fastest round: geomean, below 0.9×, below 0.8× "
           "| source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    dnn = "amd-epyc-2c/deployed-samplez6r-rounds/gemm-vs-vendor.csv"
    vit = "amd-epyc-2c/heldout-vit-s30-z6r/deployed-cpu-heldout.csv"
    for rel, header, what, label, wanted in (
            (dnn, "`vendors-floor` (samplez6r)", "`dnn`", "in-sample (3 rounds)", "z6rf-dnn"),
            (dnn, "`vendors` (samplez6, the default before)", "`dnn`",
             "in-sample (3 rounds, same window)", "z6v-dnn"),
            (vit, "`vendors-floor` (samplez6r)", "`vit`", "**held out** (5 rounds)", "z6rf-vit"),
            (vit, "`vendors` (samplez6, the default before)", "`vit`",
             "**held out** (5 rounds, same window)", "z6v-vit")):
        rs = [r for r in d.rows(rel) if r["set"] == wanted]
        g, tw, below, worst, own = deployed_cells(rs)
        below9 = sum(float(r["deployed_gflops"]) < 0.9 * float(r["vendor_gflops"]) for r in rs)
        summary = os.path.join(os.path.dirname(rel), "rounds-summary.csv")
        fast = next(r for r in d.rows(summary)
                    if r["set"] == wanted and r["statistic"] == "fastest round")
        out.append(f"| {d.device(rel)} | {header} | {len(rs)} {what} | {label} | **{g:.3f}** | "
                   f"{tw:.3f} | {below9} | {below} | {worst:.3f} | {own} of {len(rs)} | "
                   f"{float(fast['geomean']):.3f}, {fast['below_0.9']}, {fast['below_0.8']} | "
                   f"{d.link(rel)} |")
    return out


def deployed_cells(rs):
    """A deployed run's geomean, time-weighted ratio, shapes below 0.8x, worst ratio and the
    shapes served by ktune's own kernels."""
    g, tw, below = ratios(rs, gemm_flop)
    worst = min(float(r["deployed_gflops"]) / float(r["vendor_gflops"]) for r in rs)
    own = sum(not r["config"].startswith("vendor=") for r in rs)
    return g, tw, below, worst, own


def deployed_row(d, rel, first, what, label, rs):
    """One row of the deployed-vs-vendor tables: geomean, time-weighted, below 0.8x, worst, own."""
    g, tw, below, worst, own = deployed_cells(rs)
    return (f"| {d.device(rel)} | {first} | {len(rs)} {what} | {label} | **{g:.3f}** | "
            f"{tw:.3f} | {below} | {worst:.3f} | {own} of {len(rs)} | {d.link(rel)} |")


def gemm_fp32_cuda_headers(d):
    """The FP32 CUDA library's two headers in one run: kernels-only and with cuBLAS a candidate."""
    rel = "h200/gemm-fp32-vendors/deployed-tables.csv"
    out = ["", "**Deployed FP32 CUDA library (`ktune::gemm`): kernels-only header against the "
           "`vendors` header** (cuBLAS a candidate; the default since 2026-11-29), both in one run "
           "against the faster of cuBLAS and cuBLASLt's first heuristic answer:", "",
           "| device | header | shapes | selector saw them? | geomean | time-weighted | below 0.8× "
           "| worst | own kernels | source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    rows = d.rows(rel)
    for header, name in (("kernels-only", "kernels"), ("`vendors`", "vendors")):
        for what, label, sets in (("`dnn + large`", "in-sample", ("dnn", "large")),
                                  ("`vit`", "**held out** (in no sweep)", ("vit",))):
            rs = [r for r in rows if r["set"] in {f"{name}-{x}" for x in sets}]
            out.append(deployed_row(d, rel, header, what, label, rs))
    return out


def gemm_tc_deployed(d):
    """ktune::gemm_ex on the tensor cores vs the faster of cuBLAS and cuBLASLt's heuristic #0."""
    out = ["", "**Deployed tensor-core GEMM library (`ktune::gemm_ex`) vs the faster of cuBLAS and "
           "cuBLASLt's first heuristic answer**, same precision, same run (ratio = vendor time / "
           "ktune time; own kernels = shapes served by ktune's kernels rather than a vendor call):",
           "", "| device | precision | shapes | selector saw them? | geomean | time-weighted "
           "| below 0.8× | worst | own kernels | source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    runs = [("h100-80gb-hbm3/tc-deployed-s15/deployed-tables-tf32.csv", "tf32"),
            ("h200/tc-tf32-deployed/deployed-tables.csv", "tf32")]
    for rel, precision in runs:
        rows = d.rows(rel)
        sets = [("`dnn + large`", "in-sample",
                 [r for r in rows if r["set"] in ("in-sample-dnn", "in-sample-large")]),
                ("`llm`", "**held out** (selector trained on `dnn + large`)",
                 [r for r in rows if r["set"] == "held-out-llm"]),
                ("`vit`", "**held out** (in no sweep of this card)",
                 [r for r in rows if r["set"] == "held-out-vit"])]
        for what, label, rs in sets:
            if rs:
                out.append(deployed_row(d, rel, precision, what, label, rs))
    return out


def gemm_h200_turns(d):
    """The H200-trained vendor headers in every precision, the calls timed in turns."""
    old = "h200/gemm-deployed-turns/deployed-tables.csv"
    mma = "h200/gemm-deployed-turns-mma/deployed-tables.csv"
    new = "h200/gemm-deployed-turns-2/deployed-tables.csv"
    out = ["", "**Deployed GEMM libraries with the H200-trained vendor headers** (`ktune::gemm` "
           "FP32: `h200-fp32-vendors-lt8-k16`; `ktune::gemm_ex` tf32: "
           "`h200-tf32-vendors-lt8-boxall-k16`, bf16: `h200-bf16-vendors-lt8-k16`), each shape's "
           "library call, cuBLAS and cuBLASLt's first answer taking turns run by run, operands at "
           "256 B, against the faster of the two vendor calls (each row one run; the tf32 and bf16 "
           "rows with the current mma and wgmma kernels, except bf16 `llm`, which the header "
           "serves entirely by cuBLASLt):", "",
           "| device | precision | shapes | selector saw them? | geomean | time-weighted "
           "| below 0.8× | worst | own kernels | source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    # FP32's header was trained on dnn alone (large held out), the tf32 / bf16 ones on dnn + large.
    held_out = "**held out** (selector trained on `dnn + large`)"
    unseen = "**held out** (in no sweep of this card)"
    sets = [(old, "fp32", "`dnn`", "in-sample", ("in-sample-dnn-fp32",)),
            (old, "fp32", "`large`", "**held out** (selector trained on `dnn`)",
             ("held-out-large-fp32",)),
            (old, "fp32", "`vit`", unseen, ("held-out-vit-fp32",)),
            (new, "tf32", "`dnn + large`", "in-sample", ("in-sample-dnn-tf32", "in-sample-large-tf32")),
            (new, "tf32", "`llm`", held_out, ("held-out-llm-tf32",)),
            (new, "tf32", "`vit`", unseen, ("held-out-vit-tf32",)),
            (new, "bf16", "`dnn + large`", "in-sample", ("in-sample-dnn-bf16", "in-sample-large-bf16")),
            (mma, "bf16", "`llm`", held_out, ("held-out-llm-bf16",)),
            (new, "bf16", "`vit`", unseen, ("held-out-vit-bf16",))]
    for rel, precision, what, label, names in sets:
        rs = [r for r in d.rows(rel) if r["set"] in names]
        out.append(deployed_row(d, rel, precision, what, label, rs))
    return out


def best_of_space(d):
    """The best swept config per shape (no selector) vs the vendor."""
    out = ["", "**Best swept config per shape vs the vendor library** (no selector: the ceiling of "
           "the kernel space):", "",
           "| device | vendor | shapes | geomean | time-weighted | below 0.8× | source |",
           "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    rel = "h100-80gb-hbm3/gemm-large-vs-vendor.csv"
    rows = d.rows(rel)
    g, tw, below = ratios(rows, gemm_flop, ours="oracle_gflops")
    out.append(f"| {d.device(rel)} | cuBLAS FP32 (TF32 off) | {len(rows)} `large` GEMMs | **{g:.3f}** | "
               f"{tw:.3f} | {below} | {d.link(rel)} |")
    rel = "h100-80gb-hbm3/conv-cudnn-best/conv-vs-vendor.csv"
    rows = d.rows(rel)
    for net in ("vgg16", "resnet50"):
        for batch in ("1", "16"):
            rs = distinct_layers(r for r in rows if r["network"] == net and r["batch"] == batch)
            g, tw, below = ratios(rs, conv_flop, ours="oracle_gflops")
            out.append(f"| {d.device(rel)} | {CUDNN_BEST} | {len(rs)} {net} conv layers, "
                       f"batch {batch} | **{g:.2f}** | {tw:.2f} | {below} | {d.link(rel)} |")
    return out


def distinct_layers(rows):
    seen = {}
    for r in rows:
        key = tuple(r[k] for k in ("batch", "n", "h", "w", "c", "k", "r", "s", "stride", "pad"))
        seen.setdefault(key, r)
    return list(seen.values())


def conv_deployed(d):
    out = ["", "**Deployed tuned conv2d library vs the vendor library** (per distinct layer; "
           "time-weighted = Σ vendor time / Σ ktune time):", "",
           "| device | vendor | layers | selector saw them? | geomean | time-weighted | below 0.8× "
           "| source |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | --- |"]
    held_out = "**held out** (selector trained on ResNet-50 only)"
    by_batch = [(f", batch {b}", lambda r, b=b: r["batch"] == b) for b in ("1", "16")]
    by_net = [(f" {n} layers, batch 1", lambda r, n=n: r["network"] == n)
              for n in ("resnet50", "vgg16")]
    by_net16 = [(f" {n} layers, batch 16", lambda r, n=n: r["network"] == n and r["batch"] == "16")
                for n in ("resnet50", "vgg16")]
    cpu_vendor = "oneDNN 2.6 at its best (auto or Winograd per layer)"
    for rel, vendor, label, what, groups in (
            ("h100-80gb-hbm3/conv-deployed-cudnn-best/conv-deployed-vs-cudnn.csv", CUDNN_BEST, "in-sample",
             " VGG16 + ResNet-50", by_batch),
            ("h100-80gb-hbm3/conv-deployed-cudnn-best-heldout/conv-deployed-vs-cudnn-heldout.csv", CUDNN_BEST,
             held_out,
             " VGG16", by_batch),
            ("amd-epyc-2c/conv-plan/conv-deployed.csv", cpu_vendor, "in-sample", "", by_net),
            ("amd-epyc-2c/conv-plan/conv-deployed-b16.csv", cpu_vendor, "in-sample", "", by_net16),
            ("amd-epyc-2c/conv-plan/conv-deployed-heldout.csv", cpu_vendor, held_out, "",
             by_net[1:]),
            ("amd-epyc-2c/conv-plan/conv-deployed-heldout-b16.csv", cpu_vendor, held_out, "",
             by_net16[1:])):
        # Batch 16 covers VGG16 since scripts/cpu_conv_sweep.sh swept it (the held-out batch-16
        # file is new with it): a group or file the committed run does not have is left out.
        if not os.path.exists(os.path.join(d.results, rel)):
            continue
        rows = d.rows(rel)
        for group, keep in groups:
            rs = distinct_layers(r for r in rows if keep(r))
            if not rs:
                continue
            g, tw, below = ratios(rs, conv_flop)
            out.append(f"| {d.device(rel)} | {vendor} | {len(rs)}{what}{group} | {label} | "
                       f"**{g:.2f}** | {tw:.2f} | {below} | {d.link(rel)} |")
    return out


def scaleout(d):
    rel = "h200/scaleout.csv"
    wall = {r["gpus"]: (float(r["wall_s"]), int(r["measurements"])) for r in d.rows(rel)}
    (one, n1), (two, n2) = wall["1"], wall["2"]
    return ["", f"**Scale-out** ({d.device(rel)}, {d.link(rel)}): one subset of the `dnn` GEMM sweep "
            f"took {one} s on `cuda:0` ({n1:,} measurements) and {two} s with `--device cuda:all` "
            f"({n2:,}): **{one / two:.2f}×** faster."]


NETWORK_COLUMNS = [("ktune", "ktune"), ("ktune-graph", "ktune graph"), ("cudnn", "cudnn"),
                   ("cublas", "cublas"), ("pytorch", "PyTorch"),
                   ("pytorch-channels-last", "PyTorch channels_last"),
                   ("pytorch-cudagraph", "PyTorch graph"), ("pytorch-compile", "torch.compile")]


def networks_cuda(d):
    rel = "h100-80gb-hbm3/networks.csv"
    ms = {(r["network"], r["batch"], r["backend"]): float(r["median_ms"]) for r in d.rows(rel)}
    out = ["", f"**Whole networks, {d.device(rel)}** (median ms of one forward pass; in-sample: the "
           f"conv selector was trained on these layers; fastest in bold; {d.link(rel)}):", "",
           "| network | batch | " + " | ".join(c for _, c in NETWORK_COLUMNS) + " | ktune / PyTorch |",
           "| --- | ---: | " + " | ".join("---:" for _ in NETWORK_COLUMNS) + " | ---: |"]
    for net, name in (("vgg16", "VGG16"), ("resnet50", "ResNet-50")):
        for batch in ("1", "16"):
            vals = [ms.get((net, batch, b)) for b, _ in NETWORK_COLUMNS]
            best = min(v for v in vals if v is not None)
            cells = ["" if v is None else (f"**{v:.2f}**" if v == best else f"{v:.2f}") for v in vals]
            ratio = ms[(net, batch, "ktune")] / ms[(net, batch, "pytorch")]
            out.append(f"| {name} | {batch} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    rel = "h100-80gb-hbm3/networks-heldout.csv"
    ms = {(r["batch"], r["backend"]): float(r["median_ms"]) for r in d.rows(rel)}
    out += ["", f"**Held out** (conv selector trained on the ResNet-50 layers only, VGG16 in one run, "
            f"{d.device(rel)}, {d.link(rel)}):", "",
            "| network | batch | ktune | ktune graph | PyTorch | PyTorch graph | ktune / PyTorch |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for batch in ("1", "16"):
        k, kg = ms[(batch, "ktune-heldout")], ms[(batch, "ktune-heldout-graph")]
        p, pg = ms[(batch, "pytorch")], ms[(batch, "pytorch-cudagraph")]
        out.append(f"| VGG16 | {batch} | {k:.2f} | {kg:.2f} | {p:.2f} | {pg:.2f} | {k / p:.2f} |")
    return out


def networks_precision(d):
    """Issue #25's table: per precision, ktune's fastest backend and auto against PyTorch's
    fastest variant of the same precision, one run (eager or CUDA graph, whichever is faster)."""
    rel = "h100-80gb-hbm3/networks-tf32-epilogue/networks.csv"
    best = {}  # (net, batch, precision, family) -> (ms, backend)
    for r in d.rows(rel):
        b = r["backend"]
        p = next((q for q in ("tf32", "bf16") if f"-{q}" in b), "fp32")
        key = (r["network"], r["batch"], p, b.split("-")[0])
        if key not in best or float(r["median_ms"]) < best[key][0]:
            best[key] = (float(r["median_ms"]), b)
    out = ["", f"**Whole networks in fp32 / tf32 / bf16, {d.device(rel)}** (median ms of one "
           f"forward pass, seeded random weights, all in one run; ktune: its fastest backend of "
           f"the precision (`ktune-cuda`, `ktune-cuda-tf32`, `ktune-cuda-bf16`), auto: "
           f"`auto-cuda*`'s whole-network pick among ktune, cudnn and cublas; PyTorch: the "
           f"fastest of channels_last, CUDA graph, both and torch.compile; {d.link(rel)}):", "",
           "| network | batch | precision | ktune | auto | PyTorch fastest | ktune / PyTorch "
           "| auto / PyTorch |", "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for net, name in (("vgg16", "VGG16"), ("resnet50", "ResNet-50")):
        for batch in ("1", "16"):
            for p in ("fp32", "tf32", "bf16"):
                k, a = best[(net, batch, p, "ktune")][0], best[(net, batch, p, "auto")][0]
                t, variant = best[(net, batch, p, "pytorch")]
                out.append(f"| {name} | {batch} | {p} | {k:.3f} | {a:.3f} | {t:.3f} ({variant}) "
                           f"| {k / t:.2f} | {a / t:.2f} |")
    return out


def networks_cpu(d):
    rel = "amd-epyc-2c/networks-cpu/networks.csv"
    ms = {(r["network"], r["batch"], r["device"], r["backend"]): float(r["median_ms"])
          for r in d.rows(rel)}
    out = ["", f"**Whole networks, {d.device(rel)}** (median over the processes of each process's "
           f"median ms; each backend in its own process, the processes alternating in rounds; "
           f"the `ktune` backend's conv plans (Winograd F(4x4, 3x3) on 3x3 stride-1 layers, in "
           f"fused 12-tile blocks where a call has 196+ tiles and k < 512) and `ktune_bf16`'s have "
           f"fixed blocking, no selector; oneDNN at its best is the faster of `onednn` and "
           f"`onednn_winograd`; bf16: bf16 weights and activations, FP32 accumulation; "
           f"{d.link(rel)}):", "",
           "| network | batch | threads | ktune | oneDNN | oneDNN Winograd "
           "| ktune / oneDNN at its best | ktune_bf16 | oneDNN bf16 | ktune_bf16 / oneDNN bf16 |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    keys = sorted({k[:3] for k in ms}, key=lambda k: (k[0] != "resnet50", int(k[1]), k[2]))
    for net, batch, dev in keys:
        k, o = ms[(net, batch, dev, "ktune")], ms[(net, batch, dev, "onednn")]
        w = ms[(net, batch, dev, "onednn_winograd")]
        kb, ob = ms[(net, batch, dev, "ktune_bf16")], ms[(net, batch, dev, "onednn_bf16")]
        threads = dev.split("(")[-1].split()[0]
        name = {"resnet50": "ResNet-50", "vgg16": "VGG16"}[net]
        out.append(f"| {name} | {batch} | {threads} | {k:.1f} | {o:.1f} | {w:.1f} "
                   f"| {k / min(o, w):.3f} | {kb:.1f} | {ob:.1f} | {kb / ob:.3f} |")
    return out


def selection(d):
    """Held-out selection on the H100 GEMM dataset: two fixed recipes at K = 8, per split."""
    rel = "h100-80gb-hbm3/selection.csv"
    rows = d.rows(rel)

    def pct(split, pruner, selector):
        for r in rows:
            if (r["split"], r["norm"], r["pruner"], r["selector"], r["k"]) == \
                    (split, "cutoff", pruner, selector, "8"):
                return f"{float(r['pct_of_oracle']):.1f} %"
        raise KeyError(f"{rel}: no row {split} cutoff {pruner} {selector} K = 8")

    out = ["", f"**Selection** ({d.device(rel)}, {d.link(rel)}): % of the oracle of all configs on "
           "**held-out** shapes, K = 8 shipped configs:", "",
           "| held out | kmeans + cutoff + forest | pca-kmeans + cutoff + tree-b (deployed recipe) |",
           "| --- | ---: | ---: |"]
    for split, name in (("random", "random 20 %"), ("network:mobilenet", "MobileNet"),
                        ("network:resnet", "ResNet-50"), ("network:vgg", "VGG16")):
        out.append(f"| {name} | {pct(split, 'kmeans', 'forest')} | "
                   f"{pct(split, 'pca-kmeans', 'tree-b')} |")
    rel = "h100-80gb-hbm3/conv2d-selection-stateless.csv"
    r = next(r for r in d.rows(rel) if (r["split"], r["norm"], r["pruner"], r["selector"], r["k"]) ==
             ("random", "rawcutoff", "tree", "tree-b", "8"))
    out += ["", f"Conv2d ({d.device(rel)}, {d.link(rel)}): the shipped recipe (tree / rawcutoff / "
            f"tree-b, K = 8 configs a stateless call can ship) serves "
            f"**{float(r['pct_of_oracle']):.1f} %** "
            f"of the oracle on a **held-out** random 20 % of the layers."]
    return out


def stencils(d):
    """Stencil work-group selection (10-fold CV, held out): best classifier vs the best fixed size."""
    out = ["", "**Stencil work-group size selection** (the seed paper's protocol, 10-fold "
           "cross-validation: **held out**):", "",
           "| device | best classifier | % of oracle | median speedup over the best fixed size "
           "| best fixed size, % of oracle | source |",
           "| --- | --- | ---: | ---: | ---: | --- |"]
    for rel in ("h100-80gb-hbm3/stencil-eval.csv", "amd-epyc-2c/stencil-eval.csv"):
        rows = [r for r in d.rows(rel) if r["split"] == "cv10"]
        best = max((r for r in rows if r["method"] == "classifier"),
                   key=lambda r: float(r["pct_of_oracle"]))
        fixed = next(r for r in rows if (r["method"], r["model"]) == ("fixed", "baseline"))
        out.append(f"| {d.device(rel)} | {best['model']} | **{float(best['pct_of_oracle']):.1f} %** | "
                   f"{float(best['median_speedup_vs_baseline']):.2f}× | "
                   f"{float(fixed['pct_of_oracle']):.1f} % | {d.link(rel)} |")
    return out


def sampled(d):
    """Sampled tuning simulated on the H100 dataset: % of the oracle per budget and strategy."""
    rel = "h100-80gb-hbm3/sampled.csv"
    rows = {(r["strategy"], r["budget_per_problem"]): r for r in d.rows(rel)}
    full = next(r for (s, _), r in rows.items() if s == "exhaustive")
    out = ["", f"**Sampled tuning** ({d.device(rel)}, {d.link(rel)}; mean of 3 seeds): % of the "
           "per-problem oracle found with a budget of measurements per problem, and the K = 8 "
           "selector trained on the sampled data (**held out**; "
           f"{float(full['selector_pct_of_oracle']):.1f} % "
           f"from all {full['budget_per_problem']} configs):", "",
           "| measurements per problem | random: found | random: selector | forest-guided: found "
           "| forest-guided: selector |",
           "| ---: | ---: | ---: | ---: | ---: |"]
    for budget in ("43", "87"):
        r, m = rows[("random", budget)], rows[("model", budget)]
        out.append(f"| {budget} | {float(r['pct_of_oracle']):.1f} % | "
                   f"{float(r['selector_pct_of_oracle']):.1f} % | "
                   f"**{float(m['pct_of_oracle']):.1f} %** | "
                   f"{float(m['selector_pct_of_oracle']):.1f} % |")
    return out


def deployment_cost(d):
    """What a deployed selector costs: time per call and the size of the tuned libraries."""
    rel = "amd-epyc-2c/selection-overhead.json"
    with open(os.path.join(d.results, rel), encoding="utf-8") as f:
        ns = {b["name"][:-len("_median")]: b["cpu_time"] for b in json.load(f)["benchmarks"]
              if b["name"].endswith("_median") and b["time_unit"] == "ns"}
    others = [v for k, v in ns.items() if k.startswith("json_selector/") and k != "json_selector/tree-b"]
    out = ["", f"**Selection cost** ({d.device(rel)}, {d.link(rel)}; median CPU time per call): "
           f"the generated tree **{ns['generated_tree/tree-b']:.1f} ns**, the same tree loaded from "
           f"JSON {ns['json_selector/tree-b']:.0f} ns, the other selectors "
           f"{min(others) / 1000:.1f}–{max(others) / 1000:.0f} µs."]
    rel = "binary-size.csv"
    sizes = {}
    for r in d.rows(rel):
        k = "all" if r["selector"].endswith("-kall.hpp") else r["configs"]
        sizes.setdefault(r["backend"], []).append((k != "all", int(r["configs"]), k,
                                                    int(r["file_bytes"]) / 1e6))
    parts = []
    for backend, name in (("cpu", "CPU"), ("cuda", "CUDA")):
        cells = sorted(sizes.get(backend, []), key=lambda x: (not x[0], x[1]))
        parts.append(f"{name} " + ", ".join(f"{mb:.2f} MB (K = {k})" for _, _, k, mb in cells))
    out.append("")
    out.append(f"**Binary size** of the shared tuned GEMM libraries ({d.device(rel)}, "
               f"{d.link(rel)}): " + "; ".join(parts) + ".")
    return out


def main_job(d):
    """The README's main job (scripts/demo.sh) from a fresh clone: scripts/main_job_time.sh."""
    rel = "amd-epyc-2c/main-job/steps.csv"
    steps = {r["step"]: r for r in d.rows(rel)}
    run = d.owner[rel]
    load = [run[f"load_average_{when}"].split()[0] for when in ("before", "after")]
    return ["", f"**The main job**, `./scripts/demo.sh` on a fresh clone (packages installed, no "
            f"ccache; {d.device(rel)}, 1-minute load average {load[0]} before, {load[1]} after: "
            f"the run itself adds about 2; {d.link(rel)}): "
            f"**{steps['all']['wall_s']} s** in all: "
            f"install check and npm ci {steps['install']['wall_s']} s, configure and build of "
            f"`ktune` with the GEMM family alone {steps['build']['wall_s']} s "
            f"({float(steps['build']['cpu_s']):.0f} CPU-s), `ktune demo` "
            f"{steps['demo']['wall_s']} s."]


def block(root):
    d = Data(root)
    lines = [BEGIN, "<!-- generated by scripts/readme_figures.py from results/; do not edit -->"]
    for section in (main_job, gemm_deployed, gemm_fp32_cuda_headers, gemm_cpu_headers,
                    gemm_tc_deployed, gemm_h200_turns, best_of_space, conv_deployed, networks_cuda,
                    networks_precision, networks_cpu,
                    selection, sampled, deployment_cost, stencils, scaleout):
        lines += section(d)
    return "\n".join(lines + [END])


def main():
    a = results_index.arguments(__doc__, "write nothing; fail if README.md differs")
    readme = os.path.join(a.root, "README.md")
    try:
        with open(readme, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"error: {readme}: {e.strerror}", file=sys.stderr)
        return 2
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print(f"error: {readme}: no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    try:
        new = text[:start] + block(a.root) + text[end + len(END):]
    except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
        print(f"error: results/: cannot compute the figures: {e}", file=sys.stderr)
        return 2
    if a.check:
        if new != text:
            old_lines, new_lines = text.splitlines(), new.splitlines()
            first = next(i for i, (x, y) in enumerate(zip(old_lines + [""], new_lines + [""]))
                         if x != y)
            was = old_lines[first] if first < len(old_lines) else ""
            now = new_lines[first] if first < len(new_lines) else ""
            print(f"README.md:{first + 1}: figures block differs from results/ "
                  f"(run scripts/readme_figures.py)\n  README: {was}\n  data:   {now}",
                  file=sys.stderr)
            return 1
        print("readme_figures: README.md agrees with results/")
        return 0
    with open(readme, "w", encoding="utf-8") as f:
        f.write(new)
    print("readme_figures: README.md figures block rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
