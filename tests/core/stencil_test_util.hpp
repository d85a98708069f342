#pragma once
// Stencil scenarios for the stencil family's tests (CPU here, CUDA in tests/gpu).
#include <cstdint>

#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_programs.hpp"

namespace ktune::stencil::test {

// Real program `p` with its own fixed borders.
inline Scenario real(Program p, ElemType type, Boundary boundary, int64_t rows, int64_t cols) {
  Scenario s;
  s.program = p;
  const ProgramInfo& info = program_info(p);
  s.north = info.north, s.south = info.south, s.east = info.east, s.west = info.west;
  s.type = type;
  s.boundary = boundary;
  s.rows = rows, s.cols = cols;
  return s;
}

// The synthetic program with borders north n, south s, east e, west w.
inline Scenario synthetic(int n, int s, int e, int w, ElemType type, bool heavy, int64_t rows,
                          int64_t cols) {
  Scenario sc;
  sc.program = Program::synthetic;
  sc.north = n, sc.south = s, sc.east = e, sc.west = w;
  sc.type = type;
  sc.heavy = heavy;
  sc.rows = rows, sc.cols = cols;
  return sc;
}

}  // namespace ktune::stencil::test
