// A parallel sum reduction in CUDA, written afresh after M. Harris, "Optimizing Parallel
// Reduction in CUDA" (NVIDIA, 2007): each thread first adds ITEMS elements (strided by the
// block, so loads coalesce), then the block halves a shared-memory array with sequential
// addressing, and thread 0 adds the block's sum to out[0] (which starts at 0: reduction_cuda.json
// fills it so; a caller of the deployed library zeroes it). BLOCK is a power of two.
__global__ void reduction(const float* x, float* out, int n) {
  __shared__ float part[BLOCK];
  float sum = 0;
  int i = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
  for (int k = 0; k < ITEMS; ++k, i += BLOCK)
    if (i < n) sum += x[i];
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
