#!/usr/bin/env python3
"""Markdown tables of a networks-in-every-precision run (scripts/networks/precision_gpu_run.sh's
networks.csv, layers.csv, agreement.csv in DIR): per network, batch and precision, ktune's
fastest backend (eager or CUDA graph) against PyTorch's fastest variant of the same precision;
the logits check per precision; cuDNN's algorithm per layer in NHWC (what the `cudnn` backends
run) against its best in NCHW (Find's own times, recorded at load); ktune-bf16's / -tf32's wgmma conv
candidate against cuDNN per layer (its load-time pick notes).

    networks_precision_md.py DIR > DIR/networks-precision.md
    networks_precision_md.py --layers DIR > DIR/networks-layers.md   (every conv / FC layer)
"""
import csv
import math
import os
import re
import sys
from collections import defaultdict

PRECISIONS = ["fp32", "tf32", "bf16"]


def load(directory, name):
    with open(f"{directory}/{name}") as f:
        return list(csv.DictReader(f))


def precision_of(backend):
    for p in ("tf32", "bf16"):
        if f"-{p}" in backend:
            return p
    return "fp32"


def family_of(backend):
    """pytorch, ktune, cudnn, cublas or auto."""
    return backend.split("-")[0]


def ms(x):
    return "" if x is None else f"{x:.2f}" if x >= 10 else f"{x:.3f}"


def chosen(directory):
    """(net, batch, precision) -> the candidate auto ran (layers.csv: its choice column starts
    with the candidate's name)."""
    out = {}
    for r in load(directory, "layers.csv"):
        if family_of(r["backend"]) == "auto" and r["choice"]:
            out[(r["network"], int(r["batch"]), precision_of(r["backend"]))] = \
                r["choice"].split(":")[0]
    return out


def latency(directory):
    rows = load(directory, "networks.csv")
    best = defaultdict(dict)  # (net, batch, precision) -> family -> (ms, backend)
    for r in rows:
        key = (r["network"], int(r["batch"]), precision_of(r["backend"]))
        fam, t = family_of(r["backend"]), float(r["median_ms"])
        if fam not in best[key] or t < best[key][fam][0]:
            best[key][fam] = (t, r["backend"])
    ran = chosen(directory)
    print(f"# Networks in fp32, tf32 and bf16 on the {rows[0]['device']}\n")
    print("Median ms of one forward pass of the whole batch (CUDA events, median of 20 after 5 "
          "warm-ups), each column the fastest row of that family in that precision (eager or "
          "CUDA graph; PyTorch: channels_last, NCHW + CUDA graph, channels_last + CUDA graph), "
          "the winning row named; — where a family has no row in that precision (ktune: no tf32 "
          "path before ktune-cuda-tf32) or the run was cut before it. `auto`: the engine's whole-network choice among "
          "the single backends of that precision (timed at set-up), the candidate it ran named; "
          "best single: the fastest of ktune, cudnn and cublas in this run. Targets: ktune ≤ "
          "1.0× PyTorch's fastest in the same precision (issue #25), auto never slower than "
          "the best single backend (issue #26).\n")
    print("| network | batch | precision | ktune | cudnn | cublas | auto (ran) | PyTorch fastest | "
          "ktune / PyTorch | auto / best single | auto / PyTorch |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = sorted(best, key=lambda k: (k[0] != "vgg16", k[0], k[1], PRECISIONS.index(k[2])))
    for net, batch, p in keys:
        b = best[(net, batch, p)]
        cell = {f: (f"{ms(b[f][0])} `{b[f][1]}`" if f in b else "—")
                for f in ("ktune", "cudnn", "cublas", "pytorch")}
        if "auto" in b:
            cell["auto"] = f"{ms(b['auto'][0])} ({ran.get((net, batch, p), '?')})"
        else:
            cell["auto"] = "—"
        torch = b.get("pytorch", (None,))[0]
        singles = [b[f][0] for f in ("ktune", "cudnn", "cublas") if f in b]
        k, a = b.get("ktune", (None,))[0], b.get("auto", (None,))[0]
        ratio = f"**{k / torch:.2f}**" if k and torch else "—"
        auto_single = f"**{a / min(singles):.2f}**" if a and singles else "—"
        auto_torch = f"{a / torch:.2f}" if a and torch else "—"
        print(f"| {net} | {batch} | {p} | {cell['ktune']} | {cell['cudnn']} | {cell['cublas']} | "
              f"{cell['auto']} | {cell['pytorch']} | {ratio} | {auto_single} | {auto_torch} |")


PICK = re.compile(r"pick=(\w+)")
KINDS = ("conv2d", "gemm_ex", "gemm", "cublas", "cudnn", "wgmma")


def bf16_picks(directory):
    """ktune-cuda's per-layer pick at load in every precision (convs: the tuned library's path
    -- ktune::conv2d in fp32, (im2col +) gemm_ex in tf32 / bf16 --, im2col + cuBLAS, cuDNN or,
    bf16 only, the wgmma conv; FC layers: ktune::gemm / gemm_ex or cuBLAS), counted per network,
    batch, precision and layer kind."""
    g = defaultdict(lambda: defaultdict(int))
    for r in load(directory, "layers.csv"):
        m = PICK.search(r["choice"])
        if family_of(r["backend"]) == "ktune" and m:
            key = (r["network"], int(r["batch"]), precision_of(r["backend"]), r["kind"])
            g[key][m.group(1)] += 1
    if not g:
        return
    print("\n## ktune-cuda's per-layer pick at load\n")
    print("Each conv on the fastest of the tuned library's path (fp32: ktune::conv2d; tf32 / bf16: "
          "(im2col +) gemm_ex), im2col + cuBLAS, cuDNN's conv of the same precision and (tf32 / "
          "bf16, builds with sm_90a code, c % 32 / 64 == 0) the wgmma implicit-GEMM conv in each of its "
          "configs; each FC layer on the faster of the tuned GEMM (ktune::gemm / gemm_ex) and "
          "cuBLAS; timed at load (CUDA graphs of each, interleaved rounds, fastest replay kept; "
          "layers.csv gives every candidate's time per layer). Runs before session 15 offered "
          "no cuBLAS candidate and picked no FC layer (and none in fp32).\n")
    print("| network | batch | precision | layers | " + " | ".join(KINDS) + " |")
    print("| --- | ---: | --- | --- | " + " | ".join("---:" for _ in KINDS) + " |")
    order = {"fp32": 0, "tf32": 1, "bf16": 2}
    for (net, batch, p, kind), c in sorted(
            g.items(), key=lambda kv: (kv[0][0] != "vgg16", kv[0][1], order[kv[0][2]], kv[0][3])):
        print(f"| {net} | {batch} | {p} | {kind} | " + " | ".join(str(c[k]) for k in KINDS) + " |")


# ktune-cuda-bf16's load-time pick note: every candidate's fastest replay, "gemm_ex 0.1 ms, cudnn
# 0.2 ms, wgmma tp=16;tq=8;bn=128;st=4 0.3 ms, ..." before " at load" (runs before the configs
# were named as the conv2d kind's: "wgmma ht=16;wt=8;nb=1;bn=128;st=4").
CANDIDATE = re.compile(r"(conv2d|gemm_ex|gemm|cublas|cudnn|wgmma \S+) ([0-9.]+) ms")


def candidate_times(choice):
    """{candidate: ms} of a pick note (empty when the note has none)."""
    if not choice.startswith("pick="):
        return {}
    return {m.group(1): float(m.group(2))
            for m in CANDIDATE.finditer(choice.split(" at load")[0])}


def wgmma_candidate(directory):
    """The wgmma conv candidate against cuDNN's conv on the layers it serves, from ktune-bf16's
    and ktune-tf32's load-time times (each with its epilogue: fused in wgmma's, a kernel after
    cuDNN's)."""
    g = defaultdict(list)  # (precision, net, batch) -> (cudnn / wgmma, name, wgmma ms, cudnn ms,
    #                        picked)
    for r in load(directory, "layers.csv"):
        if r["backend"] not in ("ktune-bf16", "ktune-tf32") or r["kind"] != "conv":
            continue
        t = candidate_times(r["choice"])
        wg = {k: v for k, v in t.items() if k.startswith("wgmma")}
        if not wg or "cudnn" not in t:
            continue
        w = min(wg.values())
        g[(precision_of(r["backend"]), r["network"], int(r["batch"]))].append(
            (t["cudnn"] / w, r["name"], w, t["cudnn"], r["choice"].startswith("pick=wgmma")))
    if not g:
        return
    print("\n## ktune's wgmma conv candidate against cuDNN's conv\n")
    print("Per layer the wgmma implicit-GEMM conv serves (bf16: c % 64 == 0, tf32: c % 32 == 0), "
          "its fastest config's load-time time (bias, ReLU fused into its store: bf16, or FP32 "
          "in tf32) against cuDNN's conv of the same precision + the bias + ReLU kernel (the same "
          "load-time protocol: CUDA graphs of 3 runs, interleaved rounds, fastest replay). "
          "Ratio = cuDNN ms / wgmma ms (above 1: wgmma faster); time-weighted = Σ cuDNN / "
          "Σ wgmma; in-sample (the run that picked).\n")
    print("| network | batch | precision | layers | picked wgmma | geomean | time-weighted | "
          "Σ wgmma ms | Σ cuDNN ms | worst layers |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    order = {"tf32": 0, "bf16": 1}
    for (p, net, batch), rows in sorted(
            g.items(), key=lambda kv: (kv[0][1] != "vgg16", kv[0][2], order[kv[0][0]])):
        geo = math.exp(sum(math.log(x[0]) for x in rows) / len(rows))
        sw, sc = sum(x[2] for x in rows), sum(x[3] for x in rows)
        worst = ", ".join(f"{x[1]} {x[0]:.2f}" for x in sorted(rows)[:3])
        print(f"| {net} | {batch} | {p} | {len(rows)} | {sum(x[4] for x in rows)} | {geo:.3f} | "
              f"{sc / sw:.3f} | {ms(sw)} | {ms(sc)} | {worst} |")


def agreement(directory):
    rows = load(directory, "agreement.csv")
    g = defaultdict(list)
    for r in rows:
        g[(r["pytorch_precision"], r["network"], r["backend"])].append(r)
    print("\n## Logits against float64 and PyTorch in the same precision\n")
    print("Per precision, network and backend over 2 inputs × 2 images: the largest "
          "max|Δ|/max|logit| against the float64 model and against PyTorch in that precision, "
          "top-5 sets agreeing with float64 (near-ties allowed), rows passing the tolerance "
          "(fp32 1e-3, tf32 2e-2, bf16 1e-1; PyTorch's own row is held to it too).\n")
    print("| precision | network | backend | vs float64 | vs PyTorch same precision | "
          "top-5 ok | pass |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for (p, net, backend), rs in sorted(g.items(), key=lambda kv: (PRECISIONS.index(kv[0][0]),
                                                                   kv[0][1], kv[0][2])):
        print(f"| {p} | {net} | {backend} | "
              f"{max(float(r['rel_err_vs_fp64']) for r in rs):.1e} | "
              f"{max(float(r['rel_err_vs_pytorch_fp32']) for r in rs):.1e} | "
              f"{sum(int(r['top5_ok']) for r in rs)}/{len(rs)} | "
              f"{sum(int(r['pass']) for r in rs)}/{len(rs)} |")


# The cudnn backends' layer note (nn/cuda/cudnn_layer_conv.hpp): the NHWC pick (a legacy
# algorithm and math type, or a backend-API engine and config) and its search time. Runs before
# the engine search (legacy Find only) also recorded NCHW's: "algo=X math=Y layout=NHWC t ms
# ...; NCHW: algo=X math=Y t ms" (or "NCHW: none").
NOTE = re.compile(r"(?:algo=(\S+) math=(\S+)|engine=(\S+) config=\S+) layout=NHWC ([0-9.]+) ms")
NCHW_NOTE = re.compile(r"NCHW: algo=\S+ math=\S+ ([0-9.]+) ms")


def parse_note(choice):
    """(NHWC pick, NHWC ms, NCHW ms or None), or None when the note is no cudnn note."""
    m = NOTE.search(choice)
    if not m:
        return None
    pick = f"{m.group(1)}/{m.group(2)}" if m.group(1) else f"engine {m.group(3)}"
    nchw = NCHW_NOTE.search(choice)
    return pick, float(m.group(4)), float(nchw.group(1)) if nchw else None


def cudnn_layouts(directory):
    rows = load(directory, "layers.csv")
    g = defaultdict(lambda: [0, 0, 0.0, 0.0, defaultdict(int), 0])
    for r in rows:
        note = parse_note(r["choice"])
        if family_of(r["backend"]) != "cudnn" or not note:
            continue
        s = g[(r["network"], int(r["batch"]), precision_of(r["backend"]))]
        pick, nhwc, nchw = note
        s[0] += 1
        s[1] += nchw is not None and nchw < nhwc
        s[5] += nchw is not None
        s[2] += nhwc
        s[3] += min(nhwc, nchw) if nchw is not None else nhwc
        s[4][pick] += 1
    print("\n## cuDNN per layer: what the `cudnn` backends picked\n")
    print("cuDNN's search per conv layer at load in NHWC (the engine's layout): the legacy Find "
          "and, from the engine search on (nn/cuda/cudnn_layer_conv.hpp), the backend API's "
          "engine configs too, the fastest kept. Σ NHWC ms: the sum of the kept picks' search "
          "times. Runs before the engine search also recorded the legacy Find's NCHW time per "
          "layer: NCHW faster counts those layers, Σ best-layout ms takes each layer in its "
          "faster layout (layout changes between layers not counted); — where not recorded.\n")
    print("| network | batch | precision | convs | Σ NHWC ms | NCHW faster | Σ best-layout ms | "
          "NHWC picks (legacy algo/math or backend-API engine: layers) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for (net, batch, p), s in sorted(g.items(), key=lambda kv: (kv[0][0] != "vgg16", kv[0][0],
                                                                kv[0][1],
                                                                PRECISIONS.index(kv[0][2]))):
        algos = ", ".join(f"{a}: {n}" for a, n in sorted(s[4].items(), key=lambda x: -x[1]))
        faster, best = (s[1], ms(s[3])) if s[5] else ("—", "—")
        print(f"| {net} | {batch} | {p} | {s[0]} | {ms(s[2])} | {faster} | {best} | {algos} |")


def every_layer(directory):
    """Per network, batch and precision: each conv / FC layer's eager median on ktune, cudnn and
    cublas of that precision, and what ktune ran (its layers.csv note, shortened)."""
    rows = defaultdict(dict)  # (net, batch, p) -> (layer, name, kind) -> family -> row
    for r in load(directory, "layers.csv"):
        fam = family_of(r["backend"])
        if r["kind"] in ("conv", "fc") and fam in ("ktune", "cudnn", "cublas"):
            key = (r["network"], int(r["batch"]), precision_of(r["backend"]))
            rows[key].setdefault((int(r["layer"]), r["name"], r["kind"]), {})[fam] = r
    print("# Every conv and FC layer: ktune vs cudnn vs cublas per precision\n")
    print("Eager median ms per layer (the bench's per-layer pass, CUDA events), each backend of "
          "the same precision; ktune ran: its load-time pick (conv2d: the fp32 library's conv, "
          "gemm_ex, gemm: ktune::gemm, cublas, cudnn or wgmma) or, where a run made none, the "
          "library's config. Σ: the conv and FC layers only.\n")
    for key in sorted(rows, key=lambda k: (k[0] != "vgg16", k[0], k[1], PRECISIONS.index(k[2]))):
        net, batch, p = key
        print(f"\n## {net}, batch {batch}, {p}\n")
        print("| layer | kind | ktune | cudnn | cublas | ktune ran |")
        print("| --- | --- | ---: | ---: | ---: | --- |")
        total = defaultdict(float)
        for (_, name, kind), by in sorted(rows[key].items()):
            cells = []
            for fam in ("ktune", "cudnn", "cublas"):
                t = float(by[fam]["median_ms"]) if fam in by else None
                if t is not None:
                    total[fam] += t
                cells.append(ms(t) if t is not None else "—")
            note = by.get("ktune", {}).get("choice", "")
            m = PICK.search(note)
            ran = m.group(1) if m else note.split(";")[0][:60]
            print(f"| {name} | {kind} | {' | '.join(cells)} | {ran} |")
        sums = [ms(total[f]) if f in total else "—" for f in ("ktune", "cudnn", "cublas")]
        print(f"| Σ | | {' | '.join(sums)} | |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--layers":
        every_layer(sys.argv[2])
        return
    directory = sys.argv[1] if len(sys.argv) > 1 else "."
    latency(directory)
    if os.path.exists(f"{directory}/agreement.csv"):  # absent from a QUICK run (timing only)
        agreement(directory)
    bf16_picks(directory)
    wgmma_candidate(directory)
    cudnn_layouts(directory)


if __name__ == "__main__":
    main()
