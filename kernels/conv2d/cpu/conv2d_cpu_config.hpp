#pragma once
// A CPU conv2d config decoded into the template parameters of its kernel, constexpr, so that the
// deployed CPU library turns a selector's config strings into instantiations at compile time
// (the sweep decodes configs at run time through the space: conv2d_cpu_kernel.cpp).
//
// Kinds and their config strings (kernels in conv2d_cpu_direct.hpp, conv2d_cpu_gemm.hpp,
// conv2d_cpu_winograd.hpp; cpu_direct is the space's first kind, so its strings carry no kind):
//   cpu_direct    rows=4;cols=4;vk=3;vc=8
//   cpu_im2col    kind=cpu_im2col;mt=24x4;kc=128;rows=1024
//   cpu_gemm1x1   kind=cpu_gemm1x1;mt=16x6;kc=256
//   cpu_winograd  kind=cpu_winograd;m=4;mt=24x4;tiles=256   (K block 256)
//   cpu_plan      kind=cpu_plan;m=0;cols=384;rows=256 (conv2d_cpu_plan.hpp: m 0 for the implicit
//                 GEMM, 2 or 4 for Winograd; cols × rows the plan's largest task, pixels ×
//                 channels)
//   cpu_plan_fused  kind=cpu_plan_fused;m=4;tiles=24 (the plan's Winograd F(m×m, 3×3), m 2 or 4,
//                 in fused blocks of `tiles` tiles, each block's phases on one thread)
//   cpu_plan_tpad kind=cpu_plan_tpad;cols=192;rows=256 (the plan's implicit GEMM as cpu_plan m=0,
//                 each thread padding its own copy of the input: padded layers only)
//   cpu_plan_1x1  kind=cpu_plan_1x1;cols=192;rows=128;outer=1 (the plan's implicit GEMM as
//                 cpu_plan m=0, its tasks split evenly among the threads; outer 0: pixels
//                 outermost in every task: 1×1 unpadded layers only)
#include <string_view>

#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::conv2d::cpu {

enum class CpuKind { direct, im2col, gemm1x1, winograd, plan, plan_fused, plan_tpad, plan_1x1 };

// The kinds whose configs are prepared plans (ktune::CpuConv2dPlan; conv2d_cpu_plan.hpp).
constexpr bool is_plan_kind(CpuKind kind) {
  return kind == CpuKind::plan || kind == CpuKind::plan_fused || kind == CpuKind::plan_tpad ||
         kind == CpuKind::plan_1x1;
}

struct CpuConvConfig {
  CpuKind kind = CpuKind::direct;
  int rows = 0, cols = 0, vk = 0, vc = 0;  // cpu_direct (rows also cpu_im2col; cpu_plan*)
  int mr = 0, nr = 0, kc = 256;            // packed GEMM micro-tile and K block
  int m = 0, tiles = 0;  // cpu_winograd, cpu_plan_fused (m also cpu_plan: 0 = no Winograd)
  int outer = 1;         // cpu_plan_1x1: 1 channel panels outermost where rows > cols, 0 never
  bool valid = false;
};

namespace cpu_config_detail {

using gemm::config_detail::parse_int;

constexpr bool assign(CpuConvConfig& g, std::string_view name, std::string_view value, int& seen) {
  if (name == "kind") {
    const std::string_view kinds[] = {"cpu_direct",    "cpu_im2col",  "cpu_gemm1x1",
                                      "cpu_winograd",  "cpu_plan",    "cpu_plan_fused",
                                      "cpu_plan_tpad", "cpu_plan_1x1"};
    for (int i = 0; i < 8; ++i)
      if (value == kinds[i]) {
        g.kind = CpuKind(i);
        return true;
      }
    return false;
  }
  if (name == "mt") {
    seen |= 1 << 4;
    return gemm::config_detail::parse_pair(value, g.mr, g.nr) &&
           gemm::is_packed_micro_tile(g.mr, g.nr);
  }
  struct Field {
    std::string_view name;
    int* slot;
    int bit;
  };
  const Field fields[] = {{"rows", &g.rows, 0},   {"cols", &g.cols, 1},  {"vk", &g.vk, 2},
                          {"vc", &g.vc, 3},       {"kc", &g.kc, 5},      {"m", &g.m, 6},
                          {"tiles", &g.tiles, 7}, {"outer", &g.outer, 8}};
  for (const Field& f : fields)
    if (f.name == name) {
      seen |= 1 << f.bit;
      // m and outer may be 0 (cpu_plan's implicit GEMM; pixels outermost): their values are
      // checked per kind below.
      return parse_int(value, *f.slot) &&
             (*f.slot > 0 || ((f.bit == 6 || f.bit == 8) && *f.slot == 0));
    }
  return false;
}

constexpr int required_bits(CpuKind kind) {
  switch (kind) {
    case CpuKind::direct:
      return 0xF;  // rows cols vk vc
    case CpuKind::im2col:
      return 0x31;  // mt kc rows
    case CpuKind::gemm1x1:
      return 0x30;  // mt kc
    case CpuKind::winograd:
      return 0xD0;  // mt m tiles
    case CpuKind::plan:
      return 0x43;  // m cols rows
    case CpuKind::plan_fused:
      return 0xC0;  // m tiles
    case CpuKind::plan_tpad:
      return 0x3;  // cols rows
    case CpuKind::plan_1x1:
      return 0x103;  // cols rows outer
  }
  return 0;
}

}  // namespace cpu_config_detail

// Parses a config string (params in any order). valid == false for CUDA kinds, unknown names,
// bad values, missing or foreign params, and direct tiles without a kernel (cols, vk in 2..4,
// vc 8 or 16: the instantiations of conv2d_cpu_direct.cpp).
constexpr CpuConvConfig parse_cpu_conv_config(std::string_view text) {
  CpuConvConfig g;
  int seen = 0;
  const bool parsed =
      gemm::config_detail::for_each_param(text, [&](std::string_view name, std::string_view value) {
        return cpu_config_detail::assign(g, name, value, seen);
      });
  if (!parsed || seen != cpu_config_detail::required_bits(g.kind)) return CpuConvConfig{};
  if (g.kind == CpuKind::direct &&
      (g.cols < 2 || g.cols > 4 || g.vk < 2 || g.vk > 4 || (g.vc != 8 && g.vc != 16)))
    return CpuConvConfig{};
  if ((g.kind == CpuKind::winograd || g.kind == CpuKind::plan_fused) && g.m != 2 && g.m != 4)
    return CpuConvConfig{};
  if (g.kind == CpuKind::plan && g.m != 0 && g.m != 2 && g.m != 4) return CpuConvConfig{};
  if (g.kind == CpuKind::plan_1x1 && g.outer != 0 && g.outer != 1) return CpuConvConfig{};
  g.valid = true;
  return g;
}

}  // namespace ktune::kernels::conv2d::cpu
