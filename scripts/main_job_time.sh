#!/usr/bin/env bash
# The README's main-job time: `./scripts/demo.sh` as a newcomer runs it, on a fresh clone of this
# checkout's HEAD (no build directory, no node_modules: npm ci runs, from npm's cache where it has
# one) with ccache disabled, so every object is compiled. The packages must be installed already
# (install_deps.sh then only checks them): downloading and installing them is not timed.
# Writes <out-dir>/demo-sh.log (the whole output), steps.csv (demo.sh's steps: wall and CPU
# seconds), build-seconds-per-object.tsv (ninja's log) and run.json; then checks that the CLI it
# built registers only the main job's families. Commit it only when the machine was quiet: the
# load average before and after is in run.json. About 5 minutes on the 2-core EPYC.
#   scripts/main_job_time.sh <out-dir>      e.g. results/amd-epyc-2c/main-job
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/main_job_time.sh <out-dir>}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/ktune-main-job.XXXXXX)
git clone -q "$PWD" "$work/ktune"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
(cd "$work/ktune" && CCACHE_DISABLE=1 ./scripts/demo.sh --out-dir "$work/demo") 2>&1 |
  tee "$out/demo-sh.log"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# Per object: ninja's log (start and end in ms; wall seconds of each compile and link).
awk -F'\t' 'NR > 1 { printf "%.1f\t%s\n", ($2 - $1) / 1000, $4 }' "$work/ktune/build-demo/.ninja_log" |
  sort -rn >"$out/build-seconds-per-object.tsv"
# The families the built CLI registers, from its refusal of a family it does not know.
known=$({ "$work/ktune/build-demo/bin/ktune" bench --family no-such-family --device cpu \
  --workload tiny --store "$work/x.sqlite" 2>&1 || true; } | sed -n "s/.*(known: \(.*\))$/\1/p")
echo "main_job_time: the CLI registers: $known"

/usr/bin/python3 - "$out" "scripts/main_job_time.sh $*" "$(git rev-parse --short HEAD)" \
  "$(/usr/bin/python3 scripts/cpu_model.py)" "$load_before" "$load_after" "$known" <<'PY'
import csv, datetime, json, os, re, sys
out, command, commit, device, before, after, known = sys.argv[1:]
log = open(os.path.join(out, "demo-sh.log"), encoding="utf-8").read()
steps = re.findall(r"^demo\.sh: step (\w+) (\d+) s wall, ([\d.]+) CPU-s$", log, re.M)
total = re.search(r"^demo\.sh: (\d+) s in all", log, re.M)
if [s[0] for s in steps] != ["install", "build", "demo"] or not total:
    sys.exit("main_job_time: demo.sh did not finish its three steps (see demo-sh.log)")
with open(os.path.join(out, "steps.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["step", "wall_s", "cpu_s"])
    w.writerows(steps)
    w.writerow(["all", total.group(1), f"{sum(float(s[2]) for s in steps):.2f}"])
objects = sum(1 for line in open(os.path.join(out, "build-seconds-per-object.tsv"))
              if line.rstrip().endswith(".o"))
wall = {s[0]: s[1] for s in steps}
cpu = {s[0]: s[2] for s in steps}
json.dump({
    "command": f"{command} (a fresh clone of HEAD; CCACHE_DISABLE=1 ./scripts/demo.sh "
               "--out-dir DIR, build jobs = nproc)",
    "commit": commit, "date": datetime.date.today().isoformat(), "device": device,
    "measures": f"the main job from a fresh clone, packages installed, no ccache: "
                f"{total.group(1)} s in all; install check + npm ci {wall['install']} s, "
                f"configure + build of `ktune` {wall['build']} s ({cpu['build']} CPU-s, "
                f"{objects} objects), ktune demo {wall['demo']} s (load average "
                f"{before} before, {after} after); the CLI built registers: {known}",
    "files": ["demo-sh.log", "steps.csv", "build-seconds-per-object.tsv"],
    "in_sample": None,
    "load_average_before": before, "load_average_after": after,
    "vendors": "OpenBLAS (its own core detection: demo.sh unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE) and oneDNN matmul, as ktune demo times them; the demo log does not name the kernel either ran (this run measures the main job's time)",
    "note": "apt packages installed beforehand and npm's cache warm: a machine without them "
            "also downloads and installs them (not timed)",
}, open(os.path.join(out, "run.json"), "w", encoding="utf-8"), indent=2)
open(os.path.join(out, "run.json"), "a").write("\n")
PY
if [ "$known" != gemm ]; then
  echo "main_job_time: the main job's CLI registers '$known', not gemm alone" >&2
  exit 1
fi
rm -rf "$work"
