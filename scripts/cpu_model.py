#!/usr/bin/env python3
"""The CPU description a results/ run.json's "device" starts with, in one format for every script:
  MODEL (HYPERVISOR guest, MICROARCHITECTURE, AVX-512 | no AVX-512[, AMX]), N cores
e.g. "AMD EPYC (KVM guest, Zen 4, AVX-512), 2 cores". Read from `lscpu` (LC_ALL=C), or from
/proc/cpuinfo where lscpu is missing ("VM guest" then: cpuinfo names no hypervisor). The
microarchitecture comes from the CPUID family / model / stepping the OS shows (a guest sees what
its hypervisor presents, which need not be the host's), and is left out where the table below has
no entry: it is never guessed. Where a core runs more than one thread the count says so.
  scripts/cpu_model.py [LSCPU_TEXT_FILE]      (prints the description)
A script that wants more (the load average, a note) appends it after ", "."""
import os
import subprocess
import sys


def _amd(family, model, stepping):
    if family == 0x17:
        return "Zen 2" if model >= 0x30 else "Zen/Zen+"
    if family == 0x19:
        # AMD's family 19h: Zen 3 are Milan 00h-0Fh and Vermeer / Rembrandt / Cezanne 20h-5Fh;
        # Zen 4 Genoa 10h-1Fh, Raphael / Phoenix 60h-7Fh and Bergamo / Siena A0h-AFh.
        if model <= 0x0F or 0x20 <= model <= 0x5F:
            return "Zen 3"
        zen4 = 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF
        return "Zen 4" if zen4 else None
    if family == 0x1A:
        return "Zen 5"
    return None


_INTEL_FAMILY6 = {0x6A: "Ice Lake", 0x6C: "Ice Lake", 0x8F: "Sapphire Rapids",
                  0xCF: "Emerald Rapids", 0xAD: "Granite Rapids", 0xAE: "Granite Rapids",
                  0xAF: "Sierra Forest", 0x8C: "Tiger Lake", 0x97: "Alder Lake",
                  0xB7: "Raptor Lake"}


def _intel(family, model, stepping):
    if family != 6:
        return None
    if model == 0x55:  # one model number, three server generations told apart by stepping
        return "Cooper Lake" if stepping >= 10 else "Cascade Lake" if stepping >= 5 else "Skylake"
    return _INTEL_FAMILY6.get(model)


def microarchitecture(vendor, family, model, stepping):
    """The generation name of a CPUID vendor / family / model / stepping, or None if unknown."""
    if None in (family, model):
        return None
    pick = {"AuthenticAMD": _amd, "GenuineIntel": _intel}.get(vendor)
    return pick(family, model, stepping or 0) if pick else None


def _fields(text, sep):
    out = {}
    for line in text.splitlines():
        key, found, value = line.partition(sep)
        if found and key.strip() and key.strip() not in out:
            out[key.strip()] = value.strip()
    return out


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def describe_lscpu(text):
    """The description from lscpu's output (LC_ALL=C)."""
    f = _fields(text, ":")
    model = f.get("Model name")
    if not model:
        raise ValueError("no 'Model name:' line in the lscpu text")
    flags = set(f.get("Flags", "").split())
    guest = f"{f['Hypervisor vendor']} guest" if f.get("Hypervisor vendor") else (
        "VM guest" if "hypervisor" in flags else None)
    uarch = microarchitecture(f.get("Vendor ID"), _int(f.get("CPU family")), _int(f.get("Model")),
                              _int(f.get("Stepping")))
    notes = [n for n in (guest, uarch) if n]
    notes.append("AVX-512" if "avx512f" in flags else "no AVX-512")
    if "amx_tile" in flags:
        notes.append("AMX")
    cpus = _int(f.get("CPU(s)"))
    if cpus is None:
        raise ValueError("no 'CPU(s):' line in the lscpu text")
    per_core = _int(f.get("Thread(s) per core")) or 1
    count = f"{cpus} cores" if per_core == 1 else \
        f"{cpus // per_core} cores, {cpus} hardware threads"
    return f"{model} ({', '.join(notes)}), {count}"


def _lscpu_from_cpuinfo(text):
    """lscpu's fields from /proc/cpuinfo's first processor (no hypervisor name there)."""
    f = _fields(text.split("\n\n")[0], ":")
    cpus = sum(1 for line in text.splitlines() if line.startswith("processor"))
    names = {"Vendor ID": "vendor_id", "Model name": "model name", "CPU family": "cpu family",
             "Model": "model", "Stepping": "stepping", "Flags": "flags"}
    lines = [f"{k}: {f[v]}" for k, v in names.items() if v in f]
    per_core = _int(f.get("siblings")) and _int(f.get("cpu cores")) and \
        _int(f["siblings"]) // _int(f["cpu cores"])
    return "\n".join(lines + [f"CPU(s): {cpus}", f"Thread(s) per core: {per_core or 1}"])


def describe():
    """This machine's description (lscpu, else /proc/cpuinfo)."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True,
                              env=dict(os.environ, LC_ALL="C")).stdout
    except (OSError, subprocess.CalledProcessError):
        with open("/proc/cpuinfo") as f:
            text = _lscpu_from_cpuinfo(f.read())
    return describe_lscpu(text)


def main(argv):
    try:
        if argv:
            with open(argv[0]) as f:
                print(describe_lscpu(f.read()))
        else:
            print(describe())
    except (OSError, ValueError) as e:
        sys.exit(f"cpu_model.py: {argv[0] if argv else 'lscpu'}: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
