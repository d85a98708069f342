#!/usr/bin/env bash
# Submits a sharded ktune sweep: an N-task array of ktune-bench-array.sbatch, then the merge job
# once every task succeeded. Prints both job ids.
#   KTUNE_OUT=/shared/run1 KTUNE=/shared/bin/ktune scripts/slurm/submit.sh 16 [sbatch options --] \
#     --device cuda:0 --workload dnn
# Options before `--` go to sbatch for the array (e.g. --gres=gpu:1 --partition=gpu).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tasks=${1:?usage: submit.sh TASKS [sbatch options --] bench arguments}
shift
sbatch_args=()
if [[ " $* " == *" -- "* ]]; then
  while [ "$1" != "--" ]; do sbatch_args+=("$1"); shift; done
  shift
fi
array=$(sbatch --parsable --array="0-$((tasks - 1))" "${sbatch_args[@]}" \
  "$here/ktune-bench-array.sbatch" "$@")
array=${array%%;*}  # --parsable prints "id;cluster" on multi-cluster sites
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/ktune-merge.sbatch")
echo "array job $array, merge job ${merge%%;*}: $KTUNE_OUT/merged.sqlite when done"
