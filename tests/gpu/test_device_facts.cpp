// kernels/common/cuda/device_facts.hpp: the cached compute capability and SM count of the current
// device are the runtime's own answers, per device (switching devices switches the answer), and
// asking without a device returns the runtime's error instead of a cached value.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "kernels/common/cuda/device_facts.hpp"

namespace ktune::kernels::cuda_device {
namespace {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

TEST(DeviceFacts, EveryDevicesCachedFactsAreTheRuntimesAnswers) {
  const int n = device_count();
  if (n == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  for (int round = 0; round < 2; ++round) {  // the first round fills the cache, the second reads it
    for (int d = 0; d < n; ++d) {
      ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
      int major = -1, minor = -1, sms = -1;
      ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d), cudaSuccess);
      ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d), cudaSuccess);
      ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d), cudaSuccess);
      Facts facts;
      ASSERT_EQ(current(facts), cudaSuccess);
      EXPECT_EQ(facts.major, major) << "device " << d << ", round " << round;
      EXPECT_EQ(facts.minor, minor) << "device " << d << ", round " << round;
      EXPECT_EQ(facts.sms, sms) << "device " << d << ", round " << round;
      EXPECT_GT(facts.sms, 0);
    }
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST(DeviceFacts, NoDeviceGivesTheRuntimesErrorAndKeepsTheFactsUntouched) {
  if (device_count() != 0) GTEST_SKIP() << "a CUDA device is present: tested where there is none";
  Facts facts;
  facts.sms = 123;
  EXPECT_NE(current(facts), cudaSuccess);
  EXPECT_EQ(facts.sms, 123);
  (void)cudaGetLastError();
}

}  // namespace
}  // namespace ktune::kernels::cuda_device
