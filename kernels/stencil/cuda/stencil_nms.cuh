// Non-maximum suppression over the 3x3 window, borders 1: the centre is kept when no
// neighbour is greater (ties keep it), else the output is 0. With boundary pad the outside
// reads 0, so a negative edge cell is suppressed; with clamp the outside repeats the edge.
// Shared by both backends: KTUNE_HD is defined by the includer.
#ifndef KTUNE_STENCIL_NMS_CUH
#define KTUNE_STENCIL_NMS_CUH

template <typename T, typename In>
KTUNE_HD T ktune_nms(const In& in) {
  const T c = in(0, 0);
  bool keep = !(in(-1, -1) > c);
  keep = keep && !(in(-1, 0) > c);
  keep = keep && !(in(-1, 1) > c);
  keep = keep && !(in(0, -1) > c);
  keep = keep && !(in(0, 1) > c);
  keep = keep && !(in(1, -1) > c);
  keep = keep && !(in(1, 0) > c);
  keep = keep && !(in(1, 1) > c);
  return keep ? c : T(0);
}

#endif
