#pragma once
// Argument checks of the public ktune::gemm API (include/ktune/gemm.hpp), shared by the CPU and
// CUDA tuned libraries. Header-only and inline: two tuned libraries in one program share it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "ktune/gemm.hpp"

namespace ktune::kernels::gemm::deploy {

// Largest m, n, k accepted: kernels index rows and columns with 32-bit grid coordinates.
inline constexpr int64_t kMaxDimension = 2147483647;

// Elements from the first to one past the last of `batch` matrices of rows x cols (leading
// dimension ld, entries stride apart), or -1 when that exceeds what a pointer to elements of
// `bytes` bytes can address: the kernels then form no pointer that wraps. rows, cols, batch >= 1;
// ld, stride >= 0.
inline int64_t span_elements(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch,
                             size_t bytes = sizeof(float)) {
  const int64_t kAddressable = PTRDIFF_MAX / int64_t(bytes);
  int64_t one = 0, all = 0;
  if (__builtin_mul_overflow(ld, cols - 1, &one) || __builtin_add_overflow(one, rows, &one) ||
      __builtin_mul_overflow(stride, batch - 1, &all) || __builtin_add_overflow(all, one, &all))
    return -1;
  return all <= kAddressable ? all : -1;
}

[[noreturn]] inline void argument_error(const char* function, const std::string& what) {
  throw GemmError(std::string(function) + ": " + what);
}

// Throws GemmError naming the first bad argument; returns normally when the call is valid
// (including the empty cases that do nothing). A and B hold elements of input_bytes bytes (the
// tensor-core precisions' 16-bit inputs), C elements of output_bytes (floats, or gemm_ex's 16-bit
// C).
inline void check_gemm_arguments(const char* function, Trans transa, Trans transb, int64_t m,
                                 int64_t n, int64_t k, const void* a, int64_t lda, int64_t stride_a,
                                 const void* b, int64_t ldb, int64_t stride_b, const void* c,
                                 int64_t ldc, int64_t stride_c, int64_t batch,
                                 size_t input_bytes = sizeof(float),
                                 size_t output_bytes = sizeof(float)) {
  auto text = [](int64_t v) { return std::to_string(v); };
  if (transa != Trans::no && transa != Trans::yes)
    argument_error(function, "transa is neither Trans::no nor Trans::yes");
  if (transb != Trans::no && transb != Trans::yes)
    argument_error(function, "transb is neither Trans::no nor Trans::yes");
  const std::pair<const char*, int64_t> dims[] = {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  for (const auto& [name, value] : dims) {
    if (value < 0)
      argument_error(function, std::string(name) + " = " + text(value) + " is negative");
    if (value > kMaxDimension)
      argument_error(function, std::string(name) + " = " + text(value) + " exceeds 2^31 - 1");
  }
  // Leading dimensions: at least the stored rows (and at least 1, as BLAS requires).
  const int64_t rows_a = transa == Trans::no ? m : k;
  const int64_t rows_b = transb == Trans::no ? k : n;
  auto check_ld = [&](const char* name, int64_t ld, int64_t rows, const char* stored) {
    const int64_t need = rows > 1 ? rows : 1;
    if (ld < need)
      argument_error(function, std::string(name) + " = " + text(ld) + " is smaller than " + stored +
                                   " = " + text(need));
  };
  check_ld("lda", lda, rows_a, transa == Trans::no ? "the rows of A (m)" : "the rows of A (k)");
  check_ld("ldb", ldb, rows_b, transb == Trans::no ? "the rows of B (k)" : "the rows of B (n)");
  check_ld("ldc", ldc, m, "the rows of C (m)");
  const std::pair<const char*, int64_t> strides[] = {
      {"stride_a", stride_a}, {"stride_b", stride_b}, {"stride_c", stride_c}};
  for (const auto& [name, value] : strides)
    if (value < 0)
      argument_error(function, std::string(name) + " = " + text(value) + " is negative");
  if (m == 0 || n == 0 || batch == 0) return;  // nothing is read or written
  if (c == nullptr) argument_error(function, "C is a null pointer");
  if (k > 0 && a == nullptr) argument_error(function, "A is a null pointer");
  if (k > 0 && b == nullptr) argument_error(function, "B is a null pointer");
  // Each operand must fit the address space (overflow-checked: ld * (cols - 1) alone can
  // exceed int64 with a huge leading dimension or stride).
  auto check_span = [&](const char* what, int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                        size_t bytes) {
    if (span_elements(rows, cols, ld, stride, batch, bytes) < 0)
      argument_error(function,
                     std::string(what) + " spans more elements than a pointer can address");
  };
  if (k > 0) {
    check_span(transa == Trans::no ? "A (lda*(k-1)+m, stride_a*(batch-1))"
                                   : "A (lda*(m-1)+k, stride_a*(batch-1))",
               rows_a, transa == Trans::no ? k : m, lda, stride_a, input_bytes);
    check_span(transb == Trans::no ? "B (ldb*(n-1)+k, stride_b*(batch-1))"
                                   : "B (ldb*(k-1)+n, stride_b*(batch-1))",
               rows_b, transb == Trans::no ? n : k, ldb, stride_b, input_bytes);
  }
  check_span("C (ldc*(n-1)+m, stride_c*(batch-1))", m, n, ldc, stride_c, output_bytes);
  if (batch > 1) {
    // Entries of C must not overlap: every write then lands in the caller's C. Cannot
    // overflow: the span check above bounded it. Checked before aliasing, so a
    // malformed call is named for its malformed argument.
    const int64_t extent_c = ldc * (n - 1) + m;
    if (stride_c < extent_c)
      argument_error(function, "stride_c = " + text(stride_c) + " is smaller than ldc*(n-1)+m = " +
                                   text(extent_c) + ": the batch entries of C would overlap");
  }
  if (k > 0) {
    // C written while A or B is still read gives garbage (the kernels pack and block their
    // operands): the address ranges the operands span must be disjoint.
    const int64_t span_c = span_elements(m, n, ldc, stride_c, batch, output_bytes);
    auto check_disjoint = [&](const char* name, const void* x, int64_t rows, int64_t cols,
                              int64_t ld, int64_t stride) {
      const int64_t span = span_elements(rows, cols, ld, stride, batch, input_bytes);
      const auto xb = reinterpret_cast<uintptr_t>(x), cb = reinterpret_cast<uintptr_t>(c);
      if (xb < cb + uintptr_t(span_c) * output_bytes && cb < xb + uintptr_t(span) * input_bytes)
        argument_error(function, std::string("C overlaps ") + name +
                                     ": C must not alias A or B (the result would be garbage)");
    };
    check_disjoint("A", a, rows_a, transa == Trans::no ? k : m, lda, stride_a);
    check_disjoint("B", b, rows_b, transb == Trans::no ? n : k, ldb, stride_b);
  }
}

}  // namespace ktune::kernels::gemm::deploy
