// The L2 read flush of tune-and-remember's CUDA trials (ktune/cuda/l2_read_flush.hpp): its PTX
// loads and runs on the GPU, its buffer is twice the L2, it writes nothing (the zeroed buffer
// stays zero, so no dirty line is left for a timed run to write back) and leaves no CUDA error.
// Every remember test on the GPU runs its trials with it (cold_l2 is the default). Its effect on
// the trials is measured in the remember benchmarks (results/, not a timed test). Skips without a
// GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ktune/cuda.hpp"
#include "ktune/cuda/l2_read_flush.hpp"

namespace {

TEST(L2ReadFlush, ReadsTwiceTheL2AndWritesNothing) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int l2 = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  ASSERT_GT(l2, 0);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  {
    ktune::cuda::L2ReadFlush flush(stream);
    ASSERT_TRUE(flush.ok()) << "the PTX kernel did not load or the buffer was not allocated";
    EXPECT_EQ(flush.bytes(), 2 * size_t(l2));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(flush.enqueue());
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<uint32_t> words(flush.bytes() / sizeof(uint32_t), 1u);
    ASSERT_EQ(cudaMemcpy(words.data(), flush.data(), flush.bytes(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(size_t(std::count(words.begin(), words.end(), 0u)), words.size());
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
