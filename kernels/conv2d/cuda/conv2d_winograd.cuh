// Winograd F(MxM, 3x3) transforms of the CUDA kind `cuda_winograd` of the conv2d family
// (3x3 filters, stride 1; M = 2 or 4, tile A = M + 2, T = A * A transform points; Lavin & Gray's
// matrices). A convolution is: filter transform U = G g G^T, input transform V = B^T d B per
// A x A input tile (tiles overlap by 2), T independent GEMMs  Mt = Ut * Vt  (ktune's tiled GEMM,
// batched over t), and the output transform Y = A^T m A per M x M output tile.
// Layouts (all column-major GEMM operands, no transposes):
//   U [T][C][K]      (Ut: K x C, ld K)           written by ktune_conv2d_wino_filter
//   V [T][tiles][C]  (Vt: C x tiles, ld C)       written by ktune_conv2d_wino_input
//   Mx [T][tiles][K] (Mt: K x tiles, ld K)       read by ktune_conv2d_wino_output
// tiles = n * th * tw with th = ceil(p / M), tw = ceil(q / M); tile index (ni * th + ti) * tw + tj.
// Every kernel: one thread per VC consecutive channels of one tile (consecutive threads,
// consecutive channels: coalesced), any 1-D grid (threads stride); the host refuses VC == 4
// unless the channel count is a multiple of 4.
// Compiled at run time by NVRTC (no standard headers) and by nvcc in the deployed library.
#ifndef KTUNE_CONV2D_WINOGRAD_CUH
#define KTUNE_CONV2D_WINOGRAD_CUH

// Transform matrices; called with compile-time indices only (unrolled loops), so they fold to
// constants and the zero terms vanish.
template <int M>
__device__ __forceinline__ float ktune_wino_bt(int i, int j) {  // A x A
  if (M == 2) {
    const float b[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    return b[i][j];
  }
  const float b[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                         {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  return b[i][j];
}

template <int M>
__device__ __forceinline__ float ktune_wino_g(int i, int j) {  // A x 3
  if (M == 2) {
    const float g[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
    return g[i][j];
  }
  const float g[6][3] = {{1.0f / 4, 0, 0},
                         {-1.0f / 6, -1.0f / 6, -1.0f / 6},
                         {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                         {1.0f / 24, 1.0f / 12, 1.0f / 6},
                         {1.0f / 24, -1.0f / 12, 1.0f / 6},
                         {0, 0, 1}};
  return g[i][j];
}

template <int M>
__device__ __forceinline__ float ktune_wino_at(int i, int j) {  // M x A
  if (M == 2) {
    const float a[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    return a[i][j];
  }
  const float a[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  return a[i][j];
}

// VC consecutive floats at `at` (16-byte access when VC == 4) into / out of lane l of v.
template <int VC>
__device__ __forceinline__ void ktune_wino_load(const float* __restrict__ at, float (&v)[VC]) {
  if (VC == 4) {
    const float4 x = *reinterpret_cast<const float4*>(at);
    v[0] = x.x;
    v[VC > 1 ? 1 : 0] = x.y;
    v[VC > 2 ? 2 : 0] = x.z;
    v[VC > 3 ? 3 : 0] = x.w;
  } else {
#pragma unroll
    for (int l = 0; l < VC; ++l) v[l] = at[l];
  }
}

template <int VC>
__device__ __forceinline__ void ktune_wino_store(float* __restrict__ at, const float (&v)[VC]) {
  if (VC == 4) {
    *reinterpret_cast<float4*>(at) =
        make_float4(v[0], v[VC > 1 ? 1 : 0], v[VC > 2 ? 2 : 0], v[VC > 3 ? 3 : 0]);
  } else {
#pragma unroll
    for (int l = 0; l < VC; ++l) at[l] = v[l];
  }
}

// out = L x L^T for each of the VC lanes, with L (ROWS x COLS) given by the transform function
// L(i, j) (ktune_wino_bt / _g / _at): the one two-sided product all transforms are made of.
template <int ROWS, int COLS, int VC, typename Matrix>
__device__ __forceinline__ void ktune_wino_sandwich(Matrix l_of, const float (&x)[COLS][COLS][VC],
                                                    float (&out)[ROWS][ROWS][VC]) {
#pragma unroll
  for (int v = 0; v < VC; ++v) {
    float tmp[ROWS][COLS];  // L x
#pragma unroll
    for (int i = 0; i < ROWS; ++i)
#pragma unroll
      for (int j = 0; j < COLS; ++j) {
        float sum = 0.0f;
#pragma unroll
        for (int m = 0; m < COLS; ++m) sum = fmaf(l_of(i, m), x[m][j][v], sum);
        tmp[i][j] = sum;
      }
#pragma unroll
    for (int i = 0; i < ROWS; ++i)
#pragma unroll
      for (int j = 0; j < ROWS; ++j) {
        float sum = 0.0f;
#pragma unroll
        for (int m = 0; m < COLS; ++m) sum = fmaf(tmp[i][m], l_of(j, m), sum);
        out[i][j][v] = sum;
      }
  }
}

// U[t][ci][ki] = (G g G^T)[t] for the 3x3 filter g = w[ki][.][.][ci]; one thread per
// (ci, VC output channels), output channel fastest.
template <int M, int VC>
__global__ void __launch_bounds__(256)
    ktune_conv2d_wino_filter(const float* __restrict__ w, float* __restrict__ u, int c, int k) {
  constexpr int A = M + 2;
  const int kv = k / VC;
  const long long total = (long long)c * kv;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int k0 = int(e % kv) * VC;
    const int ci = int(e / kv);
    float g[3][3][VC];
#pragma unroll
    for (int v = 0; v < VC; ++v)
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) g[i][j][v] = w[((long long)(k0 + v) * 9 + i * 3 + j) * c + ci];
    float out[A][A][VC];
    ktune_wino_sandwich<A, 3, VC>([](int i, int j) { return ktune_wino_g<M>(i, j); }, g, out);
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
      for (int j = 0; j < A; ++j)
        ktune_wino_store<VC>(u + ((long long)(i * A + j) * c + ci) * k + k0, out[i][j]);
  }
}

// V[t][tile][ci] = (B^T d B)[t] for the A x A input tile d (zero outside the image).
template <int M, int VC>
__global__ void __launch_bounds__(256)
    ktune_conv2d_wino_input(const float* __restrict__ x, float* __restrict__ v, int n, int h,
                            int wd, int c, int pad, int th, int tw) {
  constexpr int A = M + 2;
  const int cv = c / VC;
  const long long tiles = (long long)n * th * tw;
  const long long total = tiles * cv;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int ci = int(e % cv) * VC;
    const long long tile = e / cv;
    const int tj = int(tile % tw);
    const int ti = int((tile / tw) % th);
    const long long ni = tile / ((long long)th * tw);
    const int ih0 = ti * M - pad, iw0 = tj * M - pad;
    float d[A][A][VC];
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
      for (int j = 0; j < A; ++j) {
        const int ih = ih0 + i, iw = iw0 + j;
        if (ih >= 0 && ih < h && iw >= 0 && iw < wd) {
          ktune_wino_load<VC>(x + ((ni * h + ih) * wd + iw) * c + ci, d[i][j]);
        } else {
#pragma unroll
          for (int l = 0; l < VC; ++l) d[i][j][l] = 0.0f;
        }
      }
    float out[A][A][VC];
    ktune_wino_sandwich<A, A, VC>([](int i, int j) { return ktune_wino_bt<M>(i, j); }, d, out);
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
      for (int j = 0; j < A; ++j)
        ktune_wino_store<VC>(v + ((long long)(i * A + j) * tiles + tile) * c + ci, out[i][j]);
  }
}

// y (NHWC, p x q) = A^T m A per output tile, m[t] = Mx[t][tile][ki]; positions past p or q of
// the last tiles are dropped.
template <int M, int VC>
__global__ void __launch_bounds__(256)
    ktune_conv2d_wino_output(const float* __restrict__ mx, float* __restrict__ y, int n, int k,
                             int p, int q, int th, int tw) {
  constexpr int A = M + 2;
  const int kv = k / VC;
  const long long tiles = (long long)n * th * tw;
  const long long total = tiles * kv;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int k0 = int(e % kv) * VC;
    const long long tile = e / kv;
    const int tj = int(tile % tw);
    const int ti = int((tile / tw) % th);
    const long long ni = tile / ((long long)th * tw);
    float m[A][A][VC];
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
      for (int j = 0; j < A; ++j)
        ktune_wino_load<VC>(mx + ((long long)(i * A + j) * tiles + tile) * k + k0, m[i][j]);
    float out[M][M][VC];
    ktune_wino_sandwich<M, A, VC>([](int i, int j) { return ktune_wino_at<M>(i, j); }, m, out);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const int pi = ti * M + i;
      if (pi >= p) continue;
#pragma unroll
      for (int j = 0; j < M; ++j) {
        const int qi = tj * M + j;
        if (qi < q) ktune_wino_store<VC>(y + ((ni * p + pi) * q + qi) * k + k0, out[i][j]);
      }
    }
  }
}

#endif  // KTUNE_CONV2D_WINOGRAD_CUH
