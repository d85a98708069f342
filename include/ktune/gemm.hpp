#pragma once
// ktune::gemm: FP32 GEMM with BLAS semantics (column-major, C = alpha * op(A) * op(B) + beta * C,
// C not read when beta == 0), served by a tuned library that ships only the K configs a learned
// selector chooses between (CMake: ktune_add_tuned_library). A library built with BACKENDS cpu
// defines the host-pointer overloads, one built with BACKENDS cuda the overloads taking a CUDA
// stream (device pointers, asynchronous on the stream); link at most one tuned library per
// backend into a program.
//
// Arguments are checked before anything runs: negative sizes, leading dimensions smaller than
// the stored rows, null pointers where data is read or written, operands spanning more than a
// pointer can address, batch strides that would make the entries of C overlap, and (k > 0) a C
// whose memory overlaps the memory A or B spans (C aliasing an input: BLAS forbids it too, and
// the result would be garbage) throw ktune::GemmError naming the argument; nothing is written
// then. m == 0, n == 0 or batch == 0
// do nothing; k == 0 or alpha == 0 scales C by beta without reading A or B (as BLAS does).
#include <cstdint>
#include <stdexcept>

struct CUstream_st;

namespace ktune {

using cudaStream_t = ::CUstream_st*;  // the CUDA runtime's cudaStream_t (nullptr: default stream)

enum class Trans : unsigned char { no, yes };  // op(X) = X or X^T

class GemmError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Host pointers (BACKENDS cpu). Threads: OpenMP.
void gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// batch entries i = 0 .. batch-1 at a + i*stride_a, b + i*stride_b, c + i*stride_c (elements);
// stride 0 for A or B reuses one matrix for every entry.
void gemm_strided_batched(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, int64_t stride_a, const float* b,
                          int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                          int64_t stride_c, int64_t batch);

// Device pointers, asynchronous on `stream` (BACKENDS cuda). Errors of the CUDA runtime throw
// std::runtime_error naming the call.
void gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          cudaStream_t stream);
void gemm_strided_batched(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, int64_t stride_a, const float* b,
                          int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                          int64_t stride_c, int64_t batch, cudaStream_t stream);

// Tensor-core GEMM (BACKENDS cuda): gemm_ex computes in `precision` with FP32 accumulation, C
// FP32, device pointers, asynchronous on `stream`:
//   fp32  A, B float (as gemm_strided_batched)     tf32  A, B float, rounded to TF32 in the MMA
//   bf16  A, B __nv_bfloat16 (16-bit)               fp16  A, B __half (16-bit)
// Served by the library's selector for that precision (NAMED_SELECTORS of ktune_add_tuned_library,
// one per precision, each trained on that precision's sweep); a precision the library ships no
// selector for throws GemmError before anything runs, as do the argument errors of gemm above
// (spans and aliasing counted in the input type's bytes). Accuracy: FP32 accumulation of products
// of the rounded inputs (the bound per precision: docs/tensor-cores.md).
enum class GemmPrecision : unsigned char { fp32, tf32, bf16, fp16 };
void gemm_ex(GemmPrecision precision, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
             float alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
             int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch,
             cudaStream_t stream);
// C's element type in gemm_ex: FP32, or the inputs' own 16-bit type (bf16 with bf16 inputs, fp16
// with fp16; any other pairing throws GemmError). alpha and beta apply in FP32 (beta reads the old
// C in its type) and the FP32 result is rounded once, to nearest even, at the store: the bound
// adds half a unit in the last place of the output type at |C| (docs/tensor-cores.md). Which
// selector serves it: the library's 16-bit-C selector of the precision (NAMED_SELECTORS bf16_c16 /
// fp16_c16, trained on rows that timed 16-bit C) where it ships one, else the precision's own
// selector (trained on FP32-C rows; the wgmmats / wgmmacs kinds fall back to their plain epilogue
// for 16-bit C). FP32 C is always served by the precision's own selector. The vendor candidates
// call cuBLAS / cuBLASLt with C and D in the same 16-bit type. ldc and stride_c count elements of
// the output type; spans and aliasing are checked in its bytes.
enum class GemmOutput : unsigned char { fp32, bf16, fp16 };
void gemm_ex(GemmPrecision precision, GemmOutput output, Trans transa, Trans transb, int64_t m,
             int64_t n, int64_t k, float alpha, const void* a, int64_t lda, int64_t stride_a,
             const void* b, int64_t ldb, int64_t stride_b, float beta, void* c, int64_t ldc,
             int64_t stride_c, int64_t batch, cudaStream_t stream);
// The same call with shipped config `config` instead of the selector's pick, no fallback: for tests
// of every shipped config and for reports. `config` is an index into the configs of the selector
// that serves (precision, output): tuned_gemm_ex_info_cuda(precision, output) (the FP32-C form:
// tuned_gemm_ex_info_cuda(precision); fp32 with FP32 C: the FP32 library's, tuned_gemm_info_cuda).
// Returns false when the device refuses that config for the problem (nothing written then).
bool gemm_ex_config(int config, GemmPrecision precision, Trans transa, Trans transb, int64_t m,
                    int64_t n, int64_t k, float alpha, const void* a, int64_t lda, int64_t stride_a,
                    const void* b, int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                    int64_t stride_c, int64_t batch, cudaStream_t stream);
bool gemm_ex_config(int config, GemmPrecision precision, GemmOutput output, Trans transa,
                    Trans transb, int64_t m, int64_t n, int64_t k, float alpha, const void* a,
                    int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                    float beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch,
                    cudaStream_t stream);

// What a tuned library ships, for reports and tests.
struct TunedGemmInfo {
  const char* backend;         // "cpu" or "cuda"
  int num_configs;             // K
  const char* const* configs;  // the K config strings, as in the selector header
  int baseline;                // index served when the selector cannot decide
};
const TunedGemmInfo& tuned_gemm_info_cpu();
const TunedGemmInfo& tuned_gemm_info_cuda();
// Index into info.configs the selector picks for a problem (no fallback applied).
int tuned_gemm_choice_cpu(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                          int64_t batch);
int tuned_gemm_choice_cuda(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                           int64_t batch);
// The shipped configs of gemm_ex for a precision with FP32 C (num_configs 0 when the library has
// no selector for it; fp32: those of tuned_gemm_info_cuda) and the selector's pick.
const TunedGemmInfo& tuned_gemm_ex_info_cuda(GemmPrecision precision);
int tuned_gemm_ex_choice_cuda(GemmPrecision precision, Trans transa, Trans transb, int64_t m,
                              int64_t n, int64_t k, int64_t batch);
// The same for C of type `output`: the selector gemm_ex uses for (precision, output) (the rule
// above). Where 16-bit C falls back to the precision's own selector this is the very object
// tuned_gemm_ex_info_cuda(precision) returns, so &info(q, out) != &info(q) says the library ships
// a 16-bit-C selector; a pairing gemm_ex refuses has num_configs 0 (and the choice -1).
const TunedGemmInfo& tuned_gemm_ex_info_cuda(GemmPrecision precision, GemmOutput output);
int tuned_gemm_ex_choice_cuda(GemmPrecision precision, GemmOutput output, Trans transa,
                              Trans transb, int64_t m, int64_t n, int64_t k, int64_t batch);

}  // namespace ktune
