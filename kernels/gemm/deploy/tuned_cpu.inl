// CPU half of a tuned GEMM library (ktune_add_tuned_library ... BACKENDS cpu). Included by the
// source the CMake function generates, after the selector header, with the namespace alias
// ktune_tuned_selector naming the header's namespace. Each shipped config is parsed at compile
// time (kernels/common/gemm_config.hpp) into the template arguments of its kernel, so the library
// holds exactly the K configs × 4 transposes and nothing else. A vendor candidate
// ("vendor=openblas", "vendor=onednn": gemm_vendor_config.hpp) is the vendor's call
// (deploy/vendor_cpu.hpp), linked by deploy/vendors.cmake. With tune-and-remember on
// (ktune/remember.hpp), a shape the selector answers kUnsure for is timed on its first call.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#if defined(__AVX512F__)
#include "kernels/gemm/cpu/gemm_cpu_packedz.hpp"
#endif
#include "kernels/common/gemm_config.hpp"
#include "kernels/gemm/deploy/gemm_validate.hpp"
#include "kernels/gemm/deploy/remember_gemm.hpp"
#include "kernels/gemm/deploy/vendor_cpu.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"
#include "ktune/gemm.hpp"
#include "ktune/remember.hpp"

namespace {

namespace sel = ktune_tuned_selector;
using ktune::kernels::gemm::cpu::Args;
using RunFn = void (*)(const Args&);

template <size_t I, bool TA, bool TB>
void run_kernel(const Args& args) {
  constexpr ktune::kernels::gemm::GemmConfig g =
      ktune::kernels::gemm::parse_gemm_config(sel::kConfigs[I]);
  static_assert(g.valid, "a config of the selector header does not parse as a GEMM config");
  static_assert(ktune::kernels::gemm::runs_on_cpu(g.kind),
                "the selector header ships a config whose kind has no CPU kernel");
  if constexpr (g.kind == ktune::kernels::gemm::Kind::seed) {
    ktune::kernels::gemm::cpu::gemm_seed<g.seed.r, g.seed.a, g.seed.c, TA, TB>(args, g.seed.wg_x,
                                                                               g.seed.wg_y);
  } else if constexpr (g.kind == ktune::kernels::gemm::Kind::packed) {
    ktune::kernels::gemm::cpu::gemm_packed<g.packed.mr, g.packed.nr, TA, TB>(
        args, g.packed.kc, g.packed.mc, g.packed.nc);
  } else {
#if defined(__AVX512F__)
    ktune::kernels::gemm::cpu::gemm_packedz<g.packed.mr, g.packed.nr, TA, TB>(
        args, g.packed.kc, g.packed.mc, g.packed.nc, g.packed.pa == 1, g.packed.pb == 1);
#else
    static_assert(g.kind != ktune::kernels::gemm::Kind::packedz,
                  "the selector ships packedz configs: build the library for an AVX-512 target "
                  "(CPU_FLAGS with -march=native or -mavx512f)");
#endif
  }
}

template <size_t I, bool TA, bool TB>
void run_config(const Args& args) {
  constexpr auto vendor = ktune::kernels::gemm::parse_vendor_call(sel::kConfigs[I]);
  if constexpr (vendor != ktune::kernels::gemm::VendorCall::none) {
    ktune::kernels::gemm::deploy::run_vendor_cpu<vendor>(args);  // transposes are in args
  } else {
    run_kernel<I, TA, TB>(args);
  }
}

// kRunners[config][transa * 2 + transb]
template <size_t... I>
constexpr std::array<std::array<RunFn, 4>, sizeof...(I)> make_runners(std::index_sequence<I...>) {
  return {{{&run_config<I, false, false>, &run_config<I, false, true>, &run_config<I, true, false>,
            &run_config<I, true, true>}...}};
}
constexpr auto kRunners = make_runners(std::make_index_sequence<size_t(sel::kNumConfigs)>{});

int choose(ktune::Trans transa, ktune::Trans transb, int64_t m, int64_t n, int64_t k,
           int64_t batch) {
  const int pick = sel::select(transa == ktune::Trans::yes ? 1 : 0,
                               transb == ktune::Trans::yes ? 1 : 0, m, n, k, batch);
  return pick >= 0 && pick < sel::kNumConfigs ? pick : sel::kBaseline;
}

// The library as the tune-and-remember cache keys it (KTUNE_TUNED_VERSION: the selector's hash,
// set by ktune_add_tuned_library).
#ifndef KTUNE_TUNED_VERSION
#define KTUNE_TUNED_VERSION "unversioned"
#endif
const ktune::remember::Library kRememberLibrary{"gemm", "cpu", KTUNE_TUNED_VERSION,
                                                sel::kNumConfigs, sel::kConfigs};

// The config to serve: the selector's pick, or with tune-and-remember on and the selector unsure
// (KTUNE_TUNED_HAS_UNSURE: the header states a kUnsure rule), the remembered one; a first call
// times the pick and the shipped safe order on the caller's A and B into a scratch C.
int served(int pick, const Args& args) {
#if defined(KTUNE_TUNED_HAS_UNSURE)
  const bool unsure = pick == sel::kUnsure;
#else
  const bool unsure = false;
#endif
  if (!ktune::remember::enabled() || !(unsure || ktune::remember::all_shapes())) return pick;
  ktune::kernels::gemm::deploy::RememberKey key;
  key.transa = args.transa, key.transb = args.transb;
  key.m = args.m, key.n = args.n, key.k = args.k, key.batch = args.batch;
  const ktune::remember::Shape shape = key.shape();
  const std::string& device = ktune::remember::host_device();
  if (const int known = ktune::remember::remembered(kRememberLibrary, device, shape); known >= 0)
    return known;  // the steady state: no callbacks built
  std::array<int, size_t(sel::kNumConfigs)> candidates{};
  const int n =
      ktune::remember::candidate_order(pick, sel::kSafeOrder, sel::kNumConfigs, candidates.data());
  const size_t transposes = size_t((args.transa ? 2 : 0) + (args.transb ? 1 : 0));
  return ktune::remember::choose(
      kRememberLibrary, device, shape, [&] { return key.problem(); }, candidates.data(), n,
      [&, scratch = std::vector<float>()](int config) mutable {
        const int64_t span = ktune::kernels::gemm::deploy::c_span_elements(
            args.m, args.n, args.batch, args.ldc, args.stride_c);
        if (scratch.empty()) {  // C as the caller passed it, so that beta reads real values
          scratch.assign(size_t(span), 0.f);
          if (args.beta != 0.f) std::copy(args.c, args.c + span, scratch.begin());
        }
        Args scratch_args = args;
        scratch_args.c = scratch.data();
        kRunners[size_t(config)][transposes](scratch_args);
      });
}

}  // namespace

namespace ktune {

void gemm_strided_batched(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, int64_t stride_a, const float* b,
                          int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                          int64_t stride_c, int64_t batch) {
  kernels::gemm::deploy::check_gemm_arguments("ktune::gemm", transa, transb, m, n, k, a, lda,
                                              stride_a, b, ldb, stride_b, c, ldc, stride_c, batch);
  if (m == 0 || n == 0 || batch == 0) return;
  Args args;
  args.transa = transa == Trans::yes;
  args.transb = transb == Trans::yes;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  args.alpha = alpha;
  args.beta = beta;
  args.a = a;
  args.lda = lda;
  args.stride_a = stride_a;
  args.b = b;
  args.ldb = ldb;
  args.stride_b = stride_b;
  args.c = c;
  args.ldc = ldc;
  args.stride_c = stride_c;
  if (k == 0 || alpha == 0.f) {  // C = beta * C (A and B not read, C not read when beta == 0)
    for (int64_t e = 0; e < batch; ++e)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          float& out = c[e * stride_c + j * ldc + i];
          out = beta == 0.f ? 0.f : beta * out;
        }
    return;
  }
  const int pick = served(choose(transa, transb, m, n, k, batch), args);
  kRunners[size_t(pick)][size_t((args.transa ? 2 : 0) + (args.transb ? 1 : 0))](args);
}

void gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemm_strided_batched(transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
}

const TunedGemmInfo& tuned_gemm_info_cpu() {
  static const TunedGemmInfo info{"cpu", sel::kNumConfigs, sel::kConfigs, sel::kBaseline};
  return info;
}

int tuned_gemm_choice_cpu(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                          int64_t batch) {
  return choose(transa, transb, m, n, k, batch);
}

}  // namespace ktune
