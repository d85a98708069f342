// The instantiations of the AVX-512 packed CPU kernel: kPackedzMicroTiles × 4 transpose pairs,
// in builds whose kernels' target has AVX-512F (none elsewhere: the kind is refused there), in
// FP32 and in bf16 (run only where cpuid reports AVX512_BF16).
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"

#include <fmt/format.h>

#include <iterator>

#include "kernels/common/cpu/cpu_bf16_support.hpp"
#include "ktune/error.hpp"

#if defined(__AVX512F__)
#include "kernels/common/cpu/gemm_cpu_tile_table.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_bf16.hpp"
#endif

namespace ktune::kernels::gemm::cpu {

namespace {

#if defined(__AVX512F__)
template <int MR, int NR, bool TA, bool TB>
struct PackedzCall {
  static void run(const Args& args, const PackedParams& p) {
    gemm_packedz<MR, NR, TA, TB>(args, p.kc, p.mc, p.nc, p.pa == 1, p.pb == 1);
  }
};

constexpr auto kPackedzTable = tile_table<PackedzCall, kPackedzMicroTiles>(
    std::make_index_sequence<std::size(kPackedzMicroTiles)>{});

template <int MR, int NR, bool TA, bool TB>
struct PackedzBf16Call {
  static void run(const Bf16Args& args, const PackedParams& p) {
    gemm_packedz_bf16<MR, NR, TA, TB>(args, p.kc, p.mc, p.nc);
  }
};

constexpr auto kBf16Table = tile_table<PackedzBf16Call, kPackedzMicroTiles, Bf16Args>(
    std::make_index_sequence<std::size(kPackedzMicroTiles)>{});
#endif

}  // namespace

bool packedz_available() {
#if defined(__AVX512F__)
  return true;
#else
  return false;
#endif
}

void run_packedz(const Args& args, const PackedParams& p) {
  if (p.kc <= 0 || p.mc <= 0 || p.nc <= 0 || (p.pa != 0 && p.pa != 1) || (p.pb != 0 && p.pb != 1))
    throw Error(fmt::format(
        "gemm packedz: kc, mc and nc must be positive and pa, pb 0 or 1 (got kc={} mc={} nc={} "
        "pa={} pb={})",
        p.kc, p.mc, p.nc, p.pa, p.pb));
#if defined(__AVX512F__)
  run_tile(kPackedzTable, "packedz", args, p);
#else
  (void)args;
  throw Error(
      "gemm packedz: this build's kernels have no AVX-512 (KTUNE_NATIVE=OFF or a CPU without "
      "avx512f)");
#endif
}

std::string packedz_bf16_missing() {
  switch (kernels::cpu_isa::avx512_bf16_support()) {
    case kernels::cpu_isa::Bf16Support::ok:
      return "";
    case kernels::cpu_isa::Bf16Support::cpu_without_avx512_bf16:
      return "packedz bf16 needs AVX512_BF16 (vdpbf16ps): this CPU does not report it";
    case kernels::cpu_isa::Bf16Support::build_without_avx512:
      break;
  }
  return "packedz bf16 needs AVX-512: this build's kernels target a CPU without it";
}

void run_packedz_bf16(const Bf16Args& args, const PackedParams& p) {
  if (p.kc <= 0 || p.mc <= 0 || p.nc <= 0)
    throw Error(
        fmt::format("gemm packedz bf16: kc, mc and nc must be positive (got kc={} mc={} nc={})",
                    p.kc, p.mc, p.nc));
  if (const std::string missing = packedz_bf16_missing(); !missing.empty())
    throw Error("gemm " + missing);
#if defined(__AVX512F__)
  run_tile(kBf16Table, "packedz bf16", args, p);
#else
  (void)args;
#endif
}

}  // namespace ktune::kernels::gemm::cpu
