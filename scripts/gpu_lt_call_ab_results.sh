#!/usr/bin/env bash
# The results directory of a scripts/gpu_tc_safe.sh run (with or without --lt-call-ab: the
# library's cuBLASLt call against the benchmark's, in turns), from the tarball it left in $OUT
# (tc-deployed.tar.gz): the tarball's files, then with the existing scripts the deployed tables
# per precision (gemm_deployed_tables.py, the sweep's oracle from tc-split-1 / tc-tf32-1),
# vendors-by-set.md (gemm_deployed_vendor_ratios.py), lt-call-ab.md (gemm_lt_call_ab.py, its
# tolerance verdict) and run.json (command, commit, date, device from nvidia-smi.txt, measures
# from those tables; `llm` is held out, `large` and `dnn` in-sample). Then results_index.py.
#   scripts/gpu_lt_call_ab_results.sh TARBALL results/h100-80gb-hbm3/NAME COMMIT "COMMAND"
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=${1:?usage: gpu_lt_call_ab_results.sh TARBALL DEST COMMIT COMMAND}
dest=${2:?DEST}
commit=${3:?COMMIT}
command=${4:?COMMAND}
[ -f "$tarball" ] || { echo "gpu_lt_call_ab_results.sh: no tarball '$tarball'" >&2; exit 1; }
mkdir -p "$dest"
tar xzf "$tarball" -C "$dest"
data_dir=$PWD/results/h100-80gb-hbm3
tables=()
for q in bf16 tf32 fp16; do
  runs=()
  for w in llm large dnn; do
    f=$dest/deployed-$w-$q.csv
    [ -s "$f" ] && [ "$(wc -l < "$f")" -gt 1 ] || continue
    set_name=in-sample-$w
    [ "$w" = llm ] && set_name=held-out-llm
    runs+=(--run "$set_name=$f")
  done
  ((${#runs[@]})) || continue
  data=$data_dir/tc-split-1/gemm-tc.csv.xz
  [ "$q" = tf32 ] && data=$data_dir/tc-tf32-1/gemm-tf32.csv.xz
  python3 scripts/gemm_deployed_tables.py "${runs[@]}" --data "$data" \
    --csv "$dest/deployed-tables-$q.csv" --markdown "$dest/deployed-tables-$q.md"
  tables+=("$q")
done
logs=()
for log in "$dest"/bench-*.log; do
  [ -s "$log" ] || continue
  base=$(basename "$log" .log)
  base=${base#bench-}
  set_name=in-sample-$base
  [[ $base == llm-* ]] && set_name=held-out-$base
  grep -q "^\[" "$log" && logs+=("$set_name=$log")
done
((${#logs[@]})) && python3 scripts/gemm_deployed_vendor_ratios.py "${logs[@]}" > "$dest/vendors-by-set.md"
ab_logs=()
for log in "$dest"/bench-*.log; do grep -q "^lt-call-ab " "$log" && ab_logs+=("$log"); done
verdict="no lt-call-ab line"
if ((${#ab_logs[@]})); then
  if (cd "$dest" && python3 "$OLDPWD/scripts/gemm_lt_call_ab.py" "${ab_logs[@]##*/}") > "$dest/lt-call-ab.md"; then
    verdict=met
  else
    verdict=missed
  fi
fi
python3 - "$dest" "$commit" "$command" "$verdict" <<'PY'
import datetime, json, os, sys
dest, commit, command, verdict = sys.argv[1:5]
def first_rows(path):
    """The body rows of the file's first Markdown table."""
    rows, started = [], False
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("|"):
                started = True
                if "---" not in line:
                    rows.append(line.strip())
            elif started:
                break
    return rows[1:]
smi = open(os.path.join(dest, "nvidia-smi.txt")).read().splitlines()
card = smi[1].split(", ") if len(smi) > 1 else ["unknown GPU", "?"]
measures = ["ktune::gemm_ex (shipped vendors headers) against the faster of cuBLAS and cuBLASLt's "
            "heuristic #0, same precision, same run, each verified against float64 "
            "(deployed-tables-*.md: set, shapes, geomean, time-weighted, below 0.8x, worst, ...)"]
for q in ("bf16", "tf32", "fp16"):
    for row in first_rows(os.path.join(dest, f"deployed-tables-{q}.md")):
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) > 5:
            measures.append(f"{q} {cells[0]} ({cells[1]} shapes): {cells[2]} geomean / {cells[3]} "
                            f"time-weighted, {cells[4]} below 0.8x, worst {cells[5]}")
ab = first_rows(os.path.join(dest, "lt-call-ab.md"))
measures.append("the library's cuBLASLt call vs the benchmark's, timed in turns run by run "
                "(tuned_gemm_bench --lt-call-ab, lt-call-ab.md; tolerance: geomean and "
                f"time-weighted >= 0.98, every shape >= 0.9, same algorithm): {verdict}")
for row in ab:
    cells = [c.strip() for c in row.strip("|").split("|")]
    if len(cells) >= 10 and cells[0].startswith("bench-"):
        measures.append(f"{cells[0]}: {cells[1]} shapes, library/benchmark {cells[2]} geomean, "
                        f"{cells[3]} time-weighted; plan {cells[4]}; wrapper {cells[5]}; "
                        f"extra {cells[6]} us median; other algorithm {cells[8]}")
run = {
    "command": command,
    "commit": commit,
    "date": datetime.date.today().isoformat(),
    "device": f"{card[0]} (driver {card[1]})",
    "measures": "; ".join(measures),
    "files": sorted(f for f in os.listdir(dest) if f != "run.json"),
    "in_sample": None,
    "vendors": ["cublas (cublasGemmStridedBatchedEx_64, the precision's compute type)",
                "cublaslt (heuristic #0, 32 MiB workspace; the library's call passes the same)"],
    "note": "in_sample is mixed: llm is held out (no selector was trained on it), large and "
            "dnn are in-sample. A workload the deadline cut has fewer shapes (see the tables).",
}
json.dump(run, open(os.path.join(dest, "run.json"), "w"), indent=2)
open(os.path.join(dest, "run.json"), "a").write("\n")
print(run["measures"])
PY
python3 scripts/results_index.py
