#pragma once
// cpu_plan: the CPU conv plan of the nn engine (kernels/common/cpu/conv_cpu_plan.hpp) as a kind
// of the conv2d family, shared by the sweep's backend and the deployed library. A config is the
// plan's own choices:
//   m     0 (the implicit GEMM on the 32 × 12 AVX-512 tile), 2 or 4 (Winograd F(2×2, 3×3) /
//         F(4×4, 3×3)): forced, not the plan's default rule of thumb (F(4×4) on
//         3×3 stride-1 layers over >= 16 channels, F(2×2) or the GEMM where F(4×4) has too few
//         tiles), so that the sweep measures each where it applies; but m = 4 on a call with
//         fewer than 12 F(4×4) tiles (ResNet-50's 7×7 maps at batch 1: 4) runs F(2×2), as in the
//         engine (PlanBlocking::winograd4_min_call_tiles; plan_winograd_m says which);
//   cols, rows  the largest task of the GEMM path, pixels × output channels (PlanBlocking
//         max_cols, max_rows): how C is cut among the threads and blocked for L2.
// cpu_plan_fused: the same plan's Winograd (m 2 or 4) in fused blocks of `tiles` tiles
// (PlanBlocking::winograd_fused_tiles): each block's input transform, α² GEMMs and output
// transform on one thread, in that thread's V and M, the blocks claimed by the threads in turn
// (cpu_plan's Winograd shares each phase of a block among the threads, three barriers per
// block, and passes V and M between the cores).
// cpu_plan_tpad: cpu_plan's implicit GEMM (m = 0, the same cols and rows) where each task copies
// the input rows it reads into its thread's own padded buffer (PlanBlocking::pad_per_thread), not
// the shared copy that a parallel region of its own writes first: one fork and join per call
// less, and each core reads the copy from its own L2. Only where that differs from cpu_plan:
// padded layers that are not 1×1 (those read their input in place), whose padded input has at
// most kTpadMaxFloats floats (a buffer per thread).
// cpu_plan_1x1: cpu_plan's implicit GEMM (m = 0, the same cols and rows) on 1×1 unpadded layers
// with a balanced split (PlanBlocking::balanced_split): tasks cut until their count is a
// multiple of the threads, so that neither core idles at the end of a call (cpu_plan stops at 8
// tasks per thread: 17 tasks of 256 channels × 185 pixels on ResNet-50's 56×56 × 64 -> 256 at
// batch 1 with cols 192, rows 512, the config its K = 6 library served there at 0.74x oneDNN).
// outer 1: a task with more channels than pixels runs its channel panels outermost, as cpu_plan;
// outer 0: pixels outermost always (PlanBlocking::rows_outer off).
// Only 1×1 unpadded layers (stride 1: the input read in place; stride 2: the projections).
// The plan is prepared: the filter is packed (or Winograd-transformed) once when it is built, and
// a run does only the per-input work; its tasks run on the calling thread's OpenMP team (as in the
// nn engine's `ktune` backend), the team oneDNN uses too. Header-only C++17.
#include "kernels/common/cpu/conv_cpu_plan.hpp"
#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_config.hpp"

namespace ktune::kernels::conv2d::cpu {

inline cpu_conv::Shape plan_shape(const Shape& s) {
  return {s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad};
}

// m: 0 (the implicit GEMM), 2 or 4 (Winograd F(m×m, 3×3)). fused_tiles: 0, or the fused
// Winograd blocks' tiles (cpu_plan_fused). pad_per_thread: cpu_plan_tpad. balanced: cpu_plan_1x1.
// rows_outer: PlanBlocking::rows_outer (cpu_plan_1x1's outer).
inline cpu_conv::PlanBlocking plan_blocking(int m, int cols, int rows, int fused_tiles = 0,
                                            bool pad_per_thread = false, bool balanced = false,
                                            bool rows_outer = true) {
  cpu_conv::PlanBlocking b;
  b.pad_per_thread = pad_per_thread;
  b.balanced_split = balanced;
  b.rows_outer = rows_outer;
  b.winograd_m = m;
  b.winograd_min_call_tiles = 0;  // the config's algorithm even on few tiles, but
  // winograd4_min_call_tiles kept: F(4×4) on fewer tiles runs F(2×2)
  b.max_cols = cols;
  b.max_rows = rows;
  b.winograd_fused_tiles = fused_tiles;
  return b;
}

// Why Winograd m does not apply to s (the plan would silently run the GEMM path), or null.
inline const char* plan_refusal(const Shape& s, int m) {
  if (m == 0) return nullptr;
  if (!cpu_conv::WinogradPlan::applies(plan_shape(s)))
    return "cpu_plan Winograd: 3x3 stride-1 layers with pad <= 2 only";
  if (s.c < cpu_conv::kWinogradMinChannels)
    return "cpu_plan Winograd: at least 16 input channels (the plan's GEMM path runs fewer)";
  return nullptr;
}

// The largest padded input (floats) cpu_plan_tpad takes (16 MB per thread): ResNet-50's padded
// layers at batch 16 (at most 16 × 58 × 58 × 64, 3.4M), not VGG16's larger ones at batch 16.
constexpr int64_t kTpadMaxFloats = 4 * 1024 * 1024;

// Why cpu_plan_tpad does not apply to s (its plan would be cpu_plan's), or null.
inline const char* plan_tpad_refusal(const Shape& s) {
  if (s.pad == 0 || (s.r == 1 && s.s == 1 && s.stride == 1))
    return "cpu_plan_tpad: padded layers that are not 1x1 stride 1 only (no padded copy otherwise)";
  if (s.n * (s.h + 2 * s.pad) * (s.w + 2 * s.pad) * s.c > kTpadMaxFloats)
    return "cpu_plan_tpad: padded input over 4M floats (a buffer per thread)";
  return nullptr;
}

// Why cpu_plan_1x1 does not apply to s, or null.
inline const char* plan_1x1_refusal(const Shape& s) {
  if (s.r != 1 || s.s != 1 || s.pad != 0) return "cpu_plan_1x1: 1x1 unpadded layers only";
  return nullptr;
}

// The blocking of a cpu_plan* config (cpu_plan_fused: its fused Winograd inside 384 × 256 task
// blocks): one mapping for the sweep's kernel (conv2d_cpu_kernel.cpp) and the deployed library
// (tuned_cpu.inl), so that the library runs the plan the sweep measured.
inline cpu_conv::PlanBlocking plan_blocking(const CpuConvConfig& g) {
  const bool fused = g.kind == CpuKind::plan_fused;
  return plan_blocking(g.m, fused ? 384 : g.cols, fused ? 256 : g.rows, fused ? g.tiles : 0,
                       g.kind == CpuKind::plan_tpad, g.kind == CpuKind::plan_1x1, g.outer != 0);
}

// Why cpu_plan* config g does not run s (its kind's refusal), or null.
inline const char* plan_refusal(const CpuConvConfig& g, const Shape& s) {
  switch (g.kind) {
    case CpuKind::plan_tpad:
      return plan_tpad_refusal(s);
    case CpuKind::plan_1x1:
      return plan_1x1_refusal(s);
    default:
      return plan_refusal(s, g.m);
  }
}

// The Winograd m config m runs on s (0: the implicit GEMM): m, but F(2×2) for m = 4 on a call
// with fewer F(4×4) tiles than PlanBlocking::winograd4_min_call_tiles (its bound is F(2×2)'s).
inline int plan_winograd_m(const Shape& s, int m) {
  const int64_t tiles4 = s.n * ((s.p() + 3) / 4) * ((s.q() + 3) / 4);
  return m == 4 && tiles4 < cpu_conv::PlanBlocking{}.winograd4_min_call_tiles ? 2 : m;
}

// One layer prepared: the filter read only here. One run at a time.
class PreparedPlan {
 public:
  PreparedPlan(const Shape& s, const float* filter, int m, int cols, int rows, int fused_tiles = 0,
               bool pad_per_thread = false, bool balanced = false, bool rows_outer = true)
      : plan_(plan_shape(s), filter, 0,
              plan_blocking(m, cols, rows, fused_tiles, pad_per_thread, balanced, rows_outer)) {}
  // The plan of cpu_plan* config g.
  PreparedPlan(const Shape& s, const float* filter, const CpuConvConfig& g)
      : plan_(plan_shape(s), filter, 0, plan_blocking(g)) {}
  size_t tasks() const { return plan_.tasks(); }
  void run(const float* input, float* output) {
    const cpu_conv::ScopedTaskWorkers team(cpu_conv::TaskWorkers::openmp);
    plan_.run(input, output);
  }
  int winograd_m() const { return plan_.winograd_m(); }
  bool winograd_fused() const { return plan_.winograd_fused(); }

 private:
  cpu_conv::ConvPlan plan_;
};

}  // namespace ktune::kernels::conv2d::cpu
