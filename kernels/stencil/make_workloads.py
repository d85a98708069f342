#!/usr/bin/python3
"""Writes the seeded stencil workloads workloads/stencil/stencil-synthetic.csv and
stencil-small.csv (run from the repository root: /usr/bin/python3 kernels/stencil/make_workloads.py).

synthetic: 48 generated programs. Each direction's border cycles through a seeded permutation of
1..30 (so all 30 sizes appear in every direction), types cycle int/float/double, the body
alternates simple/heavy, boundary padding/clamp, sizes 512^2..4096^2, all combined by seeded
shuffles, except that 4096^2 goes to the 12 programs with the smallest border sums (see
synthetic(): the sweep then fits in 6 minutes on an H100). small: the six real programs at 512^2 and 1024^2 plus 12 synthetic programs with
borders 1..8 at 512^2 (a CPU sweep of 65 work-groups with 30 samples in ~10 min on 2 cores).
"""
import random

HEADER = "program,north,south,east,west,type,heavy,boundary,rows,cols"
REAL = [(1, 2, 1, 1), (2, 1, 0, 0), (3, 1, 1, 0), (4, 1, 1, 1), (5, 1, 1, 0), (6, 0, 0, 0)]


def synthetic(rng, count, max_border, sizes):
    borders = []
    for _ in range(4):
        cycle = []
        while len(cycle) < count:
            perm = list(range(1, max_border + 1))
            rng.shuffle(perm)
            cycle += perm
        borders.append(cycle[:count])
    columns = [[i % 3 for i in range(count)], [i % 2 for i in range(count)],
               [(i // 2) % 2 for i in range(count)], [sizes[i % len(sizes)] for i in range(count)]]
    for c in columns:
        rng.shuffle(c)
    # Large matrices with wide windows dominate a sweep (tiny work-groups restage the border for
    # every few cells): the largest size goes to the quarter of programs with the smallest
    # border sums; the other sizes stay shuffled over the rest.
    sums = [sum(b[i] for b in borders) for i in range(count)]
    order = sorted(range(count), key=lambda i: (sums[i], i))
    largest = set(order[: count // len(sizes)])
    others = [size for size in columns[3] if size != max(sizes)]
    columns[3] = [max(sizes) if i in largest else others.pop() for i in range(count)]
    rows = []
    for i in range(count):
        n, s, e, w = (b[i] for b in borders)
        t, heavy, boundary, size = (c[i] for c in columns)
        rows.append(f"0,{n},{s},{e},{w},{t},{heavy},{boundary},{size},{size}")
    return rows


def write(path, comment, rows):
    with open(path, "w") as f:
        f.write("".join(f"# {line}\n" for line in comment) + HEADER + "\n" + "\n".join(rows) + "\n")


def main():
    rng = random.Random(20240605)
    write("workloads/stencil/stencil-synthetic.csv",
          ["Stencil workload \"synthetic\": 48 seeded programs of the generator (borders 1..30,",
           "int/float/double, simple/heavy, padding/clamp, 512^2..4096^2).",
           "Made by kernels/stencil/make_workloads.py (seed 20240605); do not edit by hand."],
          synthetic(rng, 48, 30, [512, 1024, 2048, 4096]))
    real = [f"{p},{b},{b},{b},{b},{t},0,{bd},{n},{n}" for n in (512, 1024) for p, b, t, bd in REAL]
    write("workloads/stencil/stencil-small.csv",
          ["Stencil workload \"stencil-small\": a CPU-sized subset: the six real programs at",
           "512^2 and 1024^2 plus 12 seeded synthetic programs (borders 1..8) at 512^2.",
           "Made by kernels/stencil/make_workloads.py (seed 20240605); do not edit by hand."],
          real + synthetic(rng, 12, 8, [512]))


if __name__ == "__main__":
    main()
