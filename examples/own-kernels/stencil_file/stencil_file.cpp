// The built-in stencil family's CPU kernel (kernels/stencil/cpu) as a file family's kernel:
// one run of a float stencil program over a rows x cols matrix with work-group `wg`, through
// the very frame and user functions of the built-in backend. `wg` arrives as the family's
// own config string, `-Dwg=8x32`: "8x32" is one preprocessing number, so it is stringified
// and split into the tile's rows and columns at compile time.
#include <cstdint>

#include "kernels/stencil/cpu/stencil_cpu_dispatch.hpp"

namespace stencil_file_detail {

#define STENCIL_FILE_TEXT(x) #x
#define STENCIL_FILE_STRING(x) STENCIL_FILE_TEXT(x)
constexpr const char kWorkGroup[] = STENCIL_FILE_STRING(wg);

constexpr int leading_number(const char* s) {
  int v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + (*s - '0');
  return v;
}
constexpr const char* after_x(const char* s) {
  while (*s && *s != 'x') ++s;
  return *s ? s + 1 : s;
}
constexpr int kRows = leading_number(kWorkGroup), kCols = leading_number(after_x(kWorkGroup));
static_assert(kRows > 0 && kCols > 0, "compile with -Dwg=RxC");

}  // namespace stencil_file_detail

void stencil_file(const float* in, float* out, int32_t program, int32_t north, int32_t south,
                  int32_t east, int32_t west, int32_t heavy, int32_t boundary, int64_t rows,
                  int64_t cols) {
  using namespace ktune::stencil::cpu;
  const Geometry g{.rows = rows,
                   .cols = cols,
                   .north = north,
                   .south = south,
                   .east = east,
                   .west = west,
                   .clamp = boundary == 1,
                   .wg_rows = stencil_file_detail::kRows,
                   .wg_cols = stencil_file_detail::kCols};
  const Shape shape{program, north, south, east, west, heavy == 1};
  with_user_function<float>(shape, [&](const auto& fn) { run_tiled(g, in, out, fn); });
}
