#!/usr/bin/env python3
"""Registers per thread of every config of the GEMM family's `mma` kind (gemm_mma.cuh), as ptxas
reports them (nvcc -O3 -arch=sm_90a -Xptxas -v, as the deployed library is compiled, or with
--compiler nvrtc NVRTC --gpu-architecture=sm_90 --std=c++17, as the sweeps compile it; no GPU
needed), and the blocks per SM they and the
shared memory allow (65536 registers, allocated per thread in steps of 8; 228 KiB of shared memory,
1 KiB reserved per block; at most 2048 threads): an occupancy lost to registers shows here. One
source tree per --tree LABEL=DIR (DIR holds kernels/; older kernels' signatures are detected),
transposes NN, precisions --prec (1 tf32, 2 bf16, 3 fp16); with --c16 also the 16-bit-C
instantiation where the tree has one. CSV on stdout, one row per tree, precision, C16 and config.
  scripts/mma_register_table.py --tree before=/tmp/old --tree after=. --prec 1 2 [--c16]
                                [--compiler nvcc|nvrtc]"""
import argparse
import csv
import itertools
import os
import re
import subprocess
import sys
import ctypes
import tempfile

NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
NVRTC = os.environ.get("NVRTC", "/usr/local/cuda/lib64/libnvrtc.so")


def space():
    """The mma kind's 72 configs (kernels/gemm/gemm_family.cpp): 4 or 8 warps a block."""
    for bm, bn, bk, wm, wn, st in itertools.product((64, 128, 256), (64, 128, 256), (32, 64),
                                                    (32, 64), (32, 64), (3, 4)):
        if bm % wm == 0 and bn % wn == 0 and (bm // wm) * (bn // wn) in (4, 8):
            yield bm, bn, bk, wm, wn, st


def smem_bytes(bm, bn, bk, st, prec):
    """gemm_mma_launch.hpp's mma_smem_bytes for NN: A [bk][bm + pad], B k-contiguous [bn][bk + pad]."""
    e = 4 if prec == 1 else 2
    return st * (bk * (bm * e + (32 if e == 4 else 16)) + bn * (bk * e + 16))


def instantiations(root, prec, c16):
    """The explicit instantiations of one precision (and C type) for the tree at root: the kernel
    with the C16 template argument, the one with a run-time `int c16` argument (no 16-bit-C
    instantiation of its own), or the one before 16-bit C (float* C)."""
    text = open(os.path.join(root, "kernels/gemm/cuda/gemm_mma.cuh")).read()
    has_template = "int C16" in text
    if c16 and not has_template:
        return None
    c_type, tail = ("void*", "float*") if has_template else (
        ("void*", "float*, int") if "int c16" in text else ("float*", "float*"))
    lines = [f'#include "{os.path.abspath(root)}/kernels/gemm/cuda/gemm_mma.cuh"']
    for bm, bn, bk, wm, wn, st in space():
        args = f"{bm},{bn},{bk},{wm},{wn},{st},{prec},0,0" + (f",{int(c16)}" if has_template else "")
        elem = f"const KtuneMmaElem<{prec}>::type*"
        lines.append(f"template __global__ void ktune_gemm_mma<{args}>(long long, long long, "
                     f"long long, float, {elem}, long long, long long, {elem}, long long, "
                     f"long long, float, {c_type}, long long, long long, int, long long, {tail});")
    return "\n".join(lines) + "\n"


def ptxas_log(source, compiler):
    """ptxas's verbose report of every kernel in source (a .cu text that #includes by absolute
    path), compiled as the deployed library (nvcc) or the sweeps (NVRTC) compile it."""
    if compiler == "nvcc":
        with tempfile.TemporaryDirectory() as tmp:
            cu = os.path.join(tmp, "mma.cu")
            with open(cu, "w") as f:
                f.write(source)
            log = subprocess.run([NVCC, "-O3", "-arch=sm_90a", "-cubin", "-Xptxas", "-v", "-o",
                                  os.path.join(tmp, "mma.cubin"), cu], capture_output=True,
                                 text=True)
        if log.returncode != 0:
            sys.exit(f"mma_register_table.py: nvcc failed:\n{log.stderr[-2000:]}")
        return log.stderr
    # NVRTC through its C API: the options of the GEMM family's kernel cache
    # (kernels/common/cuda/gemm_kernel_cache.cpp) and the device's exact architecture.
    lib = ctypes.CDLL(NVRTC)
    program = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"mma.cu", 0, None, None):
        sys.exit("mma_register_table.py: nvrtcCreateProgram failed")
    options = [b"--gpu-architecture=sm_90", b"--std=c++17", b"--ptxas-options=-v"]
    status = lib.nvrtcCompileProgram(program, len(options),
                                     (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    lib.nvrtcDestroyProgram(ctypes.byref(program))
    text = log.value.decode(errors="replace")
    if status != 0:
        sys.exit(f"mma_register_table.py: NVRTC failed ({status}):\n{text[-2000:]}")
    return text


def registers(source, compiler="nvcc"):
    """(bm, bn, bk, wm, wn, st) -> registers, from ptxas's report."""
    out, name = {}, None
    for line in ptxas_log(source, compiler).splitlines():
        m = re.search(r"ktune_gemm_mmaILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", line)
        if "Compiling entry function" in line and m:
            name = tuple(int(x) for x in m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            out[name], name = int(m.group(1)), None
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="LABEL=DIR")
    parser.add_argument("--prec", nargs="+", type=int, default=[2])
    parser.add_argument("--c16", action="store_true")
    parser.add_argument("--compiler", choices=("nvcc", "nvrtc"), default="nvcc")
    args = parser.parse_args()
    writer = csv.writer(sys.stdout)
    writer.writerow(["tree", "prec", "c16", "bm", "bn", "bk", "wm", "wn", "st", "threads",
                     "registers", "blocks_by_registers", "smem_bytes", "blocks_by_smem"])
    for label, root in (t.split("=", 1) for t in args.tree):
        for prec, c16 in itertools.product(args.prec, (False, True) if args.c16 else (False,)):
            if c16 and prec == 1:
                continue
            source = instantiations(root, prec, c16)
            if source is None:
                continue
            regs = registers(source, args.compiler)
            for cfg in space():
                bm, bn, bk, wm, wn, st = cfg
                threads = 32 * (bm // wm) * (bn // wn)
                r = regs[cfg]
                by_regs = min(65536 // ((r + 7) // 8 * 8 * threads), 2048 // threads)
                s = smem_bytes(bm, bn, bk, st, prec)
                by_smem = min(228 * 1024 // (s + 1024), 2048 // threads)
                writer.writerow([label, prec, int(c16), *cfg, threads, r, by_regs, s, by_smem])


if __name__ == "__main__":
    main()
