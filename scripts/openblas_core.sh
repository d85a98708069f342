#!/usr/bin/env bash
# The OpenBLAS core a CPU benchmark runs (issue #27): OpenBLAS's own detection, or, where that
# falls back to a core narrower than the CPU's flags allow (Debian's 0.3.21 says `Prescott` on an
# Intel Xeon with AMX), the widest core that this OpenBLAS has and that passes the float64 check
# (examples/tuned-gemm/openblas_core). Prints the environment assignment for the bench command
# (OPENBLAS_CORETYPE=<core>) or nothing, and one line on stderr saying what it decided, which the
# callers append to their logs. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE of the caller are ignored.
#   force=$(scripts/openblas_core.sh [OPENBLAS_CORE_BINARY]); env $force bench ...
# For tests: OPENBLAS_CORE_NATIVE plants the detected core, OPENBLAS_CORE_CPUINFO the cpuinfo file.
set -euo pipefail
bin=${1:-build/bin/openblas_core}
[[ -x $bin ]] || { echo "openblas_core.sh: no program '$bin' (build the openblas_core target)" >&2; exit 2; }
clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
ask=(candidates --cpuinfo "${OPENBLAS_CORE_CPUINFO:-/proc/cpuinfo}")
[[ -n ${OPENBLAS_CORE_NATIVE:-} ]] && ask+=(--native "$OPENBLAS_CORE_NATIVE")
native=$("${clean[@]}" "$bin" "${ask[@]}" 2>&1 >/dev/null | sed -n 's/^openblas_core: OpenBLAS detects \([^;]*\);.*/\1/p')
mapfile -t cores < <("${clean[@]}" "$bin" "${ask[@]}" 2>/dev/null)
if [[ ${#cores[@]} -eq 0 ]]; then
  echo "openblas: native core $native, nothing forced" >&2
  exit 0
fi
refused=()
for core in "${cores[@]}"; do
  if verdict=$("${clean[@]}" OPENBLAS_CORETYPE="$core" "$bin" check "$core"); then
    echo "openblas: native core $native; forced OPENBLAS_CORETYPE=$core ($verdict)${refused:+; ${refused[*]}}" >&2
    echo "OPENBLAS_CORETYPE=$core"
    exit 0
  fi
  refused+=("$verdict")
done
echo "openblas: native core $native; every wider core refused (${refused[*]}): nothing forced" >&2
