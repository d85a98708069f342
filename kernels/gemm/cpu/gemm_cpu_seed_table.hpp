#pragma once
// The CPU seed kernel's 256 instantiations (R, A, C, transa, transb) as two tables of 128, one
// per transa, each explicitly instantiated in a unit of its own (gemm_cpu_seed_table_n.cpp,
// gemm_cpu_seed_table_t.cpp, outside the unity batch): in one unit the 256 took 52 CPU-s, the
// longest compile of the main job's build, on one core while the other had nothing left to do.
#include <array>
#include <cstddef>
#include <utility>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"

namespace ktune::kernels::gemm::cpu {

using SeedFn = void (*)(const Args&, int, int);
using SeedTable = std::array<SeedFn, 128>;

inline constexpr int kSeedTileValues[4] = {1, 2, 4, 8};

// Index = ((R slot * 4 + A slot) * 4 + C slot) * 2 + transb (slot: the value's place in
// kSeedTileValues).
template <bool TransA, std::size_t... I>
constexpr SeedTable make_seed_table(std::index_sequence<I...>) {
  return {&gemm_seed<kSeedTileValues[I / 32], kSeedTileValues[(I / 8) % 4],
                     kSeedTileValues[(I / 2) % 4], TransA, (I & 1) != 0>...};
}

template <bool TransA>
const SeedTable& seed_table() {
  static constexpr SeedTable table = make_seed_table<TransA>(std::make_index_sequence<128>{});
  return table;
}

extern template const SeedTable& seed_table<false>();
extern template const SeedTable& seed_table<true>();

}  // namespace ktune::kernels::gemm::cpu
