#!/usr/bin/env bash
# The unsure rule's measured choice (docs/deploy.md): ktune eval with the vendors as candidates
# on a committed CPU sweep, per split and per rule (none, range guard, minimum vote share, both),
# for tree selectors at K = 16; then one summary table (% of the oracle including the vendors,
# and the shares served by ktune's own kernels).
# Usage: scripts/vendor_unsure_eval.sh OUT_DIR [KTUNE] [DATA]
set -euo pipefail
out=${1:?usage: vendor_unsure_eval.sh OUT_DIR [KTUNE] [DATA]}
ktune=${2:-build/bin/ktune}
data=${3:-results/amd-epyc-2c/gemm-dnn-train4-packedz.csv.gz}
mkdir -p "$out"
matrix=(--pruners pca-kmeans,tree --norms cutoff --selectors tree-a,tree-b --ks 16 --ceiling-ks 16)
for split in random smallest20 largest20; do
  for rule in none guard share both; do
    case $rule in
      none) args=() ;;
      guard) args=(--range-guard) ;;
      share) args=(--min-vote-share 0.6) ;;
      both) args=(--range-guard --min-vote-share 0.6) ;;
    esac
    for vendors in vendors kernels; do
      [[ $vendors == kernels && $rule != none ]] && continue
      flag=(); [[ $vendors == vendors ]] && flag=(--vendors)
      name="$split-$rule-$vendors"
      "$ktune" eval --data "$data" "${flag[@]}" --split "$split" "${matrix[@]}" "${args[@]}" \
        --markdown "$out/$name.md" --csv "$out/$name.csv" >/dev/null
    done
  done
done
python3 - "$out" <<'PY'
import csv, glob, os, sys
out = sys.argv[1]
lines = ["| split | rule | candidates | pruner | selector | % of oracle | own kernels: problems | own kernels: time |",
         "|---|---|---|---|---|---:|---:|---:|"]
for path in sorted(glob.glob(os.path.join(out, "*-metrics.csv"))):
    split, rule, cands = os.path.basename(path)[:-len("-metrics.csv")].rsplit("-", 2)
    for row in csv.DictReader(open(path)):
        if not row["pct_of_oracle"]:
            continue
        lines.append(f"| {split} | {rule} | {cands} | {row['pruner']} | {row['selector']} | "
                     f"{float(row['pct_of_oracle']):.1f} | {100*float(row['own_share']):.1f}% | "
                     f"{100*float(row['own_time_share']):.1f}% |")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
