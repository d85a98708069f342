#pragma once
// The CPU conv2d kernels (kinds cpu_direct, cpu_im2col, cpu_gemm1x1, cpu_winograd), callable
// with plain parameters so the sweep's backend and the deployed library share them. Layouts as
// in kernels/conv2d/conv2d_family.hpp (NHWC input and output, KRSC filter). Threads: OpenMP.
// Every entry throws ktune::Error for parameters it was not built for; a kind that does not
// apply to a shape says so through `applies`.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu_args.hpp"
#include "ktune/space.hpp"

namespace ktune::kernels::gemm::cpu {
template <class In>
struct GemmArgs;
using Args = GemmArgs<float>;
}  // namespace ktune::kernels::gemm::cpu

namespace ktune::kernels::conv2d::cpu {

// cpu_direct: see kernels/conv2d/cpu/conv2d_cpu_direct.hpp.
struct DirectParams {
  int rows = 1, cols = 2, vk = 2, vc = 8;
};
void run_direct(const Args& args, const DirectParams& p);

// ktune's packed GEMM (kernels/common/cpu/gemm_cpu_packed.hpp) as used by the GEMM-based kinds:
// micro-tile mr × nr, K block kc; mc = 96 and nc = 3840.
struct GemmParams {
  int mr = 16, nr = 6, kc = 256;
};

// The GEMM call of the GEMM-based kinds' templates in the sweep: the packed kernel's run-time
// dispatch with g's micro-tile and K block (mc = 96, nc = 3840).
std::function<void(const gemm::cpu::Args&)> packed_gemm(const GemmParams& g);

// cpu_im2col: patch matrices of `rows` output pixels at a time.
void run_im2col(const Args& args, const GemmParams& g, int rows);

// cpu_gemm1x1: 1×1, stride 1, pad 0 only.
std::optional<std::string> gemm1x1_refusal(const Shape& s);
void run_gemm1x1(const Args& args, const GemmParams& g);

// cpu_winograd F(m×m, 3×3), m = 2 or 4, 3×3 stride 1 only; `tiles` tiles per transform block.
std::optional<std::string> winograd_refusal(const Shape& s);
void run_winograd(const Args& args, int m, const GemmParams& g, int tiles);

// The same with the filter transformed beforehand (inference: once per layer), so that only
// the input transform, GEMMs and output transform run: `transformed` is from
// winograd_transform_filter with the same m.
std::vector<float> winograd_transform_filter(const Shape& s, int m, const float* filter);
void run_winograd_pretransformed(const Args& args, int m, const GemmParams& g, int tiles,
                                 const float* transformed);

// A config decoded: the call that runs it, or why it does not apply to the shape (a kind for
// other shapes: the caller reports `refused`). Throws Error for configs without a CPU kernel.
// A prepared kind (cpu_plan) has `prepare`: it must be called once per filter (outside the timed
// region: what an inference engine does once per layer) before `run` sees that filter.
struct Kernel {
  std::function<void(const Args&)> prepare;
  std::function<void(const Args&)> run;
  std::optional<std::string> refusal;
  int winograd_m = 0;  // 2 or 4 for Winograd (its error bound), else 0
};
Kernel kernel_for(const Space& space, const Config& config, const Shape& shape);

}  // namespace ktune::kernels::conv2d::cpu
