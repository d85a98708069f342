// The instantiations of the packed CPU kernel: kPackedMicroTiles × 4 transpose pairs.
#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"

#include <fmt/format.h>

#include <iterator>

#include "kernels/common/cpu/gemm_cpu_packed.hpp"
#include "kernels/common/cpu/gemm_cpu_tile_table.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

template <int MR, int NR, bool TA, bool TB>
struct PackedCall {
  static void run(const Args& args, const PackedParams& p) {
    gemm_packed<MR, NR, TA, TB>(args, p.kc, p.mc, p.nc);
  }
};

constexpr auto kTable = tile_table<PackedCall, kPackedMicroTiles>(
    std::make_index_sequence<std::size(kPackedMicroTiles)>{});

}  // namespace

void run_packed(const Args& args, const PackedParams& p) {
  if (p.kc <= 0 || p.mc <= 0 || p.nc <= 0)
    throw Error(fmt::format("gemm packed: kc, mc and nc must be positive (got kc={} mc={} nc={})",
                            p.kc, p.mc, p.nc));
  run_tile(kTable, "packed", args, p);
}

}  // namespace ktune::kernels::gemm::cpu
