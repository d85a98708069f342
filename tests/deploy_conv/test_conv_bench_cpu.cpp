// tuned_conv_bench's CPU side (examples/tuned-conv/measure_cpu.cpp) times the deployed library
// and oneDNN by the sweep's host protocol in rotating rounds (time_interleaved_on_host): every
// block of every round reads the evictions that protocol asks for, no more, no fewer.
#include <gtest/gtest.h>

#include "examples/tuned-conv/conv_measure.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/device.hpp"
#include "ktune/host_measure.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;

TEST(TunedConvBenchCpu, TimesEachLibraryByTheHostProtocolInRounds) {
  const conv::Shape s{1, 28, 28, 64, 64, 3, 3, 2, 1};  // stride 2: oneDNN has no Winograd
  const ktune::HostRotation rotation = ktune::host_rotation(
      4.0 * double(s.input_elements() + s.filter_elements() + s.output_elements()),
      ktune::last_level_cache_bytes(ktune::query_cpu_device()));
  ASSERT_GT(rotation.evict_bytes, 0);
  const ktune::TimingPolicy policy{.warmups = 1, .min_reps = 2, .max_reps = 2, .budget_ms = 0};
  const double before = ktune::host_cache_bytes_evicted();
  const tuned_conv::LayerResult r = tuned_conv::cpu_measure()->measure(s, 11, policy);
  ASSERT_EQ(r.status, "ok") << r.message;
  EXPECT_GT(r.deployed_ms, 0);
  const int libraries = conv::cpu::onednn_available() ? 2 : 1;
  const int rounds = libraries == 2 ? 4 : 3;  // at least 3, whole rotations
  const double block =
      rotation.cold_bytes + 3 * double(size_t(rotation.evict_bytes) / 64 * 64);  // 1 + 2 runs
  EXPECT_DOUBLE_EQ(ktune::host_cache_bytes_evicted() - before, rounds * libraries * block);
  if (libraries == 2) {
    EXPECT_GT(r.vendor_ms, 0);
  }
}

}  // namespace
