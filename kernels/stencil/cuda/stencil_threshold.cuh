// Binary threshold, borders 0 (pointwise; the staged "border region" is empty, so the boundary
// mode has no effect): 1 when the cell is greater than 0, else 0.
// Shared by both backends: KTUNE_HD is defined by the includer.
#ifndef KTUNE_STENCIL_THRESHOLD_CUH
#define KTUNE_STENCIL_THRESHOLD_CUH

template <typename T, typename In>
KTUNE_HD T ktune_threshold(const In& in) {
  return in(0, 0) > T(0) ? T(1) : T(0);
}

#endif
