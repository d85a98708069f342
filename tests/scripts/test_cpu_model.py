#!/usr/bin/env python3
"""scripts/cpu_model.py (the CPU description of run.json's "device"): exact strings from made-up
lscpu texts (an Intel Xeon guest with AMX, an AMD EPYC host with SMT, a Zen 5 and an unknown
model, /proc/cpuinfo without lscpu), a one-line error naming a bad input, and on this machine the
format with the core count and AVX-512 that os and /proc/cpuinfo report.
Usage: test_cpu_model.py SCRIPT"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
spec = importlib.util.spec_from_file_location("cpu_model", SCRIPT)
cpu_model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cpu_model)

XEON_GUEST = """Architecture:                            x86_64
CPU(s):                                  16
Vendor ID:                               GenuineIntel
Model name:                              Intel(R) Xeon(R) Platinum 8480+
CPU family:                              6
Model:                                   143
Thread(s) per core:                      1
Stepping:                                8
Flags:                                   fpu sse2 avx avx2 avx512f avx512_bf16 amx_bf16 amx_tile amx_int8 hypervisor
Hypervisor vendor:                       KVM
"""
EPYC_HOST = """CPU(s):                                  192
Vendor ID:                               AuthenticAMD
Model name:                              AMD EPYC 9654 96-Core Processor
CPU family:                              25
Model:                                   17
Thread(s) per core:                      2
Stepping:                                1
Flags:                                   fpu sse2 avx avx2 avx512f avx512_bf16
"""
CASES = [
    (XEON_GUEST,
     "Intel(R) Xeon(R) Platinum 8480+ (KVM guest, Sapphire Rapids, AVX-512, AMX), 16 cores"),
    (EPYC_HOST, "AMD EPYC 9654 96-Core Processor (Zen 4, AVX-512), 96 cores, 192 hardware threads"),
    # Family 26 (1Ah) is Zen 5; the old 'hypervisor' flag alone makes a "VM guest".
    (EPYC_HOST.replace("25", "26").replace("avx512_bf16", "avx512_bf16 hypervisor"),
     "AMD EPYC 9654 96-Core Processor (VM guest, Zen 5, AVX-512), 96 cores, 192 hardware threads"),
    # Family 25 model 33 (21h, Vermeer) is Zen 3; no avx512f.
    (EPYC_HOST.replace("17", "33").replace("avx512f avx512_bf16", ""),
     "AMD EPYC 9654 96-Core Processor (Zen 3, no AVX-512), 96 cores, 192 hardware threads"),
    # Models the table does not know: no generation named.
    (XEON_GUEST.replace("143", "250"),
     "Intel(R) Xeon(R) Platinum 8480+ (KVM guest, AVX-512, AMX), 16 cores"),
    (EPYC_HOST.replace("Model:                                   17", "Model: 144"),
     "AMD EPYC 9654 96-Core Processor (AVX-512), 96 cores, 192 hardware threads"),
]
CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
siblings\t: 2
cpu cores\t: 2
flags\t\t: fpu avx2 avx512f hypervisor

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
"""

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def run(*args):
    r = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


with tempfile.TemporaryDirectory() as tmp:
    for i, (text, want) in enumerate(CASES):
        path = os.path.join(tmp, f"lscpu{i}.txt")
        with open(path, "w") as f:
            f.write(text)
        expect(f"case {i} (file)", run(path)[:2], (0, want))
    expect("cpuinfo fallback", cpu_model.describe_lscpu(cpu_model._lscpu_from_cpuinfo(CPUINFO)),
           "AMD EPYC (VM guest, Zen 4, AVX-512), 2 cores")
    for name, text in (("no model", XEON_GUEST.replace("Model name", "Name")),
                       ("no CPU count", XEON_GUEST.replace("CPU(s)", "CPUs"))):
        path = os.path.join(tmp, "bad.txt")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run(path)
        if rc == 0 or out or len(err.splitlines()) != 1 or path not in err:
            failures.append(f"{name}: want one error line naming {path}, "
                            f"got rc {rc} {out!r} {err!r}")

# This machine: the format, its core count and whether /proc/cpuinfo lists avx512f.
rc, out, err = run()
m = re.fullmatch(r"(.+) \((?:.+, )?(AVX-512|no AVX-512)(, AMX)?\), (\d+) cores"
                 r"(?:, (\d+) hardware threads)?", out)
if rc != 0 or not m:
    failures.append(f"this machine: {out!r} {err!r} does not have the format")
else:
    expect("this machine's count", int(m.group(5) or m.group(4)), os.cpu_count())
    if os.path.exists("/proc/cpuinfo"):
        flags = next((line.split(":", 1)[1].split() for line in open("/proc/cpuinfo")
                      if line.startswith("flags")), [])
        expect("this machine's AVX-512", m.group(2), "AVX-512" if "avx512f" in flags else
               "no AVX-512")
    print(f"this machine: {out}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
