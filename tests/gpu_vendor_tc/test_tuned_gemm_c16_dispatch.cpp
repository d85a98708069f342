// ktune::gemm_ex itself (not only the choice queries) serves C in bf16 with the library's bf16_c16
// selector: on a GPU, the kernel a call launches (captured into a graph) is the kernel of that
// selector's pick, run through gemm_ex_config, and not the FP32-C selector's pick. The planted
// headers (tests/deploy_vendor/vendor-wins-tc*-k3.hpp) pick two mma configs that differ only in
// their stages at 128^3, so the two kernels are distinct functions.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"

namespace {

using ktune::GemmOutput;
using ktune::GemmPrecision;
using ktune::Trans;

// The kernel functions of the graph one call captures on `stream`, in node order.
std::vector<void*> captured_kernels(cudaStream_t stream, const std::function<void()>& call) {
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), cudaSuccess);
  call();
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  std::vector<void*> kernels;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams params{};
    EXPECT_EQ(cudaGraphKernelNodeGetParams(node, &params), cudaSuccess);
    kernels.push_back(params.func);
  }
  cudaGraphDestroy(graph);
  return kernels;
}

TEST(TunedGemmVendorTc, GemmExLaunchesTheSixteenBitCSelectorsKernel) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const int64_t n = 128;
  const auto q = GemmPrecision::bf16;
  const int pick16 =
      ktune::tuned_gemm_ex_choice_cuda(q, GemmOutput::bf16, Trans::no, Trans::no, n, n, n, 1);
  const int pick32 = ktune::tuned_gemm_ex_choice_cuda(q, Trans::no, Trans::no, n, n, n, 1);
  ASSERT_EQ(std::string(ktune::tuned_gemm_ex_info_cuda(q, GemmOutput::bf16).configs[pick16]),
            "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=4");
  ASSERT_EQ(std::string(ktune::tuned_gemm_ex_info_cuda(q).configs[pick32]),
            "kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3");
  void *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, size_t(n * n) * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, size_t(n * n) * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, size_t(n * n) * 4), cudaSuccess);
  cudaMemset(a, 0, size_t(n * n) * 2);
  cudaMemset(b, 0, size_t(n * n) * 2);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  auto* s = reinterpret_cast<ktune::cudaStream_t>(stream);
  auto run = [&](GemmOutput out, int config) {
    return captured_kernels(stream, [&] {
      if (config < 0)
        ktune::gemm_ex(q, out, Trans::no, Trans::no, n, n, n, 1, a, n, 0, b, n, 0, 0, c, n, 0, 1,
                       s);
      else
        EXPECT_TRUE(ktune::gemm_ex_config(config, q, out, Trans::no, Trans::no, n, n, n, 1, a, n, 0,
                                          b, n, 0, 0, c, n, 0, 1, s));
    });
  };
  const std::vector<void*> c16_call = run(GemmOutput::bf16, -1);
  const std::vector<void*> c16_pick = run(GemmOutput::bf16, pick16);
  const std::vector<void*> c32_call = run(GemmOutput::fp32, -1);
  const std::vector<void*> c32_pick = run(GemmOutput::fp32, pick32);
  ASSERT_EQ(c16_call.size(), 1u);
  ASSERT_EQ(c32_call.size(), 1u);
  EXPECT_EQ(c16_call, c16_pick);  // gemm_ex with bf16 C ran the c16 selector's pick
  EXPECT_EQ(c32_call, c32_pick);  // and with FP32 C the bf16 selector's
  EXPECT_NE(c16_call, c32_call);  // which are different kernels: the test can tell them apart
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

}  // namespace
