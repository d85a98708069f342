// Sobel gradient magnitude, borders 1: gx = east column (1 2 1) - west column (1 2 1),
// gy = south row (1 2 1) - north row (1 2 1), out = sqrt(gx*gx + gy*gy).
// Shared by both backends: KTUNE_HD and ktune_sqrt are defined by the includer.
#ifndef KTUNE_STENCIL_SOBEL_CUH
#define KTUNE_STENCIL_SOBEL_CUH

template <typename T, typename In>
KTUNE_HD T ktune_sobel(const In& in) {
  const T east = in(-1, 1) + T(2) * in(0, 1) + in(1, 1);
  const T west = in(-1, -1) + T(2) * in(0, -1) + in(1, -1);
  const T south = in(1, -1) + T(2) * in(1, 0) + in(1, 1);
  const T north = in(-1, -1) + T(2) * in(-1, 0) + in(-1, 1);
  const T gx = east - west;
  const T gy = south - north;
  return ktune_sqrt(gx * gx + gy * gy);
}

#endif
