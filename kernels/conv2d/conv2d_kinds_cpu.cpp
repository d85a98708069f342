// The CPU kinds of the conv2d space: what each kind's params mean is documented with its kernel
// (kernels/conv2d/cpu/). Kept small enough that a CPU sweep of conv-small takes minutes on 2
// cores: 22 (of 36) + 12 + 9 + 12 = 55 configs, and cpu_plan's 11 and cpu_plan_fused's 6 after
// the CUDA kinds, cpu_plan_tpad's 9 after cuda_igemm_wgmma, cpu_plan_1x1's 18 after
// cuda_igemm_wgmma_persist.
#include <fmt/format.h>

#include <algorithm>

#include "kernels/conv2d/conv2d_kinds.hpp"

namespace ktune::kernels::conv2d {

namespace {

using V = std::vector<std::string>;

// ktune's packed GEMM micro-tiles (kernels/common/cpu/gemm_cpu_packed_dispatch.cpp), mr × nr.
const V kMicroTiles = {"8x8", "16x6", "24x4"};

// cols × vk accumulators of vc floats (vc/8 AVX2 vectors each) must stay in registers beside
// the operands.
std::optional<std::string> direct_cpu_violation(const Space& space, const Config& c) {
  const int cols = space.int_value(c, "cols"), vk = space.int_value(c, "vk"),
            vc = space.int_value(c, "vc");
  if (cols * vk * vc / 8 > 12)
    return fmt::format("{} accumulator vectors (cols {} x vk {} x vc {} / 8) exceed 12",
                       cols * vk * vc / 8, cols, vk, vc);
  return std::nullopt;
}

// The Winograd path of the plan has no task blocking of its own to choose: one config each.
std::optional<std::string> plan_violation(const Space& space, const Config& c) {
  if (space.value(c, "m") != "0" &&
      (space.value(c, "cols") != "384" || space.value(c, "rows") != "256"))
    return std::string("cpu_plan Winograd configs keep cols 384, rows 256 (unused by that path)");
  return std::nullopt;
}

}  // namespace

void add_cpu_kinds(std::vector<SpaceKind>& kinds) {
  // Tiled direct convolution on the layouts as given (no repacking): a task computes `rows`
  // output rows of one image for `vk` output channels; in registers, `cols` output pixels × vk
  // channels accumulate vectors of `vc` lanes along the contiguous (filter column, input
  // channel) run of the window, summed across lanes at the end.
  kinds.push_back({"cpu_direct",
                   {{"rows", V{"1", "4"}},
                    {"cols", V{"2", "3", "4"}},
                    {"vk", V{"2", "3", "4"}},
                    {"vc", V{"8", "16"}}},
                   direct_cpu_violation});
  // Explicit patch matrix (im2col) of `rows` output pixels at a time, times the filter with
  // ktune's packed GEMM of micro-tile mt and K block kc (the GEMM config is part of the conv
  // config, so the sweep measures the pair; mc = 96, nc = 3840).
  kinds.push_back({"cpu_im2col",
                   {{"mt", kMicroTiles}, {"kc", V{"128", "256"}}, {"rows", V{"1024", "8192"}}},
                   nullptr});
  // 1×1 stride-1 unpadded layers: the NHWC input is already the patch matrix; one packed GEMM.
  kinds.push_back({"cpu_gemm1x1", {{"mt", kMicroTiles}, {"kc", V{"128", "256", "512"}}}, nullptr});
  // Winograd F(m×m, 3×3) for 3×3 stride-1 layers: input transform of `tiles` tiles at a time,
  // (m+2)² batched packed GEMMs, output transform; the filter transform runs in every call.
  kinds.push_back({"cpu_winograd",
                   {{"m", V{"2", "4"}}, {"mt", kMicroTiles}, {"tiles", V{"64", "256"}}},
                   nullptr});
}

void add_cpu_plan_kinds(std::vector<SpaceKind>& kinds) {
  // The nn engine's prepared CPU conv plan (kernels/conv2d/cpu/conv2d_cpu_plan.hpp): m, its
  // Winograd output tile (0: the implicit GEMM; cpu_winograd's param, so that the space's numeric
  // columns stay those of the older kinds), and the largest task (cols pixels × rows channels) of
  // its implicit GEMM. 9 + 2 = 11 configs.
  kinds.push_back({"cpu_plan",
                   {{"m", V{"0", "2", "4"}},
                    {"cols", V{"192", "384", "768"}},
                    {"rows", V{"128", "256", "512"}}},
                   plan_violation});
  // The plan's Winograd in fused blocks of `tiles` tiles (conv2d_cpu_plan.hpp): each block's
  // three phases on one thread, no barrier between them; m and tiles are the older kinds'
  // params, so the space's numeric columns do not change. 2 × 3 = 6 configs.
  kinds.push_back(
      {"cpu_plan_fused", {{"m", V{"2", "4"}}, {"tiles", V{"12", "24", "48"}}}, nullptr});
}

void add_cpu_plan_tpad_kinds(std::vector<SpaceKind>& kinds) {
  // cpu_plan's implicit GEMM (m = 0) with each thread's own padded copy of the input
  // (conv2d_cpu_plan.hpp; refused on unpadded and 1×1 layers and on large inputs): the same task
  // blockings, so the sweep compares the two copies config for config. 9 configs.
  kinds.push_back({"cpu_plan_tpad",
                   {{"cols", V{"192", "384", "768"}}, {"rows", V{"128", "256", "512"}}},
                   nullptr});
}

void add_cpu_plan_1x1_kinds(std::vector<SpaceKind>& kinds) {
  // cpu_plan's implicit GEMM on 1×1 unpadded layers with its tasks split evenly among the threads
  // (conv2d_cpu_plan.hpp; refused on other layers): cpu_plan's task blockings, each with channel
  // panels outermost where a task has more channels than pixels (outer 1, as cpu_plan) or pixels
  // outermost always (outer 0). 3 × 3 × 2 = 18 configs.
  kinds.push_back(
      {"cpu_plan_1x1",
       {{"cols", V{"192", "384", "768"}}, {"rows", V{"128", "256", "512"}}, {"outer", V{"0", "1"}}},
       nullptr});
}

bool is_cpu_kind(const std::string& name) { return name.rfind("cpu_", 0) == 0; }

}  // namespace ktune::kernels::conv2d
