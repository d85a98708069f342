#pragma once
// The run-time table of a packed kind's instantiations: one entry per micro-tile of the kind's
// list (gemm_config.hpp), each with its four transpose pairs, and the lookup that runs one.
// Shared by the packed and packedz dispatchers.
#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"
#include "kernels/common/gemm_config.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

// G: the call's arguments, Args (FP32 inputs) or Bf16Args.
template <class G>
struct TileInstance {
  MicroTile tile;
  void (*fn[4])(const G&, const PackedParams&);  // index transa * 2 + transb
};

// Call<MR, NR, TA, TB>::run(args, params) for every tile of Tiles.
template <template <int, int, bool, bool> class Call, const auto& Tiles, class G = Args,
          size_t... I>
constexpr std::array<TileInstance<G>, sizeof...(I)> tile_table(std::index_sequence<I...>) {
  return {TileInstance<G>{Tiles[I],
                          {&Call<Tiles[I].mr, Tiles[I].nr, false, false>::run,
                           &Call<Tiles[I].mr, Tiles[I].nr, false, true>::run,
                           &Call<Tiles[I].mr, Tiles[I].nr, true, false>::run,
                           &Call<Tiles[I].mr, Tiles[I].nr, true, true>::run}}...};
}

// Runs the table's entry for p.mr × p.nr; throws naming the kind and the supported tiles.
template <class G, size_t N>
void run_tile(const std::array<TileInstance<G>, N>& table, const char* kind, const G& args,
              const PackedParams& p) {
  for (const TileInstance<G>& t : table)
    if (t.tile.mr == p.mr && t.tile.nr == p.nr) {
      t.fn[(args.transa ? 2 : 0) + (args.transb ? 1 : 0)](args, p);
      return;
    }
  std::string supported;
  for (const TileInstance<G>& t : table)
    supported += fmt::format("{}{}x{}", supported.empty() ? "" : ", ", t.tile.mr, t.tile.nr);
  throw Error(fmt::format("gemm {}: unsupported micro-tile mr={} nr={} (supported: {})", kind, p.mr,
                          p.nr, supported));
}

}  // namespace ktune::kernels::gemm::cpu
