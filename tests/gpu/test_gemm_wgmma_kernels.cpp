// The Hopper tensor-core GEMM kernels (kernels/gemm/cuda/gemm_wgmma.cuh) compiled by NVRTC for
// sm_90a and launched through gemm_wgmma_launch.hpp, against the host float64 reference of the
// FP32 inputs with the per-precision bound: every config of the `wgmma` kind x 4 transposes x
// bf16 / fp16 on a shape of whole tiles and on ragged batched ones (partial M, N and K tiles:
// TMA's zero fill and the predicated epilogue), alpha / beta; refusals (precisions, misaligned
// leading dimensions and base pointers). The compile check needs NVRTC only; the rest an sm_90
// device.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_wgmma_launch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/family.hpp"
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

const std::vector<Precision> kPrecisions = {Precision::bf16, Precision::fp16};

// The `wgmma` kind of the GEMM space in the space's order, read from the family.
std::vector<BlockedParams> wgmma_space() { return ktune::test::gemm_kind_configs("kind:wgmma"); }

NvrtcRequest wgmma_request(const BlockedParams& p, Precision precision, bool ta, bool tb) {
  return ktune::test::kernel_request("gemm_wgmma.cuh",
                                     gcuda::wgmma_name_expression(p, precision, ta, tb), "sm_90a");
}

TEST(WgmmaGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g = gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::wgmma);
  EXPECT_EQ(gcuda::wgmma_name_expression(g.blocked, Precision::bf16, true, false),
            "ktune_gemm_wgmma<128,256,4,8,2,1,0>");
  // 4 stages of (128 + 256) x 64 16-bit elements, 8 barriers, 1024 bytes of alignment slack.
  EXPECT_EQ(gemm::wgmma_smem_bytes(g.blocked), 4 * 384 * 128 + 64 + 1024);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4").valid);
  EXPECT_FALSE(gemm::parse_gemm_config("kind=wgmma;bm=128;bn=256;bk=64;st=4;gr=8;wm=64").valid);
  EXPECT_EQ(wgmma_space().size(), 24u);
  for (const BlockedParams& p : wgmma_space()) {
    EXPECT_TRUE(gcuda::wgmma_supported_params(p));
    EXPECT_LE(gemm::wgmma_smem_bytes(p), 227 * 1024);
  }
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::wgmma, Precision::bf16));
  EXPECT_TRUE(gemm::kind_serves(gemm::Kind::wgmma, Precision::fp16));
  EXPECT_FALSE(gemm::kind_serves(gemm::Kind::wgmma, Precision::tf32));
  EXPECT_FALSE(gemm::kind_serves(gemm::Kind::wgmma, Precision::fp32));
}

// NVRTC only: every config compiles for sm_90a in both precisions (the transpose pair cycles
// over the configs).
TEST(WgmmaGemmNvrtc, EveryConfigCompilesForSm90a) {
  ktune::test::ScopedCacheDir cache("wgmma-all");
  const auto configs = wgmma_space();
  std::vector<NvrtcRequest> requests;
  for (size_t i = 0; i < configs.size(); ++i)
    for (size_t q = 0; q < 2; ++q)
      requests.push_back(
          wgmma_request(configs[i], kPrecisions[q], (i + q) & 1, ((i + q) >> 1) & 1));
  ktune::test::expect_all_compile(requests);
}

class WgmmaGemmTest : public ktune::test::TensorCoreGemmTest {
 protected:
  void SetUp() override {
    TensorCoreGemmTest::SetUp();
    if (IsSkipped()) return;
    if (arch_ != "sm_90") GTEST_SKIP() << "wgmma needs an sm_90 device";
  }
  NvrtcRequest request(const BlockedParams& p, Precision q, bool ta, bool tb) const override {
    return wgmma_request(p, q, ta, tb);
  }

  struct Result {
    double error = -1;  // relative error, -1 when refused
    std::string message;
  };

  // C = alpha*op(A)*op(B) + beta*C0 against the float64 reference of the FP32 values (C0
  // NaN-poisoned when beta == 0). a_offset shifts A's base by that many elements.
  Result run(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
             uint64_t seed, int a_offset = 0) {
    const ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, a_offset);
    // The float64 reference depends on the FP32 values only, not on the precision or config.
    const std::string key =
        std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) + "," +
        std::to_string(s.batch) + "," + std::to_string(s.transa) + std::to_string(s.transb) + "," +
        std::to_string(s.lda) + "," + std::to_string(s.ldb) + "," + std::to_string(s.ldc) + "," +
        std::to_string(seed) + "," + std::to_string(alpha) + "," + std::to_string(beta) + "," +
        std::to_string(a_offset);
    auto& ref = references_[key];
    if (ref.empty())
      ref = gemm::reference_gemm(s, in.a.data() + a_offset, in.b.data(), alpha, beta, in.c.data());
    const auto bits_a = gemm::to_input_bits(in.a, q), bits_b = gemm::to_input_bits(in.b, q);
    auto a = upload_bits(bits_a, "A"), b = upload_bits(bits_b, "B");
    auto c = ktune::test::upload(in.c, "C");
    const auto& k = kernel(p, q, s.transa, s.transb);
    const auto launch =
        gcuda::launch_wgmma(k.function(), max_shared_, p, q, s.transa, s.transb, s.m, s.n, s.k,
                            s.batch, alpha, a.data() + a_offset, s.lda, s.stride_a(), b.data(),
                            s.ldb, s.stride_b(), beta, c.data(), s.ldc, s.stride_c(), nullptr);
    EXPECT_EQ(launch.error, cudaSuccess) << launch.message;
    if (launch.refused) return {-1, launch.message};
    ktune::cuda::check(
        cudaDeviceSynchronize(),
        "cudaDeviceSynchronize(" + wgmma_request(p, q, s.transa, s.transb).name_expression + ")");
    const auto out = ktune::test::download(c);
    return {gemm::relative_error(s, out.data(), ref), ""};
  }

  static ktune::cuda::DeviceBuffer<uint16_t> upload_bits(const std::vector<uint16_t>& host,
                                                         const char* name) {
    ktune::cuda::DeviceBuffer<uint16_t> out(host.size(), name);
    ktune::cuda::check(cudaMemcpy(out.data(), host.data(), out.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(16-bit input)");
    return out;
  }

 private:
  std::map<std::string, std::vector<double>> references_;
};

using ktune::test::make_shape;

// Leading dimensions padded to a multiple of 8 elements (16 bytes, what TMA needs): `pad` extra
// elements, rounded up.
Shape aligned_shape(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch) {
  Shape s = make_shape(ta, tb, m, n, k, batch);
  auto up8 = [](int64_t v) { return (v + 8) / 8 * 8; };  // at least one element of padding
  s.lda = up8(s.lda), s.ldb = up8(s.ldb), s.ldc = s.ldc + 1;
  return s;
}

// Every config x transposes x precision: whole tiles with exact leading dimensions; a ragged
// batched shape (partial M, N and K tiles, padded leading dimensions, odd ldc); and one of 24
// batches with more tiles than an H100 has SMs (132) for every tile shape and 5 K tiles, so that
// blocks take several tiles and the stage ring wraps (the persistent loop and the barriers'
// phases).
TEST_F(WgmmaGemmTest, EveryConfigTransposeAndPrecisionMatchesTheReference) {
  const auto configs = wgmma_space();
  prepare(configs, kPrecisions);
  int ran = 0;
  for (const BlockedParams& p : configs) {
    for (Precision q : kPrecisions) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        for (const Shape& s :
             {make_shape(ta, tb, 256, 256, 192, 1), aligned_shape(ta, tb, 77, 45, 70, 2),
              aligned_shape(ta, tb, 300, 260, 264, 24)}) {
          const Result r = run(p, q, s, 1.0f, 0.0f, 11u + unsigned(t));
          const std::string what = wgmma_request(p, q, ta, tb).name_expression +
                                   " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                   " k=" + std::to_string(s.k);
          EXPECT_GE(r.error, 0) << what << ": refused: " << r.message;
          if (r.error < 0) continue;
          ++ran;
          EXPECT_LE(r.error, gemm::error_bound(s.k, q)) << what;
        }
      }
    }
  }
  EXPECT_EQ(ran, int(configs.size()) * 2 * 4 * 3);
}

// alpha and beta (C read and scaled), k shorter than one K tile, one batch.
TEST_F(WgmmaGemmTest, AlphaBetaAndShortK) {
  for_three_configs(wgmma_space(), kPrecisions, [&](const BlockedParams& p, Precision q, int t) {
    const Shape s = aligned_shape(t & 1, t & 2, 130, 67, 24, 1);
    const Result r = run(p, q, s, 0.75f, -0.5f, 5u);
    ASSERT_GE(r.error, 0) << r.message;
    EXPECT_LE(r.error, gemm::error_bound(s.k, q))
        << wgmma_request(p, q, t & 1, t & 2).name_expression;
  });
}

// What TMA cannot address is refused, never computed wrongly: leading dimensions and base
// pointers off the 16-byte grid; and the precisions the kernel does not compute.
TEST_F(WgmmaGemmTest, RefusesMisalignedOperandsAndOtherPrecisions) {
  const BlockedParams p = wgmma_space().front();
  const Result odd_ld =
      run(p, Precision::bf16, make_shape(false, false, 77, 45, 70, 1, 1), 1, 0, 3);
  EXPECT_LT(odd_ld.error, 0);
  EXPECT_NE(odd_ld.message.find("16-byte"), std::string::npos) << odd_ld.message;
  const Result odd_base =
      run(p, Precision::fp16, make_shape(true, false, 64, 64, 64, 1), 1, 0, 3, /*a_offset=*/1);
  EXPECT_LT(odd_base.error, 0);
  const auto& k = kernel(p, Precision::bf16, false, false);
  float* none = nullptr;
  for (Precision q : {Precision::fp32, Precision::tf32}) {
    const auto r = gcuda::launch_wgmma(k.function(), max_shared_, p, q, false, false, 64, 64, 64, 1,
                                       1.0f, none, 64, 0, none, 64, 0, 0.0f, none, 64, 0, nullptr);
    EXPECT_TRUE(r.refused);
  }
}

}  // namespace
