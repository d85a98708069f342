#!/usr/bin/env python3
"""Writes the planted tensor-core conv2d datasets (ktune's long CSV) of the tuned-library test
ktune_tuned_conv2d_tc_test (tests/deploy_conv_tc): twelve layers in one precision, on which one
cuda_igemm_mma config wins below 64 channels and one cuda_igemm_wgmma config from 64 up, with
cuDNN (`cudnn`, the candidate "vendor=cudnn" of --vendors) slower everywhere. --bf16 and --fp16
plant different winners, ranked in another order, so that the library's bf16 and fp16 selectors
answer differently on every layer, by index and by config (a dispatch that serves one precision
with the other's selector fails the test); --tf32 plants a third pair (ranked as fp16's);
--fp32 plants one FP32 config (the library's ktune::conv2d selector, which the test does not
exercise). Perf values are planted, not measured.
Usage: planted_conv_tc.py --tf32|--bf16|--fp16|--fp32 OUT.csv"""
import sys

HEADER = ("device,family,problem,config,config_id,status,median_ms,min_ms,max_ms,mad_ms,reps,"
          "perf,rel_error,message,created_at,tags")
# precision code: (small-c winner, large-c winner), each (config, config_id as in the space)
WINNERS = {
    2: (("kind=cuda_igemm_mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3", 1005),
        ("kind=cuda_igemm_wgmma;tp=8;tq=8;bn=64;st=4", 1121)),
    3: (("kind=cuda_igemm_mma;bm=64;bn=128;bk=64;wm=32;wn=32;st=3", 1029),
        ("kind=cuda_igemm_wgmma;tp=8;tq=16;bn=64;st=4", 1130)),
    1: (("kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=32;wn=32;st=3", 1037),
        ("kind=cuda_igemm_wgmma;tp=4;tq=8;bn=128;st=6", 1107)),
}
FP32 = ("kind=cuda_im2col;bm=32;bn=32;bk=16;tm=4;tn=4", 289)
LAYERS = [(h, c, k) for h in (14, 28) for c in (3, 16, 32, 64, 128, 256) for k in (64,)]


def rows(precision):
    for h, c, k in LAYERS:
        key = f"n=1;h={h};w={h};c={c};k={k};r=3;s=3;stride=1;pad=1"
        flops = 2.0 * h * h * k * c * 9
        if precision == 0:
            perfs = [(FP32, 1000.0)]
        else:
            key += f";precision={precision}"
            small, large = WINNERS[precision]
            # The runner-up close to the winner on the other half in bf16 for the mma config, in
            # fp16 for the wgmma one: the configs rank in another order (bf16 mma first, fp16
            # wgmma first), so the two selectors' indices differ on every layer too.
            near = precision == 2
            perfs = [(small, 3000.0 if c < 64 else 3900.0 if near else 500.0),
                     (large, 4000.0 if c >= 64 else 500.0 if near else 2900.0),
                     (("cudnn", -1), 800.0 if c < 64 else 2000.0)]
        for (config, config_id), perf in perfs:
            ms = flops / perf / 1e6
            yield (f'planted-gpu,conv2d,{key},"{config}",{config_id},ok,{ms},{ms},{ms},0,10,'
                   f"{perf},1e-03,,2026-11-28T00:00:00Z,planted")


def main():
    modes = {"--fp32": 0, "--tf32": 1, "--bf16": 2, "--fp16": 3}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(HEADER + "\n")
        for row in rows(modes[sys.argv[1]]):
            out.write(row + "\n")


if __name__ == "__main__":
    main()
