"""kernels/gemm/cuda/wgmma_pingpong_model.py: the ping-pong kernel's ring protocol with its
turns has no violation on random interleavings, and without them (the kernel's first version)
the model finds the aliasing that failed on the GPU, so the check can fail."""
import importlib.util
import sys
import unittest

spec = importlib.util.spec_from_file_location("model", sys.argv.pop(1))
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


class PingPongModel(unittest.TestCase):
    def test_turns_hold_on_random_interleavings(self):
        self.assertEqual(model.main(["--trials", "1500", "--seed", "3"]), 0)

    def test_without_turns_a_warpgroup_reads_another_item(self):
        import random
        rng = random.Random(5)
        problems = [model.run(4, 8, 3, False, rng) for _ in range(200)]
        self.assertTrue(any(p and "awaited item" in p for p in problems), problems[:3])


if __name__ == "__main__":
    unittest.main()
