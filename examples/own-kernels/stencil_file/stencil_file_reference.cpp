// The check of the stencil file family: each output cell's user function applied to the input
// read through the boundary rule directly (no tiles, no staging), so a wrong tile, border or
// staging of the tuned frame shows. Outputs are double, as x-ktune.Reference asks.
#include <algorithm>
#include <cstdint>

#include "kernels/stencil/cpu/stencil_cpu_dispatch.hpp"

namespace {

struct Direct {
  const float* in;
  int64_t rows, cols, r, c;
  bool clamp;
  float operator()(int dy, int dx) const {
    int64_t y = r + dy, x = c + dx;
    if (!clamp && (y < 0 || y >= rows || x < 0 || x >= cols)) return 0.0f;
    y = std::clamp<int64_t>(y, 0, rows - 1);
    x = std::clamp<int64_t>(x, 0, cols - 1);
    return in[y * cols + x];
  }
};

}  // namespace

void stencil_file_reference(const float* in, double* out, int32_t program, int32_t north,
                            int32_t south, int32_t east, int32_t west, int32_t heavy,
                            int32_t boundary, int64_t rows, int64_t cols) {
  using namespace ktune::stencil::cpu;
  const Shape shape{program, north, south, east, west, heavy == 1};
  with_user_function<float>(shape, [&](const auto& fn) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out[r * cols + c] = fn(Direct{in, rows, cols, r, c, boundary == 1});
  });
}
