// Kinds cpu_im2col and cpu_gemm1x1 in the sweep (kernels/conv2d/cpu/conv2d_cpu_gemm.hpp), run by
// the packed GEMM's run-time dispatch; parameters checked here.
#include "kernels/conv2d/cpu/conv2d_cpu_gemm.hpp"

#include <fmt/format.h>

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

std::function<void(const gemm::cpu::Args&)> packed_gemm(const GemmParams& g) {
  return [g](const gemm::cpu::Args& a) {
    gemm::cpu::run_packed(a, gemm::PackedParams{g.mr, g.nr, g.kc, 96, 3840});
  };
}

void run_im2col(const Args& args, const GemmParams& g, int rows) {
  if (rows < 1) throw Error(fmt::format("conv2d cpu_im2col: rows {} must be positive", rows));
  gemm_detail::im2col_conv(args, rows, packed_gemm(g));
}

std::optional<std::string> gemm1x1_refusal(const Shape& s) {
  if (s.r != 1 || s.s != 1 || s.stride != 1 || s.pad != 0)
    return fmt::format(
        "cpu_gemm1x1 runs 1x1 stride-1 unpadded layers only (got {}x{}, stride {}, "
        "pad {})",
        s.r, s.s, s.stride, s.pad);
  return std::nullopt;
}

void run_gemm1x1(const Args& args, const GemmParams& g) {
  if (auto why = gemm1x1_refusal(args.shape)) throw Error("conv2d " + *why);
  gemm_detail::gemm1x1_conv(args, packed_gemm(g));
}

}  // namespace ktune::kernels::conv2d::cpu
