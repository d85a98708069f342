// ktune::conv2d_wgmma_bf16 / conv2d_wgmma_tf32 (include/ktune/conv2d_wgmma.hpp): three configs
// each of the kind cuda_igemm_wgmma_persist (conv2d_wgmma.cuh with its persistent grid) with its
// fused epilogue (bf16 output: KtuneConvWgOutBf16; tf32: FP32 output, KtuneConvWgOutF32Epi, or
// KtuneConvWgOutTf32Epi rounding it to TF32), encoded, shaped and refused by the kind's launcher
// (conv2d_wgmma_launch.hpp). Each precision's three are the best subset of that size of the 80
// wgmma configs (one item a block and persistent) timed per layer on VGG16 and ResNet-50 at
// batch 1 and 16 in results/h200/conv-tc-sweep-persist (FP32 output; H200): sum over the 62
// layers it serves of the subset's fastest, times the layer's count in its network, bf16 1.823 ms
// (the earlier three, one item a block, chosen on an H100 sweep: 1.976; every layer's own best of
// the 80: 1.765), tf32 2.816 ms (the earlier three: 2.941; own best 2.730).
// Compiled by nvcc for sm_90a only (kernels/conv2d/family.cmake).
#include <cstring>
#include <iterator>
#include <string>

#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#include "ktune/conv2d_wgmma.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/error.hpp"

namespace ktune {

namespace {

namespace kc = ktune::kernels::conv2d::cuda;
using ktune::kernels::gemm::Precision;

template <class EPI>
using Launcher = void (*)(const KtuneTmaMap&, const KtuneTmaMap&, const KtuneConvWgShape&,
                          const typename EPI::Params&, dim3, cudaStream_t);

template <int HT, int WT, int NB, int BN, int ST, int PREC, class EPI, int PERSIST>
void launch(const KtuneTmaMap& mx, const KtuneTmaMap& mw, const KtuneConvWgShape& sh,
            const typename EPI::Params& out, dim3 grid, cudaStream_t stream) {
  constexpr auto kernel = ktune_conv2d_wgmma<HT, WT, NB, BN, ST, PREC, EPI, PERSIST>;
  constexpr int smem = KtuneConvWgSmem<BN, ST>::kBytes;
  static const cudaError_t attribute =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  ktune::cuda::check(attribute, "cudaFuncSetAttribute(ktune_conv2d_wgmma)");
  kernel<<<grid, kc::kWgmmaConvThreads, smem, stream>>>(mx, mw, sh, out);
  ktune::cuda::check(cudaGetLastError(), "ktune_conv2d_wgmma");
}

// A config of the family's wgmma kinds (tp x tq pixels of 128 / (tp·tq) images, bn, st; the
// persistent grid for cuda_igemm_wgmma_persist) and its instantiation with epilogue EPI in
// precision PREC.
template <class EPI>
struct Entry {
  kc::CudaConvConfig config;
  Launcher<EPI> launch;
};

template <class EPI, int PREC, int TP, int TQ, int BN, int ST, int PERSIST>
constexpr Entry<EPI> entry(const kc::CudaConvConfig& g) {
  return {g, launch<TP, TQ, 128 / (TP * TQ), BN, ST, PREC, EPI, PERSIST>};
}
// The entry of config string TEXT: its template arguments decoded from the string at compile
// time, so the name and the instantiation cannot disagree (an invalid string divides by zero).
#define KTUNE_WG_ENTRY(TEXT, PREC, EPI)                                                      \
  entry<EPI, PREC, kc::parse_cuda_conv_config(TEXT).tp, kc::parse_cuda_conv_config(TEXT).tq, \
        kc::parse_cuda_conv_config(TEXT).bn, kc::parse_cuda_conv_config(TEXT).st,            \
        kc::parse_cuda_conv_config(TEXT).persist>(kc::parse_cuda_conv_config(TEXT))

using Bf16Out = KtuneConvWgOutBf16;
using F32Out = KtuneConvWgOutF32Epi;
using Tf32Out = KtuneConvWgOutTf32Epi;  // Params: F32Out's

constexpr Entry<Bf16Out> kBf16Configs[] = {
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=8;tq=8;bn=128;st=4", 2, Bf16Out),
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=8;tq=16;bn=64;st=6", 2, Bf16Out),
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=8;tq=8;bn=256;st=4", 2, Bf16Out),
};
// The tf32 configs with epilogue EPI: F32Out, or Tf32Out storing the output rounded to TF32.
template <class EPI>
constexpr Entry<EPI> kTf32Configs[] = {
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=8;tq=8;bn=128;st=6", 1, EPI),
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=16;tq=8;bn=64;st=6", 1, EPI),
    KTUNE_WG_ENTRY("kind=cuda_igemm_wgmma_persist;tp=8;tq=8;bn=256;st=4", 1, EPI),
};

kc::ConvDims dims_of(const Conv2dWgmmaLayer& d, Precision precision) {
  kc::ConvDims dims;
  dims.n = d.n, dims.h = d.h, dims.w = d.w, dims.c = d.c, dims.k = d.k, dims.r = d.r, dims.s = d.s;
  dims.stride = d.stride, dims.pad = d.pad;
  dims.precision = precision;
  return dims;
}

std::string name_of(const kc::CudaConvConfig& g) {
  return "tp=" + std::to_string(g.tp) + ";tq=" + std::to_string(g.tq) +
         ";bn=" + std::to_string(g.bn) + ";st=" + std::to_string(g.st) +
         (g.persist ? ";persist" : "");
}

std::string refusal(const kc::CudaConvConfig& g, const Conv2dWgmmaLayer& d, Precision precision) {
  bool sm90 = false;  // of the current device (asked of the runtime once per device)
  if (kc::igemm_wgmma_device_ok(sm90) != cudaSuccess) (void)cudaGetLastError();
  if (!sm90) return "not an sm_90 device";
  if (!ktune::kernels::tma::encoder()) return "no cuTensorMapEncodeTiled in the driver";
  // The tensors are taken to be 16-byte aligned (include/ktune/conv2d_wgmma.hpp).
  return kc::igemm_wgmma_refusal(g, dims_of(d, precision), nullptr, nullptr);
}

// Encodes e's tensor maps over in and filter and launches it with the epilogue's parameters.
template <class EPI>
void run(const Entry<EPI>& e, const Conv2dWgmmaLayer& d, Precision precision, const void* in,
         const void* filter, const typename EPI::Params& params, cudaStream_t stream) {
  const kc::ConvDims dims = dims_of(d, precision);
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
  int sms = 0;
  if (e.config.persist) ktune::cuda::check(kc::igemm_wgmma_sms(sms), "the device's SM count");
  e.launch(mx, mw, sh, params, kc::igemm_wgmma_grid(e.config, shape, sms), stream);
}

}  // namespace

int conv2d_wgmma_bf16_configs() { return int(std::size(kBf16Configs)); }
int conv2d_wgmma_tf32_configs() { return int(std::size(kTf32Configs<F32Out>)); }

std::string conv2d_wgmma_bf16_config_name(int config) {
  return name_of(kBf16Configs[config].config);
}
std::string conv2d_wgmma_tf32_config_name(int config) {
  return name_of(kTf32Configs<F32Out>[config].config);
}

std::string conv2d_wgmma_bf16_refusal(const Conv2dWgmmaLayer& d, int config) {
  return refusal(kBf16Configs[config].config, d, Precision::bf16);
}
std::string conv2d_wgmma_tf32_refusal(const Conv2dWgmmaLayer& d, int config) {
  return refusal(kTf32Configs<F32Out>[config].config, d, Precision::tf32);
}

void conv2d_wgmma_bf16(int config, const Conv2dWgmmaLayer& d, const uint16_t* in,
                       const uint16_t* filter, const float* bias, const uint16_t* residual,
                       bool relu, uint16_t* out, cudaStream_t stream) {
  run(kBf16Configs[config], d, Precision::bf16, in, filter,
      Bf16Out::Params{out, bias, residual, relu ? 1 : 0}, stream);
}

void conv2d_wgmma_tf32(int config, const Conv2dWgmmaLayer& d, const float* in, const float* filter,
                       const float* bias, const float* residual, bool relu, float* out,
                       bool round_to_tf32, cudaStream_t stream) {
  const F32Out::Params params{out, bias, residual, relu ? 1 : 0};
  if (round_to_tf32)
    run(kTf32Configs<Tf32Out>[config], d, Precision::tf32, in, filter, params, stream);
  else
    run(kTf32Configs<F32Out>[config], d, Precision::tf32, in, filter, params, stream);
}

}  // namespace ktune
