#pragma once
// Tune and remember in the CUDA conv2d libraries (deploy/tuned_cuda.inl: ktune::conv2d;
// tuned_cuda_tc.inl: ktune::conv2d_ex): a layer's in-memory shape and its cache key, and the
// vendor call a first call times early. The key is the conv2d family's problem key as the sweep
// writes it (n h w c k r s stride pad; precision only where it is not FP32), so that
// `ktune import --remembered` rows of plain FP32-output calls join the sweep's datasets, followed
// by what else changes the code a call runs, each only where it is not the sweep's: out16=1 (the
// output in the data's 16-bit type), bias=1, residual=1, relu=1 (conv2d_ex's fused epilogue:
// ktune's kernels fuse it, cuDNN's output gets one more pass, so the winner may differ).
// C++17, no ktune library.
#include <cstdint>
#include <string>
#include <string_view>

#include "ktune/remember.hpp"

namespace ktune::kernels::conv2d::deploy {

// precision: 0 FP32 (ktune::conv2d), 1 tf32, 2 bf16, 3 fp16 (ktune::conv2d_ex, the sweep's codes).
struct RememberKey {
  int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1, stride = 1, pad = 0;
  int precision = 0;
  bool out16 = false, bias = false, residual = false, relu = false;

  ktune::remember::Shape shape() const {
    ktune::remember::Shape shape;
    for (int64_t v : {n, h, w, c, k, r, s, stride, pad, int64_t(precision), int64_t(out16),
                      int64_t(bias), int64_t(residual), int64_t(relu)})
      shape.values[shape.count++] = v;
    return shape;
  }
  std::string problem() const {
    std::string key = "n=" + std::to_string(n) + ";h=" + std::to_string(h) +
                      ";w=" + std::to_string(w) + ";c=" + std::to_string(c) +
                      ";k=" + std::to_string(k) + ";r=" + std::to_string(r) +
                      ";s=" + std::to_string(s) + ";stride=" + std::to_string(stride) +
                      ";pad=" + std::to_string(pad);
    if (precision != 0) key += ";precision=" + std::to_string(precision);
    if (out16) key += ";out16=1";
    if (bias) key += ";bias=1";
    if (residual) key += ";residual=1";
    if (relu) key += ";relu=1";
    return key;
  }
};

// The first shipped vendor call ("vendor=..."; conv2d_ex's "vendor=cudnn"), or -1: a first call
// times it right after the selector's pick whatever the safe order says, so that a layer the
// selector was not trained on can fall back to the vendor with the default three candidates.
inline int first_vendor_config(const char* const* configs, int num_configs) {
  for (int i = 0; i < num_configs; ++i)
    if (std::string_view(configs[i]).rfind("vendor=", 0) == 0) return i;
  return -1;
}

}  // namespace ktune::kernels::conv2d::deploy
