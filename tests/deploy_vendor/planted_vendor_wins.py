#!/usr/bin/env python3
"""Writes the planted "vendor wins" GEMM dataset (ktune's long CSV) that the vendor-candidate
tests learn from: square GEMMs of 64..3072, two packed kernel configs that win below 384 and
the vendors that win from 384 up (OpenBLAS up to 768, oneDNN from 1024), so a K = 2 shipped set
must hold a vendor (oneDNN, best on more shapes), K = 3 holds both vendors, and the
best-geomean ("safest") candidate of the three is OpenBLAS. Perf values are planted, not measured.
With --cuda: the same for a GPU (cuBLAS the vendor, two CUDA kernel configs).
With --tc: bf16 and fp16 GEMMs (the same perf in both) on a GPU's tensor cores: an mma config wins below 384, cuBLAS from 384 to
768, cuBLASLt's heuristic #0 from 1024, and cuBLASLt's best of its top 8 (a per-shape search, not
a call a library can ship) beats both there, so `--vendors --vendor-names cublas,cublaslt` at
K = 3 ships the kernel and both callable vendors, and `--vendors` alone ships the search row.
With --tc-c16: bf16 problems with C in bf16 (c16=1) whose winners differ from --tc's, so that a
library's 16-bit-C selector answers otherwise than its FP32-C one: another mma config (4 stages)
below 384, cuBLASLt's #0 from 384 to 768 and cuBLAS from 1024.
With --cuda-lt: FP32 GEMMs on a GPU whose vendor winners are cuBLASLt's (CUBLAS_COMPUTE_32F): the
tiled config below 384, cuBLASLt's heuristic #0 from 384 to 768 and its answer #1 from 1024, cuBLAS
second everywhere from 384, so `--vendors --vendor-names cublas,cublaslt,cublaslt;heuristic=1` at
K = 3 ships the kernel and both cuBLASLt answers (ktune::gemm's FP32 cuBLASLt calls).
Usage: planted_vendor_wins.py [--cuda | --cuda-lt | --tc | --tc-c16] OUT.csv"""
import sys

HEADER = ("device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,"
          "perf,rel_error,message,created_at,tags")
KERNELS = [("kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960", 976),
           ("kind=packed;mr=8;nr=4;kc=128;mc=48;nc=3840", 977)]
TC_KERNEL = ("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3", 2824)
TC_C16_KERNEL = ("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=4", 2825)
CUDA_KERNELS = [("kind=tiled;bm=32;bn=32;bk=8;tm=4;tn=4;vec=1;db=0", 640), ("r=1;a=1;c=1;wg=1x64", 0)]


def row(device, problem, config, config_id, perf, size, rel_error, date):
    """One planted measurement: perf GFLOP/s on a size^3 (times batch 1) problem."""
    ms = 2.0 * size ** 3 / perf / 1e6
    return (f'{device},gemm,{problem},"{config}",{config_id},ok,{ms},{ms},{ms},0,10,'
            f"{perf},{rel_error},,{date}T00:00:00Z,planted")


def cuda_rows():
    for size in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1"'
        small = size < 384
        perfs = [(CUDA_KERNELS[0], 1000.0 if small else 400.0),
                 (CUDA_KERNELS[1], 100.0), (("cublas", -1), 900.0 if small else 9000.0)]
        for (config, config_id), perf in perfs:
            yield row("planted-gpu", problem, config, config_id, perf, size, "1e-07", "2026-11-26")


def cuda_lt_rows():
    for size in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1"'
        small, big = size < 384, size >= 1024
        lt0 = 800.0 if small else 9000.0 if not big else 8000.0
        lt1 = 700.0 if small else 7000.0 if not big else 12000.0
        perfs = [(CUDA_KERNELS[0], 1000.0 if small else 400.0),
                 (("cublas", -1), 600.0 if small else 6000.0),
                 (("cublaslt", -1), lt0), (("cublaslt;heuristic=1", -1), lt1)]
        for (config, config_id), perf in perfs:
            yield row("planted-gpu", problem, config, config_id, perf, size, "1e-07", "2026-11-29")


def tc_rows():
    for precision, size in ((p, s) for p in (2, 3)
                            for s in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072)):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1;precision={precision}"'
        small, big = size < 384, size >= 1024
        cublas = 900.0 if small else 9000.0 if not big else 20000.0
        cublaslt = 800.0 if small else 8000.0 if not big else 30000.0
        perfs = [(TC_KERNEL, 1000.0 if small else 4000.0), (("cublas", -1), cublas),
                 (("cublaslt", -1), cublaslt),
                 (("cublaslt-top8", -1), 1.05 * max(cublas, cublaslt))]
        for (config, config_id), perf in perfs:
            yield row("planted-gpu", problem, config, config_id, perf, size, "1e-03", "2026-11-27")


def tc_c16_rows():
    for size in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1;precision=2;c16=1"'
        small, big = size < 384, size >= 1024
        cublas = 800.0 if small else 8000.0 if not big else 30000.0
        cublaslt = 900.0 if small else 9000.0 if not big else 20000.0
        perfs = [(TC_C16_KERNEL, 1000.0 if small else 4000.0), (("cublas", -1), cublas),
                 (("cublaslt", -1), cublaslt)]
        for (config, config_id), perf in perfs:
            yield row("planted-gpu", problem, config, config_id, perf, size, "1e-03", "2026-11-28")


def rows():
    for size in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1"'
        small, big = size < 384, size >= 1024
        perfs = [(KERNELS[0], 100.0 if small else 40.0), (KERNELS[1], 80.0 if small else 50.0),
                 (("openblas", -1), 90.0 if small else 150.0),
                 (("onednn", -1), 160.0 if big else 70.0 if small else 140.0)]
        for (config, config_id), perf in perfs:
            yield row("planted-cpu", problem, config, config_id, perf, size, "1e-07", "2026-11-26")


def main():
    args = sys.argv[1:]
    mode = args[0] if args[:1] in (["--cuda"], ["--cuda-lt"], ["--tc"], ["--tc-c16"]) else ""
    args = args[1:] if mode else args
    if len(args) != 1:
        sys.exit(__doc__)
    generate = {"--cuda": cuda_rows, "--cuda-lt": cuda_lt_rows, "--tc": tc_rows,
                "--tc-c16": tc_c16_rows}.get(mode, rows)
    with open(args[0], "w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for row in generate():
            out.write(row + "\n")


if __name__ == "__main__":
    main()
