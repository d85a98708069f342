#pragma once
// The stencil frame on the CPU, the analogue of stencil_frame.cuh: a work-group is an R x C
// tile of outputs processed by one OpenMP task, which first stages the tile plus its border
// (corners included) into a thread-local buffer (the CPU's "local memory"), applying the
// boundary rule there, then calls the user function on each output cell. The user function is
// a template over the element type and the staged-tile accessor, so each (program, type) is one
// instantiation, as on the GPU.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/stencil/cpu/stencil_user.hpp"

namespace ktune::stencil::cpu {

// in(dy, dx): the staged cell dy rows south and dx columns east of the output cell.
template <typename T>
struct Staged {
  const T* centre;
  int64_t stride;
  T operator()(int dy, int dx) const { return centre[dy * stride + dx]; }
};

struct Geometry {
  int64_t rows = 0, cols = 0;
  int north = 0, south = 0, east = 0, west = 0;
  bool clamp = false;
  int wg_rows = 1, wg_cols = 1;
};

// Copies the block's tile plus border into buf ((wg_rows+N+S) x (wg_cols+W+E), row-major).
template <typename T>
void stage(const Geometry& g, const T* in, int64_t row0, int64_t col0, T* buf) {
  const int64_t tile_rows = g.wg_rows + g.north + g.south;
  const int64_t tile_cols = g.wg_cols + g.west + g.east;
  for (int64_t lr = 0; lr < tile_rows; ++lr) {
    int64_t r = row0 + lr;
    T* dst = buf + lr * tile_cols;
    if (r < 0 || r >= g.rows) {
      if (!g.clamp) {
        std::fill_n(dst, tile_cols, T(0));
        continue;
      }
      r = std::clamp<int64_t>(r, 0, g.rows - 1);
    }
    const T* src = in + r * g.cols;
    // Inside columns in one copy; the outside ones by the boundary rule.
    const int64_t first = std::clamp<int64_t>(-col0, 0, tile_cols);
    const int64_t last = std::clamp<int64_t>(g.cols - col0, first, tile_cols);
    for (int64_t lc = 0; lc < first; ++lc) dst[lc] = g.clamp ? src[0] : T(0);
    if (last > first)
      std::memcpy(dst + first, src + col0 + first, size_t(last - first) * sizeof(T));
    for (int64_t lc = last; lc < tile_cols; ++lc) dst[lc] = g.clamp ? src[g.cols - 1] : T(0);
  }
}

// Runs fn(Staged<T>) for every output cell, one task per work-group tile.
template <typename T, typename Fn>
void run_tiled(const Geometry& g, const T* in, T* out, Fn fn) {
  const int64_t blocks_r = (g.rows + g.wg_rows - 1) / g.wg_rows;
  const int64_t blocks_c = (g.cols + g.wg_cols - 1) / g.wg_cols;
  const int64_t tile_cols = g.wg_cols + g.west + g.east;
  const size_t tile_cells = size_t((g.wg_rows + g.north + g.south) * tile_cols);
#pragma omp parallel
  {
    std::vector<T> buf(tile_cells);
#pragma omp for schedule(dynamic)
    for (int64_t block = 0; block < blocks_r * blocks_c; ++block) {
      const int64_t br = block / blocks_c, bc = block % blocks_c;
      const int64_t row0 = br * g.wg_rows, col0 = bc * g.wg_cols;
      stage(g, in, row0 - g.north, col0 - g.west, buf.data());
      const int64_t rows = std::min<int64_t>(g.wg_rows, g.rows - row0);
      const int64_t cols = std::min<int64_t>(g.wg_cols, g.cols - col0);
      for (int64_t lr = 0; lr < rows; ++lr) {
        const T* centre_row = buf.data() + (lr + g.north) * tile_cols + g.west;
        T* out_row = out + (row0 + lr) * g.cols + col0;
        for (int64_t lc = 0; lc < cols; ++lc)
          out_row[lc] = fn(Staged<T>{centre_row + lc, tile_cols});
      }
    }
  }
}

// The synthetic user function with run-time borders: the generated straight-line text's
// operation sequence (stencil_programs.hpp), as loops.
template <typename T>
struct Synthetic {
  int north, south, east, west;
  bool heavy;
  template <typename In>  // Staged<T> in the frame, any in(dy, dx) accessor in a reference
  T operator()(const In& in) const {
    T acc = in(0, 0);
    const int lengths[4] = {north, south, east, west};
    const int dy[4] = {-1, 1, 0, 0}, dx[4] = {0, 0, 1, -1};
    for (int arm = 0; arm < 4; ++arm)
      for (int i = 1; i <= lengths[arm]; ++i)
        acc = acc + T((i + arm) % 3 + 1) * in(dy[arm] * i, dx[arm] * i);
    if (heavy) {
      for (int round = 0; round < 16; ++round) {
        if constexpr (std::is_integral_v<T>)
          acc = (acc * T(7) + T(3)) % T(1009) - T(504);
        else
          acc = acc * T(0.5) + ktune_sqrt(acc * acc + T(1));
      }
    }
    return acc;
  }
};

}  // namespace ktune::stencil::cpu
