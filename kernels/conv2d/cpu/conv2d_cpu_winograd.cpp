// Kind cpu_winograd in the sweep (kernels/conv2d/cpu/conv2d_cpu_winograd.hpp), run by the packed
// GEMM's run-time dispatch; parameters checked here.
#include "kernels/conv2d/cpu/conv2d_cpu_winograd.hpp"

#include <fmt/format.h>

#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

namespace {

using winograd_detail::run;
using winograd_detail::transform_filter;

void check(const Shape& s, int m, int tiles) {
  if (auto why = winograd_refusal(s)) throw Error("conv2d " + *why);
  if (m != 2 && m != 4) throw Error(fmt::format("conv2d cpu_winograd: m = {} is not 2 or 4", m));
  if (tiles < 1) throw Error(fmt::format("conv2d cpu_winograd: tiles {} must be positive", tiles));
}

}  // namespace

std::optional<std::string> winograd_refusal(const Shape& s) {
  if (!s.winograd_applies())
    return fmt::format("cpu_winograd runs 3x3 stride-1 layers only (got {}x{}, stride {})", s.r,
                       s.s, s.stride);
  return std::nullopt;
}

void run_winograd(const Args& args, int m, const GemmParams& g, int tiles) {
  check(args.shape, m, tiles);
  if (m == 2) return run<2>(args, tiles, nullptr, packed_gemm(g));
  run<4>(args, tiles, nullptr, packed_gemm(g));
}

std::vector<float> winograd_transform_filter(const Shape& s, int m, const float* filter) {
  check(s, m, 1);
  std::vector<float> u(size_t((m + 2) * (m + 2) * s.k * s.c));
  if (m == 2)
    transform_filter<2>(s, filter, u.data());
  else
    transform_filter<4>(s, filter, u.data());
  return u;
}

void run_winograd_pretransformed(const Args& args, int m, const GemmParams& g, int tiles,
                                 const float* transformed) {
  check(args.shape, m, tiles);
  if (m == 2) return run<2>(args, tiles, transformed, packed_gemm(g));
  run<4>(args, tiles, transformed, packed_gemm(g));
}

}  // namespace ktune::kernels::conv2d::cpu
