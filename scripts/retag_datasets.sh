#!/usr/bin/env bash
# Gives committed CSV datasets measured before problem tags were stored (issue #10) the tags of
# their family's builtin `dnn` workload (the networks that use each shape): each file goes through
# `ktune import --tags-from dnn` into a scratch store and back out with `ktune export`, and
# replaces the file only when the export, without its new `tags` column, has exactly the rows and
# fields of the input, in the same order.
# Usage: scripts/retag_datasets.sh FILE.csv.gz...   (KTUNE=path/to/ktune, default build/bin/ktune)
set -euo pipefail
ktune=${KTUNE:-build/bin/ktune}
for file in "$@"; do
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  "$ktune" import --csv "$file" --store "$scratch/store.sqlite" --tags-from dnn
  "$ktune" export --store "$scratch/store.sqlite" --format csv -o "$scratch/out.csv.gz"
  python3 - "$file" "$scratch/out.csv.gz" <<'PY'
import csv, gzip, sys
def rows(path):
    with gzip.open(path, "rt", newline="") as f:
        return list(csv.reader(f))
old, new = rows(sys.argv[1]), rows(sys.argv[2])
assert new[0] == old[0] + ["tags"], f"{sys.argv[1]}: unexpected header {new[0]}"
assert len(old) == len(new), f"{sys.argv[1]}: {len(old)} rows before, {len(new)} after"
for i, (a, b) in enumerate(zip(old, new)):
    assert a == b[:-1], f"{sys.argv[1]}: row {i} differs"
tagged = sum(1 for r in new[1:] if r[-1])
print(f"{sys.argv[1]}: {len(new) - 1} rows unchanged, {tagged} with tags")
PY
  cp "$scratch/out.csv.gz" "$file"
  rm -rf "$scratch"
  trap - EXIT
done
