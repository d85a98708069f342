# shellcheck shell=bash
# What the scripts run on the lent GPU machine share (scripts/gpu_*.sh source it from the
# repository root): their phases and per-phase time caps, the GPU's description and slug, and
# the loader path for a binary built elsewhere.

# has PHASE: whether PHASE is one of the space-separated $PHASES.
has() { [[ " $PHASES " == *" $1 "* ]]; }

# cap PHASE_MAX: the seconds a phase may take: PHASE_MAX, or what is left before DEADLINE_S
# (counted by $SECONDS) less 5 s for the export after it (0: skip the phase).
cap() {
  local left=$((DEADLINE_S - SECONDS - 5))
  ((left < 10)) && { echo 0; return; }
  echo $(($1 < left ? $1 : left))
}

# gpu_info FILE: the GPU's name, driver, memory and clocks (CSV) into FILE and on stdout.
gpu_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
    > "$1"
  cat "$1"
}

# built_tree_setup: the start of a script that runs a tree built by gpu_build_remote.sh: BUILD
# and OUT_DIR required, DEADLINE_S 200 unless set, the kernel cache, the GPU's description in
# OUT_DIR/nvidia-smi.txt, the build's env file sourced and B its bin folder.
built_tree_setup() {
  BUILD=${BUILD:?BUILD: a tree built by scripts/gpu_build_remote.sh}
  OUT_DIR=${OUT_DIR:?OUT_DIR: where the results go}
  DEADLINE_S=${DEADLINE_S:-200}
  mkdir -p "$OUT_DIR"
  export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-cache}
  gpu_info "$OUT_DIR/nvidia-smi.txt"
  # shellcheck disable=SC1090
  [ -f "$BUILD.env" ] && . "$BUILD.env"
  # shellcheck disable=SC2034  # B: for the script that called this
  B=$BUILD/bin
}

# The device slug a store records: "NVIDIA H100 80GB HBM3" -> h100-80gb-hbm3.
gpu_slug() {
  nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //' |
    tr 'A-Z ' 'a-z-'
}

# The binary was built elsewhere: point the loader at this machine's CUDA 13 libraries (the
# toolkit's, then PyTorch's nvidia wheels', if any).
use_device_cuda_libraries() {
  local d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, q, "lib") for p in nvidia.__path__ for q in os.listdir(p)))' 2>/dev/null); do
    [ -d "$d" ] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
  done
  export LD_LIBRARY_PATH
}

# run_gpu_tests [--append] SECONDS LOG PROGRAM [ARGS...]: a script's GPU test phase. Runs PROGRAM
# ARGS under `timeout SECONDS`, its output into LOG (added to LOG with --append: several programs,
# one log), then prints its exit status and seconds and, of what this run wrote, the lines that
# say how tests ended or why one failed (at most 40). Returns PROGRAM's exit status (124: cut).
run_gpu_tests() {
  local append=0 seconds log start rc before=0
  [ "$1" = --append ] && { append=1; shift; }
  seconds=$1 log=$2
  shift 2
  if [ "$append" = 1 ]; then
    [ -f "$log" ] && before=$(wc -l < "$log")
    start=$(date +%s)
    timeout "$seconds" "$@" >> "$log" 2>&1
  else
    start=$(date +%s)
    timeout "$seconds" "$@" > "$log" 2>&1
  fi
  rc=$?
  echo "gpu tests $(basename "$1") exit $rc ($(($(date +%s) - start)) s)"
  tail -n +"$((before + 1))" "$log" |
    grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |FAILED|Failure|error|Expected|Which is|Value of" |
    head -40
  return "$rc"
}
