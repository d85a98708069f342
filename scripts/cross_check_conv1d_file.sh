#!/bin/bash
# Same run, alternating: the built-in conv1d family and its file-family re-expression, over
# conv1d-small (16 problems x 12 configs), default timing policy, compile cache warm.
# Usage: scripts/cross_check_conv1d_file.sh build/bin/ktune examples/own-kernels OUT_DIR
K=$1; E=$2; OUT=$3
export KTUNE_CACHE_DIR=$OUT/cache
$K bench --family-file $E/conv1d_file/conv1d_file.json --store $OUT/warm.sqlite > /dev/null 2>&1
rm -f $OUT/warm.sqlite
for round in 1 2; do
  s=$(date +%s.%N); $K bench --family conv1d --device cpu --workload small --store $OUT/builtin-$round.sqlite > $OUT/builtin-$round.log 2>&1; e=$(date +%s.%N)
  echo "builtin,$round,$(echo "$e - $s" | bc)" >> $OUT/wall.csv
  s=$(date +%s.%N); $K bench --family-file $E/conv1d_file/conv1d_file.json --store $OUT/file-$round.sqlite > $OUT/file-$round.log 2>&1; e=$(date +%s.%N)
  echo "file,$round,$(echo "$e - $s" | bc)" >> $OUT/wall.csv
done
