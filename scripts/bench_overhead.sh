#!/usr/bin/env bash
# Selection overhead per call (bench/selector_overhead.cpp): builds the benchmark (which prunes,
# trains and generates the selectors from the committed H100 dataset at build time), runs it once
# and writes results/<cpu slug>/selection-overhead.json (Google Benchmark JSON) and .md.
#   scripts/bench_overhead.sh [build-dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
reps=${KTUNE_BENCH_REPS:-5}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_BENCH=ON >/dev/null
cmake --build "$build" --target selector_overhead -j2
bin="$build/bin/selector_overhead"
slug=$("$bin" --print-device-slug)
out="results/$slug"
mkdir -p "$out"

load_before=$(cut -d' ' -f1 /proc/loadavg)
cmd="$bin --benchmark_repetitions=$reps --benchmark_display_aggregates_only=true --benchmark_out=$out/selection-overhead.json --benchmark_out_format=json"
echo "load average before the run: $load_before"
$cmd
load_after=$(cut -d' ' -f1 /proc/loadavg)

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo " (working tree with uncommitted changes)" || true)
/usr/bin/python3 - "$out/selection-overhead.json" "$out/selection-overhead.md" "$cmd" \
  "$commit$dirty" "$load_before" "$load_after" "$reps" <<'PY'
import json, sys
src, dst, cmd, commit, load_before, load_after, reps = sys.argv[1:]
doc = json.load(open(src))
ctx = doc["context"]
samples = {}  # run name -> ns per call of each repetition, in run order
for b in doc["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    samples.setdefault(b["run_name"], []).append(b["cpu_time"] * unit)
stats = {}
for name, v in samples.items():
    v = sorted(v)
    mid = len(v) // 2
    median = v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
    stats[name] = {"median": median, "min": v[0], "max": v[-1]}
base = stats["generated_tree/tree-b"]["median"]
what = {
    "generated_tree/tree-b": "generated header, `ktune_selector::select(transa, transb, m, n, k, batch)`, independent calls",
    "generated_tree_latency/tree-b": "generated header, each call's input depends on the previous pick (latency)",
}
lines = [
    "<!-- Made by scripts/bench_overhead.sh; do not edit by hand. -->",
    "# Selection overhead per call",
    "",
    f"Command: `{cmd}`  ",
    f"Date: {ctx['date']}; commit {commit}  ",
    f"Machine: {ctx['ktune_device_name']} (`{ctx['ktune_device_slug']}`), {ctx['num_cpus']} CPUs at "
    f"{ctx['mhz_per_cpu']} MHz; load average {load_before} before the run, {load_after} after"
    + ("" if float(load_before) < 1.5 else " (**the machine was not quiet**: other jobs shared the 2 cores, so figures may be inflated)")
    + "  ",
    f"Models: K = {ctx['ktune_k']} configs (pca-kmeans, scale) and each selector trained at build time on "
    f"`{ctx['ktune_dataset'].split('/work/main/')[-1]}`; every call takes the next of its {ctx['ktune_problems']} "
    "problems in a seeded shuffled order. JSON selectors get precomputed feature rows (the generated "
    "function computes its derived features itself), which favours them.",
    "",
    f"CPU time per call over {reps} repetitions (Google Benchmark, `DoNotOptimize` on every pick):",
    "",
    "| selector | what | median ns/call | min | max | × generated tree |",
    "|---|---|---:|---:|---:|---:|",
]
for name, s in stats.items():
    kind = name.split("/", 1)[1]
    desc = what.get(name, f"`ktune::ml::Selector::select` of the JSON-loaded {kind} model")
    lines.append(f"| {kind} | {desc} | {s['median']:.1f} | {s['min']:.1f} | {s['max']:.1f} | {s['median'] / base:.{1 if s['median'] / base < 10 else 0}f} |")
if ctx.get("library_build_type") == "debug":
    lines += ["", "Google Benchmark reports `library_build_type: debug`: the Debian libbenchmark package is "
              "built without NDEBUG. The timed loop and the selectors are compiled here in Release (-O3); "
              "only the harness around them is the library's."]
lines += ["", "Raw data: selection-overhead.json (Google Benchmark JSON: every repetition and the aggregates).", ""]
open(dst, "w").write("\n".join(lines))
print("\n".join(lines))
PY
echo "wrote $out/selection-overhead.json and $out/selection-overhead.md"
