#!/usr/bin/env python3
"""Per-layer table of the wgmma conv kernel (best of its configs, bf16) against cuDNN at its best
(torch's cuDNN, benchmark mode, the faster of NCHW and NHWC, same run), plus the committed
cuda_igemm_mma oracle and ktune's own cuDNN row (results/h100-80gb-hbm3/conv-precision-tables,
an earlier run on the same card model) for reference. Usage: summarize.py RUN_DIR PER_LAYER_CSV"""
import csv
import math
import sys


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    run, committed = sys.argv[1], sys.argv[2]
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
    for k in old:
        igemm_ms, kc_ms, kc_algo, count = old[k]
        if k not in cudnn:
            continue
        v_ms, layout, kern = cudnn[k]
        if k not in best:
            r = None
            w.writerow([k[0], k[1], k[2], count, "", "", "", "", "", "", "", "", "refused (c % 64)",
                        "", v_ms, layout, kern, "", igemm_ms, kc_ms, kc_algo])
            continue
        ms, cfg, r = best[k]
        ratio = v_ms / ms
        ratios.append(ratio)
        old_ratios.append(min(kc_ms, v_ms) / ms)
        tw_ours += count * ms
        tw_vendor += count * v_ms
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
             "worst 8 layers (ratio, layer, config, wgmma ms, cudnn ms, layout):"]
    lines += [f"  {r:.3f} {k[0]} {k[1]} n={k[2]} {c} {m:.4f} {v:.4f} {lay}"
              for r, k, c, m, v, lay in rows[:8]]
    lines += ["best 5:"] + [f"  {r:.3f} {k[0]} {k[1]} n={k[2]} {c} {m:.4f} {v:.4f} {lay}"
                           for r, k, c, m, v, lay in rows[-5:]]
    open(f"{run}/summary.txt", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


main()
