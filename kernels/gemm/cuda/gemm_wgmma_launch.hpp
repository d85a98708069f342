#pragma once
// Host launcher of the Hopper tensor-core GEMM kernel (gemm_wgmma.cuh), shared like
// gemm_mma_launch.hpp by the sweep (NVRTC-loaded kernels) and the deployed library (nvcc-compiled
// kernels): builds the two TMA tensor maps (cuTensorMapEncodeTiled, reached through the runtime's
// driver entry point, so nothing links libcuda) and launches the persistent grid.
#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes from the entry point
#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/cuda/device_facts.hpp"
#include "kernels/common/cuda/gemm_launch_checks.hpp"
#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/cuda/tma_encode.hpp"
#include "kernels/common/gemm_config.hpp"
#include "kernels/gemm/cuda/gemm_mma_launch.hpp"  // the workspace limit, the 16-bit-C reduction

namespace ktune::kernels::gemm::cuda {

// "ktune_gemm_wgmma<128,256,4,8,2,1,0>" (bm, bn, st, gr, prec, ta, tb), with ",1" after tb for
// the instantiation that stores C in the input's 16-bit type (c16, bf16 / fp16 only). tf32 runs
// the K-major instantiation (ta = 1, tb = 0) whatever the problem's transposes: the launcher
// copies the other operands K-major first. Split-K (splits > 1, kind wgmmasplit):
// "ktune_gemm_wgmma_sk<...>" of the same arguments whatever C's type (it stores FP32 partial sums;
// the reduction kernel stores C).
inline std::string wgmma_name_expression(const BlockedParams& p, Precision precision, bool transa,
                                         bool transb, bool c16 = false) {
  if (precision == Precision::tf32) transa = true, transb = false;
  if (p.splits > 1) c16 = false;
  std::string text = p.splits > 1             ? "ktune_gemm_wgmma_sk<"
                     : p.pp                   ? "ktune_gemm_wgmma_pp<"
                     : p.ts == 2 && p.cl == 2 ? "ktune_gemm_wgmma_mccs<"
                     : p.ts == 2              ? "ktune_gemm_wgmma_cs<"
                     : p.ts && p.cl == 2      ? "ktune_gemm_wgmma_mcts<"
                     : p.ts                   ? "ktune_gemm_wgmma_ts<"
                     : p.cl == 2              ? "ktune_gemm_wgmma_mc<"
                                              : "ktune_gemm_wgmma<";
  for (int v : {p.bm, p.bn, p.st, p.gr, int(precision)}) text += std::to_string(v) + ",";
  return text + (transa ? "1" : "0") + "," + (transb ? "1" : "0") + (c16 ? ",1>" : ">");
}

// The tf32 operand copies (ktune_wgmma_pack_tf32): k_contiguous for an operand already K-major
// but off TMA's 16-byte grid, else the MN-major transpose.
inline std::string wgmma_pack_name_expression(bool k_contiguous) {
  return k_contiguous ? "ktune_wgmma_pack_tf32<1>" : "ktune_wgmma_pack_tf32<0>";
}

// Parameters the kernel templates accept: two consumer warpgroups of 64 or 128 rows of a tile
// (ktune_gemm_wgmma) or one of 64 or 128 rows owning a tile (pp = 1, ktune_gemm_wgmma_pp), wgmma
// N of 64 / 128 / 256, at most 128 accumulators a thread, K tiles of 128 bytes (bk 64 of 16-bit
// elements, kinds wgmma, wgmmapp and wgmmamc; bk 32 of tf32, kind wgmmatf32); clusters (cl = 2,
// ktune_gemm_wgmma_mc) of the cooperative kernel only, 16-bit only; the TMA-store epilogue (ts = 1,
// ktune_gemm_wgmma_ts / _mcts) and the staged one stored by the threads (ts = 2, _cs / _mccs)
// likewise; K slices (splits >= 2, ktune_gemm_wgmma_sk) of the one-block cooperative kernel
// without staging, 16-bit only.
inline constexpr bool wgmma_supported_params(const BlockedParams& p) {
  const bool rows = p.pp ? (p.bm == 64 || p.bm == 128) && p.bm * p.bn <= 128 * 128
                         : (p.bm == 128 || p.bm == 256) && p.bm * p.bn <= 128 * 256;
  return rows && (p.bn == 64 || p.bn == 128 || p.bn == 256) && (p.bk == 64 || p.bk == 32) &&
         p.st >= 2 && p.gr >= 1 && p.wm == 0 && p.wn == 0 && p.tm == 0 && p.tn == 0 &&
         (p.splits == 1 || (p.splits >= 2 && p.pp == 0 && p.cl == 1 && p.ts == 0 && p.bk == 64)) &&
         (p.pp == 0 || p.pp == 1) && (p.cl == 1 || (p.cl == 2 && p.pp == 0 && p.bk == 64)) &&
         (p.ts == 0 || ((p.ts == 1 || p.ts == 2) && p.pp == 0 && p.bk == 64));
}
// The K tile (elements) of a precision: one 128-byte swizzle row.
inline constexpr int wgmma_k_tile(Precision precision) {
  return precision == Precision::tf32 ? 32 : 64;
}

// A tf32 operand the kernel cannot read in place: MN-major (A without transa, B with transb), or
// K-major off TMA's 16-byte grid (leading dimension, batch stride or base).
inline bool wgmma_tf32_packs(bool k_major, const void* base, long long ld, long long stride,
                             long long batch) {
  return !k_major || ld % 4 != 0 || (batch > 1 && stride % 4 != 0) ||
         reinterpret_cast<unsigned long long>(base) % 16 != 0;
}
// The leading dimension of a packed tf32 operand: k rounded up to 16 bytes.
inline constexpr long long wgmma_tf32_packed_ld(long long k) { return (k + 3) / 4 * 4; }
// Floats of the workspace a tf32 launch needs for its packed operands (0: none): A's batch
// matrices of m lines, then B's of n lines, each line wgmma_tf32_packed_ld(k) floats.
inline long long wgmma_tf32_workspace_floats(bool transa, bool transb, long long m, long long n,
                                             long long k, long long batch, const void* a,
                                             long long lda, long long stride_a, const void* b,
                                             long long ldb, long long stride_b) {
  const long long line = wgmma_tf32_packed_ld(k);
  return (wgmma_tf32_packs(transa, a, lda, stride_a, batch) ? batch * m * line : 0) +
         (wgmma_tf32_packs(!transb, b, ldb, stride_b, batch) ? batch * n * line : 0);
}

// What a tf32 launch needs beyond the GEMM kernel: the two copy kernels (wgmma_pack_name_expression
// of false and true) and a workspace of at least wgmma_tf32_workspace_floats floats (null when
// the problem needs none).
struct WgmmaTf32Pack {
  const void* transpose = nullptr;  // ktune_wgmma_pack_tf32<0>
  const void* copy = nullptr;       // ktune_wgmma_pack_tf32<1>
  float* workspace = nullptr;
  long long workspace_floats = 0;
};

inline constexpr int kWgmmaThreads = 384;  // a producer and two consumer warpgroups

// What a split-K launch (kind wgmmasplit) needs beyond its kernel: the split-K reduction
// (ktune_gemm_splitk_reduce<256> of gemm_tiled.cuh, or with 16-bit C
// splitk_reduce16_name_expression's kernel) and a workspace of tiled_workspace_floats(p, m, n,
// batch) floats (at most kMmaMaxWorkspaceFloats).
struct WgmmaSplitK {
  const void* reduce = nullptr;
  float* workspace = nullptr;
};

namespace wgmma_detail {

inline TiledLaunch refuse(const BlockedParams& p, Precision precision, const std::string& why) {
  const std::string splits = p.splits > 1 ? " splits=" + std::to_string(p.splits) : "";
  return {cudaSuccess, true,
          wgmma_name_expression(p, precision, false, false) + splits + " (" +
              precision_name(precision) + "): " + why};
}

// The tensor map of one operand stored with `inner` contiguous elements per line (ld apart) and
// `outer` lines per matrix (batch_stride apart), boxes of 64 x box_outer, 128-byte swizzle;
// out-of-range elements read as zeros. False when the driver refuses it. tf32 operands are FP32
// words (the tensor cores read their top 19 bits), boxes 32 wide: 128 bytes as in 16-bit.
inline bool encode(CUtensorMap& map, Precision precision, const void* base, long long inner,
                   long long outer, long long ld, long long batch, long long batch_stride,
                   int box_outer) {
  const auto fn = ktune::kernels::tma::encoder();
  if (fn == nullptr) return false;
  const cuuint64_t dims[3] = {cuuint64_t(inner), cuuint64_t(outer), cuuint64_t(batch)};
  // One matrix: any 16-byte multiple serves as the (unused) batch stride.
  const long long bstride = batch > 1 ? batch_stride : ld * outer;
  const long long bytes = input_bytes(precision);
  const cuuint64_t strides[2] = {cuuint64_t(ld * bytes), cuuint64_t(bstride * bytes)};
  const cuuint32_t box[3] = {cuuint32_t(wgmma_k_tile(precision)), cuuint32_t(box_outer), 1},
                   unit[3] = {1, 1, 1};
  const CUtensorMapDataType type = precision == Precision::tf32   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : precision == Precision::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                  : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  return fn(&map, type, 3, const_cast<void*>(base), dims, strides, box, unit,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

inline bool aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

// C's tensor map for the TMA-store epilogue (ts): FP32, rows (m) innermost, then columns (n),
// then batch; 32 x 32 boxes, 128-byte swizzle (a box column is one 128-byte line, as the kernel's
// ktune_wg_store_tma writes it). False when C is off TMA's 16-byte grid (base, ldc, batch stride)
// or the driver refuses: the kernel then stores as the cooperative one does.
inline bool encode_c(CUtensorMap& map, float* c, long long m, long long n, long long ldc,
                     long long batch, long long stride_c) {
  if (!aligned16(c) || ldc % 4 != 0 || (batch > 1 && stride_c % 4 != 0)) return false;
  const auto fn = ktune::kernels::tma::encoder();
  if (fn == nullptr) return false;
  const cuuint64_t dims[3] = {cuuint64_t(m), cuuint64_t(n), cuuint64_t(batch)};
  const long long bstride = batch > 1 ? stride_c : ldc * n;
  const cuuint64_t strides[2] = {cuuint64_t(ldc * 4), cuuint64_t(bstride * 4)};
  const cuuint32_t box[3] = {32, 32, 1}, unit[3] = {1, 1, 1};
  return fn(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, c, dims, strides, box, unit,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Copies one tf32 operand (rows lines of k, element (r, kk) at r * ld + kk when k_major, else at
// kk * ld + r) K-major into dst with ldw = wgmma_tf32_packed_ld(k).
inline cudaError_t pack_tf32(const WgmmaTf32Pack& pack, bool k_major, const void* src, long long ld,
                             long long stride, long long rows, long long k, long long batch,
                             float* dst, int sms, cudaStream_t stream) {
  long long ldw = wgmma_tf32_packed_ld(k);
  const long long tiles = ((rows + 31) / 32) * ((k + 31) / 32) * batch;
  const unsigned blocks = unsigned(tiles < 8LL * sms ? tiles : 8LL * sms);
  long long ld_ = ld, stride_ = stride, rows_ = rows, k_ = k, batch_ = batch;
  void* args[] = {const_cast<void**>(&src), &ld_, &stride_, &rows_, &k_, &batch_, &dst, &ldw};
  const cudaError_t error = cudaLaunchKernel(k_major ? pack.copy : pack.transpose, dim3(blocks),
                                             dim3(32, 8), args, 0, stream);
  return error == cudaSuccess ? cudaGetLastError() : error;
}

// The launch configuration of the cluster kernel: p.cl blocks a cluster along x.
inline cudaLaunchConfig_t cluster_config(const BlockedParams& p, long long shared,
                                         cudaStream_t stream, cudaLaunchAttribute& cluster) {
  cluster = cudaLaunchAttribute{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(p.cl);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(kWgmmaThreads);
  config.dynamicSmemBytes = size_t(shared);
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

// How many clusters of the kernel run at once (a cluster's blocks share a GPC, so fewer than
// SMs / cl may fit, and a persistent grid beyond that would run a second wave): the occupancy
// query, remembered for the last kernel and shared-memory size of this thread.
inline cudaError_t max_clusters(const void* kernel, const BlockedParams& p, long long shared,
                                int sms, cudaStream_t stream, int& fit) {
  thread_local const void* last_kernel = nullptr;
  thread_local long long last_shared = -1;
  thread_local int last_fit = 0, last_device = -1;
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess) return error;
  if (kernel == last_kernel && shared == last_shared && device == last_device) {
    fit = last_fit;
    return cudaSuccess;
  }
  cudaLaunchAttribute cluster;
  cudaLaunchConfig_t config = cluster_config(p, shared, stream, cluster);
  config.gridDim = dim3(unsigned(sms / p.cl * p.cl));
  error = cudaOccupancyMaxActiveClusters(&fit, kernel, &config);
  if (error != cudaSuccess) return error;
  last_kernel = kernel, last_shared = shared, last_fit = fit, last_device = device;
  return cudaSuccess;
}

// The cluster kernel's grid: one cluster per unit of p.cl adjacent N tiles (the kernel's
// ktune_wg_units), at most `fit` clusters.
inline cudaError_t launch_clusters(const void* kernel, const BlockedParams& p, long long m,
                                   long long n, long long batch, int fit, long long shared,
                                   void** args, cudaStream_t stream) {
  const long long units =
      ((m + p.bm - 1) / p.bm) * (((n + p.bn - 1) / p.bn + p.cl - 1) / p.cl) * batch;
  cudaLaunchAttribute cluster;
  cudaLaunchConfig_t config = cluster_config(p, shared, stream, cluster);
  config.gridDim = dim3(unsigned((units < fit ? units : fit) * p.cl));
  return cudaLaunchKernelExC(&config, kernel, args);
}

}  // namespace wgmma_detail

// One asynchronous launch of C = alpha*op(A)*op(B) + beta*C with the wgmma kernel of (p,
// precision, transa, transb); a and b hold 16-bit elements (bf16, fp16) or floats (tf32). Refuses
// (never fails) what the kernel cannot serve: fp32, a K tile (p.bk) not the precision's, devices
// other than compute capability 9.0, and in 16-bit leading dimensions, batch strides or base
// pointers that are not 16-byte multiples (TMA). tf32 (kernel: the K-major instantiation) first
// copies MN-major or misaligned operands K-major into pack.workspace with pack's kernels (refused
// when the workspace is missing or short). c holds floats, or with c16 (bf16 / fp16 only) the
// input's 16-bit type; kernel is then the C16 = 1 instantiation (wgmma_name_expression with c16),
// which stores by the plain epilogue (the staged ones of ts stage FP32 boxes: with 16-bit C they
// fall back to it, as they do for beta != 0). max_shared_bytes: the device's opt-in limit. Split-K
// (p.splits > 1, kind wgmmasplit, 16-bit only): kernel is the ktune_gemm_wgmma_sk instantiation,
// split.reduce the reduction for C's type and split.workspace its partial sums (refused when
// missing, over kMmaMaxWorkspaceFloats, or when k has fewer K tiles than slices). Never
// synchronizes.
inline TiledLaunch launch_wgmma(const void* kernel, int max_shared_bytes, const BlockedParams& p,
                                Precision precision, bool transa, bool transb, long long m,
                                long long n, long long k, long long batch, float alpha,
                                const void* a, long long lda, long long stride_a, const void* b,
                                long long ldb, long long stride_b, float beta, void* c,
                                long long ldc, long long stride_c, cudaStream_t stream,
                                const WgmmaTf32Pack& pack = {}, bool c16 = false,
                                const WgmmaSplitK& split = {}) {
  const auto refuse = [&](const std::string& why) {
    return wgmma_detail::refuse(p, precision, why);
  };
  if (precision == Precision::fp32) return refuse("the wgmma kernel computes tf32, bf16 and fp16");
  if (c16 && precision == Precision::tf32) return refuse("16-bit C needs 16-bit inputs");
  if (p.cl > 1 && precision == Precision::tf32)
    return refuse("the cluster kernel computes bf16 and fp16");
  if (p.ts && precision == Precision::tf32)
    return refuse("the staged-epilogue kernels compute bf16 and fp16");
  if (p.splits > 1 && precision == Precision::tf32)
    return refuse("the split-K kernel computes bf16 and fp16");
  if (!wgmma_supported_params(p)) return refuse("parameters outside the template");
  if (p.bk != wgmma_k_tile(precision))
    return refuse("the K tile is " + std::to_string(wgmma_k_tile(precision)) + " in " +
                  precision_name(precision));
  if (auto stop =
          launch_checks::check_problem(refuse, transa, transb, m, n, k, batch, lda, ldb, ldc))
    return *stop;
  const bool tf32 = precision == Precision::tf32;
  const bool pack_a = tf32 && wgmma_tf32_packs(transa, a, lda, stride_a, batch);
  const bool pack_b = tf32 && wgmma_tf32_packs(!transb, b, ldb, stride_b, batch);
  if (tf32) {
    const long long need = wgmma_tf32_workspace_floats(transa, transb, m, n, k, batch, a, lda,
                                                       stride_a, b, ldb, stride_b);
    if (need > 0 && (pack.workspace == nullptr || pack.workspace_floats < need ||
                     !wgmma_detail::aligned16(pack.workspace)))
      return refuse("tf32 needs a workspace of " + std::to_string(need) +
                    " floats for its K-major copies");
    if ((pack_a || pack_b) && (pack.transpose == nullptr || pack.copy == nullptr))
      return refuse("no tf32 copy kernels");
  } else if (lda % 8 != 0 || ldb % 8 != 0 ||
             (batch > 1 && (stride_a % 8 != 0 || stride_b % 8 != 0)) ||
             !wgmma_detail::aligned16(a) || !wgmma_detail::aligned16(b)) {
    return refuse("TMA needs 16-byte aligned A and B (base, leading dimension, batch stride)");
  }
  if (m > 2147483647LL || n > 2147483647LL || k > 2147483647LL || batch > 2147483647LL)
    return refuse("a dimension exceeds the tensor map's 32-bit coordinates");
  const bool sliced = p.splits > 1;
  if (sliced) {
    const long long k_tiles = (k + p.bk - 1) / p.bk;
    if (k_tiles < p.splits)
      return refuse("k = " + std::to_string(k) + " has " + std::to_string(k_tiles) +
                    " K tiles: " + std::to_string(p.splits) + " slices would leave some empty");
    const long long partials = (long long)tiled_workspace_floats(p, m, n, batch);
    if (partials > kMmaMaxWorkspaceFloats)
      return refuse("split-K workspace of " + std::to_string(partials >> 18) +
                    " MiB exceeds the 1024 MiB limit");
    if (split.workspace == nullptr || split.reduce == nullptr)
      return refuse("split-K needs a workspace and the reduction kernel");
    if (!wgmma_detail::aligned16(split.workspace))
      return refuse("the split-K workspace is not 16-byte aligned");
  }
  if (kernel == nullptr) return refuse("no kernel");
  ktune::kernels::cuda_device::Facts facts;
  cudaError_t error = ktune::kernels::cuda_device::current(facts);
  if (error != cudaSuccess) return tiled_detail::classify(error, p, "device query");
  if (facts.major != 9 || facts.minor != 0)
    return refuse("wgmma needs compute capability 9.0 (sm_90a)");
  const int sms = facts.sms;
  const long long shared = wgmma_smem_bytes(p);
  if (auto stop = launch_checks::check_shared_memory(refuse, shared, max_shared_bytes))
    return *stop;
  if (tf32) {  // copy what is not K-major on the grid, then run the K-major kernel on the copies
    const long long line = wgmma_tf32_packed_ld(k);
    float* packed_b = pack.workspace + (pack_a ? batch * m * line : 0);
    if (pack_a)
      error = wgmma_detail::pack_tf32(pack, transa, a, lda, stride_a, m, k, batch, pack.workspace,
                                      sms, stream);
    if (error == cudaSuccess && pack_b)
      error = wgmma_detail::pack_tf32(pack, !transb, b, ldb, stride_b, n, k, batch, packed_b, sms,
                                      stream);
    if (error != cudaSuccess)
      return launch_checks::classify(error, "tf32 operand copy", refuse, [&] {
        return wgmma_name_expression(p, precision, transa, transb);
      });
    if (pack_a) a = pack.workspace, lda = line, stride_a = m * line;
    if (pack_b) b = packed_b, ldb = line, stride_b = n * line;
    transa = true, transb = false;
  }
  // A K-major operand (K contiguous) is one 64 x rows box a stage (A in clusters: a block's share
  // of the rows), an MN-major one 64 x 64 boxes.
  CUtensorMap map_a, map_b;
  const bool encoded =
      (transa ? wgmma_detail::encode(map_a, precision, a, k, m, lda, batch, stride_a, p.bm / p.cl)
              : wgmma_detail::encode(map_a, precision, a, m, k, lda, batch, stride_a, 64)) &&
      (transb ? wgmma_detail::encode(map_b, precision, b, n, k, ldb, batch, stride_b, 64)
              : wgmma_detail::encode(map_b, precision, b, k, n, ldb, batch, stride_b, p.bn));
  if (!encoded) return refuse("the driver refused the TMA tensor maps");
  error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
  if (error != cudaSuccess) return tiled_detail::classify(error, p, "shared memory opt-in");
  long long mm = m, nn = n, kk = k, bb = batch, ldc_ = ldc, sc = stride_c;
  // ts: C's map when beta == 0, C is FP32 and on TMA's grid (tma_c = 1), else the plain epilogue
  // (ts 2 needs the grid only: its 16-byte stores; the map goes unused).
  CUtensorMap map_c{};
  int tma_c = p.ts && beta == 0.0f && !c16 &&
              wgmma_detail::encode_c(map_c, static_cast<float*>(c), m, n, ldc, batch, stride_c);
  void* args[] = {&map_a, &map_b, &mm,   &nn, &kk,    &bb,   &alpha,
                  &beta,  &c,     &ldc_, &sc, &map_c, &tma_c};
  int splits = p.splits;
  float* partial = split.workspace;
  void* split_args[] = {&map_a, &map_b, &mm, &nn, &kk, &bb, &splits, &partial};
  if (sliced) {  // one block per (tile, K slice) unit, at most one per SM
    const long long units = ((m + p.bm - 1) / p.bm) * ((n + p.bn - 1) / p.bn) * batch * p.splits;
    const unsigned blocks = unsigned(units < sms ? units : sms);
    error = cudaLaunchKernel(kernel, dim3(blocks), dim3(kWgmmaThreads), split_args, size_t(shared),
                             stream);
  } else if (p.cl == 1) {
    const long long tiles = ((m + p.bm - 1) / p.bm) * ((n + p.bn - 1) / p.bn) * batch;
    const unsigned blocks = unsigned(tiles < sms ? tiles : sms);
    error =
        cudaLaunchKernel(kernel, dim3(blocks), dim3(kWgmmaThreads), args, size_t(shared), stream);
  } else {
    int fit = 0;
    error = wgmma_detail::max_clusters(kernel, p, shared, sms, stream, fit);
    if (error != cudaSuccess) return tiled_detail::classify(error, p, "cluster occupancy");
    if (fit < 1)
      return refuse("no cluster of " + std::to_string(p.cl) + " blocks of " +
                    std::to_string(shared) + " bytes of shared memory fits the device");
    error = wgmma_detail::launch_clusters(kernel, p, m, n, batch, fit, shared, args, stream);
  }
  if (error == cudaSuccess) error = cudaGetLastError();
  const TiledLaunch result = launch_checks::classify(error, "launch", refuse, [&] {
    return wgmma_name_expression(p, precision, transa, transb, c16);
  });
  if (!sliced || result.refused || result.error != cudaSuccess) return result;
  if (c16)
    return launch_splitk_reduce16(split.reduce, p, m, n, batch, alpha, beta, c, ldc, stride_c,
                                  split.workspace, stream);
  return launch_splitk_reduce(split.reduce, p, m, n, batch, alpha, beta, static_cast<float*>(c),
                              ldc, stride_c, split.workspace, stream);
}

}  // namespace ktune::kernels::gemm::cuda
