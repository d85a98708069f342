// The instantiations of the packed CPU kernel: kPackedMicroTiles × 4 transpose pairs.
#include "kernels/gemm/cpu/gemm_cpu_packed_dispatch.hpp"

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <string>
#include <utility>

#include "kernels/gemm/cpu/gemm_cpu_packed.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

using Fn = void (*)(const Args&, int, int, int);

struct Instance {
  MicroTile tile;
  Fn fn[4];  // index transa * 2 + transb
};

template <int MR, int NR>
constexpr Instance instance() {
  return {{MR, NR},
          {&gemm_packed<MR, NR, false, false>, &gemm_packed<MR, NR, false, true>,
           &gemm_packed<MR, NR, true, false>, &gemm_packed<MR, NR, true, true>}};
}

template <size_t... I>
constexpr std::array<Instance, sizeof...(I)> instances(std::index_sequence<I...>) {
  return {instance<kPackedMicroTiles[I].mr, kPackedMicroTiles[I].nr>()...};
}

constexpr auto kInstances =
    instances(std::make_index_sequence<std::size(kPackedMicroTiles)>{});

}  // namespace

void run_packed(const Args& args, const PackedParams& p) {
  if (p.kc <= 0 || p.mc <= 0 || p.nc <= 0)
    throw Error(fmt::format("gemm packed: kc, mc and nc must be positive (got kc={} mc={} nc={})",
                            p.kc, p.mc, p.nc));
  for (const Instance& t : kInstances)
    if (t.tile.mr == p.mr && t.tile.nr == p.nr) {
      t.fn[(args.transa ? 2 : 0) + (args.transb ? 1 : 0)](args, p.kc, p.mc, p.nc);
      return;
    }
  std::string supported;
  for (const MicroTile& t : kPackedMicroTiles)
    supported += fmt::format("{}{}x{}", supported.empty() ? "" : ", ", t.mr, t.nr);
  throw Error(fmt::format("gemm packed: unsupported micro-tile mr={} nr={} (supported: {})", p.mr,
                          p.nr, supported));
}

}  // namespace ktune::kernels::gemm::cpu
