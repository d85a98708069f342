// The driver's cuTensorMapEncodeTiled, reached through the runtime's entry-point query so that
// the kernels that feed the tensor cores by TMA (the GEMM family's wgmma kinds, conv kinds) link
// only the CUDA runtime, never libcuda directly.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes from the entry point
#include <cuda_runtime_api.h>

namespace ktune::kernels::tma {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// cuTensorMapEncodeTiled of the driver in use (null when the driver has none).
inline EncodeTiled encoder() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return EncodeTiled(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}

}  // namespace ktune::kernels::tma
