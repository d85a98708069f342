#!/usr/bin/env python3
"""A model of the ring protocol of ktune_gemm_wgmma_pp (gemm_wgmma.cuh), run on random
interleavings: one producer fills ring items in order (stage i % ST, after that stage's `empty`
phase), the fills land in any order; consumer warpgroup w takes the block's tiles w, w + 2, ...
(items j * K .. j * K + K - 1 of tile j), waits on `full` with mbarrier parity semantics
(try_wait.parity P passes when P differs from the parity of the phase in progress), releases
each stage after issuing the next item and the last at the tile's end. With `turns` a warpgroup
starts a tile's K loop only after the other has issued the previous tile's (the kernel's named
barriers 1 and 2).

Checked on every step: a consumer that passes `full` finds its own item in the stage (no
aliasing two phases back), a stage is released once per item in order and never refilled before,
a named barrier never holds two arrivals, and no deadlock.

  wgmma_pingpong_model.py [--no-turns] [--trials N] [--seed S]
Prints the violations found (exit 1) or "no violation" (exit 0).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_model_common import check, cli, interleave, passes  # noqa: E402


def run(tiles, k_tiles, stages, turns, rng):
    """One random interleaving; returns None or the violation's text."""
    completed_full = [0] * stages
    completed_empty = [0] * stages
    slot = [None] * stages
    fills = []  # issued copies not landed yet: (stage, item)
    arrived = {1: 0, 2: 0}
    synced = {1: 0, 2: 0}

    def release(item):
        s = item % stages
        check(slot[s] == item, f"stage {s} refilled before item {item} was released")
        check(completed_empty[s] == item // stages, f"release of item {item} out of order")
        completed_empty[s] += 1

    def consumer(w):
        for j in range(w, tiles, 2):
            if turns and j > 0:
                while arrived[2 - w] <= synced[2 - w]:
                    yield False
                synced[2 - w] += 1
            for kt in range(k_tiles):
                i = j * k_tiles + kt
                s = i % stages
                while not passes(completed_full[s], (i // stages) & 1):
                    yield False
                check(slot[s] == i, f"warpgroup {w} awaited item {i}, found {slot[s]}")
                yield True
                if kt > 0:
                    release(i - 1)
                yield True
            if turns and j + 1 < tiles:
                check(arrived[1 + w] == synced[1 + w], "two arrivals on a named barrier")
                arrived[1 + w] += 1
            release(j * k_tiles + k_tiles - 1)
            yield True

    def producer():
        for i in range(tiles * k_tiles):
            s = i % stages
            while not passes(completed_empty[s], ((i // stages) & 1) ^ 1):
                yield False
            check(completed_empty[s] == i // stages, f"item {i} issued into a stage in use")
            fills.append((s, i))
            yield True

    def land(index):
        s, i = fills.pop(index)
        slot[s] = i
        completed_full[s] += 1

    actors = {"producer": producer(), "wg0": consumer(0), "wg1": consumer(1)}
    return interleave(actors, fills, land, rng)


def main(argv):
    return cli(argv, __doc__, run, "no-turns", (1, 6), (1, 12), (2, 6))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
