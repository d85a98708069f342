#!/usr/bin/env python3
"""examples/networks/networks_processes.py (bench_cpu.sh's ROUNDS mode) on hand-made processes:
the median over the processes (not the mean, nor the fastest), oneDNN at its best chosen by that
median, per-round ratios against the faster oneDNN process of the same round, per-layer medians
with the most common choice; a process's row parsed from ktune_infer's lines, and a stdout
without the CPU-time line refused.
  test_networks_processes.py SCRIPT"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "examples", "networks", "networks_processes.py")
DEV = "AMD EPYC (2 threads)"
HEADER = "round,network,batch,backend,device,median_ms,min_ms,max_ms,cpu_ms,cpu_over_wall,reps,warmup,load1"
# Per backend its three processes' medians, by round. ktune: median 11 (mean 17, fastest 10);
# onednn_winograd median 13 beats onednn's 20 though onednn wins round 2.
MEDIANS = {"ktune": (10, 30, 11), "onednn": (20, 20, 20), "onednn_winograd": (12, 40, 13),
           "ktune_bf16": (6, 7, 8), "onednn_bf16": (8, 8, 8)}


class NetworksProcesses(unittest.TestCase):
    def write_run(self, tmp):
        with open(os.path.join(tmp, "networks-processes.csv"), "w") as f:
            f.write(HEADER + "\n")
            for backend, values in MEDIANS.items():
                for rnd, v in enumerate(values, 1):
                    f.write(f"{rnd},resnet50,1,{backend},{DEV},{v},{v - 1},{v + 1},{2 * v},1.99,20,3,0.5\n")
        with open(os.path.join(tmp, "networks-layers-processes.csv"), "w") as f:
            f.write("round,network,batch,backend,device,index,layer,kind,shape,median_ms,choice\n")
            for rnd, (ms, choice) in enumerate(((1.0, "a"), (5.0, "b"), (2.0, "b")), 1):
                f.write(f"{rnd},resnet50,1,onednn,{DEV},0,conv1,conv,s,{ms},{choice}\n")

    def test_aggregate(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write_run(tmp)
            subprocess.run([sys.executable, SCRIPT, "aggregate", tmp], check=True)
            net = {r["backend"]: float(r["median_ms"])
                   for r in csv.DictReader(open(os.path.join(tmp, "networks.csv")))}
            self.assertEqual(net["ktune"], 11.0)
            self.assertEqual(net["onednn_winograd"], 13.0)
            (layer,) = list(csv.DictReader(open(os.path.join(tmp, "networks-layers.csv"))))
            self.assertEqual((float(layer["median_ms"]), layer["choice"]), (2.0, "b"))
            md = open(os.path.join(tmp, "networks-processes.md")).read()
            row = next(l for l in md.splitlines() if l.startswith("| resnet50 | 1 | ktune | onednn"))
            cells = [c.strip() for c in row.strip("|").split("|")]
            # A, B at its best, which, A / B, min / min, per-round median, range
            self.assertEqual(cells[4:], ["11.0", "13.0", "onednn_winograd", "**0.846**",
                                         "0.833", "0.846", "0.833-1.500"])
            row = next(l for l in md.splitlines() if l.startswith("| resnet50 | 1 | ktune_bf16 | onednn_bf16 |"))
            self.assertIn("**0.875**", row)

    def test_row(self):
        with tempfile.TemporaryDirectory() as tmp:
            out, one = os.path.join(tmp, "stdout.txt"), os.path.join(tmp, "one.csv")
            with open(one, "w") as f:
                f.write(f"network,batch,backend,device,median_ms\nvgg16,16,ktune,{DEV},801.2500\n")
            lines = ["ktune: median 801.250 ms per inference of batch 16 over 5 reps "
                     "(min 790.100, max 850.000; 2 warm-up)",
                     "ktune: process CPU time median 1600.500 ms per inference, 1.99x its wall "
                     "time (min 1.97x, max 2.00x)"]
            with open(out, "w") as f:
                f.write("\n".join(lines) + "\n")
            done = subprocess.run([sys.executable, SCRIPT, "row", out, one, "3", "5", "2", "0.41"],
                                  capture_output=True, text=True, check=True)
            self.assertEqual(done.stdout.strip().split(","),
                             ["3", "vgg16", "16", "ktune", DEV, "801.2500", "790.100", "850.000",
                              "1600.500", "1.99", "5", "2", "0.41"])
            with open(out, "w") as f:  # planted: the CPU-time line missing
                f.write(lines[0] + "\n")
            done = subprocess.run([sys.executable, SCRIPT, "row", out, one, "3", "5", "2", "0.41"],
                                  capture_output=True, text=True)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("no median / CPU time line", done.stderr)


if __name__ == "__main__":
    unittest.main()
