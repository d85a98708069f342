// The all-pairs gravitational acceleration of n bodies in CUDA, written afresh after Nyland,
// Harris and Prins, "Fast N-Body Simulation with CUDA" (GPU Gems 3, ch. 31): one thread per
// body, BLOCK threads per block; the block stages BLOCK source bodies at a time in shared memory
// (the paper's tiles). Bodies past n are staged with mass 0, so they add nothing.
__global__ void nbody(const float4* pos, float4* acc, float eps2, int n) {
  __shared__ float4 tile[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float ax = 0, ay = 0, az = 0;
  for (int t = 0; t < n; t += BLOCK) {
    const int j = t + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
      const float4 s = tile[k];
      const float dx = s.x - p.x, dy = s.y - p.y, dz = s.z - p.z;
      const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
      const float f = s.w * inv * inv * inv;
      ax += f * dx, ay += f * dy, az += f * dz;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(ax, ay, az, 0);
}
