"""What the models of the wgmma kernels' ring protocols share (wgmma_pingpong_model.py,
wgmma_cluster_model.py): violations, mbarrier parity, the random scheduler of actors and landing
copies, and the search over random shapes and interleavings."""
import argparse
import random
import re


class Violation(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Violation(what)


def passes(completed, parity):
    """try_wait.parity P passes when P differs from the parity of the phase in progress."""
    return parity != (completed & 1)


def interleave(actors, copies, land, rng):
    """Runs the actors (generators yielding True when they progressed, False when waiting) and
    lands the copies in flight (land(index) of a random one) in a random order until all are done.
    Returns None, a deadlock's text or a Violation's."""
    try:
        while actors or copies:
            order = list(actors) + (["land"] if copies else [])
            rng.shuffle(order)
            progressed = False
            for name in order:
                if name == "land":
                    land(rng.randrange(len(copies)))
                    progressed = True
                    break
                try:
                    if next(actors[name]):
                        progressed = True
                        break
                except StopIteration:
                    del actors[name]
                    progressed = True
                    break
            if not progressed:
                return f"deadlock ({', '.join(sorted(actors))} waiting)"
    except Violation as v:
        return str(v)
    return None


def search(run, tiles, k_tiles, stages, trials, seed, *flags):
    """run(tiles, k_tiles, stages, *flags, rng) on `trials` random shapes (each drawn from the
    inclusive ranges given); prints one example of each kind of violation found, or "no
    violation". Returns the exit status (1 when any was found)."""
    rng = random.Random(seed)
    found = {}
    for _ in range(trials):
        shape = (rng.randint(*tiles), rng.randint(*k_tiles), rng.randint(*stages))
        problem = run(*shape, *flags, rng)
        if problem:
            found.setdefault(re.sub(r"\d+", "N", problem), (problem, shape))
    for problem, (t, k, s) in sorted(found.values()):
        print(f"{problem} (tiles {t}, K tiles {k}, stages {s})")
    if not found:
        print("no violation")
    return 1 if found else 0


def cli(argv, doc, run, off_flag, tiles, k_tiles, stages):
    """A model's command line: --<off_flag> runs it with its protocol element off (what must
    fail), --trials and --seed; the search over the ranges given. Returns the exit status."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--" + off_flag, action="store_true", dest="off")
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    return search(run, tiles, k_tiles, stages, args.trials, args.seed, not args.off)
