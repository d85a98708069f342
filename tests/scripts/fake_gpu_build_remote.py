#!/usr/bin/env python3
"""A stand-in for scripts/gpu_build_remote.sh (and, copied into a build's bin/, for the programs
it builds) in the tests of scripts/gpu_header_ab.sh and scripts/gpu_config_ab.sh: nothing
compiled, nothing on a GPU.
As gpu_build_remote.sh BUILD TARGET...: writes BUILD.env, BUILD/ninja.log (ninja started), waits
$FAKE_BUILD_SECONDS (default 0.3), then puts itself in BUILD/bin/ as each target; exits 1 instead
where $FAKE_BUILD_FAIL is BUILD's base name. As tuned_gemm_bench: writes --out with one row per
shape of a workload file (three for a built-in name) after $FAKE_BENCH_SECONDS. As
ktune_gpu_tests: prints a passing gtest summary. As ktune: `bench ... --store S` writes S (a JSON
stand-in for the store: the build, workload and configs), `export --store S -o OUT` writes OUT
(gzip) holding S's content.
Each call is appended as a JSON line to $FAKE_GPU_LOG: what ran (the program's name and build),
its arguments, the time, and for a build CMAKE_ARGS, EXAMPLES, SYSROOT, SRC and which builds had
started ninja then; for a bench KTUNE_CACHE_DIR and whether the env file had been sourced."""
import gzip
import json
import os
import shutil
import sys
import time

me, args = os.path.basename(sys.argv[0]), sys.argv[1:]


def record(**what):
    with open(os.environ["FAKE_GPU_LOG"], "a") as f:
        f.write(json.dumps(dict(program=me, args=args, time=time.time(), **what)) + "\n")


def opt(name):
    return args[args.index(name) + 1]


if me == "gpu_build_remote.sh":
    build, targets = args[0], args[1:]
    parent = os.path.dirname(build)
    started = sorted(d for d in os.listdir(parent)
                     if os.path.exists(os.path.join(parent, d, "ninja.log")))
    record(build=os.path.basename(build), cmake_args=os.environ.get("CMAKE_ARGS", ""),
           examples=os.environ.get("EXAMPLES", ""), sysroot=os.environ.get("SYSROOT", ""),
           src=os.environ.get("SRC", ""), ninja_started=started)
    os.makedirs(os.path.join(build, "bin"), exist_ok=True)
    with open(build + ".env", "w") as f:
        f.write(f"export FAKE_ENV_SOURCED={os.path.basename(build)}\n")
    open(os.path.join(build, "ninja.log"), "w").close()
    time.sleep(float(os.environ.get("FAKE_BUILD_SECONDS", "0.3")))
    if os.environ.get("FAKE_BUILD_FAIL") == os.path.basename(build):
        print("FAILED: planted build failure")
        sys.exit(1)
    for t in targets:
        shutil.copy(os.path.abspath(__file__), os.path.join(build, "bin", t))
    print(f"env: {build}.env\n{build}/bin")
elif me == "tuned_gemm_bench":
    build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0]))))
    record(build=build, cache=os.environ.get("KTUNE_CACHE_DIR", ""),
           env=os.environ.get("FAKE_ENV_SOURCED", ""))
    time.sleep(float(os.environ.get("FAKE_BENCH_SECONDS", "0")))
    workload = opt("--workload")
    path, _, precision = workload.rpartition("@") if "@" in workload else (workload, "", "")
    if os.path.isfile(path):
        with open(path) as f:
            shapes = [line.strip() for line in f if line.strip()][1:]
    else:
        shapes = ["0,0,8,8,8,1", "0,0,16,16,16,1", "1,0,32,32,32,1"]
    with open(opt("--out"), "a") as f:
        f.write("problem,networks,config,status\n")
        for s in shapes:
            key = ";".join(f"{k}={v}" for k, v in zip(("transa", "transb", "m", "n", "k", "batch"),
                                                      s.split(",")))
            f.write(f"{key};precision={precision},,{build},ok\n")
    print(f"bench {workload} on {build}")
elif me == "ktune" and args[0] == "bench":
    build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0]))))
    record(build=build, cache=os.environ.get("KTUNE_CACHE_DIR", ""),
           env=os.environ.get("FAKE_ENV_SOURCED", ""))
    time.sleep(float(os.environ.get("FAKE_BENCH_SECONDS", "0")))
    with open(opt("--store"), "w") as f:
        json.dump(dict(build=build, workload=opt("--workload"), configs=opt("--configs")), f)
elif me == "ktune" and args[0] == "export":
    record(build=os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0])))))
    with open(opt("--store")) as f, gzip.open(opt("-o"), "wt") as out:
        out.write(f.read())
elif me == "ktune_gpu_tests":
    build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0]))))
    record(build=build)
    print("[  PASSED  ] 1 test.")
