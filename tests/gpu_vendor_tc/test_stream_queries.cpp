// The stream queries of a tuned CUDA library's call (kernels/common/cuda/stream_queries.hpp) answer
// what the runtime's wrappers answer, through the driver's entry points where the runtime gives
// them; a default stream names its kept workspace by its handle (no id query) and a created stream
// by its id, so a destroyed stream's handle that comes back as a new stream's gets a new workspace;
// a captured stream, created or the per-thread default one, still gets per-call graph nodes.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>

#include "kernels/common/cuda/call_workspace.hpp"
#include "kernels/common/cuda/stream_queries.hpp"
#include "ktune/cuda.hpp"
#include "tests/gpu_vendor_tc/captured_call.hpp"

namespace {

namespace kw = ktune::kernels::cuda_workspace;

TEST(StreamQueries, DefaultStreamsAreNamedByTheirHandles) {
  // No GPU needed: the handles alone.
  EXPECT_TRUE(kw::stream_is_a_default_stream(nullptr));
  EXPECT_TRUE(kw::stream_is_a_default_stream(cudaStreamLegacy));
  EXPECT_TRUE(kw::stream_is_a_default_stream(cudaStreamPerThread));
  EXPECT_FALSE(kw::stream_is_a_default_stream(reinterpret_cast<cudaStream_t>(uintptr_t(0x1000))));
  // This unit is compiled for the legacy default stream: the null stream is cudaStreamLegacy.
  const kw::StreamKey null_key = kw::stream_key(nullptr);
  EXPECT_TRUE(null_key.is_handle);
  EXPECT_TRUE(null_key == kw::stream_key(cudaStreamLegacy));
  const kw::StreamKey per_thread = kw::stream_key(cudaStreamPerThread);
  EXPECT_TRUE(per_thread.is_handle);
  EXPECT_FALSE(per_thread == null_key);
  // A stream id equal to a handle's value is another stream.
  EXPECT_FALSE((kw::StreamKey{null_key.value, false} == null_key));
}

TEST(StreamQueries, AnswerWhatTheRuntimeAnswers) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
    // CUDA 12.5 and later give the entry points: the fast path is the one taken.
#if CUDART_VERSION >= 12050
  EXPECT_NE(kw::driver_stream_queries().is_capturing, nullptr);
  EXPECT_NE(kw::driver_stream_queries().get_id, nullptr);
#endif
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
  for (cudaStream_t s : {a, b}) {
    unsigned long long id = 0;
    ASSERT_EQ(cudaStreamGetId(s, &id), cudaSuccess);
    const kw::StreamKey key = kw::stream_key(s);
    EXPECT_FALSE(key.is_handle);
    EXPECT_EQ(key.value, id);
    EXPECT_FALSE(kw::stream_is_capturing(s));
  }
  EXPECT_FALSE(kw::stream_key(a) == kw::stream_key(b));
  EXPECT_FALSE(kw::stream_is_capturing(nullptr));
  EXPECT_FALSE(kw::stream_is_capturing(cudaStreamPerThread));
  // Being captured: both answers say so, and stop saying so after the capture.
  ASSERT_EQ(cudaStreamBeginCapture(a, cudaStreamCaptureModeRelaxed), cudaSuccess);
  cudaStreamCaptureStatus runtime = cudaStreamCaptureStatusNone;
  ASSERT_EQ(cudaStreamIsCapturing(a, &runtime), cudaSuccess);
  EXPECT_EQ(runtime, cudaStreamCaptureStatusActive);
  EXPECT_TRUE(kw::stream_is_capturing(a));
  EXPECT_FALSE(kw::stream_is_capturing(b));
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(a, &graph), cudaSuccess);
  if (graph) cudaGraphDestroy(graph);
  EXPECT_FALSE(kw::stream_is_capturing(a));
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

kw::WorkspacePool keeping_pool(cudaMemPool_t& pool) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  EXPECT_EQ(cudaGetDevice(&props.location.id), cudaSuccess);
  EXPECT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  return kw::WorkspacePool{pool, nullptr};
}

void* once(size_t bytes, cudaStream_t s, const kw::WorkspacePool& pool) {
  kw::CallWorkspace w(bytes, s, pool);
  void* p = w.data();
  w.release();
  return p;
}

TEST(StreamQueries, DefaultStreamsKeepWorkspacesAndCaptureStaysPerCall) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaMemPool_t handle = nullptr;
  const kw::WorkspacePool pool = keeping_pool(handle);
  cudaStream_t created = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking), cudaSuccess);
  void* null_stream = once(4096, nullptr, pool);
  ASSERT_NE(null_stream, nullptr);
  EXPECT_EQ(once(1024, nullptr, pool), null_stream);           // kept
  EXPECT_EQ(once(1024, cudaStreamLegacy, pool), null_stream);  // the same stream, named so
  void* per_thread = once(4096, cudaStreamPerThread, pool);
  ASSERT_NE(per_thread, nullptr);
  EXPECT_EQ(once(4096, cudaStreamPerThread, pool), per_thread);
  EXPECT_NE(per_thread, null_stream);
  void* on_created = once(4096, created, pool);
  EXPECT_NE(on_created, null_stream);
  EXPECT_NE(on_created, per_thread);
  // The per-thread default stream can be captured: its workspace is then the graph's own
  // allocation and free, not the kept buffer.
  const auto [captured, nodes] =
      captured_call(cudaStreamPerThread, [&] { return once(4096, cudaStreamPerThread, pool); });
  EXPECT_NE(captured, per_thread);
  EXPECT_EQ(nodes, 2u);  // a memory allocation node and a free node
  EXPECT_EQ(once(4096, cudaStreamPerThread, pool), per_thread);  // still kept after the capture
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaStreamDestroy(created);
  kw::kept_workspaces().clear();  // its buffers came from the pool destroyed next
  cudaMemPoolDestroy(handle);
}

// A created stream's workspace is named by its id: a stream created after another was destroyed
// (whose handle may well be the destroyed one's) gets a workspace of its own, never the one the
// destroyed stream's unfinished work may still use.
TEST(StreamQueries, ANewStreamOnADestroyedOnesHandleGetsItsOwnWorkspace) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaMemPool_t handle = nullptr;
  const kw::WorkspacePool pool = keeping_pool(handle);
  int reused = 0;
  for (int round = 0; round < 4; ++round) {
    cudaStream_t first = nullptr, second = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking), cudaSuccess);
    void* old = once(8192, first, pool);
    ASSERT_NE(old, nullptr);
    ASSERT_EQ(cudaStreamDestroy(first), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking), cudaSuccess);
    reused += second == first;
    EXPECT_NE(once(8192, second, pool), old) << "round " << round;
    ASSERT_EQ(cudaStreamDestroy(second), cudaSuccess);
  }
  std::cout << reused << " of 4 new streams came back on the destroyed stream's handle\n";
  EXPECT_LE(kw::kept_workspaces().kept(), kw::KeptWorkspaces::kMaxKept);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  kw::kept_workspaces().clear();  // its buffers came from the pool destroyed next
  cudaMemPoolDestroy(handle);
}

}  // namespace
