"""kernels/gemm/cuda/wgmma_cluster_model.py: the cluster kernel's ring protocol (each consumer
release arriving on both blocks' `empty` barriers, which count both) has no violation on random
interleavings, and with block-local releases the model finds a peer's multicast copy landing in a
stage its consumer still reads, so the check can fail."""
import importlib.util
import random
import sys
import unittest

spec = importlib.util.spec_from_file_location("model", sys.argv.pop(1))
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


class ClusterModel(unittest.TestCase):
    def test_cluster_releases_hold_on_random_interleavings(self):
        self.assertEqual(model.main(["--trials", "1500", "--seed", "3"]), 0)

    def test_local_releases_let_a_peer_overwrite_a_stage_in_use(self):
        rng = random.Random(5)
        problems = [model.run(3, 6, 3, False, rng) for _ in range(200)]
        self.assertTrue(any(p and "before its consumer released" in p for p in problems),
                        problems[:3])


if __name__ == "__main__":
    unittest.main()
