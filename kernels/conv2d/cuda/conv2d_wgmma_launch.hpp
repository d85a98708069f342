#pragma once
// Host launcher of the Hopper implicit-GEMM conv kernel (conv2d_wgmma.cuh, kind
// cuda_igemm_wgmma), shared like conv2d_cuda_launch.hpp by the sweep (NVRTC kernels compiled for
// sm_90a) and nvcc builds (-gencode=arch=compute_90a,code=sm_90a): the refusals, the two TMA
// tensor maps (cuTensorMapEncodeTiled through the runtime's driver entry point, so nothing links
// libcuda) and the launch. The maps name the tensors' addresses, so a caller that rotates among
// input copies encodes one pair per copy up front (host work kept out of timed launches).
#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes from the entry point
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common/cuda/device_facts.hpp"
#include "kernels/common/cuda/tma_encode.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_launch.hpp"

namespace ktune::kernels::conv2d::cuda {

inline constexpr int kWgmmaConvThreads = 384;  // a producer and two consumer warpgroups

// "ktune_conv2d_wgmma<8,16,1,128,4,2>" (tp, tq, images, bn, st, precision code), with the
// persistent grid "ktune_conv2d_wgmma<8,16,1,128,4,2,KtuneConvWgOutF32,1>" (the plain FP32 output,
// the sweep's).
inline std::string igemm_wgmma_name(const CudaConvConfig& g, gemm::Precision precision) {
  return "ktune_conv2d_wgmma<" + std::to_string(g.tp) + "," + std::to_string(g.tq) + "," +
         std::to_string(g.wg_images()) + "," + std::to_string(g.bn) + "," + std::to_string(g.st) +
         "," + std::to_string(int(precision)) + (g.persist ? ",KtuneConvWgOutF32,1>" : ">");
}

inline constexpr long long igemm_wgmma_smem_bytes(const CudaConvConfig& g) {
  return cuda_config_detail::wgmma_smem_bytes(g.bn, g.st);
}

// KtuneConvWgShape of conv2d_wgmma.cuh (the kernel's by-value argument), field for field.
struct WgmmaConvShape {
  int n, h, w, c, k, r, s, stride, pad, p, q;
  int tiles_p, tiles_q, tiles_n;
};
static_assert(sizeof(WgmmaConvShape) == 14 * sizeof(int), "KtuneConvWgShape is 14 ints");

inline WgmmaConvShape wgmma_conv_shape(const CudaConvConfig& g, const ConvDims& d) {
  WgmmaConvShape sh{int(d.n),      int(d.h),   int(d.w),   int(d.c),   int(d.k), int(d.r), int(d.s),
                    int(d.stride), int(d.pad), int(d.p()), int(d.q()), 0,        0,        0};
  sh.tiles_p = (sh.p + g.tp - 1) / g.tp;
  sh.tiles_q = (sh.q + g.tq - 1) / g.tq;
  sh.tiles_n = (sh.n + g.wg_images() - 1) / g.wg_images();
  return sh;
}

// Channels in one K tile of the kernel: one filter tap's 128 bytes (64 16-bit, 32 tf32 channels).
inline int igemm_wgmma_tile_channels(gemm::Precision precision) {
  return 128 / gemm::input_bytes(precision);
}

// Why g cannot run this problem on these tensors ("" when it can), beyond refusal(g, d): the
// kernel's K tile is 128 bytes of channels of one filter tap (c % 64, tf32 c % 32), its epilogue
// stores float2 pairs
// (k even keeps them 8-byte aligned), TMA boxes are at most 256 elements a side, traversal
// strides at most 8 and base addresses 16-byte aligned, the grid's y is at most 65535 blocks.
inline std::string igemm_wgmma_refusal(const CudaConvConfig& g, const ConvDims& d, const void* x,
                                       const void* w) {
  using launch_detail::num;
  if (g.kind != CudaKind::igemm_wgmma) return "not a cuda_igemm_wgmma config";
  const std::string why = refusal(g, d);
  if (!why.empty()) return why;
  const int tile_channels = igemm_wgmma_tile_channels(d.precision);
  if (d.c % tile_channels != 0)
    return "cuda_igemm_wgmma needs c % " + num(tile_channels) + " == 0 (c=" + num(d.c) + ")";
  if (d.k % 2 != 0) return "cuda_igemm_wgmma needs an even k (k=" + num(d.k) + ")";
  if (d.stride > 8) return "TMA traversal strides stop at 8 (stride=" + num(d.stride) + ")";
  if (g.tp * d.stride > 256 || g.tq * d.stride > 256)
    return "the TMA box (tile x stride) exceeds 256 elements a side";
  const auto aligned = [](const void* ptr) {
    return (reinterpret_cast<uintptr_t>(ptr) & 15u) == 0;
  };
  if (!aligned(x) || !aligned(w)) return "TMA needs 16-byte aligned input and filter";
  const WgmmaConvShape sh = wgmma_conv_shape(g, d);
  const long long tiles = (long long)sh.tiles_p * sh.tiles_q * sh.tiles_n;
  if (tiles > 2147483647LL || (d.k + g.bn - 1) / g.bn > 65535)
    return "grid exceeds the CUDA limits";
  if (g.persist && tiles * ((d.k + g.bn - 1) / g.bn) > 2147483647LL)
    return "the persistent grid's work items exceed the kernel's int count";
  return "";
}

// The two tensor maps of one launch, as the kernel takes them (64-byte aligned, 128 bytes each).
struct WgmmaConvMaps {
  CUtensorMap x, w;
};

// Encodes the maps of g over x (NHWC) and w (KRSC) of d.precision (16-bit, or FP32 for tf32): x
// 4-d {c, w, h, n}, box {cb, tq·stride, tp·stride, images} with cb = igemm_wgmma_tile_channels,
// traversal strides {1, stride, stride, 1} (the copy engine does the im2col: out-of-image
// coordinates, negative ones too, land as zeros); w 3-d {r·s·c, k, 1}, box {cb, bn, 1}; both
// 128-byte swizzled. False when the driver refuses them.
inline bool encode_igemm_wgmma_maps(const CudaConvConfig& g, const ConvDims& d, const void* x,
                                    const void* w, WgmmaConvMaps& maps) {
  const auto encode = ktune::kernels::tma::encoder();
  if (encode == nullptr) return false;
  const CUtensorMapDataType type =
      d.precision == gemm::Precision::bf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
      : d.precision == gemm::Precision::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const cuuint64_t bytes = cuuint64_t(gemm::input_bytes(d.precision));
  const cuuint32_t cb = cuuint32_t(igemm_wgmma_tile_channels(d.precision));
  const cuuint64_t dx[4] = {cuuint64_t(d.c), cuuint64_t(d.w), cuuint64_t(d.h), cuuint64_t(d.n)};
  const cuuint64_t sx[3] = {cuuint64_t(d.c) * bytes, cuuint64_t(d.w * d.c) * bytes,
                            cuuint64_t(d.h * d.w * d.c) * bytes};
  const cuuint32_t bx[4] = {cb, cuuint32_t(g.tq * d.stride), cuuint32_t(g.tp * d.stride),
                            cuuint32_t(g.wg_images())};
  const cuuint32_t ex[4] = {1, cuuint32_t(d.stride), cuuint32_t(d.stride), 1};
  if (encode(&maps.x, type, 4, const_cast<void*>(x), dx, sx, bx, ex, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  const long long taps = d.r * d.s * d.c;  // one output channel's filter, contiguous
  const cuuint64_t dw[3] = {cuuint64_t(taps), cuuint64_t(d.k), 1};
  const cuuint64_t sw[2] = {cuuint64_t(taps) * bytes, cuuint64_t(taps * d.k) * bytes};
  const cuuint32_t bw[3] = {cb, cuuint32_t(g.bn), 1}, ew[3] = {1, 1, 1};
  return encode(&maps.w, type, 3, const_cast<void*>(w), dw, sw, bw, ew,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Whether the current device runs sm_90a code (compute capability 9.0: H100, H200).
inline cudaError_t igemm_wgmma_device_ok(bool& ok) {
  cuda_device::Facts facts;
  const cudaError_t error = cuda_device::current(facts);
  ok = facts.major == 9 && facts.minor == 0;
  return error;
}

// The current device's SM count: the persistent grid's size.
inline cudaError_t igemm_wgmma_sms(int& sms) {
  cuda_device::Facts facts;
  const cudaError_t error = cuda_device::current(facts);
  sms = facts.sms;
  return error;
}

// The grid of g's kernel on sh: (output tiles, channel blocks), one work item a block; for the
// persistent grid (g.persist) min(work items, sms) blocks, one an SM (the kernel's
// __launch_bounds__(384, 1) and shared memory leave room for one), none idle.
inline dim3 igemm_wgmma_grid(const CudaConvConfig& g, const WgmmaConvShape& sh, int sms) {
  const long long tiles = (long long)sh.tiles_p * sh.tiles_q * sh.tiles_n;
  const long long channel_blocks = (sh.k + g.bn - 1) / g.bn;
  if (g.persist) return dim3(unsigned(std::min<long long>(tiles * channel_blocks, sms)), 1);
  return dim3(unsigned(tiles), unsigned(channel_blocks));
}

// Raises the kernel's dynamic shared memory limit to what g needs (once per kernel and size).
inline ConvLaunch igemm_wgmma_opt_in(const CudaConvConfig& g, const void* kernel) {
  const cudaError_t error = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(igemm_wgmma_smem_bytes(g)));
  return launch_detail::classify(error, "ktune_conv2d_wgmma shared memory opt-in");
}

// One asynchronous launch of the kernel of (g, d.precision) with maps encoded over x and w
// (encode_igemm_wgmma_maps; the problem passed igemm_wgmma_refusal, the device is compute
// capability 9.0 and igemm_wgmma_opt_in ran), its epilogue's parameters `out` passed by value as
// the kernel's last argument: float* y for the default KtuneConvWgOutF32 (y = conv(x, w) in FP32
// NHWC), KtuneConvWgOutBf16::Params for the bf16 output. Never synchronizes.
template <class EpilogueParams>
ConvLaunch launch_igemm_wgmma(const CudaConvConfig& g, const void* kernel, const ConvDims& d,
                              const WgmmaConvMaps& maps, EpilogueParams out, cudaStream_t stream) {
  if (kernel == nullptr) return launch_detail::refuse("ktune_conv2d_wgmma: no kernel");
  WgmmaConvShape sh = wgmma_conv_shape(g, d);
  CUtensorMap mx = maps.x, mw = maps.w;  // by value: the kernel's __grid_constant__ parameters
  void* args[] = {&mx, &mw, &sh, &out};
  int sms = 0;
  if (g.persist) {
    const cudaError_t error = igemm_wgmma_sms(sms);
    if (error != cudaSuccess) return launch_detail::classify(error, "ktune_conv2d_wgmma SM count");
  }
  return launch_detail::launch(kernel, igemm_wgmma_grid(g, sh, sms), dim3(kWgmmaConvThreads),
                               size_t(igemm_wgmma_smem_bytes(g)), args, stream,
                               "ktune_conv2d_wgmma");
}

}  // namespace ktune::kernels::conv2d::cuda
