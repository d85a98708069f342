// The conv2d family on CUDA. Without a GPU: NVRTC compiles every kernel instantiation of every
// CUDA config of the space for sm_90 (the decoder is tested in tests/core). With a GPU: the float64
// reference kernel matches the host reference, every CUDA config runs every odd-sized problem
// (strides, padding, 1x1, 3x3, 5x5, 7x7, channels on and off the vector widths) through the
// backend's sessions, verified on NaN-poisoned output against the reference within the family's
// bound, or refuses it exactly when its kind does not apply; and the cuDNN baseline verifies.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_kernels.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/loaded_kernel.hpp"
#include "ktune/cuda/nvrtc_compile.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::kernels::conv2d::cuda {
namespace {

const Family& family() {
  register_builtin();
  register_cuda_backends();
  return find_family("conv2d");
}

std::vector<CudaConvConfig> cuda_configs(std::vector<std::string>* texts = nullptr) {
  std::vector<CudaConvConfig> out;
  const Space& space = family().space();
  for (const Config& c : space.enumerate()) {
    const CudaConvConfig g = parse_cuda_conv_config(space.to_string(c));
    if (!g.valid) continue;
    out.push_back(g);
    if (texts) texts->push_back(space.to_string(c));
  }
  return out;
}

// The tiny workload plus shapes whose channels are multiples of 4 (the vector paths).
std::vector<Shape> test_shapes() {
  std::vector<Shape> out;
  for (const Layer& l : workload_layers("tiny")) out.push_back(l.shape);
  out.push_back({2, 10, 9, 12, 20, 3, 3, 1, 1});
  out.push_back({1, 9, 7, 16, 8, 3, 3, 1, 0});
  out.push_back({1, 11, 13, 8, 12, 3, 3, 2, 1});
  out.push_back({3, 5, 6, 32, 24, 1, 1, 1, 0});
  out.push_back({1, 12, 12, 4, 36, 5, 5, 1, 2});
  return out;
}

TEST(Conv2dCudaNvrtc, EveryKernelOfTheSpaceCompilesForSm90) {
  std::set<std::pair<std::string, std::string>> names = {{"conv2d_im2col.cuh", kReferenceName},
                                                         {"conv2d_im2col.cuh", kWiden16Name}};
  for (const auto& g : cuda_configs())
    for (const KernelName& k : kernel_names(g)) names.insert({k.file, k.expression});
  const std::vector<std::pair<std::string, std::string>> todo(names.begin(), names.end());
  std::vector<std::string> failures(todo.size());
  ktune::test::parallel_for(todo.size(), [&](size_t i) {
    try {
      const auto image =
          ktune::cuda::compile_cubin({ktune::embedded_file(todo[i].first), todo[i].first,
                                      todo[i].second, "sm_90", gemm::cuda::seed_compile_options()});
      if (image.cubin.compare(0, 4, "\177ELF") != 0) failures[i] = "not an ELF cubin";
    } catch (const std::exception& e) {
      failures[i] = e.what();
    }
  });
  for (size_t i = 0; i < todo.size(); ++i) EXPECT_EQ(failures[i], "") << todo[i].second;
}

TEST(Conv2dCudaReference, DeviceFloat64KernelMatchesTheHostReference) {
  KTUNE_REQUIRE_GPU();
  ConvKernelSet kernels(ktune::cuda::device_arch(0));
  for (const Shape& s : test_shapes()) {
    const auto x = gemm::random_matrix(size_t(s.input_elements()), 11);
    const auto w = gemm::random_matrix(size_t(s.filter_elements()), 12);
    const auto host = reference_conv2d(s, x.data(), w.data());
    auto dx = ktune::test::upload(x, "x");
    auto dw = ktune::test::upload(w, "w");
    ktune::cuda::DeviceBuffer<double> dy(size_t(s.output_elements()), "y");
    const float* xp = dx.data();
    const float* wp = dw.data();
    double* yp = dy.data();
    int n = int(s.n), h = int(s.h), wd = int(s.w), c = int(s.c), k = int(s.k), r = int(s.r),
        ss = int(s.s), stride = int(s.stride), pad = int(s.pad), p = int(s.p()), q = int(s.q());
    void* args[] = {&xp, &wp, &yp, &n, &h, &wd, &c, &k, &r, &ss, &stride, &pad, &p, &q};
    ktune::cuda::check(
        cudaLaunchKernel(kernels.reference().function(), dim3(3), dim3(256), args, 0, nullptr),
        "reference launch");
    std::vector<double> device(host.size());
    ktune::cuda::check(cudaMemcpy(device.data(), yp, dy.bytes(), cudaMemcpyDeviceToHost), "copy");
    for (size_t i = 0; i < host.size(); ++i)
      ASSERT_NEAR(device[i], host[i], 1e-12 * (1 + std::abs(host[i]))) << i;
  }
}

TEST(Conv2dCudaBackend, EveryConfigVerifiesOrRefusesEveryOddProblem) {
  KTUNE_REQUIRE_GPU();
  const Family& fam = family();
  auto backend = open_backend(fam, "cuda:0");
  std::vector<Config> configs;
  for (const Config& c : fam.space().enumerate())
    if (backend->implements(c)) configs.push_back(c);
  ASSERT_EQ(configs.size(), cuda_configs().size());
  backend->prepare(configs);
  TimingPolicy once;
  once.warmups = 0, once.min_reps = 1, once.max_reps = 1, once.budget_ms = 0;
  std::map<std::string, int> ok_per_kind;
  for (const Shape& s : test_shapes()) {
    auto session = backend->open(problem_of(s));
    const ConvDims d{s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad};
    for (const Config& c : configs) {
      const std::string text = fam.space().to_string(c);
      const CudaConvConfig g = parse_cuda_conv_config(text);
      const Outcome o = session->run(c, once);
      const std::string where = text + " on " + problem_of(s).key() + ": " + o.message;
      if (!refusal(g, d).empty()) {
        EXPECT_EQ(o.status, Status::refused) << where;
        continue;
      }
      ASSERT_EQ(o.status, Status::ok) << where;
      EXPECT_LE(o.rel_error, error_bound(s, g.kind == CudaKind::winograd ? g.m : 0)) << where;
      ++ok_per_kind[fam.space().kind_name(c)];
    }
  }
  for (const char* kind : {"cuda_direct", "cuda_im2col", "cuda_gemm1x1", "cuda_winograd"})
    EXPECT_GT(ok_per_kind[kind], 0) << kind;
}

TEST(Conv2dCudaBackend, CudnnBaselineVerifies) {
  KTUNE_REQUIRE_GPU();
  auto backend = open_backend(family(), "cuda:0");
  for (const Shape& s : test_shapes()) {
    auto session = backend->open(problem_of(s));
    if (session->vendors().empty()) GTEST_SKIP() << "built without cuDNN";
    TimingPolicy policy;
    policy.min_reps = 2, policy.max_reps = 2;
    const Outcome o = session->run_vendor("cudnn", policy);
    EXPECT_EQ(o.status, Status::ok) << problem_of(s).key() << ": " << o.message;
    EXPECT_GT(o.timing.median_ms, 0);
    const bool named = o.message.find("algo=") != std::string::npos ||
                       o.message.find("engine=") != std::string::npos;
    EXPECT_TRUE(named) << o.message;  // a legacy algorithm or a backend engine
  }
}

// The cuDNN row in every precision of the family: bf16 / fp16 problems run cuDNN on the same
// 16-bit data as the kernels, its 16-bit output widened and judged against the float64 reference
// of the FP32 data within the precision's bound (the session fails the row otherwise). The
// 16-bit rows cannot be exact, and a bf16 row judged by fp16's tighter bound must fail: the
// output compared is cuDNN's rounded one, not the reference's.
TEST(Conv2dCudaBackend, CudnnBaselineVerifiesInEachPrecision) {
  KTUNE_REQUIRE_GPU();
  auto backend = open_backend(family(), "cuda:0");
  TimingPolicy policy;
  policy.min_reps = 2, policy.max_reps = 2;
  int planted = 0;
  for (const gemm::Precision p :
       {gemm::Precision::fp32, gemm::Precision::bf16, gemm::Precision::fp16}) {
    for (Shape s : test_shapes()) {
      s.precision = p;
      auto session = backend->open(problem_of(s));
      if (session->vendors().empty()) GTEST_SKIP() << "built without cuDNN";
      const Outcome o = session->run_vendor("cudnn", policy);
      const std::string where = problem_of(s).key() + ": " + o.message;
      ASSERT_EQ(o.status, Status::ok) << where;
      EXPECT_NE(o.message.find(std::string("cudnn ") + gemm::precision_name(p)), std::string::npos)
          << where;
      EXPECT_LE(o.rel_error, error_bound(s, p == gemm::Precision::fp32 ? 4 : 2)) << where;
      if (p == gemm::Precision::fp32) continue;
      EXPECT_GT(o.rel_error, 0.0) << where;
      if (p != gemm::Precision::bf16 || s.output_elements() < 1000) continue;
      Shape tighter = s;
      tighter.precision = gemm::Precision::fp16;
      EXPECT_GT(o.rel_error, error_bound(tighter)) << where << ": bf16 output passed fp16's bound";
      ++planted;
    }
  }
  EXPECT_GT(planted, 0);
}

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
