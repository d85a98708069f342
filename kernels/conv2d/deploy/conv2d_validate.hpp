#pragma once
// Argument checks of the public ktune::conv2d API (include/ktune/conv2d.hpp), shared by the CPU
// and CUDA tuned libraries. Header-only and inline; overflow-safe (products are formed only
// after each factor is known to be at most 2^31 - 1, in a type that holds them).
#include <cstdint>
#include <string>
#include <utility>

#include "ktune/conv2d.hpp"

namespace ktune::kernels::conv2d::deploy {

inline constexpr int64_t kMaxElements = 2147483647;  // 32-bit tensor offsets on the GPU

[[noreturn]] inline void argument_error(const char* function, const std::string& what) {
  throw Conv2dError(std::string(function) + ": " + what);
}

// Throws Conv2dError naming the first bad argument; returns false when there is nothing to do
// (n == 0), true when the call must run.
inline bool check_conv2d_arguments(const char* function, int64_t n, int64_t h, int64_t w, int64_t c,
                                   int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad,
                                   const float* input, const float* filter, const float* output) {
  auto text = [](int64_t v) { return std::to_string(v); };
  if (n < 0) argument_error(function, "n = " + text(n) + " is negative");
  const std::pair<const char*, int64_t> sizes[] = {
      {"n", n}, {"h", h}, {"w", w}, {"c", c}, {"k", k}, {"r", r}, {"s", s}, {"stride", stride}};
  for (const auto& [name, value] : sizes) {
    if (value < 1 && std::string(name) != "n")
      argument_error(function, std::string(name) + " = " + text(value) + " must be at least 1");
    if (value > kMaxElements)
      argument_error(function, std::string(name) + " = " + text(value) + " exceeds 2^31 - 1");
  }
  if (pad < 0) argument_error(function, "pad = " + text(pad) + " is negative");
  if (pad >= r || pad >= s)
    argument_error(function, "pad = " + text(pad) + " is not smaller than the filter (" + text(r) +
                                 "x" + text(s) + ")");
  if (h + 2 * pad < r || w + 2 * pad < s)
    argument_error(function, "the filter (" + text(r) + "x" + text(s) +
                                 ") is larger than the padded input (" + text(h + 2 * pad) + "x" +
                                 text(w + 2 * pad) + ")");
  // Each factor is at most 2^31 - 1, so a product of two fits in an unsigned 64-bit integer;
  // stop as soon as a partial product passes the limit.
  auto too_many = [](std::initializer_list<int64_t> factors) {
    unsigned long long product = 1;
    for (int64_t f : factors) {
      product *= static_cast<unsigned long long>(f);
      if (product > static_cast<unsigned long long>(kMaxElements)) return true;
    }
    return false;
  };
  const int64_t p = (h + 2 * pad - r) / stride + 1, q = (w + 2 * pad - s) / stride + 1;
  if (too_many({n, h, w, c}))
    argument_error(function, "the input (n*h*w*c) exceeds 2^31 - 1 elements");
  if (too_many({k, r, s, c}))
    argument_error(function, "the filter (k*r*s*c) exceeds 2^31 - 1 elements");
  if (too_many({n, p, q, k}))
    argument_error(function, "the output (n*p*q*k) exceeds 2^31 - 1 elements");
  if (n == 0) return false;
  if (input == nullptr) argument_error(function, "input is a null pointer");
  if (filter == nullptr) argument_error(function, "filter is a null pointer");
  if (output == nullptr) argument_error(function, "output is a null pointer");
  return true;
}

// conv2d_ex's epilogue (Conv2dEpilogue) against an output of `count` elements of `element_bytes`
// (4 FP32, 2 bf16) and k output channels: each pointer aligned to its element; the bias
// (k FP32) never overlapping the output; the residual either the output itself (in place: each
// element is read before its own store by whoever stores it) or clear of it, since a kernel may
// store one output tile before another block reads the residual there (and cuDNN's pass writes the
// whole output before the epilogue reads the residual). Conv2dError names the bad one.
inline void check_conv2d_epilogue(const char* function, const Conv2dEpilogue& epilogue,
                                  const void* output, int64_t count, int64_t element_bytes,
                                  int64_t k) {
  const auto at = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  const uintptr_t out_begin = at(output), out_end = out_begin + uintptr_t(count * element_bytes);
  const auto overlaps = [&](const void* p, int64_t bytes) {
    return at(p) < out_end && out_begin < at(p) + uintptr_t(bytes);
  };
  if (epilogue.bias) {
    if (at(epilogue.bias) % 4 != 0)
      argument_error(function, "epilogue bias is not aligned to 4 bytes (an FP32 element)");
    if (overlaps(epilogue.bias, k * 4))
      argument_error(function, "epilogue bias overlaps the output");
  }
  if (epilogue.residual) {
    if (at(epilogue.residual) % uintptr_t(element_bytes) != 0)
      argument_error(function, "epilogue residual is not aligned to " +
                                   std::to_string(element_bytes) + " bytes (an output element)");
    if (epilogue.residual != output && overlaps(epilogue.residual, count * element_bytes))
      argument_error(function, "epilogue residual overlaps the output without being it");
  }
}

}  // namespace ktune::kernels::conv2d::deploy
