// One explicit step of the 2D heat equation (5-point Laplacian, diffusion number 0.25, the
// stability limit of the explicit scheme), borders 1:
//   out = c + 0.25 * ((((n + s) + e) + w) - 4 * c)
// Boundary pad is a Dirichlet condition u = 0 outside; clamp a zero-flux (Neumann) one.
// Shared by both backends: KTUNE_HD is defined by the includer.
#ifndef KTUNE_STENCIL_HEAT_CUH
#define KTUNE_STENCIL_HEAT_CUH

template <typename T, typename In>
KTUNE_HD T ktune_heat(const In& in) {
  const T c = in(0, 0);
  const T sum = in(-1, 0) + in(1, 0) + in(0, 1) + in(0, -1);
  return c + T(0.25) * (sum - T(4) * c);
}

#endif
