// The wgmma conv candidate of ktune-cuda-bf16 (nn/cuda/wgmma_conv.hpp): three tile configs of
// kernels/conv2d/cuda/conv2d_wgmma.cuh with its bf16 epilogue. The three are the best subset of
// that size of the eight configs timed per layer on VGG16 and ResNet-50 at batch 1 and 16
// (results/h100-80gb-hbm3/conv-wgmma-1, FP32 output: 1.763 ms over the 62 layer shapes it serves,
// each times its count in the network, against 1.754 with every layer's own best of the 8).
#include <cuda.h>

#include <cstring>

#include "kernels/common/cuda/tma_encode.hpp"
#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "ktune/cuda/cuda_error.hpp"
#include "nn/cuda/wgmma_conv.hpp"

namespace ktune::nn::cuda {

namespace {

struct TileConfig {
  int ht, wt, nb, bn, st;
};

using Launcher = void (*)(const KtuneTmaMap&, const KtuneTmaMap&, const KtuneConvWgShape&,
                          const KtuneConvWgOutBf16::Params&, cudaStream_t);

template <int HT, int WT, int NB, int BN, int ST>
void launch(const KtuneTmaMap& mx, const KtuneTmaMap& mw, const KtuneConvWgShape& sh,
            const KtuneConvWgOutBf16::Params& out, cudaStream_t stream) {
  constexpr auto kernel = ktune_conv2d_wgmma<HT, WT, NB, BN, ST, 2, KtuneConvWgOutBf16>;
  constexpr int smem = KtuneConvWgSmem<BN, ST>::kBytes;
  static const cudaError_t attribute =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  ktune::cuda::check(attribute, "cudaFuncSetAttribute(ktune_conv2d_wgmma)");
  const dim3 grid(sh.tiles_p * sh.tiles_q * sh.tiles_n, (sh.k + BN - 1) / BN);
  kernel<<<grid, 384, smem, stream>>>(mx, mw, sh, out);
  ktune::cuda::check(cudaGetLastError(), "ktune_conv2d_wgmma");
}

struct Entry {
  TileConfig tile;
  Launcher launch;
};

constexpr Entry kConfigs[] = {
    {{16, 8, 1, 128, 4}, launch<16, 8, 1, 128, 4>},
    {{8, 16, 1, 64, 6}, launch<8, 16, 1, 64, 6>},
    {{8, 8, 2, 256, 3}, launch<8, 8, 2, 256, 3>},
};
constexpr int kCount = int(sizeof kConfigs / sizeof kConfigs[0]);

// The kernel is sm_90a code: it runs on compute capability 9.0 only.
bool device_is_sm90() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return major == 9 && minor == 0;
}

// The tensor maps of one call (as kernels/conv2d/cuda/wgmma_conv_check.cu encodes them): 4-d over
// the NHWC input with box {64, WT·stride, HT·stride, NB} and traversal strides {1, stride,
// stride, 1}, 3-d over the KRSC filter {r·s·c, k, 1} with box {64, BN, 1}.
void encode_maps(const ConvDesc& d, const TileConfig& t, const bf16* in, const bf16* filter,
                 KtuneTmaMap& mx, KtuneTmaMap& mw) {
  const auto encode = ktune::kernels::tma::encoder();
  const cuuint64_t dx[4] = {cuuint64_t(d.c), cuuint64_t(d.w), cuuint64_t(d.h), cuuint64_t(d.n)};
  const cuuint64_t sx[3] = {cuuint64_t(d.c) * 2, cuuint64_t(d.w * d.c) * 2,
                            cuuint64_t(d.h * d.w * d.c) * 2};
  const cuuint32_t bx[4] = {64, cuuint32_t(t.wt * d.stride), cuuint32_t(t.ht * d.stride),
                            cuuint32_t(t.nb)};
  const cuuint32_t ex[4] = {1, cuuint32_t(d.stride), cuuint32_t(d.stride), 1};
  const cuuint64_t kd = cuuint64_t(d.r * d.s * d.c);
  const cuuint64_t dw[3] = {kd, cuuint64_t(d.k), 1};
  const cuuint64_t sw[2] = {kd * 2, kd * 2 * cuuint64_t(d.k)};
  const cuuint32_t bw[3] = {64, cuuint32_t(t.bn), 1};
  const cuuint32_t ew[3] = {1, 1, 1};
  CUtensorMap cx, cw;
  if (encode(&cx, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, const_cast<bf16*>(in), dx, sx, bx, ex,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS ||
      encode(&cw, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<bf16*>(filter), dw, sw, bw, ew,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    throw Error("wgmma conv: cuTensorMapEncodeTiled refused the layer's input or filter");
  static_assert(sizeof(CUtensorMap) == sizeof(KtuneTmaMap), "the kernel's opaque tensor map");
  std::memcpy(&mx, &cx, sizeof cx);
  std::memcpy(&mw, &cw, sizeof cw);
}

}  // namespace

int wgmma_conv_configs() { return kCount; }

std::string wgmma_conv_config_name(int config) {
  const TileConfig& t = kConfigs[config].tile;
  return "ht=" + std::to_string(t.ht) + ";wt=" + std::to_string(t.wt) +
         ";nb=" + std::to_string(t.nb) + ";bn=" + std::to_string(t.bn) +
         ";st=" + std::to_string(t.st);
}

std::string wgmma_conv_refusal(const ConvDesc& d, int config) {
  static const bool sm90 = device_is_sm90();
  const TileConfig& t = kConfigs[config].tile;
  if (!sm90) return "not an sm_90 device";
  if (!ktune::kernels::tma::encoder()) return "no cuTensorMapEncodeTiled in the driver";
  if (d.c % 64 != 0) return "c % 64 != 0";
  if (d.k % 2 != 0) return "k odd";
  if (t.wt * d.stride > 256 || t.ht * d.stride > 256) return "TMA box past 256";
  if (d.p() <= 0 || d.q() <= 0) return "empty output";
  return "";
}

void wgmma_conv(int config, const ConvDesc& d, const bf16* in, const bf16* filter,
                const float* bias, const bf16* residual, bool relu, bf16* out,
                cudaStream_t stream) {
  const Entry& e = kConfigs[config];
  KtuneTmaMap mx, mw;
  encode_maps(d, e.tile, in, filter, mx, mw);
  KtuneConvWgShape sh{
      int(d.n),      int(d.h),   int(d.w),   int(d.c),   int(d.k), int(d.r), int(d.s),
      int(d.stride), int(d.pad), int(d.p()), int(d.q()), 0,        0,        0};
  sh.tiles_p = (sh.p + e.tile.ht - 1) / e.tile.ht;
  sh.tiles_q = (sh.q + e.tile.wt - 1) / e.tile.wt;
  sh.tiles_n = (sh.n + e.tile.nb - 1) / e.tile.nb;
  const KtuneConvWgOutBf16::Params params{reinterpret_cast<unsigned short*>(out), bias,
                                          reinterpret_cast<const unsigned short*>(residual),
                                          relu ? 1 : 0};
  e.launch(mx, mw, sh, params, stream);
}

}  // namespace ktune::nn::cuda
