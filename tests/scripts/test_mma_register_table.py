#!/usr/bin/env python3
"""scripts/mma_register_table.py with a stand-in nvcc that reports, for every instantiation it is
given, bm + bn + wm registers (ptxas's format), over three stand-in trees whose gemm_mma.cuh has
the C16 template argument, the run-time `int c16` argument, or neither: the space's 72 configs,
the signatures each tree gets, no 16-bit-C rows for the older two, and the blocks per SM; and
--compiler nvrtc with the toolkit's NVRTC on a stand-in kernel of the C16 signature (skipped where
the library is absent).
  test_mma_register_table.py SCRIPT"""
import csv
import io
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "mma_register_table.py")

# Fails like nvcc would when an instantiation does not match the included kernel's signature.
FAKE_NVCC = r'''#!/usr/bin/env python3
import re, sys
source = open(sys.argv[-1]).read()
kernel = open(re.search(r'#include "([^"]+)"', source).group(1)).read()
if "int C16" in kernel:
    want = (r",\d>\(", "void*, long long, long long, int, long long, float*);")
elif "int c16" in kernel:
    want = (r",0,0>\(", "void*, long long, long long, int, long long, float*, int);")
else:
    want = (r",0,0>\(", "float*, long long, long long, int, long long, float*);")
for line in source.splitlines()[1:]:
    if not re.search(want[0], line) or not line.endswith(want[1]):
        sys.exit("error: no instance of function template matches: " + line)
for m in re.finditer(r"ktune_gemm_mma<(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),0,0(?:,(\d))?>", source):
    bm, bn, bk, wm, wn, st, prec = m.groups()[:7]
    name = f"_Z14ktune_gemm_mmaILi{bm}ELi{bn}ELi{bk}ELi{wm}ELi{wn}ELi{st}ELi{prec}ELi0ELi0EEv"
    print(f"ptxas info    : Compiling entry function '{name}' for 'sm_90a'", file=sys.stderr)
    print(f"ptxas info    : Used {int(bm) + int(bn) + int(wm)} registers, used 1 barriers", file=sys.stderr)
'''

KERNELS = {"template": "template <int TB, int C16 = 0> void* c, float* partial",
           "runtime": "void* c, float* partial, int c16",
           "before": "float* c, float* partial"}


class RegisterTable(unittest.TestCase):
    def test_rows_signatures_and_blocks(self):
        with tempfile.TemporaryDirectory() as tmp:
            nvcc = os.path.join(tmp, "nvcc")
            with open(nvcc, "w") as f:
                f.write(FAKE_NVCC)
            os.chmod(nvcc, 0o755)
            trees = []
            for label, text in KERNELS.items():
                os.makedirs(os.path.join(tmp, label, "kernels/gemm/cuda"))
                with open(os.path.join(tmp, label, "kernels/gemm/cuda/gemm_mma.cuh"), "w") as f:
                    f.write(text)
                trees += ["--tree", f"{label}={os.path.join(tmp, label)}"]
            out = subprocess.run([sys.executable, SCRIPT, *trees, "--prec", "1", "2", "--c16"],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "NVCC": nvcc}).stdout
        rows = list(csv.DictReader(io.StringIO(out)))
        counts = {}
        for r in rows:
            key = (r["tree"], r["prec"], r["c16"])
            counts[key] = counts.get(key, 0) + 1
        # tf32 never with 16-bit C; only the C16 tree has a 16-bit-C instantiation.
        self.assertEqual(counts, {("template", "1", "0"): 72, ("template", "2", "0"): 72,
                                  ("template", "2", "1"): 72, ("runtime", "1", "0"): 72,
                                  ("runtime", "2", "0"): 72, ("before", "1", "0"): 72,
                                  ("before", "2", "0"): 72})
        r = next(r for r in rows if (r["tree"], r["prec"], r["bm"], r["bn"], r["bk"], r["wm"],
                                     r["wn"], r["st"]) == ("before", "2", "64", "128", "32", "64",
                                                           "32", "3"))
        # 4 warps: 128 threads; 64 + 128 + 64 = 256 registers: 65536 / (256 * 128) = 2 blocks.
        # Shared memory: 3 * (32 * (64 * 2 + 16) + 128 * (32 * 2 + 16)) = 44544 B: 228 KiB /
        # (44544 + 1024) = 5 blocks.
        self.assertEqual((r["threads"], r["registers"], r["blocks_by_registers"]), ("128", "256", "2"))
        self.assertEqual((r["smem_bytes"], r["blocks_by_smem"]), ("44544", "5"))

    def test_nvrtc_reports_every_config(self):
        nvrtc = os.environ.get("NVRTC", "/usr/local/cuda/lib64/libnvrtc.so")
        if not os.path.exists(nvrtc):
            self.skipTest(f"no NVRTC at {nvrtc}")
        # A kernel of the real signature whose stores depend on the tile sizes, so that ptxas
        # reports registers for each instantiation.
        kernel = """
template <int PREC> struct KtuneMmaElem { typedef unsigned short type; };
template <> struct KtuneMmaElem<1> { typedef float type; };
template <int BM, int BN, int BK, int WM, int WN, int ST, int PREC, int TA, int TB, int C16 = 0>
__global__ void ktune_gemm_mma(long long m, long long n, long long k, float alpha,
                               const typename KtuneMmaElem<PREC>::type* a, long long lda,
                               long long sa, const typename KtuneMmaElem<PREC>::type* b,
                               long long ldb, long long sb, float beta, void* c, long long ldc,
                               long long sc, int splits, long long k_chunk, float* partial) {
  static_cast<float*>(c)[threadIdx.x * ldc] = alpha * BM + beta * BN + float(m * BK + WM * WN + ST);
}
"""
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "kernels/gemm/cuda"))
            with open(os.path.join(tmp, "kernels/gemm/cuda/gemm_mma.cuh"), "w") as f:
                f.write(kernel)
            out = subprocess.run([sys.executable, SCRIPT, "--tree", f"stand-in={tmp}", "--prec",
                                  "2", "--compiler", "nvrtc"], capture_output=True, text=True,
                                 check=True, env={**os.environ, "NVRTC": nvrtc}).stdout
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), 72)
        for r in rows:
            registers, threads = int(r["registers"]), int(r["threads"])
            self.assertTrue(1 <= registers <= 255, r)
            self.assertEqual(int(r["blocks_by_registers"]),
                             min(65536 // ((registers + 7) // 8 * 8 * threads), 2048 // threads))


if __name__ == "__main__":
    unittest.main()
