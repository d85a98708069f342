// The instantiations of the AVX-512 packed CPU kernel: kPackedzMicroTiles × 4 transpose pairs,
// in builds whose kernels' target has AVX-512F (none elsewhere: the kind is refused there).
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"

#include <fmt/format.h>

#include <iterator>

#include "ktune/error.hpp"

#if defined(__AVX512F__)
#include "kernels/common/cpu/gemm_cpu_tile_table.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz.hpp"
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

}  // namespace ktune::kernels::gemm::cpu
