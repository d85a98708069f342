#pragma once
// What the tests of the CUDA GEMM kernel kinds (tiled/split-K, warp) share: shapes with padded
// leading dimensions, the split-K reduction kernel, and a fixture that compiles a kind's kernels
// by NVRTC (in parallel, into the disk cache) and runs one config against the host float64
// reference. A kind's test derives from GemmKernelTest and gives its request and its launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cuda_kernels.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::test {

inline kernels::gemm::Shape make_shape(bool transa, bool transb, int64_t m, int64_t n, int64_t k,
                                       int64_t batch, int64_t pad = 0) {
  kernels::gemm::Shape s;
  s.transa = transa, s.transb = transb;
  s.m = m, s.n = n, s.k = k, s.batch = batch;
  s.lda = std::max<int64_t>(1, (transa ? k : m) + pad);
  s.ldb = std::max<int64_t>(1, (transb ? n : k) + pad);
  s.ldc = m + pad;
  return s;
}

// The instantiation `name_expression` of an embedded kernel file ("gemm_tiled.cuh"), compiled as
// the program "gemm_tiled.cu".
inline cuda::NvrtcRequest kernel_request(const std::string& file,
                                         const std::string& name_expression,
                                         const std::string& arch) {
  return {
      embedded_file(file), file.substr(0, file.size() - 1), name_expression, arch, {"--std=c++17"}};
}

// The split-K reduction kernel (gemm_tiled.cuh), shared by every split-K kind.
inline cuda::NvrtcRequest splitk_reduce_request(const std::string& arch) {
  return kernel_request("gemm_tiled.cuh", kernels::gemm::cuda::kSplitkReduceName, arch);
}

// One config per distinct key(config) of space, in key order; the n-th key takes variant
// (first + n * step) of its configs, so the parameters outside the key rotate over the sample.
template <class Key>
std::vector<kernels::gemm::BlockedParams> one_per_key(
    const std::vector<kernels::gemm::BlockedParams>& space, Key key, size_t first, size_t step) {
  std::map<decltype(key(space.front())), std::vector<kernels::gemm::BlockedParams>> by_key;
  for (const auto& p : space) by_key[key(p)].push_back(p);
  std::vector<kernels::gemm::BlockedParams> sample;
  size_t turn = first;
  for (auto& [k, variants] : by_key) {
    sample.push_back(variants[turn % variants.size()]);
    turn += step;
  }
  return sample;
}

// NVRTC-compiled kernels by name expression, compiled and loaded on first use.
class LoadedKernels {
 public:
  const cuda::LoadedKernel& get(const cuda::NvrtcRequest& r) {
    auto& slot = kernels_[r.name_expression];
    if (!slot)
      slot = std::make_unique<cuda::LoadedKernel>(cuda::compile_cubin(r), r.name_expression);
    return *slot;
  }

 private:
  std::map<std::string, std::unique_ptr<cuda::LoadedKernel>> kernels_;
};

// What every kernel kind's fixture starts from: GPU 0 (skipped without one), its arch_
// ("sm_90"), its loaded kernels, and compiling a test's kernels before it runs them.
class GpuKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    cuda::use_device(0);
    arch_ = cuda::device_arch(0);
  }
  // Compiles (in parallel, into the disk cache) every kernel the test is about to use.
  static void precompile(const std::vector<cuda::NvrtcRequest>& requests) {
    parallel_for(requests.size(), [&](size_t i) { (void)cuda::compile_cubin(requests[i]); });
  }

  std::string arch_;
  LoadedKernels kernels_;
};

class GemmKernelTest : public GpuKernelTest {
 protected:
  using BlockedParams = kernels::gemm::BlockedParams;
  using Shape = kernels::gemm::Shape;

  // The kind's kernel of config p for these transposes, and its name expression.
  virtual cuda::NvrtcRequest request(const BlockedParams& p, bool ta, bool tb,
                                     const std::string& arch) const = 0;
  // Launches the kind's kernel k on the arguments of the run (kernels/gemm/cuda/*_launch.hpp).
  virtual kernels::gemm::cuda::TiledLaunch launch(const cuda::LoadedKernel& k,
                                                  const BlockedParams& p, const Shape& s,
                                                  float alpha, const float* a, const float* b,
                                                  float beta, float* c, float* workspace) = 0;

  std::string describe(const BlockedParams& p, bool ta, bool tb) const {
    return request(p, ta, tb, arch_).name_expression + " splits=" + std::to_string(p.splits);
  }

  const cuda::LoadedKernel& kernel(const BlockedParams& p, bool ta, bool tb) {
    return kernels_.get(request(p, ta, tb, arch_));
  }
  const cuda::LoadedKernel& reduce() {
    if (!reduce_) {
      reduce_ =
          std::make_unique<cuda::LoadedKernel>(cuda::compile_cubin(splitk_reduce_request(arch_)),
                                               kernels::gemm::cuda::kSplitkReduceName);
    }
    return *reduce_;
  }
  // Compiles (in parallel, into the disk cache) every kernel the test is about to use.
  void prepare(const std::vector<BlockedParams>& configs) {
    std::vector<cuda::NvrtcRequest> requests;
    for (const BlockedParams& p : configs)
      for (int t = 0; t < 4; ++t) requests.push_back(request(p, t & 1, t & 2, arch_));
    precompile(requests);
  }

  // C = alpha*op(A)*op(B) + beta*C0 with config p; the relative error against the host float64
  // reference (C0 NaN-poisoned when beta == 0), or -1 when the launch is refused. a_offset
  // shifts A's base pointer by that many floats (misalignment); nan_inputs fills A and B with
  // NaN (for alpha == 0, which must not read them).
  double run(const BlockedParams& p, const Shape& s, float alpha, float beta, uint64_t seed,
             int a_offset = 0, std::vector<float>* out_c = nullptr, bool nan_inputs = false) {
    namespace gemm = kernels::gemm;
    auto host_a = gemm::random_matrix(size_t(s.stride_a() * s.batch) + size_t(a_offset), seed);
    auto host_b = gemm::random_matrix(size_t(s.stride_b() * s.batch), seed + 1);
    auto host_c = gemm::random_matrix(size_t(s.stride_c() * s.batch), seed + 2);
    if (beta == 0) host_c.assign(host_c.size(), std::nanf(""));
    const auto ref = gemm::reference_gemm(s, host_a.data() + a_offset, host_b.data(), alpha, beta,
                                          host_c.data());
    if (nan_inputs) {
      host_a.assign(host_a.size(), std::nanf(""));
      host_b.assign(host_b.size(), std::nanf(""));
    }
    auto a = upload(host_a, "A");
    auto b = upload(host_b, "B");
    auto c = upload(host_c, "C");
    cuda::DeviceBuffer<float> ws(gemm::cuda::tiled_workspace_floats(p, s.m, s.n, s.batch),
                                 "workspace");
    const auto result = launch(kernel(p, s.transa, s.transb), p, s, alpha, a.data() + a_offset,
                               b.data(), beta, c.data(), ws.data());
    EXPECT_EQ(result.error, cudaSuccess) << result.message;
    if (result.refused) return -1;
    cuda::check(cudaDeviceSynchronize(),
                "cudaDeviceSynchronize(" + describe(p, s.transa, s.transb) + ")");
    const auto out = download(c);
    if (out_c) *out_c = out;
    return gemm::relative_error(s, out.data(), ref);
  }

  // Every config x transpose pair on two shapes (m, n, k): `odd` with odd padded leading
  // dimensions (pad 3), batch 3 and beta != 0; `aligned` with minimal leading dimensions and a
  // NaN-poisoned C (beta == 0). Each within the float64 reference's bound.
  void check_odd_and_aligned(const std::vector<BlockedParams>& configs,
                             std::array<int64_t, 3> odd_mnk, std::array<int64_t, 3> aligned_mnk) {
    prepare(configs);
    int cases = 0;
    for (const BlockedParams& p : configs) {
      for (int t = 0; t < 4; ++t) {
        const Shape odd = make_shape(t & 1, t & 2, odd_mnk[0], odd_mnk[1], odd_mnk[2], 3, 3);
        EXPECT_LE(run(p, odd, 1.5f, -0.75f, 100 + cases), kernels::gemm::error_bound(odd.k))
            << describe(p, odd.transa, odd.transb) << " odd";
        const Shape aligned =
            make_shape(t & 1, t & 2, aligned_mnk[0], aligned_mnk[1], aligned_mnk[2], 1);
        EXPECT_LE(run(p, aligned, 1.0f, 0.0f, 200 + cases), kernels::gemm::error_bound(aligned.k))
            << describe(p, aligned.transa, aligned.transb) << " aligned";
        ++cases;
      }
    }
    EXPECT_EQ(cases, int(configs.size()) * 4);
  }

  // Every config on m and n from sizes and k from ks (edges: 1, partial tiles), the transpose
  // pair, batch (1 or 3), leading-dimension padding (0..4) and beta (0 or 2) cycling over them.
  void check_edge_shapes(const std::vector<BlockedParams>& configs,
                         const std::vector<int64_t>& sizes, const std::vector<int64_t>& ks) {
    prepare(configs);
    int cases = 0;
    for (const BlockedParams& p : configs) {
      for (int64_t m : sizes)
        for (int64_t n : sizes)
          for (int64_t k : ks) {
            const int t = cases % 4;
            const Shape s = make_shape(t & 1, t & 2, m, n, k, cases % 3 == 0 ? 3 : 1, cases % 5);
            EXPECT_LE(run(p, s, 0.5f, cases % 2 ? 2.0f : 0.0f, 300 + cases),
                      kernels::gemm::error_bound(s.k))
                << describe(p, s.transa, s.transb) << " m=" << m << " n=" << n << " k=" << k
                << " lda=" << s.lda;
            ++cases;
          }
    }
  }

 private:
  std::unique_ptr<cuda::LoadedKernel> reduce_;
};

}  // namespace ktune::test
