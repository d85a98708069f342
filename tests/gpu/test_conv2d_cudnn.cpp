// The cuDNN baseline's layouts and APIs (kernels/conv2d/cuda/conv2d_cudnn.hpp). With a GPU and
// cuDNN: the NCHW path (inputs transposed into staged copies, output transposed back) of the
// legacy algorithms and of the backend engines, and the NHWC engines, match the host float64
// reference on every rotation copy; a poisoned NCHW output is not silently replaced by an earlier
// result; the sweep's vendor names the layout it chose among NHWC and NCHW.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#if KTUNE_HAVE_CUDNN
#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#endif

namespace ktune::kernels::conv2d::cuda {
namespace {

#if KTUNE_HAVE_CUDNN
// Ragged channels, stride 2, padding, 1x1 and 5x5.
const Shape kShapes[] = {{2, 10, 9, 12, 20, 3, 3, 1, 1},
                         {1, 11, 13, 3, 12, 3, 3, 2, 1},
                         {3, 5, 6, 32, 24, 1, 1, 1, 0},
                         {1, 12, 12, 4, 36, 5, 5, 1, 2}};

// find() on copy 0, stage() of copy 1, runs of both copies: each matches its own inputs'
// reference; restaging copy 0 with copy 1's inputs computes on those; for NCHW, a poisoned
// output that was not run fails verification after deliver().
void check_copies(CudnnLayouts layouts, CudnnApis apis, const std::string& expect) {
  CudnnHandle handle(nullptr);
  for (const Shape& s : kShapes) {
    const std::string where = problem_of(s).key() + " " + expect;
    const auto x0 = gemm::random_matrix(size_t(s.input_elements()), 21);
    const auto w0 = gemm::random_matrix(size_t(s.filter_elements()), 22);
    const auto x1 = gemm::random_matrix(size_t(s.input_elements()), 23);
    const auto w1 = gemm::random_matrix(size_t(s.filter_elements()), 24);
    auto dx0 = ktune::test::upload(x0, "x0"), dw0 = ktune::test::upload(w0, "w0");
    auto dx1 = ktune::test::upload(x1, "x1"), dw1 = ktune::test::upload(w1, "w1");
    ktune::cuda::DeviceBuffer<float> y0(size_t(s.output_elements()), "y0");
    ktune::cuda::DeviceBuffer<float> y1(size_t(s.output_elements()), "y1");
    CudnnConv conv(handle.get(), s, layouts, apis);
    conv.find(dx0.data(), dw0.data(), y0.data());
    EXPECT_NE(conv.description().find(expect), std::string::npos) << conv.description();
    conv.stage(1, dx1.data(), dw1.data(), y1.data());
    const double bound = error_bound(s, conv.transform_algorithm() ? 4 : 0);
    const auto ref0 = reference_conv2d(s, x0.data(), w0.data());
    const auto ref1 = reference_conv2d(s, x1.data(), w1.data());
    auto error_of = [&](const ktune::cuda::DeviceBuffer<float>& y, const std::vector<double>& ref) {
      ktune::cuda::check(cudaDeviceSynchronize(), "sync");
      return relative_error(s, ktune::test::download(y).data(), ref);
    };
    ASSERT_EQ(conv.run(dx1.data(), dw1.data(), y1.data(), 1), CUDNN_STATUS_SUCCESS) << where;
    ASSERT_EQ(conv.run(dx0.data(), dw0.data(), y0.data(), 0), CUDNN_STATUS_SUCCESS) << where;
    conv.deliver(y0.data());
    EXPECT_LE(error_of(y0, ref0), bound) << where;
    if (layouts == CudnnLayouts::nhwc) {
      EXPECT_LE(error_of(y1, ref1), bound) << where;
    }
    conv.stage(0, dx1.data(), dw1.data(), y0.data());
    ASSERT_EQ(conv.run(dx1.data(), dw1.data(), y0.data(), 0), CUDNN_STATUS_SUCCESS) << where;
    conv.deliver(y0.data());
    EXPECT_LE(error_of(y0, ref1), bound) << where;
    if (layouts != CudnnLayouts::nchw) continue;
    conv.poison();
    conv.deliver(y0.data());
    const double poisoned = error_of(y0, ref1);
    EXPECT_FALSE(poisoned <= bound) << where << ": " << poisoned;
  }
}

TEST(Conv2dCudnn, LegacyNchwStagedCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nchw, CudnnApis::legacy, "algo=");
}

TEST(Conv2dCudnn, EngineNchwStagedCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nchw, CudnnApis::engines, "engine=");
}

TEST(Conv2dCudnn, EngineNhwcCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nhwc, CudnnApis::engines, "engine=");
}

TEST(Conv2dCudnn, SweepVendorNamesTheLayoutItChose) {
  KTUNE_REQUIRE_GPU();
  register_builtin();
  register_cuda_backends();
  auto backend = open_backend(find_family("conv2d"), "cuda:0");
  for (const Shape& s : kShapes) {
    auto session = backend->open(problem_of(s));
    TimingPolicy policy;
    policy.min_reps = 2, policy.max_reps = 2;
    const Outcome o = session->run_vendor("cudnn", policy);
    EXPECT_EQ(o.status, Status::ok) << problem_of(s).key() << ": " << o.message;
    const bool named = o.message.find("layout=NHWC") != std::string::npos ||
                       o.message.find("layout=NCHW") != std::string::npos;
    EXPECT_TRUE(named) << o.message;
  }
}
#endif

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
