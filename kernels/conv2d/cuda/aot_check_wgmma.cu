// Ahead-of-time nvcc check of the Hopper wgmma conv kernel (conv2d_wgmma.cuh, kind
// cuda_igemm_wgmma) for sm_90a, the only target with wgmma and setmaxnreg (cmake/cuda_aot.cmake
// builds it with architecture 90a, i.e. -gencode=arch=compute_90a,code=sm_90a): the path a
// deployed build takes. Configs are decoded from their config strings by the parser the sweep
// uses (conv2d_cuda_config.hpp), instantiated from the header NVRTC compiles in the sweep, and
// launched through the sweep's launcher (conv2d_wgmma_launch.hpp); ktune_gpu_tests links these
// objects and runs them (tests/gpu/test_conv2d_igemm_wgmma.cpp, which also tests the kind's NVRTC
// path). wgmma_conv_check.cu is the kernel's older standalone bench.
#include "kernels/conv2d/cuda/conv2d_wgmma.cuh"
#include "kernels/conv2d/cuda/conv2d_wgmma_aot.hpp"

namespace kc = ktune::kernels::conv2d::cuda;

static_assert(sizeof(KtuneConvWgShape) == sizeof(kc::WgmmaConvShape),
              "the launcher's shape is the kernel's");

namespace {

template <int TP, int TQ, int BN, int ST, int PREC, int PERSIST>
const void* kernel_of() {
  return reinterpret_cast<const void*>(
      &ktune_conv2d_wgmma<TP, TQ, 128 / (TP * TQ), BN, ST, PREC, KtuneConvWgOutF32, PERSIST>);
}

#define KTUNE_CONV_WGMMA_AOT(TEXT, PREC)                                                          \
  []() {                                                                                          \
    constexpr kc::CudaConvConfig g = kc::parse_cuda_conv_config(TEXT);                            \
    static_assert(g.valid && g.kind == kc::CudaKind::igemm_wgmma, TEXT);                          \
    return kc::WgmmaAotInstance{                                                                  \
        TEXT, ktune::kernels::gemm::Precision(PREC),                                              \
        [](const kc::ConvDims& d, const kc::WgmmaConvMaps& maps, float* y, cudaStream_t stream) { \
          constexpr kc::CudaConvConfig c = kc::parse_cuda_conv_config(TEXT);                      \
          return kc::launch_igemm_wgmma(c, kernel_of<c.tp, c.tq, c.bn, c.st, PREC, c.persist>(),  \
                                        d, maps, y, stream);                                      \
        },                                                                                        \
        []() {                                                                                    \
          constexpr kc::CudaConvConfig c = kc::parse_cuda_conv_config(TEXT);                      \
          return kc::igemm_wgmma_opt_in(c, kernel_of<c.tp, c.tq, c.bn, c.st, PREC, c.persist>()); \
        }};                                                                                       \
  }()

}  // namespace

namespace ktune::kernels::conv2d::cuda {

// Every tile shape and width once, the three precisions, and the persistent grid.
const WgmmaAotInstance kWgmmaAotInstances[] = {
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4", 2),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=16;tq=8;bn=256;st=3", 3),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=8;tq=8;bn=64;st=6", 2),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=4;tq=8;bn=128;st=4", 3),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=4;tq=16;bn=256;st=4", 2),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=8;tq=16;bn=128;st=4", 1),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma;tp=4;tq=8;bn=256;st=3", 1),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma_persist;tp=8;tq=16;bn=128;st=4", 2),
    KTUNE_CONV_WGMMA_AOT("kind=cuda_igemm_wgmma_persist;tp=4;tq=8;bn=256;st=3", 1),
};
const int kWgmmaAotInstanceCount = int(sizeof(kWgmmaAotInstances) / sizeof(kWgmmaAotInstances[0]));

}  // namespace ktune::kernels::conv2d::cuda
