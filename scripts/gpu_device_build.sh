# Sourced by the device scripts (scripts/gpu_warp_*.sh): builds ktune's ktune and ktune_gpu_tests
# on the lent GPU machine (scripts/gpu_build_remote.sh, sysroot $C/sysroot.tar.gz), loads the
# build's environment, logs the GPU. Sets C (carried folder), B (build), W (work folder);
# exits the calling script on a failed build. SECONDS counts from here.
C=${CARRY:-.carry/gpu} B=/tmp/kt-build W=/tmp/kt-work
mkdir -p "$OUT" $W
SECONDS=0
SYSROOT=$C/sysroot.tar.gz scripts/gpu_build_remote.sh $B ktune ktune_gpu_tests > $OUT/build.txt 2>&1 ||
  { tail -30 $OUT/build.txt; exit 1; }
# shellcheck disable=SC1091
. $B.env
echo "built at ${SECONDS}s"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader |
  tee $OUT/nvidia-smi.txt
