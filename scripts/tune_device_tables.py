#!/usr/bin/env python3
"""Tables of a GPU's `ktune tune-device` run (scripts/gpu_tune_device.sh's files, committed in
RUN_DIR), written into RUN_DIR from its data alone:
  tune-device.md   measurements and time of tune-device, what NVRTC compiled, and the selection
                   quality: the tune-device selector (rows of its kept configs) against the same
                   recipe trained on the exhaustive dnn-sample sweep, both on that sweep's oracle
                   (ktune cross-device, as scripts/tune_device_sim.sh: kernel configs only), and
                   with the vendor as a candidate, the library's recipe (RECIPE, as
                   scripts/gpu_tune_device.sh): the device's shipped header (selectors.tar.gz)
                   against the header ktune deploy makes from the sweep, scored on the sweep by
                   scripts/selector_header_eval.py
  deployed.md/.csv the deployed libraries (own, multi) against the vendors over the workload
                   (scripts/gemm_deployed_tables.py, gemm_deployed_vendor_ratios.py), and the
                   multi-device library against the device's own, shape by shape (same run)
and CROSS_MD: the FP32 cross-device table of PRIOR's device and this one over the dnn-sample
shapes both swept exhaustively (ktune cross-device, its default deploy recipe).
  scripts/tune_device_tables.py KTUNE RUN_DIR PRIOR.csv.gz CROSS_MD
  scripts/tune_device_tables.py --deployed DIR [TAG]   deployed{TAG}.md/.csv alone, from DIR's
                   benches (own, multi: deployed-NAME{TAG}.csv, bench-NAME{TAG}.log), e.g. the
                   multi-device library on the prior's GPU (scripts/gpu_selector_benches.sh)"""
import csv
import gzip
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# gpu_tune_device.sh's recipe (its RECIPE less the search's --budget and --complete).
RECIPE = ["--pruner", "cover", "--k", "12", "--norm", "cutoff", "--selector", "tree-b", "--vendors",
          "--min-vote-share", "0.6"]
SAMPLE = os.path.join(HERE, "..", "workloads", "gemm", "dnn-sample.csv")


def sample_keys():
    keys = set()
    for line in open(SAMPLE):
        f = line.strip().split(",")
        if len(f) == 6 and f[0].isdigit():
            keys.add("transa={};transb={};m={};n={};k={};batch={}".format(*f))
    return keys


def copy_rows(src, dst, keep, device=None):
    """Rows of src for which keep(row) holds, one vendor row per (problem, vendor), into dst."""
    seen = set()
    with gzip.open(src, "rt") as i, gzip.open(dst, "wt", newline="") as o:
        r, w = csv.reader(i), csv.writer(o)
        w.writerow(next(r))
        for row in r:
            if not keep(row):
                continue
            if row[4] == "-1":
                if (row[2], row[3]) in seen:
                    continue
                seen.add((row[2], row[3]))
            if device:
                row[0] = device
            w.writerow(row)


def cross_device(ktune, out_md, datasets, recipe):
    subprocess.run([ktune, "cross-device", *recipe, *sum((["--data", d] for d in datasets), []),
                    "--markdown", out_md], check=True, stdout=subprocess.DEVNULL)
    cells = {}
    for line in open(out_md):
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(f) >= 4 and re.fullmatch(r"[\d.]+", f[3]):
            cells[(f[0], f[1])] = float(f[3])
    return cells


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def tune_device_md(ktune, d, tmp):
    log = open(os.path.join(d, "tune-device.log")).read()
    total = re.search(r"tune-device: (\d+) measurements of \S+ in ([\d.]+) s of tuning, ([\d.]+) s in all", log)
    space = re.search(r"^(\d+) problems x (\d+) candidate configs: .*measured (\d+) .* in (\d+) rounds, vendor rows (\d+)", log, re.M)
    complete = re.findall(r"^planned (\d+), already stored (\d+), measured (\d+)", log, re.M)
    times = re.findall(r"^bench \d+/\d+ \(100\.0%\) elapsed (\d+)m(\d+)s", log, re.M)
    n, tuning, whole = int(total.group(1)), float(total.group(2)), float(total.group(3))
    problems, configs = int(space.group(1)), int(space.group(2))
    exhaustive = problems * configs
    kept = [l.strip() for l in open(os.path.join(d, "kept-configs.txt")) if l.strip() and not l.startswith("#")]
    names = {c.replace("vendor=", "") for c in kept}
    kernels = [c for c in kept if not c.startswith("vendor=")]  # K of both selectors compared
    keys = sample_keys()
    copy_rows(os.path.join(d, "new.csv.gz"), f"{tmp}/kept.csv.gz", lambda r: r[3] in names, "tune-device")
    copy_rows(os.path.join(d, "sample.csv.gz"), f"{tmp}/sample.csv.gz", lambda r: r[2] in keys)
    md = os.path.join(d, "quality-cross-device.md")
    cells = cross_device(ktune, md, [f"{tmp}/kept.csv.gz", f"{tmp}/sample.csv.gz"],
                         ["--pruner", "cover", "--k", str(len(kernels))])
    device = next(b for (a, b) in cells if a == b != "tune-device")
    own, full = cells[("tune-device", device)], cells[(device, device)]
    out = [f"# ktune tune-device on {device} (a new device: the other GPU's FP32 sweep as prior)", ""]
    out.append(f"- Space: {configs} configs x {problems} `dnn` shapes = {exhaustive:,} measurements exhaustively.")
    out.append(f"- Measured: **{n:,}** ({100 * n / exhaustive:.2f} % of exhaustive): the model search "
               f"{space.group(3)} in {space.group(4)} rounds + {space.group(5)} vendor rows, then the kept "
               f"configs on every shape ({complete[-1][2] if complete else '?'} more).")
    if len(times) >= 2:
        s = [int(a) * 60 + int(b) for a, b in times]
        out.append(f"- Time: **{tuning:.1f} s** of tuning, {whole:.1f} s in all (search {s[0]} s, "
                   f"the kept configs' completion {s[1]} s, by the bench progress lines).")
    inst = os.path.join(d, "nvrtc-instantiations.txt")
    if os.path.exists(inst):
        pairs = [l.split() for l in open(inst) if l.strip()]
        out.append("- Compiled by NVRTC (tiled and warp instantiations, per transpose pair): "
                   + ", ".join(f"{c} ({a} {b})" for c, a, b in pairs)
                   + f" = {sum(int(p[0]) for p in pairs)}; the pair (1, 1) is in no `dnn` shape.")
    out += ["", f"Selection quality on the {len(keys)} `dnn-sample` shapes (the exhaustive sweep's "
            f"oracle on {device}), recipe cover, K = {len(kernels)} (the kernel configs tune-device kept "
            f"beside {len(kept) - len(kernels)} vendor), cutoff, tree-b (`ktune cross-device`: kernel "
            "configs only, the vendor rows are the baseline, not candidates):", "",
            "| selector | % of oracle |", "|---|---:|",
            f"| tune-device (its kept configs' rows, {problems} shapes) | {own:.1f} % |",
            f"| the same recipe on the exhaustive `dnn-sample` sweep (in-sample) | {full:.1f} % |",
            f"| ratio | **{100 * own / full:.1f} %** |", "", f"Full table: quality-cross-device.md. "
            f"The ceiling of the {len(kernels)} kept kernel configs on the sweep (the best of them per "
            f"shape): {kept_ceiling(os.path.join(d, 'sample.csv.gz'), set(kernels)):.1f} % of its oracle.", ""]
    out += vendor_quality(ktune, d, tmp, device)
    open(os.path.join(d, "tune-device.md"), "w").write("\n".join(out) + "\n")


def kept_ceiling(sweep, kept):
    """Geomean over the sweep's shapes of the best kept config / the best config, in %."""
    best, mine = {}, {}
    for r in csv.DictReader(gzip.open(sweep, "rt")):
        if r["status"] != "ok" or r["config_id"] == "-1":
            continue
        p = float(r["perf"])
        best[r["problem"]] = max(best.get(r["problem"], 0.0), p)
        if r["config"] in kept:
            mine[r["problem"]] = max(mine.get(r["problem"], 0.0), p)
    logs = [math.log(mine[k] / best[k]) if mine.get(k) else math.log(1e-9) for k in best]
    return 100 * math.exp(sum(logs) / len(logs))


def header_score(header, data):
    """(% of oracle, geomean vs cuBLAS) of a header's picks on a sweep (selector_header_eval.py)."""
    out = run([sys.executable, os.path.join(HERE, "selector_header_eval.py"), header, data, "fp32"])
    row = next(l for l in out.splitlines() if l.startswith("| in-sample |")).split("|")
    return float(row[5]), float(row[4])


def vendor_quality(ktune, d, tmp, device):
    subprocess.run(["tar", "xzf", os.path.join(d, "selectors.tar.gz"), "-C", tmp], check=True)
    sample = os.path.join(d, "sample.csv.gz")
    run([ktune, "deploy", "--data", sample, *RECIPE, "--backends", "cuda", "--name", "sweep",
         "-o", f"{tmp}/sweep"])
    mine = header_score(f"{tmp}/selector-{device}.hpp", sample)
    full = header_score(f"{tmp}/sweep/selectors/{device}/gemm.hpp", sample)
    return ["With cuBLAS as a candidate, the library's recipe (`" + " ".join(RECIPE) + "`): the "
            "shipped header's picks scored on the sweep against those of the header `ktune deploy` "
            "makes from the sweep (in-sample), by `scripts/selector_header_eval.py` (the oracle "
            "includes cuBLAS):", "", "| selector | % of oracle | vs cuBLAS (geomean) |",
            "|---|---:|---:|", f"| tune-device (the shipped selector-{device}.hpp) | {mine[0]:.1f} % | {mine[1]:.3f}× |",
            f"| the same recipe on the exhaustive `dnn-sample` sweep (in-sample) | {full[0]:.1f} % | {full[1]:.3f}× |",
            f"| ratio | **{100 * mine[0] / full[0]:.1f} %** | |"]


def gflops(path):
    return {r["problem"]: float(r["deployed_gflops"]) for r in csv.DictReader(open(path))
            if r["status"] == "ok"}


LOG_LINE = re.compile(r"\[\d+/\d+\] (\S+) \S+ ktune [\d.]+ cublas ([\d.]+) cublaslt ([\d.]+)")


def faster_vendor(log):
    """GFLOP/s of the faster of cuBLAS and cuBLASLt #0 per shape, from a tuned_gemm_bench log."""
    out = {}
    for line in open(log):
        m = LOG_LINE.match(line)
        if m:
            out.setdefault(m.group(1), max(float(m.group(2)), float(m.group(3))))
    return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def deployed_md(d, tag=""):
    """deployed{tag}.md/.csv from deployed-own{tag}.csv, deployed-multi{tag}.csv and their logs."""
    csvs = {n: os.path.join(d, f"deployed-{n}{tag}.csv") for n in ("own", "multi")}
    logs = {n: os.path.join(d, f"bench-{n}{tag}.log") for n in ("own", "multi")}
    run([sys.executable, os.path.join(HERE, "gemm_deployed_tables.py"), "--run", f"own={csvs['own']}",
         "--run", f"multi={csvs['multi']}", "--csv", os.path.join(d, f"deployed{tag}.csv"),
         "--markdown", f"{d}/deployed-tables.md"])
    parts = ["# Deployed on the device: own and multi-device libraries against cuBLAS and cuBLASLt #0", ""]
    for name in ("own", "multi"):
        parts.append(run([sys.executable, os.path.join(HERE, "gemm_deployed_vendor_ratios.py"),
                          f"{name}={logs[name]}"]))
    a, b = gflops(csvs["own"]), gflops(csvs["multi"])
    va, vb = faster_vendor(logs["own"]), faster_vendor(logs["multi"])
    common = sorted(set(a) & set(b))
    ratios = [b[p] / a[p] for p in common]
    # The vendor calls are the same in both programs: their ratio is the machine's drift
    # between the two benches, and dividing by it leaves the libraries' difference.
    drift = [vb[p] / va[p] for p in common]
    parts.append(f"Multi-device library / the device's own, shape by shape (same call): geomean "
                 f"**{geomean(ratios):.4f}** over {len(common)} shapes (min {min(ratios):.3f}, max "
                 f"{max(ratios):.3f}); the faster vendor, the same calls in both benches: "
                 f"{geomean(drift):.4f} (the machine's drift between them); multi/own divided by "
                 f"it: {geomean([r / v for r, v in zip(ratios, drift)]):.4f}.\n")
    for name in ("own", "multi"):
        first = [l.strip() for l in open(logs[name]) if l.startswith("first call")]
        parts.append(f"- {name}: {first[0] if first else 'no first-call line'}")
    parts += ["", open(f"{d}/deployed-tables.md").read()]
    os.remove(f"{d}/deployed-tables.md")
    open(os.path.join(d, f"deployed{tag}.md"), "w").write("\n".join(parts))


def main(argv):
    if len(argv) in (2, 3) and argv[0] == "--deployed":
        tag = argv[2] if len(argv) == 3 else ""
        for name in ("deployed-own", "deployed-multi", "bench-own", "bench-multi"):
            path = os.path.join(argv[1], name + tag + (".csv" if name[0] == "d" else ".log"))
            if not os.path.exists(path):
                sys.exit(f"tune_device_tables: no file {path}")
        deployed_md(argv[1], tag)
        return
    if len(argv) != 4:
        sys.exit(__doc__)
    ktune, d, prior, cross_md = argv
    for f in (ktune, prior, os.path.join(d, "tune-device.log")):
        if not os.path.exists(f):
            sys.exit(f"tune_device_tables: no file {f}")
    with tempfile.TemporaryDirectory() as tmp:
        tune_device_md(ktune, d, tmp)
        deployed_md(d)
        keys = sample_keys()
        copy_rows(prior, f"{tmp}/prior.csv.gz", lambda r: r[2] in keys)
        copy_rows(os.path.join(d, "sample.csv.gz"), f"{tmp}/sample.csv.gz", lambda r: r[2] in keys)
        cross_device(ktune, cross_md, [f"{tmp}/prior.csv.gz", f"{tmp}/sample.csv.gz"], [])


if __name__ == "__main__":
    main(sys.argv[1:])
