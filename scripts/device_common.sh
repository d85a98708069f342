# shellcheck shell=bash
# What the scripts run on the lent GPU machine share (scripts/gpu_*.sh source it from the
# repository root): their phases, the GPU's description and slug, and the loader path for a
# binary built elsewhere.

# has PHASE: whether PHASE is one of the space-separated $PHASES.
has() { [[ " $PHASES " == *" $1 "* ]]; }

# gpu_info FILE: the GPU's name, driver, memory and clocks (CSV) into FILE and on stdout.
gpu_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
    > "$1"
  cat "$1"
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
