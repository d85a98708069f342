// The tensor-core conv2d kind (cuda_igemm_mma) on the GPU: every config of the kind runs every
// layer of a set covering 1x1 (stride 1 and 2), 3x3 stride 1 and 2, the 7x7 stride-2 stem with
// c = 3, odd sizes, c off the 8-channel vector width (the element-wise loader), k off the block
// and the float2 store widths, and batch > 1, in bf16 and fp16, and in tf32 (FP32 data rounded to
// TF32 in the kernel; tiles whose FP32 stages exceed the device's shared memory refused), through
// the backend's sessions: random data (never zeros), output poisoned with NaN before the verified
// run, checked against the float64 reference of the FP32 data within the precision's bound. The
// FP32 kinds refuse these problems, and the tensor-core kind refuses FP32 ones.
#include <gtest/gtest.h>

#include <map>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_launch.hpp"
#include "ktune/cuda.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/conv2d_tc_checks.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace ktune::kernels::conv2d::cuda {
namespace {

using gemm::Precision;

using test::conv2d_family;
using test::in_precision;
using test::kind_configs;

// n, h, w, c, k, r, s, stride, pad.
std::vector<Shape> layers() {
  return {
      {1, 14, 14, 64, 128, 1, 1, 1, 0},  // 1x1 (the 16-byte loader)
      {2, 13, 11, 64, 72, 1, 1, 2, 0},   // 1x1 stride 2 (ResNet's projection), odd sizes
      {1, 12, 12, 32, 64, 3, 3, 1, 1},   // 3x3 stride 1
      {2, 15, 13, 48, 40, 3, 3, 2, 1},   // 3x3 stride 2, batch 2, k off the block widths
      {1, 23, 21, 3, 64, 7, 7, 2, 3},    // the stem: c = 3 (element-wise loader)
      {3, 9, 7, 12, 13, 3, 3, 1, 1},     // c off 8, odd k (scalar stores), batch 3
      {1, 7, 7, 256, 136, 3, 3, 1, 1},   // deep reduction (K = 2304), small spatial
      {1, 6, 5, 8, 200, 5, 5, 1, 2},     // 5x5, k over two blocks of 128
  };
}

TEST(Conv2dIgemmMma, EveryConfigVerifiesEveryLayerInBf16AndFp16) {
  KTUNE_REQUIRE_GPU();
  const Family& fam = conv2d_family();
  auto backend = open_backend(fam, "cuda:0");
  const std::vector<Config> configs = kind_configs(fam, "cuda_igemm_mma");
  ASSERT_EQ(configs.size(), 40u);
  backend->prepare(configs);
  std::map<Precision, double> worst;
  ASSERT_NO_FATAL_FAILURE(
      test::verify_every_config_in_16_bit(fam, *backend, configs, layers(), worst));
  // fp16 keeps 3 more mantissa bits than bf16: its errors are several times smaller.
  EXPECT_LT(worst[Precision::fp16] * 3, worst[Precision::bf16]);
}

TEST(Conv2dIgemmMma, EveryConfigVerifiesEveryLayerInTf32) {
  KTUNE_REQUIRE_GPU();
  const Family& fam = conv2d_family();
  auto backend = open_backend(fam, "cuda:0");
  const std::vector<Config> configs = kind_configs(fam, "cuda_igemm_mma");
  backend->prepare(configs);
  int device = 0, max_shared = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            cudaSuccess);
  int too_big = 0;
  const auto over_shared = [&](const Config& c, const Shape& s) {
    const CudaConvConfig g = parse_cuda_conv_config(fam.space().to_string(c));
    return igemm_mma_smem_bytes(g, s.precision) > max_shared;
  };
  for (const Config& c : configs) too_big += over_shared(c, in_precision(Shape{}, Precision::tf32));
  EXPECT_LT(too_big, int(configs.size()) / 4) << "most tiles must fit in FP32";
  std::map<Precision, double> worst;
  ASSERT_NO_FATAL_FAILURE(test::verify_every_config(
      fam, *backend, configs, layers(), {Precision::tf32, Precision::bf16}, worst, over_shared));
  // TF32 keeps 10 mantissa bits, bf16 7: its errors are several times smaller.
  EXPECT_LT(worst[Precision::tf32] * 3, worst[Precision::bf16]);
}

TEST(Conv2dIgemmMma, PrecisionsAndKindsRefuseEachOther) {
  KTUNE_REQUIRE_GPU();
  const Family& fam = conv2d_family();
  const Space& space = fam.space();
  auto backend = open_backend(fam, "cuda:0");
  const Config mma = space.parse("kind=cuda_igemm_mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3");
  const Config fp32_kind = space.parse("kind=cuda_im2col;bm=64;bn=64;bk=8;tm=8;tn=8");
  backend->prepare({mma, fp32_kind});
  TimingPolicy once;
  once.warmups = 0, once.min_reps = 1, once.max_reps = 1, once.budget_ms = 0;
  const Shape layer{1, 10, 10, 16, 32, 3, 3, 1, 1};
  auto fp32 = backend->open(problem_of(layer));
  EXPECT_EQ(fp32->run(mma, once).status, Status::refused);
  EXPECT_EQ(fp32->run(fp32_kind, once).status, Status::ok);
  auto bf16 = backend->open(problem_of(in_precision(layer, Precision::bf16)));
  const Outcome o = bf16->run(fp32_kind, once);
  EXPECT_EQ(o.status, Status::refused) << o.message;
  EXPECT_NE(o.message.find("bf16"), std::string::npos) << o.message;
  EXPECT_EQ(bf16->run(mma, once).status, Status::ok);
  auto tf32 = backend->open(problem_of(in_precision(layer, Precision::tf32)));
  const Outcome t = tf32->run(fp32_kind, once);
  EXPECT_EQ(t.status, Status::refused) << t.message;
  EXPECT_NE(t.message.find("tf32"), std::string::npos) << t.message;
  EXPECT_EQ(tf32->run(mma, once).status, Status::ok);
}

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
