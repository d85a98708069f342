// Tiled direct FP32 convolution (CUDA kind `cuda_direct` of the conv2d family).
// Layouts: x NHWC [n][h][w][c], filter KRSC [k][r][s][c], y NHWC [n][p][q][k]; stride and
// symmetric zero padding; cross-correlation (no filter flip), dilation 1, groups 1.
//
// Each thread computes an output tile of TP rows x TQ columns x VK output channels in
// registers, stepping over the input channels VC at a time (VC == 4: 16-byte loads; the host
// refuses VC == 4 unless c % 4 == 0). A block of WG threads is kx threads along output-channel
// groups (fastest, so a warp writes consecutive channels and reads the same input values) times
// sy x sx threads over output tiles; kx, sx, sy are launch arguments (conv2d_cuda_launch.hpp).
// SMEM == 1 stages the block's input patch, KTUNE_CONV_DIRECT_CC channels at a time, in dynamic
// shared memory ([patch rows][patch cols][CC], zero-filled outside the image), so that the
// input values shared by neighbouring output tiles are read from global memory once per block;
// SMEM == 0 reads them straight from global memory (through L1).
//
// Grid: x = k blocks * q blocks (k block fastest), y = p blocks, z = n.
// Compiled at run time by NVRTC (no standard headers) and by nvcc in the deployed library.
#ifndef KTUNE_CONV2D_DIRECT_CUH
#define KTUNE_CONV2D_DIRECT_CUH

#define KTUNE_CONV_DIRECT_CC 8

template <int VC>
__device__ __forceinline__ void ktune_conv_load(const float* __restrict__ at, float (&v)[VC]) {
  if (VC == 4) {
    const float4 x = *reinterpret_cast<const float4*>(at);
    v[0] = x.x;
    v[VC > 1 ? 1 : 0] = x.y;
    v[VC > 2 ? 2 : 0] = x.z;
    v[VC > 3 ? 3 : 0] = x.w;
  } else {
#pragma unroll
    for (int e = 0; e < VC; ++e) v[e] = at[e];
  }
}

// acc[v] += <x, w[v]> over the VC channels of one step, for the VK output channels.
template <int VK, int VC>
__device__ __forceinline__ void ktune_conv_fma(float (&acc)[VK], const float (&x)[VC],
                                               const float (&w)[VK][VC]) {
#pragma unroll
  for (int v = 0; v < VK; ++v)
#pragma unroll
    for (int e = 0; e < VC; ++e) acc[v] = fmaf(x[e], w[v][e], acc[v]);
}

template <int TP, int TQ, int VK, int VC, int SMEM, int WG>
__global__ void __launch_bounds__(WG)
    ktune_conv2d_direct(const float* __restrict__ x, const float* __restrict__ w,
                        float* __restrict__ y, int n, int h, int wd, int c, int k, int r, int s,
                        int stride, int pad, int p, int q, int kx, int sx, int sy) {
  extern __shared__ __align__(16) float patch[];
  const int tid = threadIdx.x;
  const int kg = tid % kx;
  const int sp = tid / kx;
  const int tx = sp % sx;
  const int ty = sp / sx;
  const int k_blocks = ((k + VK - 1) / VK + kx - 1) / kx;
  const int kb = blockIdx.x % k_blocks;
  const int qb = blockIdx.x / k_blocks;
  const int ni = blockIdx.z;
  const int k0 = (kb * kx + kg) * VK;
  const int bp0 = blockIdx.y * sy * TP;  // first output row of the block
  const int bq0 = qb * sx * TQ;
  const int p0 = bp0 + ty * TP;
  const int q0 = bq0 + tx * TQ;
  const bool active = ty < sy;  // spare threads when sx * sy * kx < WG still help staging

  float acc[TP][TQ][VK];
#pragma unroll
  for (int i = 0; i < TP; ++i)
#pragma unroll
    for (int j = 0; j < TQ; ++j)
#pragma unroll
      for (int v = 0; v < VK; ++v) acc[i][j][v] = 0.0f;

  // Filter rows of this thread's channels (clamped: threads past k compute and drop).
  const long long rsc = (long long)r * s * c;
  const float* wrow[VK];
#pragma unroll
  for (int v = 0; v < VK; ++v) wrow[v] = w + (long long)(k0 + v < k ? k0 + v : k - 1) * rsc;
  const float* xn = x + (long long)ni * h * wd * c;

  if (SMEM) {
    constexpr int CC = KTUNE_CONV_DIRECT_CC;
    const int ph = (sy * TP - 1) * stride + r;
    const int pw = (sx * TQ - 1) * stride + s;
    const int ih0 = bp0 * stride - pad;
    const int iw0 = bq0 * stride - pad;
    const int patch_elems = ph * pw * CC;
    for (int c0 = 0; c0 < c; c0 += CC) {
      const int cc = c - c0 < CC ? c - c0 : CC;
      __syncthreads();  // the previous chunk is consumed
      for (int e = tid; e < patch_elems; e += WG) {
        const int ci = e % CC;
        const int pos = e / CC;
        const int ih = ih0 + pos / pw;
        const int iw = iw0 + pos % pw;
        patch[e] = ci < cc && ih >= 0 && ih < h && iw >= 0 && iw < wd
                       ? xn[((long long)ih * wd + iw) * c + c0 + ci]
                       : 0.0f;
      }
      __syncthreads();
      if (active) {
        for (int ri = 0; ri < r; ++ri) {
          for (int si = 0; si < s; ++si) {
            const long long woff = ((long long)ri * s + si) * c + c0;
            for (int ci = 0; ci < cc; ci += VC) {
              float wv[VK][VC];
#pragma unroll
              for (int v = 0; v < VK; ++v) ktune_conv_load<VC>(wrow[v] + woff + ci, wv[v]);
#pragma unroll
              for (int i = 0; i < TP; ++i) {
#pragma unroll
                for (int j = 0; j < TQ; ++j) {
                  const float* at =
                      patch +
                      (((ty * TP + i) * stride + ri) * pw + (tx * TQ + j) * stride + si) * CC + ci;
                  float xv[VC];
                  ktune_conv_load<VC>(at, xv);
                  ktune_conv_fma<VK, VC>(acc[i][j], xv, wv);
                }
              }
            }
          }
        }
      }
    }
  } else if (active) {
    for (int ri = 0; ri < r; ++ri) {
      for (int si = 0; si < s; ++si) {
        // Input pixel of each output position of the tile for this (ri, si); -1: padding.
        long long xoff[TP][TQ];
#pragma unroll
        for (int i = 0; i < TP; ++i) {
#pragma unroll
          for (int j = 0; j < TQ; ++j) {
            const int ih = (p0 + i) * stride - pad + ri;
            const int iw = (q0 + j) * stride - pad + si;
            xoff[i][j] =
                ih >= 0 && ih < h && iw >= 0 && iw < wd ? ((long long)ih * wd + iw) * c : -1;
          }
        }
        const long long woff = ((long long)ri * s + si) * c;
        for (int ci = 0; ci < c; ci += VC) {
          float wv[VK][VC];
#pragma unroll
          for (int v = 0; v < VK; ++v) ktune_conv_load<VC>(wrow[v] + woff + ci, wv[v]);
#pragma unroll
          for (int i = 0; i < TP; ++i) {
#pragma unroll
            for (int j = 0; j < TQ; ++j) {
              float xv[VC];
              if (xoff[i][j] >= 0) {
                ktune_conv_load<VC>(xn + xoff[i][j] + ci, xv);
              } else {
#pragma unroll
                for (int e = 0; e < VC; ++e) xv[e] = 0.0f;
              }
              ktune_conv_fma<VK, VC>(acc[i][j], xv, wv);
            }
          }
        }
      }
    }
  }
  if (!active || k0 >= k) return;

  const bool vec_out = VK % 4 == 0 && k % 4 == 0 && k0 + VK <= k;
#pragma unroll
  for (int i = 0; i < TP; ++i) {
#pragma unroll
    for (int j = 0; j < TQ; ++j) {
      if (p0 + i >= p || q0 + j >= q) continue;
      float* out = y + (((long long)ni * p + p0 + i) * q + q0 + j) * k + k0;
      if (vec_out) {
#pragma unroll
        for (int v = 0; v < VK; v += 4)
          *reinterpret_cast<float4*>(out + v) =
              make_float4(acc[i][j][v], acc[i][j][v + 1 < VK ? v + 1 : 0],
                          acc[i][j][v + 2 < VK ? v + 2 : 0], acc[i][j][v + 3 < VK ? v + 3 : 0]);
      } else {
#pragma unroll
        for (int v = 0; v < VK; ++v)
          if (k0 + v < k) out[v] = acc[i][j][v];
      }
    }
  }
}

#endif  // KTUNE_CONV2D_DIRECT_CUH
