#!/usr/bin/env python3
"""A model of the ring protocol of ktune_gemm_wgmma_mc (gemm_wgmma.cuh, kind wgmmamc), run on
random interleavings: a cluster of 2 blocks, each with a producer and its consumers (one actor:
the kernel's 8 consumer warps release a stage together). Both blocks walk the same ring items
(the cluster's units x K tiles, in lockstep). Block b's producer, for item i in stage i % ST,
waits for its `empty` phase, arrives on its own `full` barrier with the item's bytes (expect_tx:
3 parts, B and the two halves of A) and issues 3 copies: its half of A multicast to both blocks
(two landings) and its B tile to itself. Copies land in any order, possibly before the receiving
block's own expect_tx (the transaction count goes negative meanwhile). A `full` phase completes
once its producer arrived and every expected byte landed. A consumer waits on `full` with
mbarrier parity semantics, releases each item after issuing the next one and the tile's last at
its end; with `cluster_release` (the kernel) each release arrives on the `empty` barriers of both
blocks, which count 2 arrivals, else only on its own (count 1: what a block-local ring would do).

Checked on every step: a consumer that passes `full` finds its item's 3 parts in the stage, no
copy lands in a stage before the receiving block's consumer released its previous item, releases
come once per item in order, and no deadlock.

  wgmma_cluster_model.py [--local-release] [--trials N] [--seed S]
Prints the violations found (exit 1) or "no violation" (exit 0).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_model_common import check, cli, interleave, passes  # noqa: E402

PARTS = 3  # A's half from block 0, A's half from block 1, the block's own B


def run(tiles, k_tiles, stages, cluster_release, rng):
    """One random interleaving; returns None or the violation's text."""
    blocks = (0, 1)
    items = tiles * k_tiles
    arrivals = 2 if cluster_release else 1  # the `empty` barriers' count
    full_done = [[0] * stages for _ in blocks]  # completed phases
    full_arrived = [[False] * stages for _ in blocks]
    full_tx = [[0] * stages for _ in blocks]
    empty_done = [[0] * stages for _ in blocks]
    empty_count = [[0] * stages for _ in blocks]
    released = [[0] * stages for _ in blocks]  # releases by the block's own consumer
    slot = [[[None] * PARTS for _ in range(stages)] for _ in blocks]
    copies = []  # in flight: (destination block, stage, item, part)

    def complete_full(b, s):
        if full_arrived[b][s] and full_tx[b][s] == 0:
            full_arrived[b][s] = False
            full_done[b][s] += 1

    def release(b, item):
        s = item % stages
        check(released[b][s] == item // stages, f"block {b} released item {item} out of order")
        released[b][s] += 1
        for d in blocks if cluster_release else (b,):
            empty_count[d][s] += 1
            if empty_count[d][s] == arrivals:
                empty_count[d][s] = 0
                empty_done[d][s] += 1

    def consumer(b):
        for j in range(tiles):
            for kt in range(k_tiles):
                i = j * k_tiles + kt
                s = i % stages
                while not passes(full_done[b][s], (i // stages) & 1):
                    yield False
                check(slot[b][s] == [i] * PARTS, f"block {b} awaited item {i}, found {slot[b][s]}")
                yield True
                if kt > 0:
                    release(b, i - 1)
                yield True
            release(b, j * k_tiles + k_tiles - 1)
            yield True

    def producer(b):
        for i in range(items):
            s = i % stages
            while not passes(empty_done[b][s], ((i // stages) & 1) ^ 1):
                yield False
            full_arrived[b][s] = True
            full_tx[b][s] += PARTS
            complete_full(b, s)
            copies.extend([(0, s, i, b), (1, s, i, b), (b, s, i, 2)])
            yield True

    def land(index):
        d, s, i, part = copies.pop(index)
        check(released[d][s] >= i // stages,
              f"a copy of item {i} landed in block {d}'s stage {s} before its consumer released "
              f"item {i - stages}")
        slot[d][s][part] = i
        full_tx[d][s] -= 1
        complete_full(d, s)

    actors = {f"{role}{b}": (producer if role == "producer" else consumer)(b)
              for b in blocks for role in ("producer", "consumer")}
    return interleave(actors, copies, land, rng)


def main(argv):
    return cli(argv, __doc__, run, "local-release", (1, 5), (1, 10), (2, 6))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
