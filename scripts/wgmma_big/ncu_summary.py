# The ncumem phase's table (scripts/gpu_wgmma_big.sh): per ncumem-*.csv of DIR (`ncu --csv --page
# raw` of one 8192^3 NN bf16 launch), the kernel, its duration, DRAM bytes read and written, L2 hit
# rate, SM and issue-slot throughput and the SM clock ncu ran it at; markdown to stdout.
#   ncu_summary.py DIR
import csv, glob, os, sys

if len(sys.argv) != 2:
    sys.exit("usage: ncu_summary.py DIR")
files = sorted(glob.glob(os.path.join(sys.argv[1], "ncumem-*.csv")))
if not files:
    sys.exit(f"ncu_summary.py: no ncumem-*.csv in {sys.argv[1]}")
print("| file | kernel | µs | DRAM read GB | DRAM write GB | L2 hit % | SM % | issue slots % | SM GHz |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for f in files:
    rows = list(csv.reader(open(f)))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None or head + 2 >= len(rows):
        sys.exit(f"ncu_summary.py: {f} holds no profiled kernel")
    v = dict(zip(rows[head], rows[head + 2]))  # the row after the header holds the units
    num = lambda k: float(v[k].replace(",", ""))
    name = v["Kernel Name"].split("(")[0].replace("void ", "")
    print(f"| {os.path.basename(f)} | `{name}` | {num('gpu__time_duration.sum') / 1e3:.1f} | "
          f"{num('dram__bytes_read.sum') / 1e9:.3f} | {num('dram__bytes_write.sum') / 1e9:.3f} | "
          f"{num('lts__t_sector_hit_rate.pct'):.1f} | "
          f"{num('sm__throughput.avg.pct_of_peak_sustained_elapsed'):.1f} | "
          f"{num('smsp__issue_active.avg.pct_of_peak_sustained_elapsed'):.1f} | "
          f"{num('sm__cycles_elapsed.avg.per_second') / 1e9:.3f} |")
