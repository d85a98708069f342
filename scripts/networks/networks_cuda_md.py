#!/usr/bin/env python3
"""Markdown tables of a CUDA networks run (scripts/networks/gpu_run.sh's files, renamed, in DIR):
networks.csv (latency per backend), networks-agreement.csv (logits vs PyTorch, was
agreement.csv), networks-epilogue.csv (bias+ReLU kernels on/off, was epilogue.csv),
networks-layers.csv (per layer, was layers.csv).

    networks_cuda_md.py DIR > DIR/networks.md          (summary tables)
    networks_cuda_md.py --layers DIR > DIR/networks-layers.md   (every conv/fc layer, ktune vs cudnn)
"""
import csv
import sys
from collections import defaultdict


def ms(x):
    return "" if x is None else f"{x:.2f}" if x >= 10 else f"{x:.3f}"


def load(directory, name):
    with open(f"{directory}/{name}") as f:
        return list(csv.DictReader(f))


def order(keys):
    return sorted(keys, key=lambda k: (k[0] != "vgg16", k[0], int(k[1])))


def layer_pairs(layers, a="ktune", b="cudnn"):
    """{(network, batch, layer): (row of a, row of b)} for conv and fc layers."""
    by = defaultdict(dict)
    for row in layers:
        by[(row["network"], row["batch"], int(row["layer"]))][row["backend"]] = row
    return {k: (v[a], v[b]) for k, v in by.items()
            if a in v and b in v and v[a]["kind"] in ("conv", "fc")}


def summary(directory):
    rows = load(directory, "networks.csv")
    t = {(r["network"], r["batch"], r["backend"]): float(r["median_ms"]) for r in rows}
    device = rows[0]["device"]
    cols = ["ktune", "ktune-graph", "cudnn", "cudnn-graph", "cublas", "cublas-graph", "pytorch",
            "pytorch-channels-last", "pytorch-cudagraph", "pytorch-compile"]
    print(f"# Whole networks on the {device}: ktune vs cuDNN, cuBLAS and PyTorch\n")
    print("Median latency of one forward pass of the whole batch (ms, CUDA events, median of 30 "
          "after 10 warm-ups), FP32, TF32 off everywhere. `-graph`: the same backend replaying a "
          "CUDA graph of the pass (pytorch-cudagraph: PyTorch's torch.cuda.CUDAGraph of the pass). "
          "Best PyTorch: the fastest PyTorch row. Target (issue #15): ktune ≤ 1.0× PyTorch+cuDNN.\n")
    print("| network | batch | " + " | ".join(cols)
          + " | ktune / pytorch | ktune / best PyTorch | ktune-graph / pytorch-cudagraph |")
    print("| --- | ---: |" + " ---: |" * (len(cols) + 3))
    for net, batch in order({(r["network"], r["batch"]) for r in rows}):
        vals = [t.get((net, batch, c)) for c in cols]
        best = min(v for c, v in zip(cols, vals) if c.startswith("pytorch") and v is not None)
        k = t[(net, batch, "ktune")]
        graphs = [t.get((net, batch, c)) for c in ("ktune-graph", "pytorch-cudagraph")]
        graph_ratio = f"{graphs[0] / graphs[1]:.2f}" if None not in graphs else ""
        print(f"| {net} | {batch} | " + " | ".join(ms(v) for v in vals)
              + f" | **{k / t[(net, batch, 'pytorch')]:.2f}** | {k / best:.2f} | {graph_ratio} |")

    agree = load(directory, "networks-agreement.csv")
    print("\n## Logits against PyTorch\n")
    print("Same safetensors weights (torchvision's seeded init, random biases and batch-norm "
          "statistics) and 3 seeded inputs of 2 images each. Relative error = max |Δ logit| / "
          "max |logit|, against torchvision in float64 and in FP32 (cuDNN); top-5 against "
          "float64. Tolerance of the check: 1e-3 relative and the same top-5.\n")
    print("| network | backend | images | max rel. error vs float64 | max rel. error vs PyTorch FP32 "
          "| top-1 agree | top-5 identical | pass |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    groups = defaultdict(list)
    for a in agree:
        groups[(a["network"], a["backend"])].append(a)
    for (net, backend), g in sorted(groups.items(), key=lambda kv: (kv[0][0] != "vgg16", kv[0])):
        print(f"| {net} | {backend} | {len(g)} | {max(float(a['rel_err_vs_fp64']) for a in g):.1e} | "
              f"{max(float(a['rel_err_vs_pytorch_fp32']) for a in g):.1e} | "
              f"{sum(int(a['top1_agrees']) for a in g)} | "
              f"{sum(a['top5_common'] == '5' for a in g)} | {sum(int(a['pass']) for a in g)} |")

    epi = load(directory, "networks-epilogue.csv")
    print("\n## Bias + ReLU as separate kernels\n")
    print("Neither ktune::conv2d nor ktune::gemm has an epilogue, so each conv/fc is followed by "
          "one bias(+ReLU) kernel (all three backends, the same kernel). The same passes with that "
          "kernel skipped bound what fusing it could save:\n")
    print("| network | batch | backend | with (ms) | without (ms) | epilogue share |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for e in sorted(epi, key=lambda e: (e["network"] != "vgg16", e["network"], int(e["batch"]), e["backend"])):
        w, wo = float(e["with_epilogue_ms"]), float(e["without_epilogue_ms"])
        print(f"| {e['network']} | {e['batch']} | {e['backend']} | {ms(w)} | {ms(wo)} | "
              f"{(w - wo) / w:.1%} |")

    layers = load(directory, "networks-layers.csv")
    kinds = ["conv", "fc", "max_pool", "avg_pool", "add", "softmax"]
    sums = defaultdict(float)
    for row in layers:
        sums[(row["network"], row["batch"], row["backend"], row["kind"])] += float(row["median_ms"])
    print("\n## Per layer, ktune vs cuDNN\n")
    print("Per-layer medians (CUDA events between layers of the eager passes) summed by kind (ms):\n")
    print("| network | batch | backend | " + " | ".join(kinds) + " |")
    print("| --- | ---: | --- |" + " ---: |" * len(kinds))
    for net, batch in order({(r["network"], r["batch"]) for r in layers}):
        for b in ("ktune", "cudnn", "cublas"):
            print(f"| {net} | {batch} | {b} | "
                  + " | ".join(ms(sums[(net, batch, b, k)]) for k in kinds) + " |")
    pairs = layer_pairs(layers)
    print("\nConv/fc layers where ktune is slower than cuDNN (all layers: networks-layers.md):\n")
    print("| network | batch | layer | ktune (ms) | cudnn (ms) | ktune / cudnn | ktune selector's pick "
          "| cuDNN algorithm |")
    print("| --- | ---: | --- | ---: | ---: | ---: | --- | --- |")
    for (net, batch, i), (k, c) in sorted(pairs.items(), key=lambda kv: (kv[0][0] != "vgg16", kv[0])):
        kt, ct = float(k["median_ms"]), float(c["median_ms"])
        if kt > ct:
            print(f"| {net} | {batch} | {k['name']} | {ms(kt)} | {ms(ct)} | {kt / ct:.2f} | "
                  f"`{k['choice']}` | {c['choice'].replace('cudnn algo=', '')} |")
    for net, batch in order({(k[0], k[1]) for k in pairs}):
        sel = [(float(k["median_ms"]), float(c["median_ms"]))
               for (n, b, _), (k, c) in pairs.items() if (n, b) == (net, batch)]
        slower = sum(kt > ct for kt, ct in sel)
        print(f"\n{net} batch {batch}: ktune slower on {slower} of {len(sel)} conv/fc layers; "
              f"conv+fc sum {sum(s[0] for s in sel):.3f} ms vs cuDNN {sum(s[1] for s in sel):.3f} ms.",
              end="")
    print()


def every_layer(directory):
    layers = load(directory, "networks-layers.csv")
    pairs = layer_pairs(layers)
    print("# Every conv and fc layer: ktune vs cuDNN (from networks-layers.csv)\n")
    print("ktune's column: the config the tuned library's selector picks (a pick that refuses the "
          "layer, e.g. Winograd on a stride-2 layer, falls back to the other shipped configs in "
          "their safe order); cuDNN's: the algorithm cudnnFindConvolutionForwardAlgorithmEx found "
          "fastest at load. fc rows: ktune::gemm vs cuBLAS.\n")
    print("| network | batch | # | layer | ktune (ms) | cudnn (ms) | ktune / cudnn | ktune pick | cuDNN |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |")
    for (net, batch, i), (k, c) in sorted(pairs.items(), key=lambda kv: (kv[0][0] != "vgg16", kv[0][0], int(kv[0][1]), kv[0][2])):
        kt, ct = float(k["median_ms"]), float(c["median_ms"])
        print(f"| {net} | {batch} | {i} | {k['name']} | {ms(kt)} | {ms(ct)} | {kt / ct:.2f} | "
              f"`{k['choice']}` | {c['choice'].replace('cudnn algo=', '')} |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--layers":
        every_layer(sys.argv[2])
    elif len(sys.argv) == 2:
        summary(sys.argv[1])
    else:
        sys.exit(__doc__)
