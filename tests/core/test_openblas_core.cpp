// A fair OpenBLAS on any CPU (kernels/gemm/cpu/openblas_core.hpp): which core to force from the
// detected one and the CPU's flags, planted here as an Intel Xeon's answers (no such CPU needed),
// and the float64 check that refuses a core computing wrong results.
#include <gtest/gtest.h>

#include <sstream>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/openblas_core.hpp"

namespace ktune {
namespace {

namespace cpu = kernels::gemm::cpu;
using Cores = std::vector<std::string>;

std::set<std::string> flags(const std::string& line) {
  std::istringstream cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: " + line +
                             "\nbugs\t\t: spectre_v1\nflags\t\t: ignored\n");
  return cpu::cpu_flags(cpuinfo);
}

const std::string kAvx2 = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma";
const std::string kAvx512 = kAvx2 + " avx512f avx512dq avx512cd avx512bw avx512vl";
const std::string kXeonAmx = kAvx512 + " avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8";

TEST(OpenblasCore, ReadsTheFirstFlagsLine) {
  const auto f = flags("avx2 fma");
  EXPECT_EQ(f, (std::set<std::string>{"avx2", "fma"}));
  std::istringstream none("processor\t: 0\n");
  EXPECT_TRUE(cpu::cpu_flags(none).empty());
}

TEST(OpenblasCore, PrescottOnAnAmxXeonForcesTheWidestCoreFirst) {
  // Debian's OpenBLAS 0.3.21 on the Intel Xeon of issue #27: detected `Prescott`.
  EXPECT_EQ(cpu::openblas_cores_to_try("Prescott", flags(kXeonAmx)),
            (Cores{"SapphireRapids", "Cooperlake", "SkylakeX", "Haswell", "Sandybridge"}));
  EXPECT_EQ(cpu::openblas_cores_to_try("Prescott", flags(kAvx512)),
            (Cores{"SkylakeX", "Haswell", "Sandybridge"}));
  EXPECT_EQ(cpu::openblas_cores_to_try("Core2", flags(kAvx2)), (Cores{"Haswell", "Sandybridge"}));
}

TEST(OpenblasCore, ANativeCoreAsWideAsTheFlagsIsLeftAlone) {
  EXPECT_TRUE(cpu::openblas_cores_to_try("Cooperlake", flags(kAvx512 + " avx512_bf16")).empty());
  EXPECT_TRUE(cpu::openblas_cores_to_try("SkylakeX", flags(kAvx512)).empty());
  EXPECT_TRUE(cpu::openblas_cores_to_try("Zen", flags(kAvx2)).empty());
  EXPECT_TRUE(cpu::openblas_cores_to_try("Prescott", flags("fpu sse sse2 sse3")).empty());
  // Only the cores wider than the native one: SkylakeX detected on an AMX Xeon.
  EXPECT_EQ(cpu::openblas_cores_to_try("SkylakeX", flags(kXeonAmx)),
            (Cores{"SapphireRapids", "Cooperlake"}));
}

// A plain triple loop: a correct GEMM of Args (column-major, strided batch, alpha and beta).
void naive_gemm(const cpu::Args& g) {
  for (int64_t e = 0; e < g.batch; ++e)
    for (int64_t j = 0; j < g.n; ++j)
      for (int64_t i = 0; i < g.m; ++i) {
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          const float a = g.a[e * g.stride_a + (g.transa ? i * g.lda + p : p * g.lda + i)];
          const float b = g.b[e * g.stride_b + (g.transb ? p * g.ldb + j : j * g.ldb + p)];
          sum += double(a) * b;
        }
        float& c = g.c[e * g.stride_c + j * g.ldc + i];
        c = float(g.alpha * sum + g.beta * double(c));
      }
}

TEST(OpenblasCore, TheFloat64CheckPassesACorrectGemmAndRefusesAWrongOne) {
  const auto good = cpu::check_gemm_against_float64(naive_gemm);
  EXPECT_TRUE(good.ok) << good.message;
  EXPECT_NE(good.message.find("max relative error"), std::string::npos);
  // A core whose kernel drops beta (or any other slip) is refused, naming the shape.
  const auto no_beta = cpu::check_gemm_against_float64([](const cpu::Args& g) {
    cpu::Args wrong = g;
    wrong.beta = 0;
    naive_gemm(wrong);
  });
  EXPECT_FALSE(no_beta.ok);
  EXPECT_NE(no_beta.message.find("beyond the bound"), std::string::npos) << no_beta.message;
  // One transpose pair wrong is enough.
  const auto bad_tn = cpu::check_gemm_against_float64([](const cpu::Args& g) {
    naive_gemm(g);
    if (g.transa && !g.transb) g.c[0] += 1;
  });
  EXPECT_FALSE(bad_tn.ok);
  EXPECT_NE(bad_tn.message.find("transa=1 transb=0"), std::string::npos) << bad_tn.message;
}

}  // namespace
}  // namespace ktune
