#pragma once
// Host launch geometry of the CUDA conv2d kinds (conv2d_*.cuh kernels + gemm_tiled.cuh; the
// tensor-core kind conv2d_igemm_mma.cuh through launch_igemm_mma; the Hopper kind
// conv2d_wgmma.cuh through conv2d_wgmma_launch.hpp).
// Header-only and free of ktune libraries (CUDA runtime API, <string>, the config and GEMM
// launch headers), so the sweep backend (NVRTC kernels: LoadedKernel::function()) and the
// deployed library (nvcc kernels: (const void*)&ktune_conv2d_direct<...>) share it.
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_config.hpp"

namespace ktune::kernels::conv2d::cuda {

// One convolution: x NHWC [n][h][w][c], filter KRSC [k][r][s][c], y NHWC [n][p][q][k] (FP32).
// precision: x and w FP32 (fp32, and tf32: FP32 data, TF32 tensor-core math) or 16-bit (bf16,
// fp16).
struct ConvDims {
  long long n = 0, h = 0, w = 0, c = 0, k = 0, r = 0, s = 0, stride = 1, pad = 0;
  gemm::Precision precision = gemm::Precision::fp32;
  constexpr long long p() const { return (h + 2 * pad - r) / stride + 1; }
  constexpr long long q() const { return (w + 2 * pad - s) / stride + 1; }
};

// The kernels one config launches (what cudaLaunchKernel takes), null where unused:
// direct: main; im2col: main (ktune_conv2d_im2col) + gemm; gemm1x1: gemm; winograd:
// filter, input, output + gemm. *_max_threads: cudaFuncAttributes::maxThreadsPerBlock.
struct ConvKernels {
  const void* main = nullptr;
  int main_max_threads = 0;
  const void* gemm = nullptr;
  int gemm_max_threads = 0;
  const void* filter = nullptr;
  const void* input = nullptr;
  const void* output = nullptr;
};

struct ConvLaunch {
  cudaError_t error = cudaSuccess;  // a launch failure that is not a refusal
  bool refused = false;             // the config cannot run this problem
  std::string message;
};

namespace launch_detail {

inline std::string num(long long v) { return std::to_string(v); }

inline ConvLaunch refuse(const std::string& why) { return {cudaSuccess, true, why}; }

inline ConvLaunch classify(cudaError_t error, const std::string& what) {
  if (error == cudaSuccess) return {};
  const std::string text = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
  if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration) {
    (void)cudaGetLastError();
    return refuse(what + " refused: " + text);
  }
  return {error, false, what + " failed: " + text};
}

inline ConvLaunch launch(const void* kernel, dim3 grid, dim3 block, size_t smem, void** args,
                         cudaStream_t stream, const std::string& what) {
  if (kernel == nullptr) return refuse(what + ": no kernel");
  cudaError_t error = cudaLaunchKernel(kernel, grid, block, args, smem, stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  return classify(error, what);
}

inline long long pow2_at_least(long long v) {
  long long p = 1;
  while (p < v) p *= 2;
  return p;
}

// Blocks for a grid-stride kernel of 256 threads over `work` items.
inline unsigned stride_blocks(long long work) {
  const long long blocks = (work + 255) / 256;
  return unsigned(blocks < 1 ? 1 : blocks > 65535 * 16 ? 65535 * 16 : blocks);
}

inline gemm::BlockedParams gemm_params(const CudaConvConfig& g) {
  gemm::BlockedParams b;
  b.bm = g.bm, b.bn = g.bn, b.bk = g.bk, b.tm = g.tm, b.tn = g.tn, b.vec = 4, b.db = 1;
  b.splits = 1;
  return b;
}

}  // namespace launch_detail

// Direct-kernel geometry: kx threads along output-channel groups, sx x sy over output tiles.
struct DirectGeometry {
  long long kx = 1, sx = 1, sy = 1, k_blocks = 1, q_blocks = 1, p_blocks = 1;
  size_t smem_bytes = 0;
};

inline constexpr int kDirectStagedChannels = 8;  // KTUNE_CONV_DIRECT_CC in conv2d_direct.cuh

inline DirectGeometry direct_geometry(const CudaConvConfig& g, const ConvDims& d) {
  using launch_detail::pow2_at_least;
  DirectGeometry geo;
  const long long groups = (d.k + g.vk - 1) / g.vk;
  geo.kx = pow2_at_least(groups);
  if (geo.kx > 16) geo.kx = 16;
  if (geo.kx > g.wg) geo.kx = g.wg;
  const long long spatial = g.wg / geo.kx;
  geo.sx = pow2_at_least((d.q() + g.tq - 1) / g.tq);
  if (geo.sx > spatial) geo.sx = spatial;
  geo.sy = spatial / geo.sx;
  geo.k_blocks = (groups + geo.kx - 1) / geo.kx;
  geo.q_blocks = (d.q() + geo.sx * g.tq - 1) / (geo.sx * g.tq);
  geo.p_blocks = (d.p() + geo.sy * g.tp - 1) / (geo.sy * g.tp);
  if (g.smem) {
    const long long ph = (geo.sy * g.tp - 1) * d.stride + d.r;
    const long long pw = (geo.sx * g.tq - 1) * d.stride + d.s;
    geo.smem_bytes = size_t(ph * pw * kDirectStagedChannels) * sizeof(float);
  }
  return geo;
}

// Winograd tiles: th x tw per image.
inline long long wino_th(const CudaConvConfig& g, const ConvDims& d) {
  return (d.p() + g.m - 1) / g.m;
}
inline long long wino_tw(const CudaConvConfig& g, const ConvDims& d) {
  return (d.q() + g.m - 1) / g.m;
}
inline long long wino_points(const CudaConvConfig& g) { return (g.m + 2) * (g.m + 2); }
// Floats of the transformed filter at the start of the workspace (winograd only).
inline size_t wino_filter_floats(const CudaConvConfig& g, const ConvDims& d) {
  return size_t(wino_points(g) * d.c * d.k);
}

// Row length of the im2col patch matrix: r*s*c rounded up to 4 floats (16-byte rows).
inline long long im2col_ld(const ConvDims& d) { return (d.r * d.s * d.c + 3) / 4 * 4; }

// Why the config cannot run this problem ("" when it can).
inline std::string refusal(const CudaConvConfig& g, const ConvDims& d) {
  using launch_detail::num;
  if (!g.valid) return "config does not decode";
  if (d.n < 1 || d.h < 1 || d.w < 1 || d.c < 1 || d.k < 1 || d.r < 1 || d.s < 1 || d.stride < 1 ||
      d.pad < 0 || d.p() < 1 || d.q() < 1)
    return "empty or invalid problem";
  if (d.n > 65535) return "n over 65535";
  const bool fp32 = d.precision == gemm::Precision::fp32;
  const bool tensor_core = g.kind == CudaKind::igemm_mma || g.kind == CudaKind::igemm_wgmma;
  if (tensor_core && fp32)  // the tensor cores have no FP32 (IEEE FMA) math
    return std::string(g.kind == CudaKind::igemm_mma ? "cuda_igemm_mma"
                       : g.persist                   ? "cuda_igemm_wgmma_persist"
                                                     : "cuda_igemm_wgmma") +
           " runs tf32 / bf16 / fp16 problems only (" +
           std::string(gemm::precision_name(d.precision)) + " problem)";
  if (!tensor_core && !fp32)
    return std::string("the FP32 CUDA kinds do not run ") + gemm::precision_name(d.precision) +
           " problems";
  switch (g.kind) {
    case CudaKind::direct: {
      if (g.vc == 4 && d.c % 4 != 0) return "vc=4 needs c % 4 == 0 (c=" + num(d.c) + ")";
      const DirectGeometry geo = direct_geometry(g, d);
      if (geo.smem_bytes > 48 * 1024) return "staged input patch over 48 KiB";
      if (geo.p_blocks > 65535) return "too many output rows";
      return "";
    }
    case CudaKind::im2col:
      return "";
    case CudaKind::gemm1x1:
      if (d.r != 1 || d.s != 1 || d.stride != 1 || d.pad != 0)
        return "gemm1x1 needs a 1x1 filter, stride 1 and no padding";
      return "";
    case CudaKind::winograd:
      if (d.r != 3 || d.s != 3 || d.stride != 1) return "winograd needs a 3x3 filter and stride 1";
      if (g.tv == 4 && (d.c % 4 != 0 || d.k % 4 != 0))
        return "tv=4 needs c and k multiples of 4 (c=" + num(d.c) + ", k=" + num(d.k) + ")";
      return "";
    case CudaKind::igemm_mma:
      if ((d.n * d.p() * d.q() + g.bm - 1) / g.bm > 2147483647LL || (d.k + g.bn - 1) / g.bn > 65535)
        return "grid exceeds the CUDA limits";
      return "";
    case CudaKind::igemm_wgmma:  // the kernel's own limits: igemm_wgmma_refusal
      return "";
  }
  return "unknown kind";
}

// Floats of device workspace a run needs (im2col patch matrix; winograd U, V and M).
inline size_t workspace_floats(const CudaConvConfig& g, const ConvDims& d) {
  switch (g.kind) {
    case CudaKind::im2col:
      return size_t(d.n * d.p() * d.q() * im2col_ld(d));
    case CudaKind::winograd: {
      const long long tiles = d.n * wino_th(g, d) * wino_tw(g, d);
      return wino_filter_floats(g, d) + size_t(wino_points(g) * tiles * (d.c + d.k));
    }
    default:
      return 0;
  }
}

// The Winograd filter transform alone, into the first wino_filter_floats() of workspace.
inline ConvLaunch launch_wino_filter(const CudaConvConfig& g, const ConvKernels& kernels,
                                     const ConvDims& d, const float* w, float* workspace,
                                     cudaStream_t stream) {
  int c = int(d.c), k = int(d.k);
  void* args[] = {&w, &workspace, &c, &k};
  return launch_detail::launch(kernels.filter, dim3(launch_detail::stride_blocks(d.c * d.k / g.tv)),
                               dim3(256), 0, args, stream, "ktune_conv2d_wino_filter");
}

// Winograd without its filter transform: input transform into v, the batched GEMMs M = U V into
// mx (u: the filter transform, launch_wino_filter), output transform into y. v holds
// wino_points(g) * tiles * c floats, mx wino_points(g) * tiles * k (tiles = n * th * tw).
inline ConvLaunch launch_wino_main(const CudaConvConfig& g, const ConvKernels& kernels,
                                   const ConvDims& d, const float* x, const float* u, float* v,
                                   float* mx, float* y, cudaStream_t stream) {
  using launch_detail::launch;
  using launch_detail::stride_blocks;
  int n = int(d.n), h = int(d.h), wd = int(d.w), c = int(d.c), k = int(d.k), pad = int(d.pad),
      p = int(d.p()), q = int(d.q()), th = int(wino_th(g, d)), tw = int(wino_tw(g, d));
  const long long tiles = d.n * th * tw, points = wino_points(g);
  void* in_args[] = {&x, &v, &n, &h, &wd, &c, &pad, &th, &tw};
  const ConvLaunch in = launch(kernels.input, dim3(stride_blocks(tiles * d.c / g.tv)), dim3(256), 0,
                               in_args, stream, "ktune_conv2d_wino_input");
  if (in.refused || in.error != cudaSuccess) return in;
  // Mt (K x tiles) = Ut (K x C) * Vt (C x tiles), batched over the transform points.
  const gemm::cuda::TiledLaunch mm = gemm::cuda::launch_tiled(
      kernels.gemm, kernels.gemm_max_threads, nullptr, launch_detail::gemm_params(g), false, false,
      d.k, tiles, d.c, points, 1.0f, u, d.k, d.k * d.c, v, d.c, d.c * tiles, 0.0f, mx, d.k,
      d.k * tiles, nullptr, stream);
  if (mm.refused || mm.error != cudaSuccess) return {mm.error, mm.refused, mm.message};
  const float* mxc = mx;
  void* out_args[] = {&mxc, &y, &n, &k, &p, &q, &th, &tw};
  return launch(kernels.output, dim3(stride_blocks(tiles * d.k / g.tv)), dim3(256), 0, out_args,
                stream, "ktune_conv2d_wino_output");
}

// One asynchronous convolution y = conv(x, w) with config g (never synchronizes). workspace:
// workspace_floats(g, d) floats. filter_ready (winograd): the workspace already holds the
// filter transform of w (launch_wino_filter), so it is not redone.
inline ConvLaunch launch_conv(const CudaConvConfig& g, const ConvKernels& kernels,
                              const ConvDims& d, const float* x, const float* w, float* y,
                              float* workspace, bool filter_ready, cudaStream_t stream) {
  using launch_detail::launch;
  using launch_detail::stride_blocks;
  const std::string why = refusal(g, d);
  if (!why.empty()) return launch_detail::refuse(why);
  int n = int(d.n), h = int(d.h), wd = int(d.w), c = int(d.c), k = int(d.k), r = int(d.r),
      s = int(d.s), stride = int(d.stride), pad = int(d.pad), p = int(d.p()), q = int(d.q());
  const long long npq = d.n * d.p() * d.q();
  auto run_gemm = [&](bool ta, bool tb, long long m, long long nn, long long kk, const float* a,
                      long long lda, long long sa, const float* b, long long ldb, long long sb,
                      float* cc, long long ldc, long long sc, long long batch) -> ConvLaunch {
    const gemm::cuda::TiledLaunch t = gemm::cuda::launch_tiled(
        kernels.gemm, kernels.gemm_max_threads, nullptr, launch_detail::gemm_params(g), ta, tb, m,
        nn, kk, batch, 1.0f, a, lda, sa, b, ldb, sb, 0.0f, cc, ldc, sc, nullptr, stream);
    return {t.error, t.refused, t.message};
  };
  switch (g.kind) {
    case CudaKind::direct: {
      const DirectGeometry geo = direct_geometry(g, d);
      if (g.wg > kernels.main_max_threads)
        return launch_detail::refuse(launch_detail::num(g.wg) +
                                     " threads per block exceed this kernel's limit of " +
                                     launch_detail::num(kernels.main_max_threads));
      int kx = int(geo.kx), sx = int(geo.sx), sy = int(geo.sy);
      void* args[] = {&x, &w,      &y,   &n, &h, &wd, &c,  &k, &r,
                      &s, &stride, &pad, &p, &q, &kx, &sx, &sy};
      const dim3 grid(unsigned(geo.k_blocks * geo.q_blocks), unsigned(geo.p_blocks), unsigned(n));
      return launch(kernels.main, grid, dim3(unsigned(g.wg)), geo.smem_bytes, args, stream,
                    "ktune_conv2d_direct");
    }
    case CudaKind::im2col: {
      long long ld = im2col_ld(d);
      const int vc = d.c % 4 == 0 ? 4 : 1;
      void* args[] = {&x, &workspace, &n, &h, &wd, &c, &r, &s, &stride, &pad, &p, &q, &ld};
      const ConvLaunch first = launch(kernels.main, dim3(stride_blocks(npq * r * s * c / vc)),
                                      dim3(256), 0, args, stream, "ktune_conv2d_im2col");
      if (first.refused || first.error != cudaSuccess) return first;
      // y (K x NPQ, col-major) = filter^T (filter: RSC x K col-major) * patch (RSC x NPQ).
      const long long rsc = d.r * d.s * d.c;
      return run_gemm(true, false, d.k, npq, rsc, w, rsc, rsc * d.k, workspace, ld, ld * npq, y,
                      d.k, d.k * npq, 1);
    }
    case CudaKind::gemm1x1:
      return run_gemm(true, false, d.k, npq, d.c, w, d.c, d.c * d.k, x, d.c, d.c * npq, y, d.k,
                      d.k * npq, 1);
    case CudaKind::winograd: {
      const long long tiles = d.n * wino_th(g, d) * wino_tw(g, d);
      float* u = workspace;
      float* v = u + wino_filter_floats(g, d);
      float* mx = v + wino_points(g) * tiles * d.c;
      if (!filter_ready) {
        const ConvLaunch f = launch_wino_filter(g, kernels, d, w, workspace, stream);
        if (f.refused || f.error != cudaSuccess) return f;
      }
      return launch_wino_main(g, kernels, d, x, u, v, mx, y, stream);
    }
    case CudaKind::igemm_mma:
      return launch_detail::refuse("cuda_igemm_mma: 16-bit data, launched by launch_igemm_mma");
    case CudaKind::igemm_wgmma:
      return launch_detail::refuse(
          "cuda_igemm_wgmma: 16-bit data, launched by launch_igemm_wgmma "
          "(conv2d_wgmma_launch.hpp)");
  }
  return launch_detail::refuse("unknown kind");
}

// Dynamic shared memory of a cuda_igemm_mma launch in precision p: ktune_igemm_smem_bytes<...>()
// of conv2d_igemm_mma.cuh.
inline constexpr long long igemm_mma_smem_bytes(const CudaConvConfig& g, gemm::Precision p) {
  return (long long)g.st * (g.bm + g.bn) * (g.bk * gemm::input_bytes(p) + 16);
}

// Whether the 16-byte loader (VEC = 8) serves this problem: whole chunks of 16 bytes of channels
// (8 16-bit or 4 FP32 ones) and 16-byte aligned tensors; otherwise the element-wise loader
// (VEC = 1) does.
inline bool igemm_mma_vectorized(const ConvDims& d, const void* x, const void* w) {
  const auto aligned = [](const void* ptr) { return (reinterpret_cast<size_t>(ptr) & 15u) == 0; };
  return d.c % (16 / gemm::input_bytes(d.precision)) == 0 && aligned(x) && aligned(w);
}

// One asynchronous tensor-core convolution y = conv(x, w): x and w hold the values of d.precision
// (16-bit bits, or FP32 for tf32); kernel: the ktune_conv2d_igemm_mma instantiation of (g,
// d.precision, igemm_mma_vectorized(d, x, w) ? 8 : 1, the output type y points to: float, or
// unsigned short for bf16 output), kernel_max_threads its limit. Never synchronizes. `epilogue`
// fills the kernel's last three arguments: all null / 0 for the sweep's EPI = 0 kernels (which
// ignore them); ktune::conv2d_ex's fused epilogue passes them to the EPI = 1 instantiation.
struct IgemmEpilogue {
  const float* bias = nullptr;
  const void* residual = nullptr;  // in the output's type
  int relu = 0;
};
inline ConvLaunch launch_igemm_mma(const CudaConvConfig& g, const void* kernel,
                                   int kernel_max_threads, const ConvDims& d, const void* x,
                                   const void* w, void* y, cudaStream_t stream,
                                   IgemmEpilogue epilogue = {}) {
  using launch_detail::num;
  if (g.kind != CudaKind::igemm_mma) return launch_detail::refuse("not a cuda_igemm_mma config");
  const std::string why = refusal(g, d);
  if (!why.empty()) return launch_detail::refuse(why);
  if (g.mma_threads() > kernel_max_threads)
    return launch_detail::refuse(num(g.mma_threads()) + " threads exceed the kernel's limit of " +
                                 num(kernel_max_threads));
  const long long shared = igemm_mma_smem_bytes(g, d.precision);
  if (shared > 48 * 1024) {
    const cudaError_t error =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (error == cudaErrorInvalidValue) {  // more than the device's opt-in limit (tf32 tiles)
      (void)cudaGetLastError();
      return launch_detail::refuse(num(shared) +
                                   " bytes of shared memory exceed the device's block limit");
    }
    if (error != cudaSuccess)
      return launch_detail::classify(error, "ktune_conv2d_igemm_mma shared memory opt-in");
  }
  int n = int(d.n), h = int(d.h), wd = int(d.w), c = int(d.c), k = int(d.k), r = int(d.r),
      s = int(d.s), stride = int(d.stride), pad = int(d.pad), p = int(d.p()), q = int(d.q());
  void* args[] = {&x,
                  &w,
                  &y,
                  &n,
                  &h,
                  &wd,
                  &c,
                  &k,
                  &r,
                  &s,
                  &stride,
                  &pad,
                  &p,
                  &q,
                  &epilogue.bias,
                  &epilogue.residual,
                  &epilogue.relu};
  const dim3 grid(unsigned((d.n * d.p() * d.q() + g.bm - 1) / g.bm),
                  unsigned((d.k + g.bn - 1) / g.bn));
  return launch_detail::launch(kernel, grid, dim3(unsigned(g.mma_threads())), size_t(shared), args,
                               stream, "ktune_conv2d_igemm_mma");
}

}  // namespace ktune::kernels::conv2d::cuda
