// One sweep of the 2D 5-point Jacobi stencil in CUDA (see jacobi2d.cpp): one thread per grid
// point, blocks of BX x BY threads; the border is copied.
__global__ void jacobi2d(const float* in, float* out, int nx, int ny) {
  const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
  if (i >= ny || j >= nx) return;
  const int k = i * nx + j;
  if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1)
    out[k] = in[k];
  else
    out[k] = 0.25f * (in[k - nx] + in[k + nx] + in[k - 1] + in[k + 1]);
}
