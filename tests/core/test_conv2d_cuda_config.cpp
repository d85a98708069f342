// The CUDA kinds of the conv2d space and their config decoder (conv2d_cuda_config.hpp, shared by
// the sweep and the deployed library): every CUDA config of the space decodes into its kernel
// parameters, nothing else does, and the kinds keep the sizes the H100 sweep measured.
#include <gtest/gtest.h>

#include <map>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"

namespace ktune::kernels::conv2d::cuda {
namespace {

TEST(Conv2dCudaConfig, EveryCudaConfigOfTheSpaceDecodesAndOnlyThose) {
  const Conv2dFamily family;
  const Space& space = family.space();
  std::map<std::string, int> per_kind;
  for (const Config& c : space.enumerate()) {
    const std::string text = space.to_string(c);
    const CudaConvConfig g = parse_cuda_conv_config(text);
    const std::string& kind = space.kind_name(c);
    EXPECT_EQ(g.valid, kind.rfind("cuda_", 0) == 0) << text;
    if (!g.valid) continue;
    ++per_kind[kind];
    if (g.kind == CudaKind::direct) {
      EXPECT_LE(g.tp * g.tq * g.vk, 32) << text;
    } else if (g.kind == CudaKind::igemm_wgmma) {
      EXPECT_EQ(g.tp * g.tq * g.wg_images(), 128) << text;
      EXPECT_LE(cuda_config_detail::wgmma_smem_bytes(g.bn, g.st),
                cuda_config_detail::kHopperMaxSharedBytes)
          << text;
    } else if (g.kind == CudaKind::igemm_mma) {
      EXPECT_GE(g.mma_threads(), 128) << text;
      EXPECT_LE(g.mma_threads(), 256) << text;
    } else {
      EXPECT_GE(g.gemm_threads(), 64) << text;
      EXPECT_LE(g.gemm_threads(), 256) << text;
    }
  }
  EXPECT_EQ(per_kind["cuda_direct"], 184);
  EXPECT_EQ(per_kind["cuda_im2col"], 37);
  EXPECT_EQ(per_kind["cuda_gemm1x1"], 37);
  EXPECT_EQ(per_kind["cuda_winograd"], 296);
  EXPECT_EQ(per_kind["cuda_igemm_mma"], 40);
  EXPECT_EQ(per_kind["cuda_igemm_wgmma"], 40);
  EXPECT_EQ(per_kind["cuda_igemm_wgmma_persist"], 40);
}

TEST(Conv2dCudaConfig, DecodesEachKindAndRejectsMalformedStrings) {
  constexpr CudaConvConfig d =
      parse_cuda_conv_config("kind=cuda_direct;tp=2;tq=4;vk=4;vc=4;smem=1;wg=128");
  static_assert(d.valid && d.kind == CudaKind::direct && d.tq == 4 && d.smem == 1);
  const CudaConvConfig w =
      parse_cuda_conv_config("kind=cuda_winograd;m=4;ft=each;tv=4;bm=64;bn=32;bk=16;tm=4;tn=8");
  ASSERT_TRUE(w.valid);
  EXPECT_TRUE(w.filter_each_run);
  EXPECT_EQ(w.m, 4);
  EXPECT_EQ(w.gemm_threads(), 64);
  EXPECT_FALSE(
      parse_cuda_conv_config("kind=cuda_winograd;m=3;ft=pre;tv=4;bm=64;bn=32;bk=16;tm=4;tn=8")
          .valid);  // F(3x3, 3x3) is not implemented
  EXPECT_FALSE(
      parse_cuda_conv_config("kind=cuda_winograd;m=2;ft=later;tv=4;bm=64;bn=32;bk=16;tm=4;tn=8")
          .valid);
  EXPECT_FALSE(parse_cuda_conv_config("kind=cuda_direct;tp=1").valid);  // params missing
  EXPECT_FALSE(parse_cuda_conv_config("tp=1;tq=1;vk=2;vc=1;smem=0;wg=128").valid);  // no kind
  EXPECT_FALSE(parse_cuda_conv_config("kind=cuda_gemm1x1;bm=64;bn=64;bk=8;tm=8;tn=8;m=2").valid);
  EXPECT_FALSE(parse_cuda_conv_config("kind=cpu_direct;rows=1;cols=2;vk=2;vc=8").valid);
  EXPECT_FALSE(parse_cuda_conv_config("kind=cuda_im2col;bm=6x;bn=64;bk=8;tm=8;tn=8").valid);
  constexpr CudaConvConfig t =
      parse_cuda_conv_config("kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=4");
  static_assert(t.valid && t.kind == CudaKind::igemm_mma && t.mma_threads() == 128 && t.st == 4);
  // The template's rules: warp tiles of whole 16 x 16 pairs dividing the block, K steps of 16,
  // at least two stages, whole 16-byte chunks per thread; and no GEMM thread tile.
  for (const char* bad : {"kind=cuda_igemm_mma;bm=128;bn=64;bk=24;wm=64;wn=32;st=4",
                          "kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=48;wn=32;st=4",
                          "kind=cuda_igemm_mma;bm=64;bn=64;bk=32;wm=128;wn=32;st=4",
                          "kind=cuda_igemm_mma;bm=0;bn=64;bk=32;wm=32;wn=32;st=4",
                          "kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=1",
                          "kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=64;wn=32",
                          "kind=cuda_igemm_mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=4;tm=8"})
    EXPECT_FALSE(parse_cuda_conv_config(bad).valid) << bad;
}

TEST(Conv2dCudaConfig, DecodesTheWgmmaKindAndItsTemplateRules) {
  constexpr CudaConvConfig g =
      parse_cuda_conv_config("kind=cuda_igemm_wgmma;tp=4;tq=8;bn=256;st=3");
  static_assert(g.valid && g.kind == CudaKind::igemm_wgmma && g.wg_images() == 4 && g.bn == 256);
  static_assert(g.persist == 0);
  // The persistent kind: the same kernel and params, PERSIST = 1.
  constexpr CudaConvConfig p =
      parse_cuda_conv_config("kind=cuda_igemm_wgmma_persist;tp=4;tq=8;bn=256;st=3");
  static_assert(p.valid && p.kind == CudaKind::igemm_wgmma && p.persist == 1 && p.bn == 256);
  // KtuneConvWgSmem<256, 3>::kBytes: 3 stages of a 16 KiB A and a 32 KiB B tile, 3 barrier pairs,
  // the 1 KiB alignment slack.
  static_assert(cuda_config_detail::wgmma_smem_bytes(256, 3) == 3 * (16384 + 32768) + 48 + 1024);
  // Rows not dividing 128, wgmma N not 64 / 128 / 256, one stage, shared memory past 227 KiB,
  // params of another kind, a param missing.
  for (const char* bad : {"kind=cuda_igemm_wgmma;tp=16;tq=16;bn=128;st=4",
                          "kind=cuda_igemm_wgmma;tp=3;tq=8;bn=128;st=4",
                          "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=96;st=4",
                          "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=1",
                          "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=256;st=6",
                          "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4;bm=128",
                          "kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128",
                          "kind=cuda_igemm_wgmma_persist;tp=8;tq=16;bn=256;st=6"})
    EXPECT_FALSE(parse_cuda_conv_config(bad).valid) << bad;
}

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
