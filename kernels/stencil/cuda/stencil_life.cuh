// Conway's Game of Life, borders 1 (the 8 neighbours), int cells: non-zero is alive. The next
// state is 1 when exactly 3 neighbours live, or when the cell lives and exactly 2 do; else 0.
// With boundary pad the outside is dead (0); with clamp it mirrors the nearest edge cell.
// Shared by both backends: KTUNE_HD is defined by the includer.
#ifndef KTUNE_STENCIL_LIFE_CUH
#define KTUNE_STENCIL_LIFE_CUH

template <typename T, typename In>
KTUNE_HD T ktune_life(const In& in) {
  int n = (in(-1, -1) != T(0)) ? 1 : 0;
  n = n + ((in(-1, 0) != T(0)) ? 1 : 0);
  n = n + ((in(-1, 1) != T(0)) ? 1 : 0);
  n = n + ((in(0, -1) != T(0)) ? 1 : 0);
  n = n + ((in(0, 1) != T(0)) ? 1 : 0);
  n = n + ((in(1, -1) != T(0)) ? 1 : 0);
  n = n + ((in(1, 0) != T(0)) ? 1 : 0);
  n = n + ((in(1, 1) != T(0)) ? 1 : 0);
  const bool alive = in(0, 0) != T(0);
  return (n == 3 || (alive && n == 2)) ? T(1) : T(0);
}

#endif
