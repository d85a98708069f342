#!/usr/bin/env python3
"""Summary of `wgmma_conv_check bench-out` (the wgmma conv kernel's output epilogues timed per
layer and config): each epilogue's time against the plain FP32 store (geomean, time-weighted,
range), the two 16-bit store layouts against each other, and, with --ncu, the profile of
`ncu --csv --page raw` over the same program (instructions, store sectors, the drain stall).

  scripts/conv_wgmma/out16_summary.py bench-out.csv [--ncu ncu.csv.gz] > summary.md
  scripts/conv_wgmma/out16_summary.py --ncu ncu.csv.gz > ncu.md   # the profile alone
"""
import argparse
import collections
import csv
import gzip
import io
import math
import re
import sys

EPILOGUES = {
    "f32": "KtuneConvWgOutF32: the FP32 accumulator, 8 bytes a lane",
    "f32epi": "KtuneConvWgOutF32Epi, no bias / residual / ReLU (tested per element)",
    "out16": "KtuneConvWgOut16, no bias / residual / ReLU: conv2d_ex's 16-bit path before",
    "out16plain": "KtuneConvWgOut16Plain: quad-exchanged whole-sector stores",
    "out16word": "the same stored 4 bytes a lane (half a sector a quad)",
    "out16fused": "KtuneConvWgOut16 with a bias and ReLU",
    "out16fusedld": "the same reading the bias by plain loads (out16fused read it by __ldg then)",
    "out16plainint": "out16plain rounding each value by ktune_round16 (bf16: integer rounding)",
    "out16fusedword": "out16fused stored 4 bytes a lane, tests per value (before session 24)",
    "out16fusedres": "KtuneConvWgOut16 with a bias, a 16-bit residual and ReLU",
    "out16fusedresword": "the same stored 4 bytes a lane, tests per value (before session 24)",
    "out16fusedresinter": "out16fusedres reading the residual between the stores (before the "
                          "fetch step)",
    "f32epires": "KtuneConvWgOutF32Epi with a bias, an FP32 residual and ReLU",
    "f32epiresinter": "the same reading the residual between the stores (before the fetch step)",
    "out16fusedreslate": "out16fusedres fetching after the main loop (session 25)",
    "f32epireslate": "f32epires fetching after the main loop (session 25)",
    "none": "no store (the main loop and the accumulator's reads)",
}
# ncu's kernel names: template arguments that tell the epilogue apart (most specific first).
NCU_EPILOGUES = [("Out16FusedLate", "out16fusedreslate"), ("F32EpiLate", "f32epireslate"),
                 ("OutNone", "none"), ("Out16Plain", "out16plain"), ("Out16Word", "out16word"),
                 ("KtuneConvWgOut16", "out16"), ("F32Epi", "f32epi"), ("OutF32", "f32")]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def read_text(path):
    try:
        return gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    except OSError as e:
        sys.exit(f"out16_summary: cannot read {path}: {e.strerror}")


def read_bench(path):
    times = collections.defaultdict(dict)
    for r in csv.DictReader(io.StringIO(read_text(path))):
        if r["status"] != "ok":
            sys.exit(f"out16_summary: {path}: {r['network']} {r['layer']} {r['config']} "
                     f"{r['epilogue']}: status {r['status']}")
        key = (r["network"], r["layer"], int(r["n"]), r["config"])
        times[key][r["epilogue"]] = float(r["median_us"])
    if not times:
        sys.exit(f"out16_summary: {path}: no rows")
    return times


def ratio_row(times, ours, theirs):
    pairs = [(t[ours], t[theirs]) for t in times.values() if ours in t and theirs in t]
    rs = [a / b for a, b in pairs]
    tw = sum(a for a, _ in pairs) / sum(b for _, b in pairs)
    return len(rs), geomean(rs), tw, min(rs), max(rs)


def ncu_table(path):
    lines = read_text(path).splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"out16_summary: {path}: no ncu --csv --page raw table (no \"ID\" header)")
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))[1:]  # units row
    num = lambda s: float(s.replace(",", ""))
    groups = collections.OrderedDict()
    for r in rows:
        name = r["Kernel Name"]
        epi = next((e for k, e in NCU_EPILOGUES if k in name), "?")
        cfg = re.search(r"ktune_conv2d_wgmma<(\d+), (\d+), (\d+), (\d+), (\d+)", name)
        key = (r["launch__grid_size"], "x".join(cfg.groups()[:3]) + f" bn={cfg.group(4)}", epi)
        groups.setdefault(key, []).append(r)
    out = ["| blocks | tile | epilogue | launches | duration (us, median) | instructions | "
           "L1 store sectors | L2 write sectors | drain stall (warps / issue) |",
           "|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    drain = "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"
    for (blocks, tile, epi), rs in groups.items():
        med = lambda m: sorted(num(r[m]) for r in rs)[len(rs) // 2]
        out.append(f"| {blocks} | {tile} | {epi} | {len(rs)} | "
                   f"{med('gpu__time_duration.sum') / 1000:.2f} | "
                   f"{med('smsp__inst_executed.sum'):.0f} | "
                   f"{med('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum'):.0f} | "
                   f"{med('lts__t_sectors_srcunit_tex_op_write.sum'):.0f} | "
                   f"{med(drain):.2f} |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="?")
    ap.add_argument("--ncu", help="ncu --csv --page raw output over bench-out (optional)")
    ap.add_argument("--caption", default="", help="a line under the profile's heading")
    a = ap.parse_args()
    if not a.bench:
        if not a.ncu:
            ap.error("a bench-out CSV, --ncu, or both")
        caption = [a.caption, ""] if a.caption else []
        print("\n".join(["## ncu (one launch a row's median)", ""] + caption + ncu_table(a.ncu)))
        return
    times = read_bench(a.bench)
    present = [e for e in EPILOGUES if any(e in t for t in times.values())]
    prec = "bf16" if any("bf16:" in k[3] for k in times) else "fp16"
    out = [f"# The wgmma conv kernel's output epilogues ({prec} input and 16-bit output)", "",
           f"{len(times)} layer x config pairs, every epilogue timed in each (median of 7 batches "
           "of 20 back-to-back launches, inputs rotated); 16-bit outputs checked bit for bit "
           "against the FP32 output rounded once. Time against the plain FP32 store (< 1: "
           "faster):", "",
           "| epilogue | what | pairs | geomean | time-weighted | min | max |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for e in present:
        if e == "f32":
            continue
        n, g, tw, lo, hi = ratio_row(times, e, "f32")
        out.append(f"| {e} | {EPILOGUES[e]} | {n} | {g:.3f} | {tw:.3f} | {lo:.3f} | {hi:.3f} |")
    # Pairs of one epilogue's two implementations, measured in the same run.
    for ours, theirs, what in [
            ("out16fused", "out16fusedld", "Bias by __ldg against plain loads"),
            ("out16plain", "out16plainint", "Paired cvt against per-value rounding"),
            ("out16fused", "out16fusedword", "Fused bias + ReLU, block-pair against 4-byte stores"),
            ("out16fusedres", "out16fusedresword",
             "Fused bias + residual + ReLU, block-pair against 4-byte stores"),
            ("out16fusedres", "out16fusedresinter",
             "16-bit residual fetched before the row's stores against read between them"),
            ("f32epires", "f32epiresinter",
             "FP32 residual fetched before the row's stores against read between them"),
            ("out16fusedres", "out16fusedreslate",
             "16-bit residual fetched before the main loop against after it"),
            ("f32epires", "f32epireslate",
             "FP32 residual fetched before the main loop against after it")]:
        if ours in present and theirs in present:
            n, g, tw, lo, hi = ratio_row(times, ours, theirs)
            out += ["", f"{what} ({ours} / {theirs}, {n} pairs): geomean {g:.3f}, "
                    f"time-weighted {tw:.3f}, range {lo:.3f}-{hi:.3f}."]
    if "out16plain" in present and "out16word" in present:
        n, g, tw, lo, hi = ratio_row(times, "out16plain", "out16word")
        out += ["", f"Quad-exchanged against 4-byte 16-bit stores (out16plain / out16word, {n} "
                f"pairs): geomean {g:.3f}, time-weighted {tw:.3f}, range {lo:.3f}-{hi:.3f}."]
        worst = sorted(times.items(), key=lambda kv: kv[1]["out16plain"] / kv[1]["f32"])[-5:]
        out += ["", "Slowest plain 16-bit stores against FP32 (time ratio):", ""]
        out += [f"- {k[0]} {k[1]} b{k[2]} {k[3]}: {t['out16plain'] / t['f32']:.3f} "
                f"({t['out16plain']:.2f} vs {t['f32']:.2f} us)" for k, t in reversed(worst)]
    if a.ncu:
        out += ["", "## ncu (one launch a row's median)", ""] + ncu_table(a.ncu)
    print("\n".join(out))


if __name__ == "__main__":
    main()
