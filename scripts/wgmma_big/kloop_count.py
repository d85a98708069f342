#!/usr/bin/env python3
"""Counts the instructions of the consumer K loop of each Hopper GEMM kernel in a SASS listing
(`cuobjdump -sass`) or a PTX file, to see what the loop issues besides the MMAs.

The K loop of a function is the smallest span between a backward branch and its target that
holds a tensor-core MMA (SASS HGMMA, PTX wgmma.mma_async). The compiler may unroll it, so the
counts are also given per K tile: divided by the barrier waits in the span (PTX mbarrier.try_wait,
SASS SYNCS.PHASECHK), one per K tile (not by wgmma.wait_group: a compiler that serializes the MMAs
adds one after each). A wait's retry path that the compiler moved out of the span is not counted
(it runs only while a stage is not ready). Prints a Markdown table, or one CSV row per kernel
with --csv; --dump prints the K loop's instructions instead.

  python3 scripts/wgmma_big/kloop_count.py LISTING [--label NAME] [--csv | --dump] [--filter REGEX]
"""
import argparse
import collections
import csv
import re
import sys

SASS_INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?);")
SASS_LABEL = re.compile(r"^(\.L_x_\d+):")
SASS_FUNC = re.compile(r"^Function\s*:\s*(\S+)")
PTX_FUNC = re.compile(r"^\.(?:visible\s+)?\.entry\s+(\S+?)\(")
PTX_LABEL = re.compile(r"^(\$L__\w+):")
PTX_BRA = re.compile(r"\bbra(?:\.uni)?\s+(\$L__\w+)")


def demangle_short(name):
    """ktune_gemm_wgmma<...> from the mangled name's kernel and template integers."""
    m = re.match(r"_Z\d+(ktune_\w+?)I(.*?)EEv", name)
    if not m:
        return name
    return "%s<%s>" % (m.group(1), ",".join(re.findall(r"Li(\d+)E", m.group(2) + "E")))


def sass_insn(line):
    """(text, [its address as a label]) of a SASS instruction line, else None."""
    m = SASS_INSN.match(line)
    return (m.group(2).strip(), ["0x%x" % int(m.group(1), 16)]) if m else None


def ptx_insn(line):
    s = line.strip()
    if not s or s.startswith("//") or s.startswith(".") or s in "{}" or s.endswith(":"):
        return None
    return s.rstrip(";"), []


def parse(lines, func_re, label_re, insn):
    """{function: [(instruction text, labels)]} in order, each label on the instruction after it."""
    funcs, cur, pending = {}, None, []
    for line in lines:
        f = func_re.match(line.strip())
        if f:
            cur, pending = f.group(1), []
            funcs[cur] = []
            continue
        if cur is None:
            continue
        lab = label_re.match(line.strip())
        if lab:
            pending.append(lab.group(1))
            continue
        got = insn(line)
        if got:
            funcs[cur].append((got[0], pending + got[1]))
            pending = []
    return funcs


def opcode(text):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)  # SASS predicate
    t = re.sub(r"^@%?!?%?\w+\s+", "", t)  # PTX predicate
    return t.split()[0] if t.split() else t


def branch_target(text, ptx):
    if ptx:
        m = PTX_BRA.search(text)
        return m.group(1) if m else None
    if opcode(text) not in ("BRA", "BRA.U", "BRA.DIV"):
        return None
    m = re.search(r"\(?(\.L_x_\d+)\)?", text) or re.search(r"(0x[0-9a-f]+)", text)
    return m.group(1) if m else None


def k_loop(insns, ptx):
    """The smallest [target, branch] span holding an MMA, as (start, end) indexes, or None."""
    where = {}
    for i, (_, labels) in enumerate(insns):
        for lab in labels:
            where[lab] = i
    mma = "wgmma.mma_async" if ptx else "HGMMA"
    is_mma = [opcode(t).startswith(mma) for t, _ in insns]
    best = None
    for j, (text, _) in enumerate(insns):
        tgt = branch_target(text, ptx)
        if tgt is None or tgt not in where or where[tgt] > j:
            continue
        i = where[tgt]
        if any(is_mma[i : j + 1]) and (best is None or j - i < best[1] - best[0]):
            best = (i, j)
    return best


def count(funcs, ptx, pattern):
    rows = []
    mma = "wgmma.mma_async" if ptx else "HGMMA"
    wait = "mbarrier.try_wait" if ptx else "SYNCS.PHASECHK"
    for name, insns in funcs.items():
        short = demangle_short(name)
        if not re.search(pattern, short) or not any(mma in t for t, _ in insns):
            continue
        span = k_loop(insns, ptx)
        if span is None:
            continue
        body = [opcode(t) for t, _ in insns[span[0] : span[1] + 1]]
        mix = collections.Counter(op.split(".")[0] for op in body)
        tiles = sum(1 for op in body if op.startswith(wait)) or 1
        n_mma = sum(1 for op in body if op.startswith(mma))
        rows.append(
            {
                "kernel": short,
                "loop": len(body),
                "k_tiles_in_loop": tiles,
                "mma": n_mma,
                "per_k_tile": len(body) / tiles,
                "non_mma_per_k_tile": (len(body) - n_mma) / tiles,
                "mix": " ".join("%s:%d" % kv for kv in mix.most_common()),
                "body": [t for t, _ in insns[span[0] : span[1] + 1]],
            }
        )
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("listing")
    ap.add_argument("--label", default="")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--filter", default="ktune_gemm_wgmma")
    a = ap.parse_args()
    try:
        lines = open(a.listing).read().splitlines()
    except OSError as e:
        sys.exit("kloop_count: cannot read %s: %s" % (a.listing, e.strerror))
    ptx = any(line.startswith(".version") for line in lines[:50])
    if ptx:
        funcs = parse(lines, PTX_FUNC, PTX_LABEL, ptx_insn)
    else:
        funcs = parse(lines, SASS_FUNC, SASS_LABEL, sass_insn)
    rows = count(funcs, ptx, a.filter)
    if not rows:
        sys.exit("kloop_count: no K loop with an MMA in %s" % a.listing)
    keys = ["kernel", "loop", "k_tiles_in_loop", "mma", "per_k_tile", "non_mma_per_k_tile", "mix"]
    if a.dump:
        for r in rows:
            print("## %s: %d instructions" % (r["kernel"], r["loop"]))
            print("\n".join(r["body"]))
        return
    if a.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["label"] + keys)
        for r in rows:
            out.writerow([a.label] + [("%.1f" % r[k]) if isinstance(r[k], float) else r[k] for k in keys])
        return
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(("%.1f" % r[k]) if isinstance(r[k], float) else str(r[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
