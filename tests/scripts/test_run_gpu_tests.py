#!/usr/bin/env python3
"""scripts/device_common.sh's run_gpu_tests (the device scripts' GPU test phase) with a made-up
test program: the log replaced or, with --append, added to; the program's exit status returned
(124 when the time limit cuts it); the summary lines of this run only.
Usage: test_run_gpu_tests.py DEVICE_COMMON_SH"""
import os
import subprocess
import sys
import tempfile

COMMON = sys.argv[1]
failures = []

with tempfile.TemporaryDirectory() as tmp:
    program = os.path.join(tmp, "fake_tests")
    with open(program, "w") as f:
        f.write('#!/bin/bash\necho "args: $*"\necho "[  FAILED  ] Fake.$1"\n'
                '[ "$1" = slow ] && sleep 5\nexit "${2:-0}"\n')
    os.chmod(program, 0o755)
    log = os.path.join(tmp, "gpu-tests.log")

    def run(*args):
        script = f'. "{COMMON}"; run_gpu_tests {" ".join(args)}; echo "rc=$?"'
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        return r.stdout.splitlines()

    out = run("30", log, program, "one", "3")
    if not out or not out[0].startswith("gpu tests fake_tests exit 3 (") or \
            out[1:] != ["[  FAILED  ] Fake.one", "rc=3"]:
        failures.append(f"plain run: {out}")
    if open(log).read() != "args: one 3\n[  FAILED  ] Fake.one\n":
        failures.append(f"plain run's log: {open(log).read()!r}")
    out = run("--append", "30", log, program, "two")
    if out[1:] != ["[  FAILED  ] Fake.two", "rc=0"]:
        failures.append(f"--append: the summary should hold this run's lines only: {out}")
    if open(log).read().count("args:") != 2:
        failures.append(f"--append: the log should hold both runs: {open(log).read()!r}")
    run("30", log, program, "three")
    if open(log).read().count("args:") != 1:
        failures.append(f"without --append the log is replaced: {open(log).read()!r}")
    out = run("1", log, program, "slow")
    if not out or not out[0].startswith("gpu tests fake_tests exit 124 ") or out[-1] != "rc=124":
        failures.append(f"time limit: {out}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
