#!/usr/bin/env bash
# scripts/openblas_core.sh with a planted detection (no Intel CPU needed): OpenBLAS answering
# `Prescott` on an AMX Xeon's flags forces the widest core that this OpenBLAS loads and that
# passes the float64 check, naming the ones refused before it (Debian's 0.3.21 has no
# SapphireRapids: refused, then Cooperlake); a native core as wide as the flags forces nothing.
#   test_openblas_core.sh SCRIPT OPENBLAS_CORE_BINARY
set -euo pipefail
script=$1 bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
avx512="fpu sse sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16"
printf 'processor\t: 0\nflags\t\t: %s amx_bf16 amx_tile amx_int8\n' "$avx512" > "$tmp/xeon"
printf 'processor\t: 0\nflags\t\t: %s\n' "$avx512" > "$tmp/zen"
fail() { echo "FAIL: $*" >&2; exit 1; }

forced=$(OPENBLAS_CORE_NATIVE=Prescott OPENBLAS_CORE_CPUINFO="$tmp/xeon" "$script" "$bin" 2> "$tmp/log")
log=$(cat "$tmp/log")
[[ $log == *"native core Prescott; forced $forced ("*"against float64"* ]] || fail "log: $log"
case $forced in
  OPENBLAS_CORETYPE=SapphireRapids) ;;
  OPENBLAS_CORETYPE=Cooperlake)  # the wider core was refused first, and the log says why
    [[ $log == *"refused: SapphireRapids asked, this OpenBLAS runs"* ]] || fail "log: $log" ;;
  OPENBLAS_CORETYPE=SkylakeX | OPENBLAS_CORETYPE=Haswell | OPENBLAS_CORETYPE=Sandybridge) ;;
    # a machine whose CPU cannot run the wider cores' kernels (the planted flags are not its own)
  *) fail "forced '$forced'" ;;
esac

none=$(OPENBLAS_CORE_NATIVE=Cooperlake OPENBLAS_CORE_CPUINFO="$tmp/zen" "$script" "$bin" 2> "$tmp/log")
[[ -z $none ]] || fail "forced '$none' over a native Cooperlake"
[[ $(cat "$tmp/log") == "openblas: native core Cooperlake, nothing forced" ]] || fail "$(cat "$tmp/log")"
echo "ok: $forced"
