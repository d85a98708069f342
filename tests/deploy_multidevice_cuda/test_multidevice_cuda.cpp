// The CUDA twin of tests/deploy_multidevice: a GEMM library deployed with --backends cuda from two
// planted GPUs' datasets (two-gpu-devices-k2.hpp: planted-gpu-a, H100-like features, and
// planted-gpu-b, T4-like, whose best configs are swapped). KTUNE_DEVICE_CUDA picks a device
// without a GPU; on a GPU, its own properties decide. Each case runs in a child process.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ktune/gemm.hpp"
#include "ktune/tuned_device.hpp"

namespace ktune {
namespace {

const std::string kTiled = "kind=tiled;bm=32;bn=32;bk=8;tm=4;tn=4;vec=1;db=0";  // a's small shapes
const std::string kSeed = "r=1;a=1;c=1;wg=1x64";

std::string pick(int64_t size) {
  return tuned_gemm_info_cuda()
      .configs[tuned_gemm_choice_cuda(Trans::no, Trans::no, size, size, size, 1)];
}

// In a child: the picks of a small and a large shape and the device served; exit 0 when they are
// as expected.
void child(const char* override_device, const std::string& small, const std::string& large,
           const std::string& served, const std::string& reason) {
  if (override_device) setenv("KTUNE_DEVICE_CUDA", override_device, 1);
  const bool picks = pick(64) == small && pick(2048) == large;
  const auto c = tuned_device_choices();
  const bool ok = picks && c.size() == 1 && c[0].backend == "cuda" && c[0].device == served &&
                  c[0].reason.find(reason) != std::string::npos;
  if (!ok)
    std::fprintf(stderr, "FAILED: %s / %s on %s: %s\n", pick(64).c_str(), pick(2048).c_str(),
                 c.empty() ? "-" : c[0].device.c_str(), c.empty() ? "-" : c[0].reason.c_str());
  std::exit(ok ? 0 : 1);
}

TEST(MultiDeviceCudaLibrary, ServesTheSelectorOfTheNamedDevice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child("planted-gpu-b", kSeed, kTiled, "planted-gpu-b", "same slug"),
              testing::ExitedWithCode(0), "\\(cuda\\) on planted-gpu-b serves the selector of");
  EXPECT_EXIT(child("planted-gpu-a", kTiled, kSeed, "planted-gpu-a", "same slug"),
              testing::ExitedWithCode(0), "planted-gpu-a");
}

// On an H100 or H200 the nearest planted GPU by sm_count, capability, memory and L2 is the
// H100-like planted-gpu-a; the log line names the real GPU.
TEST(MultiDeviceCudaLibrary, ARealGpuGetsTheNearestPlantedOne) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(child(nullptr, kTiled, kSeed, "planted-gpu-a", "nearest measured device"),
              testing::ExitedWithCode(0), "\\(cuda\\) on [^\n]*NVIDIA");
}

}  // namespace
}  // namespace ktune
