// cuBLAS and cuBLASLt loaded on first use. Linking them makes every process pay for loading
// and initializing libcublasLt (540 MB) at start: 0.55 s of CPU for `ktune --version` on a
// 2-core AMD EPYC (2026-11-27), paid by every CLI call and every test program of a CUDA build,
// GPU or not, where only sweeps and backends on a GPU call cuBLAS. So ktune's targets link this
// file instead: each function ktune calls is defined here with the header's declaration (a
// signature that differs from the header fails to compile) and forwards to the library's own
// definition, found by dlopen + dlsym on its first call. A library that cannot be loaded makes
// the call return CUBLAS_STATUS_NOT_INITIALIZED (the status strings say why), never abort.
// A cuBLAS function ktune starts calling must be added here: the link then fails until it is.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

#if !defined(KTUNE_CUBLAS_SONAME) || !defined(KTUNE_CUBLAS_PATH)  // set by CMake
#error "KTUNE_CUBLAS(LT)_SONAME and KTUNE_CUBLAS(LT)_PATH must name the libraries to load"
#endif

namespace {

// The library by soname (the binary's run path, then the loader's), else where the build found
// it; RTLD_LOCAL: its symbols do not join the global scope, so dlsym on the handle finds its
// definitions, never these forwarders.
void* open_library(const char* soname, const char* path) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  return handle ? handle : dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

// The library's handle, opened once (nullptr when it cannot be loaded).
void* library(const char* soname) {
  static void* cublas = open_library(KTUNE_CUBLAS_SONAME, KTUNE_CUBLAS_PATH);
  static void* cublas_lt = open_library(KTUNE_CUBLASLT_SONAME, KTUNE_CUBLASLT_PATH);
  return std::string(soname) == KTUNE_CUBLAS_SONAME ? cublas : cublas_lt;
}

void* symbol(const char* soname, const char* name) {
  void* handle = library(soname);
  return handle ? dlsym(handle, name) : nullptr;
}

// Why a function could not be reached, for the status strings.
const char* unreachable_text() {
  static const std::string text =
      std::string("cuBLAS could not be loaded (") + KTUNE_CUBLAS_SONAME + ", " +
      KTUNE_CUBLASLT_SONAME + "): " +
      (library(KTUNE_CUBLAS_SONAME) && library(KTUNE_CUBLASLT_SONAME) ? "a symbol is missing"
                                                                      : "dlopen failed");
  return text.c_str();
}

}  // namespace

#define KTUNE_STRING_(x) #x
#define KTUNE_STRING(x) KTUNE_STRING_(x)  // after expansion: cublasCreate -> "cublasCreate_v2"

// RET NAME(PARAMS) forwarding ARGS to NAME of SONAME; FAIL when it cannot be reached.
#define KTUNE_FORWARD(SONAME, RET, FAIL, NAME, PARAMS, ARGS)                         \
  extern "C" RET NAME PARAMS {                                                       \
    using Fn = RET(*) PARAMS;                                                        \
    static const Fn real = reinterpret_cast<Fn>(symbol(SONAME, KTUNE_STRING(NAME))); \
    return real ? real ARGS : FAIL;                                                  \
  }
#define KTUNE_CUBLAS(NAME, PARAMS, ARGS)                                                          \
  KTUNE_FORWARD(KTUNE_CUBLAS_SONAME, cublasStatus_t, CUBLAS_STATUS_NOT_INITIALIZED, NAME, PARAMS, \
                ARGS)
#define KTUNE_CUBLASLT(NAME, PARAMS, ARGS)                                                  \
  KTUNE_FORWARD(KTUNE_CUBLASLT_SONAME, cublasStatus_t, CUBLAS_STATUS_NOT_INITIALIZED, NAME, \
                PARAMS, ARGS)

KTUNE_FORWARD(KTUNE_CUBLAS_SONAME, const char*, unreachable_text(), cublasGetStatusName,
              (cublasStatus_t status), (status))
KTUNE_FORWARD(KTUNE_CUBLAS_SONAME, const char*, unreachable_text(), cublasGetStatusString,
              (cublasStatus_t status), (status))
KTUNE_CUBLAS(cublasCreate, (cublasHandle_t * handle), (handle))
KTUNE_CUBLAS(cublasDestroy, (cublasHandle_t handle), (handle))
KTUNE_CUBLAS(cublasSetStream, (cublasHandle_t handle, cudaStream_t stream), (handle, stream))
KTUNE_CUBLAS(cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
KTUNE_CUBLAS(cublasSgemm,
             (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
              const float* alpha, const float* a, int lda, const float* b, int ldb,
              const float* beta, float* c, int ldc),
             (h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
// cuBLAS's strided batched matrix products of element type T and index type I.
#define KTUNE_CUBLAS_STRIDED(NAME, T, I)                                                     \
  KTUNE_CUBLAS(NAME,                                                                         \
               (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k, \
                const T* alpha, const T* a, I lda, long long int sa, const T* b, I ldb,      \
                long long int sb, const T* beta, T* c, I ldc, long long int sc, I batch),    \
               (h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch))
KTUNE_CUBLAS_STRIDED(cublasSgemmStridedBatched, float, int)
KTUNE_CUBLAS_STRIDED(cublasDgemmStridedBatched, double, int)
KTUNE_CUBLAS_STRIDED(cublasSgemmStridedBatched_64, float, int64_t)
KTUNE_CUBLAS_STRIDED(cublasDgemmStridedBatched_64, double, int64_t)
KTUNE_CUBLAS(cublasGemmStridedBatchedEx_64,
             (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
              int64_t k, const void* alpha, const void* a, cudaDataType at, int64_t lda,
              long long int sa, const void* b, cudaDataType bt, int64_t ldb, long long int sb,
              const void* beta, void* c, cudaDataType ct, int64_t ldc, long long int sc,
              int64_t batch, cublasComputeType_t compute, cublasGemmAlgo_t algo),
             (h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc,
              batch, compute, algo))

KTUNE_CUBLASLT(cublasLtCreate, (cublasLtHandle_t * handle), (handle))
KTUNE_CUBLASLT(cublasLtDestroy, (cublasLtHandle_t handle), (handle))
KTUNE_CUBLASLT(cublasLtMatmulDescCreate,
               (cublasLtMatmulDesc_t * desc, cublasComputeType_t compute, cudaDataType_t scale),
               (desc, compute, scale))
KTUNE_CUBLASLT(cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t desc), (desc))
KTUNE_CUBLASLT(cublasLtMatmulDescSetAttribute,
               (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const void* buf,
                size_t bytes),
               (desc, attr, buf, bytes))
KTUNE_CUBLASLT(cublasLtMatrixLayoutCreate,
               (cublasLtMatrixLayout_t * layout, cudaDataType type, uint64_t rows, uint64_t cols,
                int64_t ld),
               (layout, type, rows, cols, ld))
KTUNE_CUBLASLT(cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t layout), (layout))
KTUNE_CUBLASLT(cublasLtMatrixLayoutSetAttribute,
               (cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr,
                const void* buf, size_t bytes),
               (layout, attr, buf, bytes))
KTUNE_CUBLASLT(cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))
KTUNE_CUBLASLT(cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))
KTUNE_CUBLASLT(cublasLtMatmulPreferenceSetAttribute,
               (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
                const void* buf, size_t bytes),
               (pref, attr, buf, bytes))
KTUNE_CUBLASLT(cublasLtMatmulAlgoGetHeuristic,
               (cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                cublasLtMatmulPreference_t pref, int requested,
                cublasLtMatmulHeuristicResult_t results[], int* returned),
               (h, desc, a, b, c, d, pref, requested, results, returned))
KTUNE_CUBLASLT(cublasLtMatmulAlgoConfigGetAttribute,
               (const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr,
                void* buf, size_t bytes, size_t* written),
               (algo, attr, buf, bytes, written))
KTUNE_CUBLASLT(cublasLtMatmul,
               (cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                cublasLtMatrixLayout_t al, const void* b, cublasLtMatrixLayout_t bl,
                const void* beta, const void* c, cublasLtMatrixLayout_t cl, void* d,
                cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t* algo, void* workspace,
                size_t workspace_bytes, cudaStream_t stream),
               (h, desc, alpha, a, al, b, bl, beta, c, cl, d, dl, algo, workspace, workspace_bytes,
                stream))
