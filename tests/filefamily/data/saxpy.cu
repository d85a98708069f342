// Test CUDA kernel: y = a * x + y with ITEMS consecutive elements per thread. It accepts 1, 2
// or 4 items (the static_assert), so ITEMS=3 fails to compile.
static_assert(ITEMS == 1 || ITEMS == 2 || ITEMS == 4, "ITEMS is 1, 2 or 4");

__global__ void saxpy(const float* x, float* y, float a, int n) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int k = 0; k < ITEMS; ++k)
    if (base + k < n) y[base + k] = a * x[base + k] + y[base + k];
}
