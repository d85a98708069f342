// The instantiations of the cpu_direct kernel: every (cols, vk, vc) of the space's kind,
// including those its register constraint excludes (tests reach them; the sweep does not).
#include "kernels/conv2d/cpu/conv2d_cpu_direct.hpp"

#include <fmt/format.h>

#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

namespace {

using Fn = void (*)(const Args&, int);

struct Variant {
  int cols, vk, vc;
  Fn fn;
};

template <int COLS, int VK, int VC>
constexpr Variant variant() {
  return {COLS, VK, VC, &direct_detail::conv<COLS, VK, VC / simd::kLanes>};
}

constexpr Variant kVariants[] = {variant<2, 2, 8>(),  variant<2, 3, 8>(),  variant<2, 4, 8>(),
                                 variant<3, 2, 8>(),  variant<3, 3, 8>(),  variant<3, 4, 8>(),
                                 variant<4, 2, 8>(),  variant<4, 3, 8>(),  variant<4, 4, 8>(),
                                 variant<2, 2, 16>(), variant<2, 3, 16>(), variant<2, 4, 16>(),
                                 variant<3, 2, 16>(), variant<3, 3, 16>(), variant<3, 4, 16>(),
                                 variant<4, 2, 16>(), variant<4, 3, 16>(), variant<4, 4, 16>()};

}  // namespace

void run_direct(const Args& args, const DirectParams& p) {
  if (p.rows < 1) throw Error(fmt::format("conv2d cpu_direct: rows {} must be positive", p.rows));
  for (const Variant& v : kVariants)
    if (v.cols == p.cols && v.vk == p.vk && v.vc == p.vc) return v.fn(args, p.rows);
  throw Error(fmt::format(
      "conv2d cpu_direct: no kernel for cols={} vk={} vc={} (cols, vk in 2..4, vc 8 or 16)", p.cols,
      p.vk, p.vc));
}

}  // namespace ktune::kernels::conv2d::cpu
