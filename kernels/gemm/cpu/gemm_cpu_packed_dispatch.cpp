// The 28 instantiations of the packed CPU kernel: 7 micro-tiles × 4 transpose pairs.
#include "kernels/gemm/cpu/gemm_cpu_packed_dispatch.hpp"

#include <fmt/format.h>

#include "kernels/gemm/cpu/gemm_cpu_packed.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

using Fn = void (*)(const Args&, int, int, int);

struct MicroTile {
  int mr, nr;
  Fn fn[4];  // index transa * 2 + transb
};

template <int MR, int NR>
constexpr MicroTile micro_tile() {
  return {MR,
          NR,
          {&gemm_packed<MR, NR, false, false>, &gemm_packed<MR, NR, false, true>,
           &gemm_packed<MR, NR, true, false>, &gemm_packed<MR, NR, true, true>}};
}

// (mr/8)*nr accumulators plus the operands fit in 16 AVX2 registers.
constexpr MicroTile kTiles[] = {micro_tile<8, 4>(),  micro_tile<8, 6>(),  micro_tile<8, 8>(),
                                micro_tile<8, 12>(), micro_tile<16, 4>(), micro_tile<16, 6>(),
                                micro_tile<24, 4>()};

}  // namespace

void run_packed(const Args& args, const PackedParams& p) {
  if (p.kc <= 0 || p.mc <= 0 || p.nc <= 0)
    throw Error(fmt::format("gemm packed: kc, mc and nc must be positive (got kc={} mc={} nc={})",
                            p.kc, p.mc, p.nc));
  for (const MicroTile& t : kTiles)
    if (t.mr == p.mr && t.nr == p.nr) {
      t.fn[(args.transa ? 2 : 0) + (args.transb ? 1 : 0)](args, p.kc, p.mc, p.nc);
      return;
    }
  throw Error(fmt::format(
      "gemm packed: unsupported micro-tile mr={} nr={} (supported: 8x4, 8x6, 8x8, 8x12, 16x4, "
      "16x6, 24x4)",
      p.mr, p.nr));
}

}  // namespace ktune::kernels::gemm::cpu
