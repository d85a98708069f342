// Patch-matrix (im2col) transform of the CUDA kind `cuda_im2col` of the conv2d family, and the
// float64 reference convolution that the CUDA backend verifies every kernel against (and the
// 16-bit-to-FP32 widening of the cuDNN baseline's bf16 / fp16 outputs, judged by it).
// Layouts as in conv2d_direct.cuh (x NHWC, filter KRSC, y NHWC).
//
// ktune_conv2d_im2col writes the patch matrix [n*p*q][ld] (row = output pixel, column =
// (ri * s + si) * c + ci, the filter's own RSC order, so the filter is the GEMM's other operand
// unchanged); columns r*s*c .. ld-1 are never read. One thread per VC consecutive channels of
// one (pixel, ri, si): consecutive threads read and write consecutive addresses. The host
// refuses VC == 4 unless c % 4 == 0 and ld % 4 == 0. Any 1-D grid: threads stride.
// Compiled at run time by NVRTC (no standard headers) and by nvcc in the deployed library.
#ifndef KTUNE_CONV2D_IM2COL_CUH
#define KTUNE_CONV2D_IM2COL_CUH

template <int VC>
__global__ void __launch_bounds__(256)
    ktune_conv2d_im2col(const float* __restrict__ x, float* __restrict__ patch, int n, int h,
                        int wd, int c, int r, int s, int stride, int pad, int p, int q,
                        long long ld) {
  const int cv = c / VC;
  const long long total = (long long)n * p * q * r * s * cv;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int ci = int(e % cv) * VC;
    const long long rest = e / cv;
    const int rs = int(rest % (r * s));
    const long long pix = rest / (r * s);
    const int qi = int(pix % q);
    const int pi = int((pix / q) % p);
    const long long ni = pix / ((long long)p * q);
    const int ih = pi * stride - pad + rs / s;
    const int iw = qi * stride - pad + rs % s;
    float* out = patch + pix * ld + (long long)rs * c + ci;
    const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < wd;
    const float* in = x + ((ni * h + ih) * wd + iw) * c + ci;
    if (VC == 4) {
      *reinterpret_cast<float4*>(out) =
          inside ? *reinterpret_cast<const float4*>(in) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
#pragma unroll
      for (int v = 0; v < VC; ++v) out[v] = inside ? in[v] : 0.0f;
    }
  }
}

#ifndef KTUNE_CONV2D_NO_REFERENCE  // deployed libraries ship no reference (an extern "C" symbol)
// Float64 reference: one thread per output element, accumulating in double the products of the
// float inputs (exact in double), in (ri, si, ci) order. Any 1-D grid: threads stride.
extern "C" __global__ void __launch_bounds__(256)
    ktune_conv2d_reference(const float* __restrict__ x, const float* __restrict__ w,
                           double* __restrict__ y, int n, int h, int wd, int c, int k, int r, int s,
                           int stride, int pad, int p, int q) {
  const long long total = (long long)n * p * q * k;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int ki = int(e % k);
    const long long pix = e / k;
    const int qi = int(pix % q);
    const int pi = int((pix / q) % p);
    const long long ni = pix / ((long long)p * q);
    double sum = 0.0;
    for (int ri = 0; ri < r; ++ri) {
      const int ih = pi * stride - pad + ri;
      if (ih < 0 || ih >= h) continue;
      for (int si = 0; si < s; ++si) {
        const int iw = qi * stride - pad + si;
        if (iw < 0 || iw >= wd) continue;
        const float* in = x + ((ni * h + ih) * wd + iw) * c;
        const float* f = w + (((long long)ki * r + ri) * s + si) * c;
        for (int ci = 0; ci < c; ++ci) sum += (double)in[ci] * (double)f[ci];
      }
    }
    y[e] = sum;
  }
}

// The conv2d family's cuDNN baseline in bf16 / fp16 writes 16-bit outputs: widened here to FP32
// (exactly) before they are judged against the reference. fp16 != 0: IEEE half, else bf16.
extern "C" __global__ void __launch_bounds__(256)
    ktune_conv2d_widen16(const unsigned short* __restrict__ in, float* __restrict__ out,
                         long long count, int fp16) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count;
       e += (long long)gridDim.x * blockDim.x) {
    const unsigned short bits = in[e];
    float v;
    if (fp16)
      asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));
    else
      v = __uint_as_float((unsigned int)bits << 16);
    out[e] = v;
  }
}
#endif  // KTUNE_CONV2D_NO_REFERENCE

#endif  // KTUNE_CONV2D_IM2COL_CUH
