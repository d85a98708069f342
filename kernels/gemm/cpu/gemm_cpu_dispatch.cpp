// The 256 instantiations of the CPU seed kernel, indexed by (R, A, C, transa, transb).
#include "kernels/gemm/cpu/gemm_cpu_dispatch.hpp"

#include <array>
#include <utility>

#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

using Fn = void (*)(const Args&, int, int);

constexpr int kValues[4] = {1, 2, 4, 8};

// Index = ((R slot * 4 + A slot) * 4 + C slot) * 4 + transa * 2 + transb.
template <size_t I>
constexpr Fn entry() {
  constexpr size_t tile = I / 4;
  return &gemm_seed<kValues[tile / 16], kValues[(tile / 4) % 4], kValues[tile % 4], (I & 2) != 0,
                    (I & 1) != 0>;
}

template <size_t... I>
constexpr std::array<Fn, 256> make_table(std::index_sequence<I...>) {
  return {entry<I>()...};
}

constexpr auto kSeedTable = make_table(std::make_index_sequence<256>{});

int slot(int v) {
  switch (v) {
    case 1:
      return 0;
    case 2:
      return 1;
    case 4:
      return 2;
    case 8:
      return 3;
    default:
      throw Error("gemm cpu: tile sizes must be 1, 2, 4 or 8");
  }
}

}  // namespace

void run_seed(const Args& args, const Tile& tile) {
  if (tile.wg_x < 1 || tile.wg_y < 1) throw Error("gemm cpu: work-group sizes must be positive");
  const int index = (slot(tile.r) * 16 + slot(tile.a) * 4 + slot(tile.c)) * 4 +
                    (args.transa ? 2 : 0) + (args.transb ? 1 : 0);
  kSeedTable[size_t(index)](args, tile.wg_x, tile.wg_y);
}

}  // namespace ktune::kernels::gemm::cpu
