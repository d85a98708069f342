#pragma once
// The vendor calls of a tuned CUDA GEMM library whose selectors ship "vendor=cublas" or
// "vendor=cublaslt" (or "vendor=cublaslt;heuristic=<i>"), on the caller's stream, as the sweep
// measured them (deploy/vendors.cmake links the vendor): in FP32 (ktune::gemm) cuBLAS's
// strided-batched SGEMM, in tf32 / bf16 / fp16 (ktune::gemm_ex) cuBLAS's GemmStridedBatchedEx, and
// in every precision cuBLASLt's matmul with its heuristic's first (or i-th) algorithm, in the
// compute types of kernels/gemm/cuda/cublas_precision.hpp (FP32: CUBLAS_COMPUTE_32F, no TF32). Each
// thread keeps one handle per device, so concurrent callers never share a handle's stream, and its
// cuBLASLt plans (the descriptors and the heuristic's answer) per problem, so the heuristic runs
// once per shape. A call's host cost is inside the time a caller measures with events around it
// (~20 us shapes): a repeated call reaches its plan through a one-entry cache and sets a cuBLAS
// handle's stream only when it changes.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "kernels/common/cuda/call_workspace.hpp"
#include "kernels/gemm/cuda/cublas_precision.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"

namespace ktune::kernels::gemm::deploy {

inline void check_cublas_call(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("ktune::gemm: ") + what + " failed (cuBLAS status " +
                             std::to_string(int(status)) + ")");
}

// The calling thread's current device (one query per library call: the cuBLASLt call's host
// cost is inside the time a caller measures, events around the call).
inline int current_device(const char* who) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess)
    throw std::runtime_error(std::string(who) + ": cudaGetDevice failed");
  return device;
}

// A handle of this thread and the stream last set on it (cuBLAS's; cuBLASLt takes the stream per
// call). A new cuBLAS handle is on the default stream, nullptr.
template <typename Handle>
struct ThreadHandle {
  Handle handle = nullptr;
  cudaStream_t stream = nullptr;
};

// This thread's handle of `device` (cuBLAS's or cuBLASLt's), made on first use.
template <typename Handle, cublasStatus_t (*Create)(Handle*), cublasStatus_t (*Destroy)(Handle)>
ThreadHandle<Handle>& handle_for_this_thread(int device, const char* create_name) {
  struct Handles {
    std::map<int, ThreadHandle<Handle>> by_device;
    ~Handles() {
      for (auto& [d, h] : by_device) Destroy(h.handle);
    }
  };
  thread_local Handles handles;
  ThreadHandle<Handle>& h = handles.by_device[device];
  if (!h.handle) check_cublas_call(Create(&h.handle), create_name);
  return h;
}

// This thread's cuBLAS handle of the current device, on `stream` (cublasSetStream only when the
// handle's stream changes: a destroyed stream's handle reused by a new stream is the same value,
// which cuBLAS itself would not tell apart either).
inline cublasHandle_t cublas_handle_on(cudaStream_t stream) {
  ThreadHandle<cublasHandle_t>& h =
      handle_for_this_thread<cublasHandle_t, &cublasCreate, &cublasDestroy>(
          current_device("ktune::gemm"), "cublasCreate");
  if (h.stream != stream) {
    check_cublas_call(cublasSetStream(h.handle, stream), "cublasSetStream");
    h.stream = stream;
  }
  return h.handle;
}

inline cublasLtHandle_t cublaslt_handle_for_this_thread(int device) {
  return handle_for_this_thread<cublasLtHandle_t, &cublasLtCreate, &cublasLtDestroy>(
             device, "cublasLtCreate")
      .handle;
}

// FP32 cuBLAS's strided-batched SGEMM, the FP32 sweep's "cublas" row: C = alpha op(A) op(B) +
// beta C over the strided batch, column-major, device pointers. (FP32 cuBLASLt, "vendor=cublaslt",
// goes through run_cublaslt_candidate below with Precision::fp32, as the tensor-core ones do.)
inline void run_cublas_sgemm(bool transa, bool transb, long long m, long long n, long long k,
                             long long batch, float alpha, const float* a, long long lda,
                             long long stride_a, const float* b, long long ldb, long long stride_b,
                             float beta, float* c, long long ldc, long long stride_c,
                             cudaStream_t stream) {
  const cublasHandle_t h = cublas_handle_on(stream);
  check_cublas_call(
      cublasSgemmStridedBatched_64(h, transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   transb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, a, lda,
                                   stride_a, b, ldb, stride_b, &beta, c, ldc, stride_c, batch),
      "cublasSgemmStridedBatched_64");
}

// Whether a tensor-core vendor call ran, or the vendor cannot serve the problem (the caller
// tries the next shipped config).
enum class VendorOutcome { ok, refused };

inline VendorOutcome vendor_outcome(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return VendorOutcome::refused;
  check_cublas_call(status, what);
  return VendorOutcome::ok;
}

// cuBLAS's GemmStridedBatchedEx in the problem's precision: the sweep's "cublas" row.
// C holds floats, or with p.c16 the input type.
inline VendorOutcome run_cublas_ex(const cuda::LtProblem& p, float alpha, const void* a,
                                   const void* b, float beta, void* c, cudaStream_t stream) {
  const cublasHandle_t h = cublas_handle_on(stream);
  const cudaDataType_t in = cuda::cublas_input_type(p.precision);
  return vendor_outcome(
      cublasGemmStridedBatchedEx_64(h, p.transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    p.transb ? CUBLAS_OP_T : CUBLAS_OP_N, p.m, p.n, p.k, &alpha, a,
                                    in, p.lda, p.stride_a, b, in, p.ldb, p.stride_b, &beta, c,
                                    cuda::cublas_output_type(p), p.ldc, p.stride_c, p.batch,
                                    cuda::cublas_compute_type(p.precision), CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx_64");
}

// The sweep's cuBLASLt workspace limit: the heuristic answers for the same budget.
inline constexpr uint64_t kLtWorkspaceBytes = uint64_t(32) << 20;

// One problem's cuBLASLt plan: this thread's handle of the device, the descriptors and the
// heuristic's answer the candidate names (#0, or #i of "heuristic=<i>"; none: refused).
struct LtPlan {
  cublasLtHandle_t handle = nullptr;
  cuda::LtDescriptors descriptors;
  cublasLtMatmulHeuristicResult_t chosen{};
  bool found = false;
};

// The largest power of two (at most 256, cuBLASLt's default assumption) that divides the address:
// the heuristic must not pick an algorithm that needs more alignment than the caller's operands.
inline uint32_t pointer_alignment(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

// What a plan depends on: the device, the problem, the operands' alignment and the heuristic's
// index.
struct LtPlanKey {
  int device, precision;
  bool transa, transb;
  int64_t m, n, k, batch, lda, stride_a, ldb, stride_b, ldc, stride_c;
  uint32_t align_a, align_b, align_c;
  int heuristic;
  bool c16 = false;  // C in the input type
  // (C++17: nvcc compiles this header in the CUDA library.)
  auto fields() const {
    return std::tie(device, precision, transa, transb, m, n, k, batch, lda, stride_a, ldb, stride_b,
                    ldc, stride_c, align_a, align_b, align_c, heuristic, c16);
  }
  bool operator==(const LtPlanKey& o) const { return fields() == o.fields(); }
  bool operator<(const LtPlanKey& o) const { return fields() < o.fields(); }
};

// A new plan: the descriptors and the heuristic's answer #heuristic (too few answers: refused).
// #0 comes from a one-answer query (the call a user makes, the bench's cuBLASLt column); #i >= 1
// from a kLtHeuristicLimit-answer query (the sweep's per-answer rows): on the H200 the order of
// the answers depends on how many are asked for (tf32, k = 3136: even the first differs).
inline LtPlan make_lt_plan(const LtPlanKey& key, const cuda::LtProblem& p) {
  const cublasLtHandle_t h = cublaslt_handle_for_this_thread(key.device);
  LtPlan plan;
  plan.handle = h;
  cublasStatus_t status = plan.descriptors.make(p);
  cublasLtMatmulPreference_t pref = nullptr;
  if (status == CUBLAS_STATUS_SUCCESS) status = cublasLtMatmulPreferenceCreate(&pref);
  auto set = [&](cublasLtMatmulPreferenceAttributes_t what, const auto& value) {
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulPreferenceSetAttribute(pref, what, &value, sizeof value);
  };
  set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kLtWorkspaceBytes);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_a);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_b);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_c);
  set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_c);
  cublasLtMatmulHeuristicResult_t answers[kLtHeuristicLimit] = {};
  const int wanted = key.heuristic == 0 ? 1 : kLtHeuristicLimit;
  int returned = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(h, plan.descriptors.op, plan.descriptors.a,
                                            plan.descriptors.b, plan.descriptors.c,
                                            plan.descriptors.c, pref, wanted, answers, &returned);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  // NOT_SUPPORTED: no algorithm for this problem; the plan says so (refused, and remembered).
  if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED) {
    plan.descriptors.release();
    check_cublas_call(status, "cuBLASLt plan (descriptors, cublasLtMatmulAlgoGetHeuristic)");
  }
  plan.found = status == CUBLAS_STATUS_SUCCESS && returned > key.heuristic;
  if (plan.found) plan.chosen = answers[key.heuristic];
  return plan;
}

// This thread's cuBLASLt plan for the problem on `device` (the current one) with the heuristic's
// answer #heuristic (0 <= heuristic < kLtHeuristicLimit), made on first use: a call after the
// first costs one key comparison when it repeats the thread's last problem, else one map lookup;
// no cuBLASLt or CUDA call either way.
inline const LtPlan& lt_plan_for(int device, const cuda::LtProblem& p, const void* a, const void* b,
                                 const void* c, int heuristic = 0) {
  if (heuristic < 0 || heuristic >= kLtHeuristicLimit)
    throw std::invalid_argument("ktune::gemm_ex: cuBLASLt heuristic index " +
                                std::to_string(heuristic) + " outside 0.." +
                                std::to_string(kLtHeuristicLimit - 1));
  const LtPlanKey key{device,
                      int(p.precision),
                      p.transa,
                      p.transb,
                      p.m,
                      p.n,
                      p.k,
                      p.batch,
                      p.lda,
                      p.stride_a,
                      p.ldb,
                      p.stride_b,
                      p.ldc,
                      p.stride_c,
                      pointer_alignment(a),
                      pointer_alignment(b),
                      pointer_alignment(c),
                      heuristic,
                      p.c16};
  struct Plans {
    std::map<LtPlanKey, LtPlan> plans;  // nodes never move: `last` stays valid
    const std::pair<const LtPlanKey, LtPlan>* last = nullptr;
    ~Plans() {
      for (auto& [k, plan] : plans) plan.descriptors.release();
    }
  };
  thread_local Plans cache;
  if (cache.last && cache.last->first == key) return cache.last->second;
  auto it = cache.plans.find(key);
  if (it == cache.plans.end()) it = cache.plans.emplace(key, make_lt_plan(key, p)).first;
  cache.last = &*it;
  return it->second;
}

inline const LtPlan& lt_plan_for(const cuda::LtProblem& p, const void* a, const void* b,
                                 const void* c, int heuristic = 0) {
  return lt_plan_for(current_device("ktune::gemm_ex"), p, a, b, c, heuristic);
}

// cuBLASLt's matmul with the plan's algorithm; workspace holds workspace_bytes, at least
// plan.chosen.workspaceSize. The library passes the sweep's budget (kLtWorkspaceBytes), as the
// sweep's and the benchmark's calls do: the call is then theirs argument for argument. Given
// only the heuristic's minimum, the same algorithm had run at 0.76-0.97x the benchmark's call on
// some shapes (results/h100-80gb-hbm3/tc-tf32-deployed/); whether the workspace was the cause is
// not measured yet.
inline VendorOutcome run_cublaslt(const LtPlan& plan, float alpha, const void* a, const void* b,
                                  float beta, void* c, void* workspace, size_t workspace_bytes,
                                  cudaStream_t stream) {
  if (!plan.found) return VendorOutcome::refused;
  if (workspace_bytes < plan.chosen.workspaceSize)
    throw std::runtime_error("ktune::gemm_ex: cuBLASLt workspace below the algorithm's need");
  const cuda::LtDescriptors& d = plan.descriptors;
  return vendor_outcome(cublasLtMatmul(plan.handle, d.op, &alpha, a, d.a, b, d.b, &beta, c, d.c, c,
                                       d.c, &plan.chosen.algo, workspace, workspace_bytes, stream),
                        "cublasLtMatmul");
}

// A library's cuBLASLt candidate: answer #heuristic for the problem (the plan cached per thread
// and problem) with the sweep's workspace budget, kept per stream from the library's pool
// (`pool`), on the caller's stream. `who` names the call in errors. One device query for the plan
// and the workspace: the call's host cost is inside the time a caller measures with events around
// it, and was 0.5-1 us above the cuBLAS path's on small shapes (results/h100-80gb-hbm3/
// tc-leafbox-deployed, tc-tf32-deployed). With the plan cached it was still 0.6-0.9 us above the
// bare cublasLtMatmul while the plan's call cost what the bare one does (tc-deployed-s15/
// host-call-cost.txt): the rest was this query, the kept workspace's two stream queries (now the
// driver's, and none for a default stream's id: kernels/common/cuda/stream_queries.hpp) and the
// argument checks; tuned_gemm_bench --host-call-cost times each alone.
inline VendorOutcome run_cublaslt_candidate(const cuda::LtProblem& p, int heuristic,
                                            const char* who, float alpha, const void* a,
                                            const void* b, float beta, void* c, cudaStream_t stream,
                                            const cuda_workspace::WorkspacePool& pool) {
  if (p.batch > 2147483647LL) return VendorOutcome::refused;  // cuBLASLt's batch count is 32-bit
  const int device = current_device(who);
  const LtPlan& plan = lt_plan_for(device, p, a, b, c, heuristic);
  if (!plan.found) return VendorOutcome::refused;
  cuda_workspace::CallWorkspace workspace(kLtWorkspaceBytes, stream, device, pool);
  const VendorOutcome outcome =
      run_cublaslt(plan, alpha, a, b, beta, c, workspace.data(), kLtWorkspaceBytes, stream);
  workspace.release();
  return outcome;
}

}  // namespace ktune::kernels::gemm::deploy
