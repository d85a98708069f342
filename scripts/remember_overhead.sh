#!/usr/bin/env bash
# What tune and remember costs in the shipped CPU GEMM library (examples/tuned-gemm/
# remember_overhead.cpp): builds the program, runs it once and writes <out-dir>/overhead.csv and
# run.json (a results/ run directory; commit it only when the machine was quiet: the load average
# before and after is in run.json's "measures").
#   scripts/remember_overhead.sh <out-dir> [build-dir]     e.g. results/amd-epyc-2c/remember-overhead
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/remember_overhead.sh <out-dir> [build-dir]}
build=${2:-build}

cmake --build "$build" --target remember_overhead -j2 >/dev/null
mkdir -p "$out"
load_before=$(cut -d' ' -f1 /proc/loadavg)
cmd="$build/bin/remember_overhead"
env -u KTUNE_REMEMBER -u KTUNE_REMEMBER_BUDGET_MS -u KTUNE_REMEMBER_CANDIDATES \
  -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  -u KTUNE_REMEMBER_SHAPES "$cmd" >"$out/overhead.csv"
load_after=$(cut -d' ' -f1 /proc/loadavg)
cat "$out/overhead.csv"

device=$(/usr/bin/python3 scripts/cpu_model.py)
/usr/bin/python3 - "$out/run.json" "scripts/remember_overhead.sh $*" \
  "$(git rev-parse --short HEAD)" "$device" "$load_before" "$load_after" <<'PY'
import datetime, json, sys
path, command, commit, device, before, after = sys.argv[1:]
json.dump({"command": command, "commit": commit,
           "date": datetime.date.today().isoformat(), "device": device,
           "measures": "tune and remember in the shipped CPU GEMM library: ns per remembered "
                       "call against a plain one and the selector alone, and first-call ms "
                       f"(load average {before} before, {after} after)",
           "files": ["overhead.csv"], "in_sample": None},
          open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
