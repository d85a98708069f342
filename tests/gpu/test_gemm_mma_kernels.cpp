// The tensor-core GEMM kernels (kernels/gemm/cuda/gemm_mma.cuh) compiled by NVRTC and launched
// through gemm_mma_launch.hpp, against the host float64 reference of the FP32 inputs with the
// per-precision bound: every config of the `mma` kind x transposes x tf32 / bf16 / fp16, on an
// aligned shape and on a ragged one with odd leading dimensions (element copies), batches, a
// misaligned base pointer, alpha / beta; refusals. The compile check needs NVRTC only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "kernels/common/gemm_config.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_mma_launch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
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

NvrtcRequest mma_request(const BlockedParams& p, Precision precision, bool ta, bool tb,
                         const std::string& arch) {
  return ktune::test::kernel_request("gemm_mma.cuh",
                                     gcuda::mma_name_expression(p, precision, ta, tb), arch);
}

TEST(MmaGemmHost, ConfigTextNameExpressionAndSharedMemory) {
  const gemm::GemmConfig g =
      gemm::parse_gemm_config("kind=mma;bm=128;bn=64;bk=32;wm=64;wn=32;st=3");
  ASSERT_TRUE(g.valid);
  EXPECT_EQ(g.kind, gemm::Kind::mma);
  EXPECT_EQ(g.blocked.threads(), 128);  // 2 x 2 warps
  EXPECT_EQ(gcuda::mma_name_expression(g.blocked, Precision::bf16, true, false),
            "ktune_gemm_mma<128,64,32,64,32,3,2,1,0>");
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
  const auto [images, failures] = ktune::test::compile_all(requests);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(failures[i], "") << requests[i].name_expression;
    EXPECT_GT(images[i].cubin.size(), 4u) << requests[i].name_expression;
  }
}

class MmaGemmTest : public ktune::test::TensorCoreGemmTest {
 protected:
  NvrtcRequest request(const BlockedParams& p, Precision q, bool ta, bool tb) const override {
    return mma_request(p, q, ta, tb, arch_);
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
  // by that many elements.
  double run(const BlockedParams& p, Precision q, const Shape& s, float alpha, float beta,
             uint64_t seed, int a_offset = 0) {
    const ktune::test::GemmInputs in = ktune::test::gemm_inputs(s, beta, seed, a_offset);
    const auto ref =
        gemm::reference_gemm(s, in.a.data() + a_offset, in.b.data(), alpha, beta, in.c.data());
    const auto bytes_a = input_bytes(in.a, q), bytes_b = input_bytes(in.b, q);
    ktune::cuda::DeviceBuffer<char> a(bytes_a.size(), "A"), b(bytes_b.size(), "B");
    ktune::cuda::check(cudaMemcpy(a.data(), bytes_a.data(), a.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(A)");
    ktune::cuda::check(cudaMemcpy(b.data(), bytes_b.data(), b.bytes(), cudaMemcpyHostToDevice),
                       "cudaMemcpy(B)");
    auto c = ktune::test::upload(in.c, "C");
    const auto& k = kernel(p, q, s.transa, s.transb);
    const auto result = gcuda::launch_mma(
        k.function(), k.attributes().maxThreadsPerBlock, max_shared_, p, q, s.transa, s.transb, s.m,
        s.n, s.k, s.batch, alpha, a.data() + size_t(a_offset) * size_t(gemm::input_bytes(q)), s.lda,
        s.stride_a(), b.data(), s.ldb, s.stride_b(), beta, c.data(), s.ldc, s.stride_c(), nullptr);
    EXPECT_EQ(result.error, cudaSuccess) << result.message;
    if (result.refused) return -1;
    ktune::cuda::check(
        cudaDeviceSynchronize(),
        "cudaDeviceSynchronize(" + request(p, q, s.transa, s.transb).name_expression + ")");
    const auto out = ktune::test::download(c);
    return gemm::relative_error(s, out.data(), ref);
  }
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
  const auto configs = mma_space();
  const std::vector<BlockedParams> sample = {configs.front(), configs[configs.size() / 2],
                                             configs.back()};
  prepare(sample, kPrecisions);
  for (const BlockedParams& p : sample)
    for (Precision q : kPrecisions)
      for (int t = 0; t < 4; ++t) {
        const Shape s = make_shape(t & 1, t & 2, 130, 67, 33, 3);
        const double err = run(p, q, s, 0.75f, -0.5f, 5u, /*a_offset=*/1);
        if (err < 0) continue;
        EXPECT_LE(err, gemm::error_bound(s.k, q))
            << mma_request(p, q, t & 1, t & 2, arch_).name_expression;
      }
}

TEST_F(MmaGemmTest, RefusesFp32AndTooSmallLeadingDimensions) {
  const BlockedParams p = mma_space().front();
  const auto& k = kernel(p, Precision::bf16, false, false);
  float* none = nullptr;
  auto r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_, p,
                             Precision::fp32, false, false, 64, 64, 64, 1, 1.0f, none, 64, 0, none,
                             64, 0, 0.0f, none, 64, 0, nullptr);
  EXPECT_TRUE(r.refused);
  r = gcuda::launch_mma(k.function(), k.attributes().maxThreadsPerBlock, max_shared_, p,
                        Precision::bf16, false, false, 64, 64, 64, 1, 1.0f, none, 32, 0, none, 64,
                        0, 0.0f, none, 64, 0, nullptr);
  EXPECT_TRUE(r.refused);
  EXPECT_NE(r.message.find("leading dimension"), std::string::npos);
}

}  // namespace

namespace {

// Through the CUDA backend's sweep path: a bf16 problem runs the mma kind and the vendors in bf16
// (cuBLAS and cuBLASLt verified), and refuses an FP32 kind; an fp32 problem refuses mma.
TEST(MmaGemmBackend, PrecisionsPickTheirKindsAndVendors) {
  KTUNE_REQUIRE_GPU();
  ktune::register_builtin();
  ktune::register_cuda_backends();
  const ktune::Family& family = ktune::find_family("gemm");
  auto backend = ktune::open_backend(family, "cuda:0");
  const ktune::Config mma = family.space().parse("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3");
  const ktune::Config warp =
      family.space().parse("kind=warp;bm=64;bn=64;bk=8;wm=32;wn=32;tm=4;tn=4;st=3;gr=1;splits=1");
  backend->prepare({mma, warp});
  ktune::TimingPolicy quick;
  quick.warmups = 0;
  quick.min_reps = quick.max_reps = 1;
  for (const ktune::Problem& p : ktune::load_workload(family, "tiny@bf16").problems) {
    auto session = backend->open(p);
    const ktune::Outcome ok = session->run(mma, quick);
    EXPECT_EQ(ok.status, ktune::Status::ok) << p.key() << ": " << ok.message;
    const ktune::Outcome refused = session->run(warp, quick);
    EXPECT_EQ(refused.status, ktune::Status::refused) << p.key();
    EXPECT_NE(refused.message.find("bf16"), std::string::npos) << refused.message;
    for (const std::string& vendor : session->vendors()) {
      const ktune::Outcome v = session->run_vendor(vendor, quick);
      EXPECT_EQ(v.status, ktune::Status::ok) << vendor << " " << p.key() << ": " << v.message;
    }
  }
  auto fp32 = backend->open(ktune::load_workload(family, "tiny").problems.front());
  EXPECT_EQ(fp32->run(mma, quick).status, ktune::Status::refused);
  EXPECT_EQ(fp32->vendors(), std::vector<std::string>{"cublas"});
}

}  // namespace
