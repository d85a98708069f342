// The library's cuBLASLt candidate against the benchmark's own cuBLASLt call on deep-K shapes
// (issue #24: 128 x 512 x 3136 NT ran at 0.33x of it in
// results/h100-80gb-hbm3/tc-deployed-vendors/): the plan the library builds
// (deploy/vendor_cuda.hpp: heuristic #0 for the operands' alignment) is the benchmark's heuristic
// #0 (examples/tuned-gemm/measure_cuda.cpp: 32 MiB, default alignment), attribute for attribute;
// and the library's call, timed as the benchmark times it (events around each call), is not slower
// than the benchmark's call beyond noise. The old per-call workspace (a stream-ordered allocation
// and free around each call) is timed beside them and printed, the cost deploy/call_workspace.hpp
// removes.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/deploy/call_workspace.hpp"
#include "kernels/gemm/deploy/vendor_cuda.hpp"
#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"

namespace {

namespace kg = ktune::kernels::gemm;
namespace kd = ktune::kernels::gemm::deploy;

struct DeepK {
  bool ta, tb;
  int64_t m, n, k;
};
// The shape of issue #24, the two mmasplit mis-picks' shape, the deep-K shape with the largest
// library overhead of that run, and a square one whose heuristic needs no workspace.
const DeepK kShapes[] = {{false, true, 128, 512, 3136},
                         {false, false, 512, 256, 3136},
                         {false, false, 64, 32, 12544},
                         {false, true, 1024, 1024, 1024}};
constexpr size_t kBenchWorkspace = size_t(32) << 20;  // the benchmark's and the sweep's

std::string name(const DeepK& s, kg::Precision q) {
  return std::string(q == kg::Precision::bf16 ? "bf16 " : "fp16 ") + std::to_string(s.m) + "x" +
         std::to_string(s.n) + "x" + std::to_string(s.k) + (s.ta ? " T" : " N") +
         (s.tb ? "T" : "N");
}

// The problem with tight leading dimensions, as the benchmark's workloads give it.
kg::Shape shape_of(const DeepK& d, kg::Precision q) {
  kg::Shape s;
  s.transa = d.ta, s.transb = d.tb, s.m = d.m, s.n = d.n, s.k = d.k, s.batch = 1, s.precision = q;
  s.lda = d.ta ? d.k : d.m, s.ldb = d.tb ? d.n : d.k, s.ldc = d.m;
  return s;
}

kg::cuda::LtProblem lt_problem_of(const kg::Shape& s) {
  return {s.precision, s.transa,     s.transb, s.m,          s.n,   s.k,         s.batch,
          s.lda,       s.stride_a(), s.ldb,    s.stride_b(), s.ldc, s.stride_c()};
}

// A, B (16-bit values near 1) and C on the device, 256-byte aligned as cudaMalloc gives them.
struct Operands {
  void *a = nullptr, *b = nullptr;
  float* c = nullptr;
  explicit Operands(const kg::Shape& s) {
    EXPECT_EQ(cudaMalloc(&a, size_t(s.stride_a()) * 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, size_t(s.stride_b()) * 2), cudaSuccess);
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&c), size_t(s.stride_c()) * 4), cudaSuccess);
    cudaMemset(a, 0x3C, size_t(s.stride_a()) * 2);
    cudaMemset(b, 0x3C, size_t(s.stride_b()) * 2);
  }
  ~Operands() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

TEST(TunedGemmVendorTcLt, LibraryPlanIsTheBenchmarksHeuristicFirst) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const kg::cuda::CublasLtHandle handle;
  for (kg::Precision q : {kg::Precision::bf16, kg::Precision::fp16}) {
    for (const DeepK& d : kShapes) {
      const kg::Shape s = shape_of(d, q);
      const Operands o(s);
      const kd::LtPlan& plan = kd::lt_plan_for(lt_problem_of(s), o.a, o.b, o.c);
      const kg::cuda::CublasLtGemm bench(handle.get(), s, kBenchWorkspace, 1);
      ASSERT_TRUE(plan.found) << name(d, q);
      ASSERT_EQ(bench.algos(), 1) << name(d, q);
      const std::string library = kg::cuda::lt_algo_config(plan.first);
      const std::string benchmark = kg::cuda::lt_algo_config(bench.result(0));
      std::cout << name(d, q) << "\n  library:   " << library << "\n  benchmark: " << benchmark
                << "\n";
      EXPECT_EQ(library, benchmark) << name(d, q);
    }
  }
}

// Median microseconds of `calls` calls of fn, each between two events on the stream (the
// benchmark's protocol: the host's cost of a call is in its time).
double median_us(cudaStream_t stream, int calls, const std::function<void()>& fn) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < calls; ++i) {
    cudaEventRecord(start, stream);
    fn();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + calls / 2, ms.end());
  return 1000.0 * ms[size_t(calls / 2)];
}

TEST(TunedGemmVendorTcLt, LibraryCallIsAsFastAsTheBenchmarksCall) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const auto q = ktune::GemmPrecision::bf16;
  const auto& info = ktune::tuned_gemm_ex_info_cuda(q);
  int lt = -1;
  for (int i = 0; i < info.num_configs; ++i)
    if (std::string(info.configs[i]) == "vendor=cublaslt") lt = i;
  ASSERT_GE(lt, 0);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaMemPool_t pool = nullptr;  // the old per-call workspace's pool: keeps its memory
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  ASSERT_EQ(cudaGetDevice(&props.location.id), cudaSuccess);
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  uint64_t keep = UINT64_MAX;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  const kg::cuda::CublasLtHandle handle;
  void* bench_workspace = nullptr;
  ASSERT_EQ(cudaMalloc(&bench_workspace, kBenchWorkspace), cudaSuccess);
  for (const DeepK& d : kShapes) {
    const kg::Shape s = shape_of(d, kg::Precision::bf16);
    const Operands o(s);
    const kg::cuda::CublasLtGemm bench(handle.get(), s, kBenchWorkspace, 1);
    ASSERT_EQ(bench.algos(), 1);
    const auto ta = d.ta ? ktune::Trans::yes : ktune::Trans::no;
    const auto tb = d.tb ? ktune::Trans::yes : ktune::Trans::no;
    auto library = [&] {
      EXPECT_TRUE(ktune::gemm_ex_config(lt, q, ta, tb, s.m, s.n, s.k, 1.0f, o.a, s.lda,
                                        s.stride_a(), o.b, s.ldb, s.stride_b(), 0.0f, o.c, s.ldc,
                                        s.stride_c(), 1, stream));
    };
    auto benchmark = [&] {
      EXPECT_EQ(bench.run(0, o.a, o.b, o.c, bench_workspace, stream), CUBLAS_STATUS_SUCCESS);
    };
    // The old library's call: the algorithm's own workspace allocated and freed around it (the
    // benchmark's call, which claims 32 MiB, on the allocation; the benchmark's buffer where the
    // algorithm needs none, as the library then allocates nothing).
    const size_t bytes = bench.result(0).workspaceSize;
    auto per_call_workspace = [&] {
      void* w = bench_workspace;
      if (bytes) cudaMallocFromPoolAsync(&w, kBenchWorkspace, pool, stream);
      EXPECT_EQ(bench.run(0, o.a, o.b, o.c, w, stream), CUBLAS_STATUS_SUCCESS);
      if (bytes) cudaFreeAsync(w, stream);
    };
    // Warm-up, then rounds taking turns so that clock drift reaches all three alike.
    for (const auto& fn : {std::function<void()>(library), std::function<void()>(benchmark),
                           std::function<void()>(per_call_workspace)})
      median_us(stream, 5, fn);
    std::vector<double> lib, ben, old;
    for (int round = 0; round < 5; ++round) {
      lib.push_back(median_us(stream, 40, library));
      ben.push_back(median_us(stream, 40, benchmark));
      old.push_back(median_us(stream, 40, per_call_workspace));
    }
    auto mid = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double l = mid(lib), b = mid(ben), w = mid(old);
    std::cout << name(d, kg::Precision::bf16) << ": library " << l << " us, benchmark's call " << b
              << " us (library / benchmark " << l / b << "), with a per-call workspace " << w
              << " us (workspace " << bytes << " B)\n";
    EXPECT_LE(l, 1.10 * b) << name(d, kg::Precision::bf16);
  }
  cudaFree(bench_workspace);
  cudaMemPoolDestroy(pool);
  cudaStreamDestroy(stream);
}

// The library's workspaces (deploy/call_workspace.hpp): one buffer per stream, kept between calls
// and only grown; at most kMaxKept streams; a stream being captured gets per-call graph nodes.
TEST(TunedGemmVendorTcLt, CallWorkspaceIsKeptPerStreamAndPerCallInCapture) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaMemPool_t pool = nullptr;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  ASSERT_EQ(cudaGetDevice(&props.location.id), cudaSuccess);
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  std::vector<cudaStream_t> streams(kd::KeptWorkspaces::kMaxKept + 1);
  for (auto& s : streams) ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  auto once = [&](size_t bytes, cudaStream_t s) {
    kd::CallWorkspace w(bytes, s, pool);
    void* p = w.data();
    w.release();
    return p;
  };
  EXPECT_EQ(once(0, streams[0]), nullptr);
  void* first = once(1024, streams[0]);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(once(512, streams[0]), first);  // kept: no allocation
  void* other = once(1024, streams[1]);
  EXPECT_NE(other, first);  // another stream, another buffer
  void* grown = once(1 << 20, streams[0]);
  ASSERT_NE(grown, nullptr);
  EXPECT_EQ(once(1024, streams[0]), grown);  // never shrinks
  for (auto s : streams) once(256, s);
  EXPECT_LE(kd::kept_workspaces().kept(), kd::KeptWorkspaces::kMaxKept);
  // Captured: the allocation and the free are the graph's own nodes, not the kept buffer.
  cudaStream_t capture = streams[0];
  ASSERT_EQ(cudaStreamBeginCapture(capture, cudaStreamCaptureModeRelaxed), cudaSuccess);
  void* captured = once(1024, capture);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(capture, &graph), cudaSuccess);
  EXPECT_NE(captured, grown);
  size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 2u);  // a memory allocation node and a free node
  cudaGraphDestroy(graph);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (auto s : streams) cudaStreamDestroy(s);
  cudaMemPoolDestroy(pool);
}

}  // namespace
