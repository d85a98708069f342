// ktune::conv2d_wgmma_bf16 (include/ktune/conv2d_wgmma.hpp): three configs of the kind
// cuda_igemm_wgmma (conv2d_wgmma.cuh) with its bf16 epilogue, encoded, shaped and refused by the
// kind's launcher (conv2d_wgmma_launch.hpp). The three are the best subset of that size of the
// eight configs timed per layer on VGG16 and ResNet-50 at batch 1 and 16
// (results/h100-80gb-hbm3/conv-wgmma-1, FP32 output: 1.763 ms over the 62 layer shapes it serves,
// each times its count in the network, against 1.754 with every layer's own best of the 8).
// Compiled by nvcc for sm_90a only (kernels/conv2d/family.cmake).
#include <cstring>

#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#include "ktune/conv2d_wgmma.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/error.hpp"

namespace ktune {

namespace {

namespace kc = ktune::kernels::conv2d::cuda;

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
  kernel<<<grid, kc::kWgmmaConvThreads, smem, stream>>>(mx, mw, sh, out);
  ktune::cuda::check(cudaGetLastError(), "ktune_conv2d_wgmma");
}

// A config of the family's kind cuda_igemm_wgmma (tp x tq pixels of 128 / (tp·tq) images, bn,
// st) and its bf16-epilogue instantiation.
struct Entry {
  kc::CudaConvConfig config;
  Launcher launch;
};

template <int TP, int TQ, int BN, int ST>
constexpr Entry entry(const char* text) {
  const kc::CudaConvConfig g = kc::parse_cuda_conv_config(text);
  return {g, launch<TP, TQ, 128 / (TP * TQ), BN, ST>};
}

constexpr Entry kConfigs[] = {
    entry<16, 8, 128, 4>("kind=cuda_igemm_wgmma;tp=16;tq=8;bn=128;st=4"),
    entry<8, 16, 64, 6>("kind=cuda_igemm_wgmma;tp=8;tq=16;bn=64;st=6"),
    entry<8, 8, 256, 3>("kind=cuda_igemm_wgmma;tp=8;tq=8;bn=256;st=3"),
};
constexpr int kCount = int(sizeof kConfigs / sizeof kConfigs[0]);

kc::ConvDims dims_of(const Conv2dWgmmaLayer& d) {
  kc::ConvDims dims;
  dims.n = d.n, dims.h = d.h, dims.w = d.w, dims.c = d.c, dims.k = d.k, dims.r = d.r, dims.s = d.s;
  dims.stride = d.stride, dims.pad = d.pad;
  dims.precision = ktune::kernels::gemm::Precision::bf16;
  return dims;
}

}  // namespace

int conv2d_wgmma_bf16_configs() { return kCount; }

std::string conv2d_wgmma_bf16_config_name(int config) {
  const kc::CudaConvConfig& g = kConfigs[config].config;
  return "tp=" + std::to_string(g.tp) + ";tq=" + std::to_string(g.tq) +
         ";bn=" + std::to_string(g.bn) + ";st=" + std::to_string(g.st);
}

std::string conv2d_wgmma_bf16_refusal(const Conv2dWgmmaLayer& d, int config) {
  static const bool sm90 = [] {
    bool ok = false;
    if (kc::igemm_wgmma_device_ok(ok) != cudaSuccess) (void)cudaGetLastError();
    return ok;
  }();
  if (!sm90) return "not an sm_90 device";
  if (!ktune::kernels::tma::encoder()) return "no cuTensorMapEncodeTiled in the driver";
  // The tensors are taken to be 16-byte aligned (include/ktune/conv2d_wgmma.hpp).
  return kc::igemm_wgmma_refusal(kConfigs[config].config, dims_of(d), nullptr, nullptr);
}

void conv2d_wgmma_bf16(int config, const Conv2dWgmmaLayer& d, const uint16_t* in,
                       const uint16_t* filter, const float* bias, const uint16_t* residual,
                       bool relu, uint16_t* out, cudaStream_t stream) {
  const Entry& e = kConfigs[config];
  const kc::ConvDims dims = dims_of(d);
  kc::WgmmaConvMaps maps;
  if (!kc::encode_igemm_wgmma_maps(e.config, dims, in, filter, maps))
    throw Error("wgmma conv: cuTensorMapEncodeTiled refused the layer's input or filter");
  static_assert(sizeof(CUtensorMap) == sizeof(KtuneTmaMap), "the kernel's opaque tensor map");
  static_assert(sizeof(kc::WgmmaConvShape) == sizeof(KtuneConvWgShape), "the kernel's shape");
  KtuneTmaMap mx, mw;
  KtuneConvWgShape sh;
  std::memcpy(&mx, &maps.x, sizeof mx);
  std::memcpy(&mw, &maps.w, sizeof mw);
  const kc::WgmmaConvShape shape = kc::wgmma_conv_shape(e.config, dims);
  std::memcpy(&sh, &shape, sizeof sh);
  const KtuneConvWgOutBf16::Params params{out, bias, residual, relu ? 1 : 0};
  e.launch(mx, mw, sh, params, stream);
}

}  // namespace ktune
