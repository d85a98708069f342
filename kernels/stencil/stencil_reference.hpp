#pragma once
// Host data, the plain reference and the verification of the stencil family, shared by the
// backends and tests. The reference is an independent double loop per program in the problem's
// element type, reading the matrix through the boundary rule directly (no tiles, no staging),
// with the same operation order as the user functions.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/stencil/stencil_family.hpp"

namespace ktune::stencil {

// A rows x cols row-major matrix of one element type (int32, float or double), as bytes.
struct HostMatrix {
  ElemType type = ElemType::f32;
  int64_t rows = 0, cols = 0;
  std::vector<unsigned char> bytes;

  HostMatrix() = default;
  HostMatrix(ElemType type, int64_t rows, int64_t cols);
  size_t count() const { return size_t(rows * cols); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  double at(int64_t r, int64_t c) const;  // any type, as double
};

// Seeded input, never zeros (so unwritten or misplaced outputs show): ints in [-1000, 1000],
// floats in [-1, 1); Game of Life gets 0/1 cells (about 35 % alive).
HostMatrix random_input(const Scenario& s, uint64_t seed);

// Stable 64-bit seed from a problem key.
uint64_t seed_of(const std::string& key);

HostMatrix reference_stencil(const Scenario& s, const HostMatrix& in);

// Fills the output with a value no program produces: NaN (float, double) or 0x80808080 (int,
// the byte pattern a device memset of 0x80 gives).
void poison(HostMatrix& out);

struct Verdict {
  bool ok = false;
  double rel_error = -1;  // float/double: ||out - ref||_F / ||ref||_F; int: mismatch fraction
  std::string message;    // why not ok: first mismatch or the error vs the bound
};

// Ints must match exactly. Floats: relative Frobenius error <= error_bound(s): the backends
// run the reference's operation order, but compilers may contract a*b+c into an FMA (one
// rounding instead of two) differently, so allow 32 eps per counted operation; a misplaced
// neighbour or an unwritten cell gives O(1) error or NaN.
Verdict verify(const Scenario& s, const HostMatrix& out, const HostMatrix& ref);
double error_bound(const Scenario& s);

}  // namespace ktune::stencil
