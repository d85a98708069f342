#pragma once
// What the tests of the tensor-core GEMM kinds (mma, wgmma) share: a kind's configs read from
// the family's space, a run's seeded inputs, and a fixture that compiles the kind's kernels per
// precision by NVRTC (in parallel, into the disk cache) and keeps the loaded ones (GpuKernelTest
// of gemm_kernel_fixture.hpp). A kind's test derives from TensorCoreGemmTest and gives its request.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "tests/gpu/gemm_kernel_fixture.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::test {

// The configs of one kind of the GEMM space (selection "kind:mma"), in the space's order.
inline std::vector<kernels::gemm::BlockedParams> gemm_kind_configs(const std::string& selection) {
  const kernels::gemm::GemmFamily family;
  std::vector<kernels::gemm::BlockedParams> out;
  for (const Config& c : parse_config_list(family.space(), selection))
    out.push_back(kernels::gemm::gemm_config_of(family.space(), c).blocked);
  return out;
}

// The FP32 values of one run of C = alpha*op(A)*op(B) + beta*C0: A with a_offset extra leading
// elements, C0 NaN-poisoned when beta == 0 (the kernel must not read it).
struct GemmInputs {
  std::vector<float> a, b, c;
};
inline GemmInputs gemm_inputs(const kernels::gemm::Shape& s, float beta, uint64_t seed,
                              int a_offset) {
  namespace gemm = kernels::gemm;
  GemmInputs in{gemm::random_matrix(size_t(s.stride_a() * s.batch) + size_t(a_offset), seed),
                gemm::random_matrix(size_t(s.stride_b() * s.batch), seed + 1),
                gemm::random_matrix(size_t(s.stride_c() * s.batch), seed + 2)};
  if (beta == 0) in.c.assign(in.c.size(), std::nanf(""));
  return in;
}

class TensorCoreGemmTest : public GpuKernelTest {
 protected:
  using BlockedParams = kernels::gemm::BlockedParams;
  using Precision = kernels::gemm::Precision;

  void SetUp() override {
    GpuKernelTest::SetUp();
    if (IsSkipped()) return;
    cuda::check(cudaDeviceGetAttribute(&max_shared_, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
                "cudaDeviceGetAttribute");
  }

  // The kind's kernel of config p in precision q for these transposes, storing C as FP32 or
  // (c16) in q's 16-bit type: its own instantiation (the kernels' C16 template argument).
  virtual cuda::NvrtcRequest request(const BlockedParams& p, Precision q, bool ta, bool tb,
                                     bool c16) const = 0;

  const cuda::LoadedKernel& kernel(const BlockedParams& p, Precision q, bool ta, bool tb,
                                   bool c16 = false) {
    return kernels_.get(request(p, q, ta, tb, c16));
  }
  // Compiles (in parallel, into the disk cache) every kernel the test is about to use.
  void prepare(const std::vector<BlockedParams>& configs, const std::vector<Precision>& precisions,
               bool c16 = false) {
    std::vector<cuda::NvrtcRequest> requests;
    for (const BlockedParams& p : configs)
      for (Precision q : precisions)
        for (int t = 0; t < 4; ++t) requests.push_back(request(p, q, t & 1, t & 2, c16));
    precompile(requests);
  }
  // fn(p, q, t) for the first, middle and last of configs (compiled first), every precision q of
  // precisions and every transpose pair t (bit 0: A, bit 1: B).
  template <class Fn>
  void for_three_configs(const std::vector<BlockedParams>& configs,
                         const std::vector<Precision>& precisions, Fn fn) {
    const std::vector<BlockedParams> sample = {configs.front(), configs[configs.size() / 2],
                                               configs.back()};
    prepare(sample, precisions);
    for (const BlockedParams& p : sample)
      for (Precision q : precisions)
        for (int t = 0; t < 4; ++t) fn(p, q, t);
  }

  int max_shared_ = 0;
};

}  // namespace ktune::test
