#!/usr/bin/env python3
"""Per-layer table of the wgmma conv kernel (best of its configs, bf16) against cuDNN at its best
(torch's cuDNN, benchmark mode, the faster of NCHW and NHWC, same run), plus the committed
cuda_igemm_mma oracle and ktune's own cuDNN row (results/h100-80gb-hbm3/conv-precision-tables,
an earlier run on the same card model) for reference. Usage: summarize.py RUN_DIR PER_LAYER_CSV"""
import csv
import math
import os
import sys


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: summarize.py RUN_DIR PER_LAYER_CSV")
    run, committed = sys.argv[1], sys.argv[2]
    for path in (f"{run}/bench.csv", f"{run}/cudnn-torch.csv", committed):
        if not os.path.isfile(path):
            sys.exit(f"summarize.py: cannot read {path}")
    key = lambda r: (r["network"], r["layer"], int(r["n"]))
    best = {}
    for r in csv.DictReader(open(f"{run}/bench.csv")):
        if not r["status"].startswith("ok"):
            continue
        ms = float(r["median_ms"])
        if key(r) not in best or ms < best[key(r)][0]:
            best[key(r)] = (ms, r["config"], r)
    cudnn = {}
    for r in csv.DictReader(open(f"{run}/cudnn-torch.csv")):
        ms = float(r["median_ms"])
        if key(r) not in cudnn or ms < cudnn[key(r)][0]:
            cudnn[key(r)] = (ms, r["layout"], r["kernels"][:90])
    old = {}
    for r in csv.DictReader(open(committed)):
        if r["precision"] == "bf16" and r["ktune"] == "oracle":
            old[key(r)] = (float(r["ktune_ms"]), float(r["vendor_ms"]), r["vendor_algo"],
                           int(r["count"]))
    out = open(f"{run}/per-layer.csv", "w", newline="")
    w = csv.writer(out)
    w.writerow(["network", "layer", "n", "count", "h", "w", "c", "k", "r", "s", "stride", "pad",
                "wgmma_config", "wgmma_ms", "cudnn_ms", "cudnn_layout", "cudnn_kernels", "ratio",
                "igemm_mma_oracle_ms_committed", "ktune_cudnn_ms_committed",
                "ktune_cudnn_algo_committed"])
    ratios, tw_ours, tw_vendor, rows, old_ratios = [], 0.0, 0.0, [], []
    groups = {}  # (network, n) -> [ours, torch cudnn, ktune cudnn committed, igemm committed]
    for k in old:
        igemm_ms, kc_ms, kc_algo, count = old[k]
        if k not in cudnn:
            continue
        v_ms, layout, kern = cudnn[k]
        if k not in best:
            w.writerow([k[0], k[1], k[2], count, "", "", "", "", "", "", "", "", "refused (c % 64)",
                        "", v_ms, layout, kern, "", igemm_ms, kc_ms, kc_algo])
            continue
        ms, cfg, r = best[k]
        ratio = v_ms / ms
        ratios.append(ratio)
        old_ratios.append(min(kc_ms, v_ms) / ms)
        tw_ours += count * ms
        tw_vendor += count * v_ms
        g = groups.setdefault((k[0], k[2]), [[], [], [], []])
        for lst, t in zip(g, (ms, v_ms, kc_ms, igemm_ms)):
            lst.append((count, t))
        rows.append((ratio, k, cfg, ms, v_ms, layout))
        w.writerow([k[0], k[1], k[2], count, r["h"], r["w"], r["c"], r["k"], r["r"], r["s"],
                    r["stride"], r["pad"], cfg, ms, v_ms, layout, kern, f"{ratio:.4f}", igemm_ms,
                    kc_ms, kc_algo])
    out.close()
    rows.sort()
    lines = [f"layers run: {len(ratios)} (refused: {len(old) - len(ratios)}, c % 64 != 0)",
             f"geomean cuDNN/wgmma (>1: wgmma faster): {geomean(ratios):.3f}",
             f"time-weighted (sum count*cudnn / sum count*wgmma): {tw_vendor / tw_ours:.3f}",
             f"geomean vs min(this run's torch cuDNN, committed ktune cuDNN row): "
             f"{geomean(old_ratios):.3f}",
             "per network and batch (sum of count x ms; geomean of per-layer cuDNN / wgmma):",
             "  net n | wgmma ms | torch cuDNN (this run) ms, geomean, time-weighted | "
             "ktune cuDNN row (committed run) ms, geomean, time-weighted | igemm_mma oracle "
             "(committed) ms"]
    for (net, n), g in sorted(groups.items()):
        tot = [sum(c * t for c, t in lst) for lst in g]
        gm = [geomean([v[1] / o[1] for o, v in zip(g[0], g[j])]) for j in (1, 2)]
        lines.append(f"  {net} {n} | {tot[0]:.3f} | {tot[1]:.3f} {gm[0]:.2f} {tot[1] / tot[0]:.2f}"
                     f" | {tot[2]:.3f} {gm[1]:.2f} {tot[2] / tot[0]:.2f} | {tot[3]:.3f}")
    allg = [sum((g[j] for g in groups.values()), []) for j in range(4)]
    tot = [sum(c * t for c, t in lst) for lst in allg]
    lines.append(f"  all 62 | {tot[0]:.3f} | {tot[1]:.3f} {geomean([v[1] / o[1] for o, v in zip(allg[0], allg[1])]):.2f} "
                 f"{tot[1] / tot[0]:.2f} | {tot[2]:.3f} "
                 f"{geomean([v[1] / o[1] for o, v in zip(allg[0], allg[2])]):.2f} {tot[2] / tot[0]:.2f}"
                 f" | {tot[3]:.3f}")
    lines += ["worst 8 layers (ratio, layer, config, wgmma ms, cudnn ms, layout):"]
    lines += [f"  {r:.3f} {k[0]} {k[1]} n={k[2]} {c} {m:.4f} {v:.4f} {lay}"
              for r, k, c, m, v, lay in rows[:8]]
    lines += ["best 5:"] + [f"  {r:.3f} {k[0]} {k[1]} n={k[2]} {c} {m:.4f} {v:.4f} {lay}"
                           for r, k, c, m, v, lay in rows[-5:]]
    open(f"{run}/summary.txt", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


main()
