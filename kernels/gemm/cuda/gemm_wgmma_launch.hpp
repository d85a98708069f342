#pragma once
// Host launcher of the Hopper tensor-core GEMM kernel (gemm_wgmma.cuh), shared like
// gemm_mma_launch.hpp by the sweep (NVRTC-loaded kernels) and the deployed library (nvcc-compiled
// kernels): builds the two TMA tensor maps (cuTensorMapEncodeTiled, reached through the runtime's
// driver entry point, so nothing links libcuda) and launches the persistent grid.
#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes from the entry point
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/cuda/gemm_launch_checks.hpp"
#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_config.hpp"

namespace ktune::kernels::gemm::cuda {

// "ktune_gemm_wgmma<128,256,4,8,2,1,0>" (bm, bn, st, gr, prec, ta, tb).
inline std::string wgmma_name_expression(const BlockedParams& p, Precision precision, bool transa,
                                         bool transb) {
  std::string text = "ktune_gemm_wgmma<";
  for (int v : {p.bm, p.bn, p.st, p.gr, int(precision)}) text += std::to_string(v) + ",";
  return text + (transa ? "1" : "0") + "," + (transb ? "1" : "0") + ">";
}

// Parameters the kernel template accepts: two consumer warpgroups of 64 or 128 rows, wgmma N of
// 64 / 128 / 256, at most 128 accumulators a thread, K tiles of 64.
inline constexpr bool wgmma_supported_params(const BlockedParams& p) {
  return (p.bm == 128 || p.bm == 256) && (p.bn == 64 || p.bn == 128 || p.bn == 256) &&
         p.bm * p.bn <= 128 * 256 && p.bk == 64 && p.st >= 2 && p.gr >= 1 && p.wm == 0 &&
         p.wn == 0 && p.tm == 0 && p.tn == 0 && p.splits == 1;
}

inline constexpr int kWgmmaThreads = 384;  // a producer and two consumer warpgroups

namespace wgmma_detail {

inline TiledLaunch refuse(const BlockedParams& p, Precision precision, const std::string& why) {
  return {cudaSuccess, true,
          wgmma_name_expression(p, precision, false, false) + " (" + precision_name(precision) +
              "): " + why};
}

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

// The tensor map of one operand stored with `inner` contiguous elements per line (ld apart) and
// `outer` lines per matrix (batch_stride apart), boxes of 64 x box_outer, 128-byte swizzle;
// out-of-range elements read as zeros. False when the driver refuses it.
inline bool encode(CUtensorMap& map, Precision precision, const void* base, long long inner,
                   long long outer, long long ld, long long batch, long long batch_stride,
                   int box_outer) {
  const EncodeTiled fn = encoder();
  if (fn == nullptr) return false;
  const cuuint64_t dims[3] = {cuuint64_t(inner), cuuint64_t(outer), cuuint64_t(batch)};
  // One matrix: any 16-byte multiple serves as the (unused) batch stride.
  const long long bstride = batch > 1 ? batch_stride : ld * outer;
  const cuuint64_t strides[2] = {cuuint64_t(ld * 2), cuuint64_t(bstride * 2)};
  const cuuint32_t box[3] = {64, cuuint32_t(box_outer), 1}, unit[3] = {1, 1, 1};
  const CUtensorMapDataType type = precision == Precision::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return fn(&map, type, 3, const_cast<void*>(base), dims, strides, box, unit,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

inline bool aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

}  // namespace wgmma_detail

// One asynchronous launch of C = alpha*op(A)*op(B) + beta*C with the wgmma kernel of (p,
// precision, transa, transb); a and b hold 16-bit elements. Refuses (never fails) what the kernel
// cannot serve: fp32 / tf32, devices other than compute capability 9.0, leading dimensions, batch
// strides or base pointers that are not 16-byte multiples (TMA). max_shared_bytes: the device's
// opt-in limit. Never synchronizes.
inline TiledLaunch launch_wgmma(const void* kernel, int max_shared_bytes, const BlockedParams& p,
                                Precision precision, bool transa, bool transb, long long m,
                                long long n, long long k, long long batch, float alpha,
                                const void* a, long long lda, long long stride_a, const void* b,
                                long long ldb, long long stride_b, float beta, float* c,
                                long long ldc, long long stride_c, cudaStream_t stream) {
  const auto refuse = [&](const std::string& why) {
    return wgmma_detail::refuse(p, precision, why);
  };
  if (precision != Precision::bf16 && precision != Precision::fp16)
    return refuse("the wgmma kernel computes bf16 and fp16 only");
  if (!wgmma_supported_params(p)) return refuse("parameters outside the template");
  if (auto stop =
          launch_checks::check_problem(refuse, transa, transb, m, n, k, batch, lda, ldb, ldc))
    return *stop;
  if (lda % 8 != 0 || ldb % 8 != 0 || (batch > 1 && (stride_a % 8 != 0 || stride_b % 8 != 0)) ||
      !wgmma_detail::aligned16(a) || !wgmma_detail::aligned16(b))
    return refuse("TMA needs 16-byte aligned A and B (base, leading dimension, batch stride)");
  if (m > 2147483647LL || n > 2147483647LL || k > 2147483647LL || batch > 2147483647LL)
    return refuse("a dimension exceeds the tensor map's 32-bit coordinates");
  if (kernel == nullptr) return refuse("no kernel");
  int device = 0, major = 0, minor = 0, sms = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (error == cudaSuccess)
    error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (error != cudaSuccess) return tiled_detail::classify(error, p, "device query");
  if (major != 9 || minor != 0) return refuse("wgmma needs compute capability 9.0 (sm_90a)");
  const long long shared = wgmma_smem_bytes(p);
  if (auto stop = launch_checks::check_shared_memory(refuse, shared, max_shared_bytes))
    return *stop;
  // A K-major operand (K contiguous) is one 64 x rows box a stage, an MN-major one 64 x 64 boxes.
  CUtensorMap map_a, map_b;
  const bool encoded =
      (transa ? wgmma_detail::encode(map_a, precision, a, k, m, lda, batch, stride_a, p.bm)
              : wgmma_detail::encode(map_a, precision, a, m, k, lda, batch, stride_a, 64)) &&
      (transb ? wgmma_detail::encode(map_b, precision, b, n, k, ldb, batch, stride_b, 64)
              : wgmma_detail::encode(map_b, precision, b, k, n, ldb, batch, stride_b, p.bn));
  if (!encoded) return refuse("the driver refused the TMA tensor maps");
  error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
  if (error != cudaSuccess) return tiled_detail::classify(error, p, "shared memory opt-in");
  const long long tiles = ((m + p.bm - 1) / p.bm) * ((n + p.bn - 1) / p.bn) * batch;
  const unsigned blocks = unsigned(tiles < sms ? tiles : sms);
  long long mm = m, nn = n, kk = k, bb = batch, ldc_ = ldc, sc = stride_c;
  void* args[] = {&map_a, &map_b, &mm, &nn, &kk, &bb, &alpha, &beta, &c, &ldc_, &sc};
  error = cudaLaunchKernel(kernel, dim3(blocks), dim3(kWgmmaThreads), args, size_t(shared), stream);
  if (error == cudaSuccess) error = cudaGetLastError();
  return launch_checks::classify(
      error, "launch", refuse, [&] { return wgmma_name_expression(p, precision, transa, transb); });
}

}  // namespace ktune::kernels::gemm::cuda
