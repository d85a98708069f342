#!/usr/bin/env bash
# Per-call overhead of ktune.gemm from Python over the C++ call (issue #29: <= 2 us), on tiny
# square GEMMs of the shipped CPU library (python/ktune/_overhead.py). Builds the module, then
# writes results/<cpu slug>/python-overhead/overhead.csv and run.json. Take it on a quiet machine.
#   scripts/python_overhead.sh [build-dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target _ktune -j2
commit=$(git rev-parse HEAD)
dirty=$(git status --porcelain -- python apps src include | grep -q . && echo yes || echo no)
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - "$0 $*" "$commit" "$dirty" <<'PY'
import datetime, json, os, sys

import ktune
from ktune import _overhead

sys.path.insert(0, "scripts")
from cpu_model import describe

command, commit, dirty = sys.argv[1:]
cpu = ktune.cpu_device()
out = os.path.join("results", cpu["slug"], "python-overhead")
os.makedirs(out, exist_ok=True)
load = os.getloadavg()[0]
rows = []
for size in (1, 4, 16, 64):
    t = _overhead.measure(size=size, reps=20000 if size <= 16 else 2000, rounds=7)
    rows.append((size, t["python"] * 1e6, t["cpp"] * 1e6, t["overhead"] * 1e6))
    print(f"{size}x{size}x{size}: Python {rows[-1][1]:.3f} us/call, C++ {rows[-1][2]:.3f} us/call, "
          f"overhead {rows[-1][3]:.3f} us/call")
with open(os.path.join(out, "overhead.csv"), "w") as f:
    f.write("m_n_k,python_us_per_call,cpp_us_per_call,overhead_us_per_call\n")
    f.writelines(f"{s},{p:.4f},{c:.4f},{o:.4f}\n" for s, p, c, o in rows)
run = {"command": command.strip(), "commit": commit, "date": datetime.date.today().isoformat(),
       "device": describe(),
       "measures": "ktune.gemm per-call time from Python vs the same ktune::gemm call from C++ "
                   f"(best of 7 rounds; load average {load:.2f} before"
                   + ("; uncommitted changes in the tree" if dirty == "yes" else "") + ")",
       "files": ["overhead.csv"], "in_sample": None}
with open(os.path.join(out, "run.json"), "w") as f:
    json.dump(run, f, indent=2)
    f.write("\n")
print(f"wrote {out}/overhead.csv and run.json")
PY
