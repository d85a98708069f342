// CUDA side of the deployed-library benchmark: ktune::gemm (device pointers, a stream) against
// cuBLAS SGEMM (FP32, DEFAULT math: no TF32), verified against cuBLAS DGEMM in float64.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/gemm/gemm_reference.hpp"
#include "ktune/gemm.hpp"

namespace tuned_gemm {
namespace {

using ktune::kernels::gemm::Shape;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(s));
}

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }
cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

template <typename T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(size_t count) {
    check(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<size_t>(count, 1) * sizeof(T)),
          "cudaMalloc");
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// One stream, cuBLAS handle and event pair for the whole program.
struct Context {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  size_t l2_bytes = 0;
  Context() {
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cublasCreate(&cublas), "cublasCreate");
    check(cublasSetStream(cublas, stream), "cublasSetStream");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    int l2 = 0;
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute");
    l2_bytes = size_t(l2);
  }
};

Context& context() {
  static Context c;
  return c;
}

}  // namespace

bool cuda_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

ShapeResult measure_cuda(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy) {
  ShapeResult r;
  const int config =
      ktune::tuned_gemm_choice_cuda(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  r.config = ktune::tuned_gemm_info_cuda().configs[config];
  Context& ctx = context();
  const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
  const size_t size_c = size_t(s.stride_c() * s.batch);
  const size_t copy_floats = size_a + size_b + size_c;
  // Inputs that fit twice in L2 would be timed hot: rotate among copies (as the sweep does).
  const size_t copy_bytes = copy_floats * sizeof(float);
  const int copies =
      copy_bytes < 2 * ctx.l2_bytes ? int(1 + (2 * ctx.l2_bytes + copy_bytes - 1) / copy_bytes) : 1;
  try {
    DeviceArray<float> pool(copy_floats * size_t(copies));
    auto a = [&](int i) { return pool.ptr + size_t(i) * copy_floats; };
    auto b = [&](int i) { return a(i) + size_a; };
    auto c = [&](int i) { return b(i) + size_b; };
    const auto host_a = ktune::kernels::gemm::random_matrix(size_a, seed);
    const auto host_b = ktune::kernels::gemm::random_matrix(size_b, seed + 1);
    for (int i = 0; i < copies; ++i) {
      check(cudaMemcpy(a(i), host_a.data(), size_a * 4, cudaMemcpyHostToDevice), "upload A");
      check(cudaMemcpy(b(i), host_b.data(), size_b * 4, cudaMemcpyHostToDevice), "upload B");
    }
    // Poison C: all-ones bytes are NaN floats.
    check(cudaMemset(c(0), 0xFF, size_c * 4), "cudaMemset(C)");

    auto run_ktune = [&](int i) {
      ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f, a(i),
                                  s.lda, s.stride_a(), b(i), s.ldb, s.stride_b(), 0.0f, c(i), s.ldc,
                                  s.stride_c(), s.batch, ctx.stream);
    };
    auto run_cublas = [&](int i) {
      const float one = 1.0f, zero = 0.0f;
      check(cublasSgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m), int(s.n),
                                      int(s.k), &one, a(i), int(s.lda), s.stride_a(), b(i),
                                      int(s.ldb), s.stride_b(), &zero, c(i), int(s.ldc),
                                      s.stride_c(), int(s.batch)),
            "cublasSgemmStridedBatched");
    };

    // Verify ktune::gemm against cuBLAS DGEMM on the same (float-valued) inputs.
    run_ktune(0);
    check(cudaStreamSynchronize(ctx.stream), "ktune::gemm");
    std::vector<float> host_c(size_c);
    check(cudaMemcpy(host_c.data(), c(0), size_c * 4, cudaMemcpyDeviceToHost), "download C");
    {
      std::vector<double> da(host_a.begin(), host_a.end()), db(host_b.begin(), host_b.end());
      DeviceArray<double> ref_a(size_a), ref_b(size_b), ref_c(size_c);
      check(cudaMemcpy(ref_a.ptr, da.data(), size_a * 8, cudaMemcpyHostToDevice), "upload A64");
      check(cudaMemcpy(ref_b.ptr, db.data(), size_b * 8, cudaMemcpyHostToDevice), "upload B64");
      const double one = 1.0, zero = 0.0;
      check(cublasSetMathMode(ctx.cublas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
      check(cublasDgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m), int(s.n),
                                      int(s.k), &one, ref_a.ptr, int(s.lda), s.stride_a(),
                                      ref_b.ptr, int(s.ldb), s.stride_b(), &zero, ref_c.ptr,
                                      int(s.ldc), s.stride_c(), int(s.batch)),
            "cublasDgemmStridedBatched");
      check(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      std::vector<double> ref(size_c);
      check(cudaMemcpy(ref.data(), ref_c.ptr, size_c * 8, cudaMemcpyDeviceToHost), "download");
      r.rel_error = ktune::kernels::gemm::relative_error(s, host_c.data(), ref);
    }
    if (!(r.rel_error <= ktune::kernels::gemm::error_bound(s.k))) {
      r.status = "wrong";
      r.message = "relative error above the bound";
      return r;
    }

    int next = 0;
    auto timed = [&](auto fn) {
      return [&, fn] {
        next = (next + 1) % copies;
        check(cudaEventRecord(ctx.start, ctx.stream), "cudaEventRecord");
        fn(next);
        check(cudaEventRecord(ctx.stop, ctx.stream), "cudaEventRecord");
        check(cudaEventSynchronize(ctx.stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, ctx.start, ctx.stop), "cudaEventElapsedTime");
        return double(ms);
      };
    };
    r.deployed_ms = ktune::time_adaptive(timed(run_ktune), policy).median_ms;
    run_cublas(0);  // cuBLAS loads its kernels lazily inside the first call: keep that untimed
    check(cudaStreamSynchronize(ctx.stream), "cuBLAS warm-up");
    r.vendor_ms = ktune::time_adaptive(timed(run_cublas), policy).median_ms;
    r.status = "ok";
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = e.what();
    (void)cudaGetLastError();
  }
  return r;
}

}  // namespace tuned_gemm
