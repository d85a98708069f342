// GEMM precisions on the host: the `precision` problem feature (absent = fp32, so FP32 keys do
// not change), per-precision workloads, the refusal of FP32 kinds and vendors for tensor-core
// problems, bf16 on the CPU, and the per-precision error bound against emulated rounding with
// planted errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace ktune {
namespace {

using kernels::gemm::Precision;
namespace gemm = kernels::gemm;

TEST(GemmPrecision, Fp32KeysAreUnchangedAndOthersCarryTheFeature) {
  gemm::Shape s;
  s.m = 64, s.n = 32, s.k = 16;
  EXPECT_EQ(gemm::problem_of(s).key(), "transa=0;transb=0;m=64;n=32;k=16;batch=1");
  s.precision = Precision::bf16;
  const Problem p = gemm::problem_of(s);
  EXPECT_EQ(p.key(), "transa=0;transb=0;m=64;n=32;k=16;batch=1;precision=2");
  EXPECT_EQ(gemm::shape_of(Problem::parse(p.key())).precision, Precision::bf16);
  EXPECT_EQ(gemm::shape_of(Problem::parse("transa=0;transb=0;m=1;n=1;k=1;batch=1")).precision,
            Precision::fp32);
  EXPECT_THROW(gemm::shape_of(Problem::parse("transa=0;transb=0;m=1;n=1;k=1;batch=1;precision=4")),
               Error);
  EXPECT_EQ(gemm::with_precision(p, Precision::fp32).key(),
            "transa=0;transb=0;m=64;n=32;k=16;batch=1");
  EXPECT_EQ(gemm::parse_precision("tf32"), Precision::tf32);
  EXPECT_THROW(gemm::parse_precision("fp8"), Error);
}

TEST(GemmPrecision, WorkloadsRunPerPrecision) {
  register_builtin();
  const Family& family = find_family("gemm");
  const Workload fp32 = load_workload(family, "tiny");
  const Workload bf16 = load_workload(family, "tiny@bf16");
  ASSERT_EQ(fp32.problems.size(), bf16.problems.size());
  for (size_t i = 0; i < fp32.problems.size(); ++i) {
    EXPECT_EQ(fp32.problems[i].key().find("precision"), std::string::npos);
    EXPECT_EQ(bf16.problems[i].key(), fp32.problems[i].key() + ";precision=2");
    EXPECT_EQ(bf16.problems[i].tags, fp32.problems[i].tags);
  }
  EXPECT_EQ(load_workload(family, "large@tf32").problems.size(),
            load_workload(family, "large").problems.size());
  EXPECT_THROW(load_workload(family, "tiny@fp8"), Error);
}

// The CPU backend's session on the first problem of `workload`, and a one-run timing policy.
struct CpuSession {
  const Family& family;
  std::unique_ptr<ProblemSession> session;
  TimingPolicy quick;
  explicit CpuSession(const std::string& workload)
      : family((register_builtin(), find_family("gemm"))),
        session(open_backend(family, "cpu")->open(load_workload(family, workload).problems[0])) {
    quick.warmups = 0;
    quick.min_reps = quick.max_reps = 1;
  }
  Outcome run(const std::string& config) {
    return session->run(family.space().parse(config), quick);
  }
};

TEST(GemmPrecision, CpuKindsAndVendorsRefuseTensorCorePrecisions) {
  CpuSession cpu("tiny@tf32");
  const Outcome o = cpu.run("r=2;a=2;c=2;wg=8x8");
  EXPECT_EQ(o.status, Status::refused);
  EXPECT_NE(o.message.find("tf32"), std::string::npos) << o.message;
  EXPECT_EQ(cpu.run("kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072;pa=1;pb=1").status,
            Status::refused);
  for (const std::string& vendor : cpu.session->vendors())
    EXPECT_EQ(cpu.session->run_vendor(vendor, cpu.quick).status, Status::refused) << vendor;
}

// bf16 on the CPU: packedz runs its bf16 kernels (verified against the FP32 inputs' reference
// with the bf16 bound) where the CPU has AVX512_BF16 and is refused elsewhere; the FP32-only
// kinds and OpenBLAS (no exported cblas_sbgemm) are refused; oneDNN runs its bf16 matmul.
TEST(GemmPrecision, CpuRunsBf16OnPackedzAndOnednnAndRefusesTheRest) {
  CpuSession cpu("tiny@bf16");
  const Outcome seed = cpu.run("r=2;a=2;c=2;wg=8x8");
  EXPECT_EQ(seed.status, Status::refused);
  EXPECT_NE(seed.message.find("bf16"), std::string::npos) << seed.message;
  const Outcome z = cpu.run("kind=packedz;mr=32;nr=12;kc=256;mc=192;nc=3072;pa=1;pb=1");
  const std::string missing = kernels::gemm::cpu::packedz_bf16_missing();
  EXPECT_EQ(z.status, missing.empty() ? Status::ok : Status::refused) << z.message;
  if (!missing.empty()) {
    EXPECT_EQ(z.message, missing);
  }
  for (const std::string& vendor : cpu.session->vendors()) {
    const Outcome o = cpu.session->run_vendor(vendor, cpu.quick);
    EXPECT_EQ(o.status, vendor == "onednn" ? Status::ok : Status::refused)
        << vendor << ": " << o.message;
  }
}

// C = op(A) op(B) with A and B rounded to the precision first, accumulated exactly (float64):
// what a correct tensor-core kernel computes up to FP32 accumulation. drop_last_k leaves out the
// last min(k / 2, 32) k terms (a planted bug: a K tile lost).
std::vector<double> emulated(const gemm::Shape& s, const std::vector<float>& a,
                             const std::vector<float>& b, Precision q, bool drop_last_k) {
  std::vector<float> ra(a.size()), rb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ra[i] = gemm::round_input(a[i], q);
  for (size_t i = 0; i < b.size(); ++i) rb[i] = gemm::round_input(b[i], q);
  for (int64_t p = s.k - std::min<int64_t>(s.k / 2, 32); drop_last_k && p < s.k; ++p)
    for (int64_t i = 0; i < s.m; ++i) ra[size_t(i + p * s.lda)] = 0.0f;  // (s.transa == false)
  return gemm::reference_gemm(s, ra.data(), rb.data(), 1.0, 0.0, nullptr);
}

double rel_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    diff += (x[i] - ref[i]) * (x[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff / norm);
}

// A 24 x 20 x k product of random FP32 inputs and its float64 reference.
struct RandomProduct {
  gemm::Shape s;
  std::vector<float> a, b;
  std::vector<double> ref;
};
RandomProduct random_product(int64_t k, uint64_t seed) {
  RandomProduct p;
  p.s.m = 24, p.s.n = 20, p.s.k = k, p.s.lda = 24, p.s.ldb = k, p.s.ldc = 24;
  p.a = gemm::random_matrix(size_t(p.s.m * k), seed + uint64_t(k));
  p.b = gemm::random_matrix(size_t(k * p.s.n), seed + 1 + uint64_t(k));
  p.ref = gemm::reference_gemm(p.s, p.a.data(), p.b.data(), 1.0, 0.0, nullptr);
  return p;
}

TEST(GemmPrecision, ErrorBoundAdmitsInputRoundingAndCatchesAPlantedError) {
  EXPECT_EQ(gemm::input_unit_roundoff(Precision::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(gemm::input_unit_roundoff(Precision::fp16), std::ldexp(1.0, -11));
  EXPECT_EQ(gemm::input_unit_roundoff(Precision::tf32), std::ldexp(1.0, -10));  // truncation
  EXPECT_EQ(gemm::error_bound(100, Precision::fp32), gemm::error_bound(100));
  for (int64_t k : {16, 256, 4096}) {
    const auto [s, a, b, ref] = random_product(k, 7);
    for (Precision q : {Precision::tf32, Precision::bf16, Precision::fp16}) {
      const double right = rel_error(emulated(s, a, b, q, false), ref);
      EXPECT_LE(right, gemm::error_bound(k, q)) << gemm::precision_name(q) << " k=" << k;
      // The rounding is real: the FP32 bound alone would fail a correct kernel.
      EXPECT_GT(right, gemm::error_bound(k)) << gemm::precision_name(q) << " k=" << k;
      const double wrong = rel_error(emulated(s, a, b, q, true), ref);
      EXPECT_GT(wrong, gemm::error_bound(k, q)) << gemm::precision_name(q) << " k=" << k;
    }
  }
}

// C in the 16-bit input type (gemm_ex's GemmOutput bf16 / fp16): the emulated product rounded once
// more at the store. The output term (u_out, a worst case) must admit it on top of the input
// rounding, the rounding alone must stay within u_out (and be real: above u_out / 8), and a lost K
// tile must still fail the bound.
TEST(GemmPrecision, OutputRoundingBoundAdmitsA16BitStoreAndCatchesAPlantedError) {
  for (Precision q : {Precision::bf16, Precision::fp16}) {
    const double u = gemm::input_unit_roundoff(q);
    EXPECT_EQ(gemm::error_bound_16bit_output(64, q), gemm::error_bound(64, q) + u);
    for (int64_t k : {16, 256, 4096}) {
      const auto [s, a, b, ref] = random_product(k, 27);
      auto stored = [&, q = q](std::vector<double> x) {
        for (double& v : x) v = gemm::round_input(float(v), q);
        return x;
      };
      const std::vector<double> exact = emulated(s, a, b, q, false);
      const double store_only = rel_error(stored(exact), exact);
      EXPECT_LE(store_only, u) << gemm::precision_name(q) << " k=" << k;
      EXPECT_GT(store_only, u / 8) << gemm::precision_name(q) << " k=" << k;
      const double right = rel_error(stored(exact), ref);
      EXPECT_LE(right, gemm::error_bound_16bit_output(k, q))
          << gemm::precision_name(q) << " k=" << k;
      const double wrong = rel_error(stored(emulated(s, a, b, q, true)), ref);
      EXPECT_GT(wrong, gemm::error_bound_16bit_output(k, q))
          << gemm::precision_name(q) << " k=" << k;
    }
  }
}

// What the wgmma tf32 kind computes: FP32 words whose low 13 mantissa bits the tensor cores
// ignore (truncation toward zero), accumulated exactly. Biased, unlike rounding to nearest (its
// error of C stays near 2^-10 whatever k): the tf32 bound (u = 2^-10) must admit it, and a lost
// K tile must still fail it.
float truncate_tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits &= 0xFFFFE000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

TEST(GemmPrecision, ErrorBoundAdmitsTf32TruncationAndCatchesAPlantedError) {
  EXPECT_EQ(truncate_tf32(1.0f + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -11)),
            1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(truncate_tf32(-1.0f - std::ldexp(1.0f, -11)), -1.0f);  // toward zero
  for (int64_t k : {16, 256, 4096}) {
    const auto [s, a, b, ref] = random_product(k, 17);
    std::vector<float> ta(a.size()), tb(b.size());
    for (size_t i = 0; i < a.size(); ++i) ta[i] = truncate_tf32(a[i]);
    for (size_t i = 0; i < b.size(); ++i) tb[i] = truncate_tf32(b[i]);
    const double right =
        rel_error(gemm::reference_gemm(s, ta.data(), tb.data(), 1.0, 0.0, nullptr), ref);
    EXPECT_LE(right, gemm::error_bound(k, Precision::tf32)) << "k=" << k;
    EXPECT_GT(right, gemm::error_bound(k)) << "k=" << k;
    // The bias: truncation errs more than rounding to nearest on the same data.
    EXPECT_GT(right, rel_error(emulated(s, a, b, Precision::tf32, false), ref)) << "k=" << k;
    for (int64_t p = k - std::min<int64_t>(k / 2, 32); p < k; ++p)  // a lost K tile
      for (int64_t i = 0; i < s.m; ++i) ta[size_t(i + p * s.lda)] = 0.0f;
    const double wrong =
        rel_error(gemm::reference_gemm(s, ta.data(), tb.data(), 1.0, 0.0, nullptr), ref);
    EXPECT_GT(wrong, gemm::error_bound(k, Precision::tf32)) << "k=" << k;
  }
}

TEST(GemmPrecision, RoundingMatchesTheFormats) {
  EXPECT_EQ(gemm::round_input(1.0f + std::ldexp(1.0f, -8), Precision::bf16), 1.0f);  // tie: even
  EXPECT_EQ(gemm::round_input(1.0f + std::ldexp(3.0f, -9), Precision::bf16),
            1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(gemm::round_input(1.0f + std::ldexp(1.0f, -11), Precision::tf32),
            1.0f + std::ldexp(1.0f, -10));  // tie: away from zero (cvt.rna)
  EXPECT_EQ(gemm::round_input(1.0f + std::ldexp(1.0f, -11), Precision::fp16), 1.0f);  // even
  EXPECT_EQ(gemm::round_input(std::ldexp(3.0f, -26), Precision::fp16),
            std::ldexp(1.0f, -24));  // subnormal half: 0.75 units of 2^-24 round to one
  EXPECT_EQ(gemm::to_input_bits({1.0f, -2.0f}, Precision::bf16),
            (std::vector<uint16_t>{0x3F80, 0xC000}));
  EXPECT_EQ(gemm::to_input_bits({1.0f, -2.0f}, Precision::fp16),
            (std::vector<uint16_t>{0x3C00, 0xC000}));
  EXPECT_TRUE(gemm::to_input_bits({1.0f}, Precision::tf32).empty());
}

}  // namespace
}  // namespace ktune
