// The check of jacobi2d.cpp and jacobi2d.cu (x-ktune.Reference): the same sweep in double.
#include <cstdint>

void jacobi2d_reference(const float* in, double* out, int32_t nx, int32_t ny) {
  for (int32_t i = 0; i < ny; ++i)
    for (int32_t j = 0; j < nx; ++j) {
      const int32_t k = i * nx + j;
      out[k] = (i == 0 || j == 0 || i == ny - 1 || j == nx - 1)
                   ? double(in[k])
                   : 0.25 * (double(in[k - nx]) + double(in[k + nx]) + double(in[k - 1]) +
                             double(in[k + 1]));
    }
}
