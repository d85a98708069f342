// The tensor-core GEMM kernels (kernels/gemm/cuda/gemm_mma.cuh) compiled by NVRTC and launched
// through gemm_mma_launch.hpp, against the host float64 reference of the FP32 inputs with the
// per-precision bound: every config of the `mma` kind x transposes x tf32 / bf16 / fp16, on an
// aligned shape and on a ragged one with odd leading dimensions (element copies), batches, a
// misaligned base pointer, alpha / beta; split-K (kind mmasplit: every tile x transposes x
// precisions, slice counts that do not divide k, empty slices, batches, alpha / beta); refusals.
// The compile check needs NVRTC only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_mma_launch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cubin_info.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"
#include "tests/gpu/gemm_kernel_fixture.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/tc_gemm_fixture.hpp"

namespace {

using ktune::cuda::NvrtcRequest;
using ktune::kernels::gemm::BlockedParams;
using ktune::kernels::gemm::Precision;
using ktune::kernels::gemm::Shape;
namespace gcuda = ktune::kernels::gemm::cuda;
namespace gemm = ktune::kernels::gemm;

const std::vector<Precision> kPrecisions = {Precision::tf32, Precision::bf16, Precision::fp16};

// The `mma` kind of the GEMM space in the space's order, read from the family.
std::vector<BlockedParams> mma_space() { return ktune::test::gemm_kind_configs("kind:mma"); }
std::vector<BlockedParams> mmasplit_space() {
  return ktune::test::gemm_kind_configs("kind:mmasplit");
}

NvrtcRequest mma_request(const BlockedParams& p, Precision precision, bool ta, bool tb,
                         const std::string& arch, bool c16 = false) {
  return ktune::test::kernel_request("gemm_mma.cuh",
                                     gcuda::mma_name_expression(p, precision, ta, tb, c16), arch);
}

TEST(MmaGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=3");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::mma);
  EXPECT_EQ(g.blocked.threads(), 128);  // 2 x 2 warps
  EXPECT_EQ(gcuda::mma_name_expression(g.blocked, Precision::bf16, true, false),
            "ktune_gemm_mma<128,64,32,64,32,3,2,1,0>");
  EXPECT_EQ(gcuda::mma_name_expression(g.blocked, Precision::bf16, true, false, /*c16=*/true),
            "ktune_gemm_mma<128,64,32,64,32,3,2,1,0,1>");
  // bf16, A K-contiguous (transposed): [128][32 + 8]; B K-contiguous: [64][32 + 8]; 3 stages.
  EXPECT_EQ(gcuda::mma_smem_bytes(g.blocked, Precision::bf16, true, false),
            3 * 2 * (128 * 40 + 64 * 40));
  // tf32, neither K-contiguous... A [32][128 + 8] floats, B [32][64 + 8] floats.
  EXPECT_EQ(gcuda::mma_smem_bytes(g.blocked, Precision::tf32, false, true),
            3 * 4 * (32 * 136 + 32 * 72));
  EXPECT_FALSE(gemm::parse_gemm_config("kind=mma;bm=128;bn=64;bk=32;wm=64;wn=32").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=3;tm=4").valid);
  EXPECT_EQ(mma_space().size(), 72u);
  for (const BlockedParams& p : mma_space()) EXPECT_TRUE(gcuda::mma_supported_params(p));
  // Only the tensor-core precisions, and only this kind for them.
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::mma, Precision::bf16));
  EXPECT_FALSE(gemm::kind_serves(gemm::Kind::mma, Precision::fp32));
  EXPECT_FALSE(gemm::kind_serves(gemm::Kind::warp, Precision::tf32));
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::warp, Precision::fp32));
}

TEST(MmaGemmHost, SplitKindIsTheMmaKernelOverKSlices) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=16");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::mmasplit);
  EXPECT_EQ(g.blocked.splits, 16);
  EXPECT_TRUE(gcuda::mma_supported_params(g.blocked));
  // One slice is the mma kind; the mma kind takes no splits.
  EXPECT_FALSE(
      gemm::parse_gemm_config("kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=1").valid);
  EXPECT_FALSE(
      gemm::parse_gemm_config("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=2").valid);
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::mmasplit, Precision::tf32));
  EXPECT_FALSE(gemm::kind_serves(gemm::Kind::mmasplit, Precision::fp32));
  const auto space = mmasplit_space();
  EXPECT_EQ(space.size(), 42u);
  for (const BlockedParams& p : space) {
    EXPECT_TRUE(gcuda::mma_supported_params(p));
    EXPECT_GE(p.splits, 2);
  }
  // 128 slices over k = 49284 (the worst dnn shape's): 416 k a slice (a multiple of bk = 32).
  BlockedParams p = g.blocked;
  p.splits = 128;
  EXPECT_EQ(gcuda::tiled_k_chunk(p, 49284), 416);
  EXPECT_EQ(gcuda::tiled_workspace_floats(p, 32, 27, 1), size_t(32 * 27 * 128));
}

// NVRTC only: every config compiles for sm_90, each in one precision and transpose pair that
// cycle over the configs, so every precision and pair is compiled in many tile shapes. (The full
// cross product costs CI three times as long; the GPU suite below compiles all of it.)
TEST(MmaGemmNvrtc, EveryConfigCompilesForSm90InACyclingPrecision) {
  ktune::test::ScopedCacheDir cache("mma-all");
  const auto configs = mma_space();
  std::vector<NvrtcRequest> requests;
  for (size_t i = 0; i < configs.size(); ++i)
    requests.push_back(
        mma_request(configs[i], kPrecisions[i % 3], (i / 3) & 1, (i / 6) & 1, "sm_90"));
  ktune::test::expect_all_compile(requests);
}

// NVRTC only: the split-K reductions into 16-bit C (gemm_out16.cuh, compiled with gemm_mma.cuh).
TEST(MmaGemmNvrtc, SixteenBitCReductionsCompileForSm90) {
  ktune::test::ScopedCacheDir cache("mma-reduce16");
  EXPECT_EQ(gcuda::splitk_reduce16_name_expression(Precision::bf16),
            "ktune_gemm_splitk_reduce16<2,256>");
  ktune::test::expect_all_compile(
      {ktune::test::kernel_request(
           "gemm_mma.cuh", gcuda::splitk_reduce16_name_expression(Precision::bf16), "sm_90"),
       ktune::test::kernel_request(
           "gemm_mma.cuh", gcuda::splitk_reduce16_name_expression(Precision::fp16), "sm_90")});
}

// A config of the mma kind, a precision and C type, and the blocks per SM it must keep.
struct RegisterCase {
  std::string config;
  Precision precision;
  bool c16;
  int blocks;
};

// NVRTC compiles each case (NN) and the registers ptxas gives it must leave at least its blocks
// per SM: 64K registers over (registers rounded up to 8) x threads.
void expect_blocks_per_sm(const std::vector<RegisterCase>& cases) {
  std::vector<NvrtcRequest> requests;
  std::vector<BlockedParams> params;
  for (const RegisterCase& c : cases) {
    const gemm::GemmConfig g = gemm::parse_gemm_config("kind=mma;" + c.config);
    ASSERT_TRUE(g.valid) << c.config;
    params.push_back(g.blocked);
    requests.push_back(mma_request(g.blocked, c.precision, false, false, "sm_90", c.c16));
  }
  const auto images = ktune::test::expect_all_compile(requests);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (images[i].cubin.empty()) continue;  // reported by expect_all_compile
    const int registers = ktune::cubin_register_count(images[i].cubin, images[i].lowered_name);
    const int threads = params[i].threads();
    const int blocks = 65536 / ((registers + 7) / 8 * 8 * threads);
    EXPECT_GE(blocks, cases[i].blocks) << requests[i].name_expression << ": " << registers
                                       << " registers x " << threads << " threads";
  }
}

// Each config in bf16, bf16 with 16-bit C and fp16.
std::vector<RegisterCase> sixteen_bit_cases(
    const std::vector<std::pair<std::string, int>>& configs) {
  std::vector<RegisterCase> cases;
  for (const auto& [config, blocks] : configs) {
    cases.push_back({config, Precision::bf16, false, blocks});
    cases.push_back({config, Precision::bf16, true, blocks});
    cases.push_back({config, Precision::fp16, false, blocks});
  }
  return cases;
}

// NVRTC only: the registers ptxas gives these configs leave them the blocks per SM they had
// before a run-time 16-bit-C test in the epilogue took bm=64 bn=128 wm=64 from 128 to 161
// registers (4 blocks an SM to 3; the small-k dnn shapes ran 7-30 % slower on an H200).
TEST(MmaGemmNvrtc, RegistersLeaveTheBlocksPerSmTheyHadBeforeTheC16Epilogue) {
  ktune::test::ScopedCacheDir cache("mma-registers");
  // Blocks: nvcc 13 -Xptxas -v, sm_90a, before the regression and after its fix.
  expect_blocks_per_sm(sixteen_bit_cases({{"bm=64;bn=64;bk=64;wm=32;wn=32;st=4", 4},
                                          {"bm=64;bn=128;bk=32;wm=64;wn=32;st=3", 4},
                                          {"bm=64;bn=128;bk=64;wm=32;wn=32;st=4", 2},
                                          {"bm=128;bn=64;bk=32;wm=32;wn=64;st=3", 4},
                                          {"bm=128;bn=64;bk=32;wm=32;wn=64;st=4", 4},
                                          {"bm=128;bn=64;bk=32;wm=64;wn=32;st=3", 4}}));
}

// NVRTC only: with the tiles addressed by 32-bit shared addresses, NVRTC (the sweeps) gives these
// configs the registers nvcc (the deployed library) gives them, one block per SM more than the
// 64-bit generic pointers NVRTC formed before allowed (tf32 157-164 registers -> 97-128, bf16
// 159-208 -> 98-133; scripts/mma_register_table.py, results/h200/mma-shared32-ab).
TEST(MmaGemmNvrtc, ThirtyTwoBitSharedAddressesGiveTheBlocksPerSmNvccGives) {
  ktune::test::ScopedCacheDir cache("mma-registers-shared32");
  std::vector<RegisterCase> cases = sixteen_bit_cases({{"bm=64;bn=128;bk=32;wm=32;wn=64;st=3", 3},
                                                       {"bm=64;bn=128;bk=32;wm=32;wn=64;st=4", 3},
                                                       {"bm=128;bn=64;bk=64;wm=32;wn=32;st=3", 2},
                                                       {"bm=128;bn=64;bk=64;wm=32;wn=32;st=4", 2}});
  for (const char* config :
       {"bm=64;bn=128;bk=32;wm=32;wn=32;st=3", "bm=64;bn=128;bk=32;wm=32;wn=32;st=4",
        "bm=128;bn=64;bk=32;wm=32;wn=32;st=3", "bm=128;bn=64;bk=32;wm=32;wn=32;st=4"})
    cases.push_back({config, Precision::tf32, false, 2});
  expect_blocks_per_sm(cases);
}

class MmaGemmTest : public ktune::test::TensorCoreGemmTest {
 protected:
  NvrtcRequest request(const BlockedParams& p, Precision q, bool ta, bool tb,
                       bool c16) const override {
    return mma_request(p, q, ta, tb, arch_, c16);
  }

  // The input bytes of values in precision q (16-bit bits or the floats themselves).
  static std::vector<char> input_bytes(const std::vector<float>& v, Precision q) {
    std::vector<char> out;
    const auto bits = gemm::to_input_bits(v, q);
    const char* from = bits.empty() ? reinterpret_cast<const char*>(v.data())
                                    : reinterpret_cast<const char*>(bits.data());
    out.assign(from, from + v.size() * size_t(gemm::input_bytes(q)));
    return out;
  }

  // C = alpha*op(A)*op(B) + beta*C0; the relative error against the float64 reference of the
  // FP32 values (C0 NaN-poisoned when beta == 0), or -1 when refused. a_offset shifts A's base
  // by that many elements. Split-K configs get a NaN-poisoned workspace (every partial sum the
  // reduction reads must have been written) and the reduction kernel. c16 (bf16 / fp16): C in
  // q's 16-bit type (C0 rounded to it, as the reference reads it; the 16-bit reduction).
  double run(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
             uint64_t seed, int a_offset = 0, bool c16 = false) {
    ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, a_offset);
    if (c16)
      for (float& x : in.c) x = gemm::round_input(x, q);
    const auto ref =
        gemm::reference_gemm(s, in.a.data() + a_offset, in.b.data(), alpha, beta, in.c.data());
    const auto bytes_a = input_bytes(in.a, q), bytes_b = input_bytes(in.b, q);
    ktune::cuda::DeviceBuffer<char> a(bytes_a.size(), "A"), b(bytes_b.size(), "B");
    ktune::cuda::check(cudaMemcpy(a.data(), bytes_a.data(), a.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(A)");
    ktune::cuda::check(cudaMemcpy(b.data(), bytes_b.data(), b.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(B)");
    const auto bytes_c = c16 ? input_bytes(in.c, q) : std::vector<char>();
    ktune::cuda::DeviceBuffer<char> c(c16 ? bytes_c.size() : in.c.size() * 4, "C");
    ktune::cuda::check(cudaMemcpy(c.data(), c16 ? bytes_c.data() : (const void*)in.c.data(),
                                  c.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(C)");
    const size_t partials = gcuda::tiled_workspace_floats(p, s.m, s.n, s.batch);
    auto ws = ktune::test::upload(std::vector<float>(partials, std::nanf("")), "workspace");
    const auto& k = kernel(p, q, s.transa, s.transb, c16);
    const auto result =
        gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_,
                          p.splits > 1 ? (c16 ? reduce16(q) : reduce()).function() : nullptr, p, q,
                          s.transa, s.transb, s.m, s.n, s.k, s.batch, alpha,
                          a.data() + size_t(a_offset) * size_t(gemm::input_bytes(q)), s.lda,
                          s.stride_a(), b.data(), s.ldb, s.stride_b(), beta, c.data(), s.ldc,
                          s.stride_c(), partials ? ws.data() : nullptr, nullptr, c16);
    EXPECT_EQ(result.error, cudaSuccess) << result.message;
    if (result.refused) return -1;
    ktune::cuda::check(
        cudaDeviceSynchronize(),
        "cudaDeviceSynchronize(" + request(p, q, s.transa, s.transb, c16).name_expression + ")");
    std::vector<float> out(in.c.size());
    std::vector<uint16_t> bits(c16 ? in.c.size() : 0);
    ktune::cuda::check(cudaMemcpy(c16 ? (void*)bits.data() : (void*)out.data(), c.data(), c.bytes(),
                                  cudaMemcpyDeviceToHost),
                       "cudaMemcpy(C back)");
    if (c16) out = gemm::from_input_bits(bits, q);
    return gemm::relative_error(s, out.data(), ref);
  }

  const ktune::cuda::LoadedKernel& reduce() {
    return reduce_.get(ktune::test::splitk_reduce_request(arch_));
  }
  // The split-K reduction into q's 16-bit C (gemm_out16.cuh, compiled with gemm_mma.cuh).
  const ktune::cuda::LoadedKernel& reduce16(Precision q) {
    return reduce_.get(ktune::test::kernel_request(
        "gemm_mma.cuh", gcuda::splitk_reduce16_name_expression(q), arch_));
  }

 private:
  ktune::test::LoadedKernels reduce_;
};

using ktune::test::make_shape;

// Every config x transposes x precision: a shape of whole tiles (16-byte copies), and a ragged
// batched one with leading dimensions padded by one element (element copies, partial tiles).
TEST_F(MmaGemmTest, EveryConfigTransposeAndPrecisionMatchesTheReference) {
  const auto configs = mma_space();
  prepare(configs, kPrecisions);
  int ran = 0, refused = 0;
  for (const BlockedParams& p : configs) {
    for (Precision q : kPrecisions) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        for (const Shape& s :
             {make_shape(ta, tb, 256, 256, 96, 1), make_shape(ta, tb, 77, 45, 70, 2, /*pad=*/1)}) {
          const double err = run(p, q, s, 1.0f, 0.0f, 11u + unsigned(t));
          const std::string what = mma_request(p, q, ta, tb, arch_).name_expression +
                                   " m=" + std::to_string(s.m) + " ld pad";
          if (err < 0) {
            ++refused;  // shared memory beyond the device (tf32 at the biggest tiles)
            EXPECT_EQ(q, Precision::tf32) << what;
            continue;
          }
          ++ran;
          EXPECT_LE(err, gemm::error_bound(s.k, q)) << what;
        }
      }
    }
  }
  EXPECT_GT(ran, refused);
}

// A base pointer off the 16-byte grid, odd k (a ragged last K tile), alpha and beta (C read).
TEST_F(MmaGemmTest, MisalignedBaseAlphaBetaAndOddK) {
  for_three_configs(mma_space(), kPrecisions, [&](const BlockedParams& p, Precision q, int t) {
    const Shape s = make_shape(t & 1, t & 2, 130, 67, 33, 3);
    const double err = run(p, q, s, 0.75f, -0.5f, 5u, /*a_offset=*/1);
    if (err < 0) return;
    EXPECT_LE(err, gemm::error_bound(s.k, q))
        << mma_request(p, q, t & 1, t & 2, arch_).name_expression;
  });
}

TEST_F(MmaGemmTest, RefusesFp32AndTooSmallLeadingDimensions) {
  const BlockedParams p = mma_space().front();
  const auto& k = kernel(p, Precision::bf16, false, false);
  float* none = nullptr;
  auto r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_, nullptr,
                             p, Precision::fp32, false, false, 64, 64, 64, 1, 1.0f, none, 64, 0,
                             none, 64, 0, 0.0f, none, 64, 0, nullptr, nullptr);
  EXPECT_TRUE(r.refused);
  r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_, nullptr, p,
                        Precision::bf16, false, false, 64, 64, 64, 1, 1.0f, none, 32, 0, none, 64,
                        0, 0.0f, none, 64, 0, nullptr, nullptr);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("leading dimension"), std::string::npos);
}

// Split-K: every tile of the mmasplit kind x transposes x precisions at slice counts that do not
// divide k (3), of the space (16) and so many that most slices are empty (128 over k = 200: 7
// slices of 32 or 64 k, the rest write zeros); a thin m x n with long k (the worst dnn shapes'
// form), a ragged batched shape with padded leading dimensions, and alpha / beta with A's base
// off the 16-byte grid (C read by the reduction).
TEST_F(MmaGemmTest, SplitKMatchesTheReference) {
  std::vector<BlockedParams> tiles;
  for (const BlockedParams& p : mmasplit_space())
    if (p.splits == 2) tiles.push_back(p);
  ASSERT_EQ(tiles.size(), 6u);
  prepare(tiles, kPrecisions);
  int ran = 0;
  for (BlockedParams p : tiles) {
    for (Precision q : kPrecisions) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        for (int splits : {3, 16, 128}) {
          p.splits = splits;
          const std::string what = mma_request(p, q, ta, tb, arch_).name_expression +
                                   " splits=" + std::to_string(splits);
          const Shape thin = make_shape(ta, tb, 40, 27, 3001, 1);
          const Shape ragged = make_shape(ta, tb, 77, 45, 200, 2, /*pad=*/1);
          for (const Shape& s : {thin, ragged}) {
            const double err = run(p, q, s, 1.0f, 0.0f, 17u + unsigned(t));
            ASSERT_GE(err, 0) << what << " refused";
            EXPECT_LE(err, gemm::error_bound(s.k, q)) << what << " m=" << s.m;
            ++ran;
          }
          const Shape s = make_shape(ta, tb, 66, 35, 517, 3);
          const double err = run(p, q, s, 0.75f, -0.5f, 23u, /*a_offset=*/1);
          ASSERT_GE(err, 0) << what << " refused";
          EXPECT_LE(err, gemm::error_bound(s.k, q)) << what << " alpha/beta";
        }
      }
    }
  }
  EXPECT_EQ(ran, 6 * 3 * 4 * 3 * 2);
}

// C in the inputs' 16-bit type (bf16 / fp16): three configs of mma and of mmasplit (at 3 and 16
// slices: the 16-bit reduction) x transposes, a ragged batched shape with padded leading
// dimensions (beta == 0: the NaN-poisoned 16-bit C is not read) and alpha / beta with A off the
// 16-byte grid (the old 16-bit C read), within the bound plus the output rounding. tf32 refuses
// 16-bit C.
TEST_F(MmaGemmTest, SixteenBitCMatchesTheReference) {
  const std::vector<Precision> sixteen = {Precision::bf16, Precision::fp16};
  int ran = 0;
  auto check = [&](const BlockedParams& p, Precision q, int t) {
    const bool ta = t & 1, tb = t & 2;
    const std::string what = mma_request(p, q, ta, tb, arch_).name_expression +
                             " splits=" + std::to_string(p.splits) + " c16";
    for (const auto& [s, alpha, beta, offset] :
         {std::tuple{make_shape(ta, tb, 77, 45, 200, 2, /*pad=*/1), 1.0f, 0.0f, 0},
          std::tuple{make_shape(ta, tb, 130, 67, 33, 3), 0.75f, -0.5f, 1}}) {
      const double err = run(p, q, s, alpha, beta, 29u + unsigned(t), offset, /*c16=*/true);
      ASSERT_GE(err, 0) << what << " refused";
      EXPECT_LE(err, gemm::error_bound_16bit_output(s.k, q)) << what << " m=" << s.m;
      ++ran;
    }
  };
  const auto configs = mma_space();
  std::vector<BlockedParams> sample = {configs.front(), configs[configs.size() / 2], configs.back(),
                                       mmasplit_space().front(), mmasplit_space().back()};
  sample[3].splits = sample[4].splits = 3;
  sample.push_back(mmasplit_space()[mmasplit_space().size() / 2]);
  sample.back().splits = 16;
  prepare(sample, sixteen, /*c16=*/true);
  for (const BlockedParams& p : sample)
    for (Precision q : sixteen)
      for (int t = 0; t < 4; ++t) check(p, q, t);
  EXPECT_EQ(ran, 2 * (3 + 3) * 2 * 4);
  const auto r = gcuda::launch_mma(
      kernel(mma_space().front(), Precision::tf32, false, false).function(), 1024, max_shared_,
      nullptr, mma_space().front(), Precision::tf32, false, false, 64, 64, 64, 1, 1.0f, nullptr, 64,
      0, nullptr, 64, 0, 0.0f, nullptr, 64, 0, nullptr, nullptr, /*c16=*/true);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("16-bit C"), std::string::npos) << r.message;
}

TEST_F(MmaGemmTest, SplitKRefusesAMissingOrOversizedWorkspace) {
  const BlockedParams p = mmasplit_space().front();
  ASSERT_GT(p.splits, 1);
  const auto& k = kernel(p, Precision::bf16, false, false);
  float* none = nullptr;
  auto r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_,
                             reduce().function(), p, Precision::bf16, false, false, 64, 64, 256, 1,
                             1.0f, none, 64, 0, none, 256, 0, 0.0f, none, 64, 0, nullptr, nullptr);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("workspace"), std::string::npos) << r.message;
  // 16384 x 16384 x 2 slices of FP32 partial sums: 2 GiB, over the limit.
  r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_,
                        reduce().function(), p, Precision::bf16, false, false, 16384, 16384, 256, 1,
                        1.0f, none, 16384, 0, none, 256, 0, 0.0f, none, 16384, 0,
                        reinterpret_cast<float*>(16), nullptr);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("1024 MiB"), std::string::npos) << r.message;
}

}  // namespace

namespace {

// Through the CUDA backend's sweep path: a bf16 problem runs the mma kind and the vendors in bf16
// (cuBLAS and cuBLASLt verified), and refuses an FP32 kind; an fp32 problem refuses mma.
// A cuBLASLt row asked for again in the same session (ktune retime's next turn) is timed again,
// not served the first turn's samples: the first ask's rows share one measurement (each once),
// a second ask of any of them measures every answer anew.
TEST(MmaGemmBackend, CublasLtRowsAskedAgainAreTimedAgain) {
  KTUNE_REQUIRE_GPU();
  ktune::register_builtin();
  ktune::register_cuda_backends();
  const ktune::Family& family = ktune::find_family("gemm");
  auto backend = ktune::open_backend(family, "cuda:0");
  ktune::TimingPolicy policy;
  policy.warmups = 0;
  policy.min_reps = policy.max_reps = 5;
  const ktune::Problem p = ktune::load_workload(family, "tiny@bf16").problems.back();
  auto session = backend->open(p);
  const ktune::Outcome first = session->run_vendor("cublaslt", policy);
  const ktune::Outcome top8 = session->run_vendor("cublaslt-top8", policy);
  const ktune::Outcome again = session->run_vendor("cublaslt", policy);
  ASSERT_EQ(first.status, ktune::Status::ok) << first.message;
  ASSERT_EQ(again.status, ktune::Status::ok) << again.message;
  ASSERT_EQ(first.timing.samples_ms.size(), 5u);
  // Five event timings of a new measurement repeating the first's exactly: not a new measurement.
  EXPECT_NE(again.timing.samples_ms, first.timing.samples_ms) << p.key();
  EXPECT_LE(top8.timing.median_ms, first.timing.median_ms);  // the same measurements' fastest
}

TEST(MmaGemmBackend, PrecisionsPickTheirKindsAndVendors) {
  KTUNE_REQUIRE_GPU();
  ktune::register_builtin();
  ktune::register_cuda_backends();
  const ktune::Family& family = ktune::find_family("gemm");
  auto backend = ktune::open_backend(family, "cuda:0");
  const ktune::Config mma = family.space().parse("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3");
  const ktune::Config split =
      family.space().parse("kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=8");
  const ktune::Config warp =
      family.space().parse("kind=warp;bm=64;bn=64;bk=8;wm=32;wn=32;tm=4;tn=4;st=3;gr=1;splits=1");
  backend->prepare({mma, split, warp});
  ktune::TimingPolicy quick;
  quick.warmups = 0;
  quick.min_reps = quick.max_reps = 1;
  // cuBLASLt's answers each have a row ("heuristic #i: ..." as the message; an answer the
  // heuristic does not offer for this shape is refused), and the top-8 row is the fastest of
  // those same measurements; every row ran verified against the reference.
  auto check_vendor_rows = [&](ktune::ProblemSession& session, const ktune::Problem& p) {
    double fastest_lt = 0;
    for (const std::string& vendor : session.vendors()) {
      const ktune::Outcome v = session.run_vendor(vendor, quick);
      const bool nth_answer = vendor.rfind("cublaslt;heuristic=", 0) == 0;
      if (nth_answer && v.status == ktune::Status::refused) {
        EXPECT_NE(v.message.find("offers"), std::string::npos) << v.message;
        continue;
      }
      EXPECT_EQ(v.status, ktune::Status::ok) << vendor << " " << p.key() << ": " << v.message;
      if (v.status != ktune::Status::ok || vendor == "cublas") continue;
      if (vendor == "cublaslt-top8") {
        EXPECT_DOUBLE_EQ(v.timing.median_ms, fastest_lt) << p.key();
        continue;
      }
      const std::string index = nth_answer ? vendor.substr(vendor.find('=') + 1) : "0";
      EXPECT_EQ(v.message.rfind("heuristic #" + index + ":", 0), 0u) << vendor << ": " << v.message;
      if (fastest_lt == 0 || v.timing.median_ms < fastest_lt) fastest_lt = v.timing.median_ms;
    }
    EXPECT_GT(fastest_lt, 0) << p.key() << ": no cuBLASLt answer ran";
  };
  for (const ktune::Problem& p : ktune::load_workload(family, "tiny@bf16").problems) {
    auto session = backend->open(p);
    const ktune::Outcome ok = session->run(mma, quick);
    EXPECT_EQ(ok.status, ktune::Status::ok) << p.key() << ": " << ok.message;
    const ktune::Outcome split_ok = session->run(split, quick);  // workspace + reduction
    EXPECT_EQ(split_ok.status, ktune::Status::ok) << p.key() << ": " << split_ok.message;
    const ktune::Outcome refused = session->run(warp, quick);
    EXPECT_EQ(refused.status, ktune::Status::refused) << p.key();
    EXPECT_NE(refused.message.find("bf16"), std::string::npos) << refused.message;
    check_vendor_rows(*session, p);
  }
  const ktune::Problem fp32_problem = ktune::load_workload(family, "tiny").problems.front();
  auto fp32 = backend->open(fp32_problem);
  EXPECT_EQ(fp32->run(mma, quick).status, ktune::Status::refused);
  EXPECT_EQ(fp32->run(split, quick).status, ktune::Status::refused);
  // FP32 problems have the same vendor rows, cuBLASLt in CUBLAS_COMPUTE_32F, each verified
  // against the FP32 problem's bound.
  check_vendor_rows(*fp32, fp32_problem);
}

}  // namespace
