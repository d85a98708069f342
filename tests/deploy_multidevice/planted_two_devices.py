#!/usr/bin/env python3
"""Writes the planted two-device GEMM datasets (ktune's long CSV) that the multi-device library
tests learn from: the same two packed kernel configs on square GEMMs of 64..3072, where on
"planted-a" the first config wins below 384 and the second from 384 up, and on "planted-b" the
reverse, so each device's selector picks the other config for the same shape. Perf values are
planted, not measured.
With --cuda: the same for two GPUs ("planted-gpu-a", "planted-gpu-b") and two CUDA kernel configs.
Usage: planted_two_devices.py [--cuda] OUT_A.csv OUT_B.csv"""
import sys

HEADER = ("device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,"
          "perf,rel_error,message,created_at,tags")
KERNELS = [("kind=packed;mr=8;nr=4;kc=128;mc=48;nc=960", 976),
           ("kind=packed;mr=8;nr=4;kc=128;mc=48;nc=3840", 977)]
CUDA_KERNELS = [("kind=tiled;bm=32;bn=32;bk=8;tm=4;tn=4;vec=1;db=0", 640), ("r=1;a=1;c=1;wg=1x64", 0)]


def rows(device, small_wins_first, kernels):
    for size in (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072):
        problem = f'"transa=0;transb=0;m={size};n={size};k={size};batch=1"'
        first_wins = (size < 384) == small_wins_first
        for (config, config_id), perf in zip(kernels, (100.0, 60.0) if first_wins else (60.0, 100.0)):
            ms = 2.0 * size ** 3 / perf / 1e6
            yield (f'{device},gemm,{problem},"{config}",{config_id},ok,{ms},{ms},{ms},0,10,'
                   f"{perf},1e-07,,2026-11-27T00:00:00Z,planted")


def main():
    args = sys.argv[1:]
    cuda = args[:1] == ["--cuda"]
    args = args[1:] if cuda else args
    if len(args) != 2:
        sys.exit(__doc__)
    prefix, kernels = ("planted-gpu-", CUDA_KERNELS) if cuda else ("planted-", KERNELS)
    for path, device, small_wins_first in ((args[0], prefix + "a", True),
                                           (args[1], prefix + "b", False)):
        with open(path, "w", encoding="utf-8") as out:
            out.write(HEADER + "\n")
            for row in rows(device, small_wins_first, kernels):
                out.write(row + "\n")


if __name__ == "__main__":
    main()
