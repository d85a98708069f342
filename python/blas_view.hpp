#pragma once
// A 2-D float32 operand of ktune.gemm as BLAS arguments, for numpy arrays (bind_gemm.cpp) and
// CUDA DLPack tensors (bind_cuda.cpp) alike: strides map onto transposes and leading
// dimensions (a C-contiguous row-major matrix is the column-major transpose), so C- and
// Fortran-ordered matrices, transposed views and column slices run without a copy.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ktune/gemm.hpp"

namespace ktune::python {

// The column-major matrix at the data pointer with leading dimension `ld` is the array itself
// (Trans::no) or its transpose (Trans::yes).
struct BlasView {
  ktune::Trans trans;
  int64_t ld;
};

// rows x cols with strides s0, s1 in bytes, elements of `item` bytes; `name` for the message.
inline BlasView blas_view(int64_t rows, int64_t cols, int64_t s0, int64_t s1, int64_t item,
                          const char* name) {
  if (rows == 0 || cols == 0) return {ktune::Trans::no, std::max<int64_t>(rows, 1)};  // no data
  // Column-major view (unit row stride): the array itself. Row-major view: its transpose.
  if ((s0 == item || rows <= 1) && s1 % item == 0 && s1 / item >= std::max<int64_t>(rows, 1))
    return {ktune::Trans::no, s1 / item};
  if ((s1 == item || cols <= 1) && s0 % item == 0 && s0 / item >= std::max<int64_t>(cols, 1))
    return {ktune::Trans::yes, s0 / item};
  throw std::invalid_argument(std::string(name) +
                              ": needs unit stride in one dimension (a C- or Fortran-ordered "
                              "float32 matrix or a transposed view of one)");
}

// a (am, ak) @ b (bk, bn) must give c (m, n).
inline void check_gemm_shapes(int64_t am, int64_t ak, int64_t bk, int64_t bn, int64_t m,
                              int64_t n) {
  if (am != m || bn != n || bk != ak)
    throw std::invalid_argument("a @ b: shapes (" + std::to_string(am) + ", " + std::to_string(ak) +
                                ") @ (" + std::to_string(bk) + ", " + std::to_string(bn) +
                                ") do not give c's (" + std::to_string(m) + ", " +
                                std::to_string(n) + ")");
}

// C (m x n, row-major thinking) = alpha A B + beta C through a column-major GEMM:
// call(transa, transb, rows, cols, k, first, ld_first, second, ld_second) with the C view's
// rows and cols. A row-major C is its transpose, C^T = B^T A^T: A and B swap and flip.
template <typename T, typename Call>
void blas_gemm(const BlasView& va, const T* a, const BlasView& vb, const T* b, const BlasView& vc,
               int64_t m, int64_t n, int64_t k, Call&& call) {
  const auto flip = [](ktune::Trans t) {
    return t == ktune::Trans::no ? ktune::Trans::yes : ktune::Trans::no;
  };
  if (vc.trans == ktune::Trans::no)
    call(va.trans, vb.trans, m, n, k, a, va.ld, b, vb.ld);
  else
    call(flip(vb.trans), flip(va.trans), n, m, k, b, vb.ld, a, va.ld);
}

}  // namespace ktune::python
