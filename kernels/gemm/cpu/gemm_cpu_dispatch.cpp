// Runtime dispatch to the 256 instantiations of the CPU seed kernel (gemm_cpu_seed_table.hpp).
#include "kernels/gemm/cpu/gemm_cpu_dispatch.hpp"

#include <cstddef>

#include "kernels/gemm/cpu/gemm_cpu_seed_table.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

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
  const int index =
      ((slot(tile.r) * 16 + slot(tile.a) * 4 + slot(tile.c)) * 2) + (args.transb ? 1 : 0);
  const SeedTable& table = args.transa ? seed_table<true>() : seed_table<false>();
  table[std::size_t(index)](args, tile.wg_x, tile.wg_y);
}

}  // namespace ktune::kernels::gemm::cpu
