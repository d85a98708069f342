// CUDA side of the deployed-library benchmark: ktune::gemm (device pointers, a stream) against
// cuBLAS SGEMM (FP32, DEFAULT math: no TF32), both verified against cuBLAS DGEMM in float64 and
// timed with the sweep's device protocol (include/ktune/cuda/device_measure.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/gemm.hpp"

namespace tuned_gemm {
namespace {

using ktune::cuda::check;
using ktune::cuda::check_cublas;
using ktune::cuda::DeviceBuffer;
using ktune::kernels::gemm::Shape;

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }
cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// Device 0 and a cuBLAS handle on its stream, for the whole program.
struct Context {
  ktune::cuda::DeviceContext device{0};
  cublasHandle_t cublas = nullptr;
  Context() {
    check_cublas(cublasCreate(&cublas), "cublasCreate");
    check_cublas(cublasSetStream(cublas, device.stream()), "cublasSetStream");
  }
};

Context& context() {
  static Context c;
  return c;
}

}  // namespace

bool cuda_available() { return ktune::cuda_device_count() > 0; }

ShapeResult measure_cuda(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy) {
  const int config =
      ktune::tuned_gemm_choice_cuda(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  const std::string config_name = ktune::tuned_gemm_info_cuda().configs[config];
  ktune::Outcome deployed, vendor;
  try {
    Context& ctx = context();
    cudaStream_t stream = ctx.device.stream();
    const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
    const size_t size_c = size_t(s.stride_c() * s.batch);
    const size_t copy_floats = size_a + size_b + size_c;
    // The sweep's rotation rule, so deployed and swept timings see L2 alike.
    const int copies = ktune::cuda::rotation_copies(ctx.device, double(copy_floats * 4));
    DeviceBuffer<float> pool(copy_floats * size_t(copies), "deployed GEMM inputs");
    auto a = [&](int i) { return pool.data() + size_t(i) * copy_floats; };
    auto b = [&](int i) { return a(i) + size_a; };
    auto c = [&](int i) { return b(i) + size_b; };
    const auto host_a = ktune::kernels::gemm::random_matrix(size_a, seed);
    const auto host_b = ktune::kernels::gemm::random_matrix(size_b, seed + 1);
    for (int i = 0; i < copies; ++i) {
      check(cudaMemcpy(a(i), host_a.data(), size_a * 4, cudaMemcpyHostToDevice), "upload A");
      check(cudaMemcpy(b(i), host_b.data(), size_b * 4, cudaMemcpyHostToDevice), "upload B");
    }
    // The float64 reference: cuBLAS DGEMM in PEDANTIC math on the same (float-valued) inputs.
    std::vector<double> ref(size_c);
    {
      const std::vector<double> da(host_a.begin(), host_a.end()), db(host_b.begin(), host_b.end());
      DeviceBuffer<double> ref_a(size_a, "A64"), ref_b(size_b, "B64"), ref_c(size_c, "C64");
      check(cudaMemcpy(ref_a.data(), da.data(), size_a * 8, cudaMemcpyHostToDevice), "upload A64");
      check(cudaMemcpy(ref_b.data(), db.data(), size_b * 8, cudaMemcpyHostToDevice), "upload B64");
      const double one = 1.0, zero = 0.0;
      check_cublas(cublasSetMathMode(ctx.cublas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
      check_cublas(cublasDgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m),
                                             int(s.n), int(s.k), &one, ref_a.data(), int(s.lda),
                                             s.stride_a(), ref_b.data(), int(s.ldb), s.stride_b(),
                                             &zero, ref_c.data(), int(s.ldc), s.stride_c(),
                                             int(s.batch)),
                   "cublasDgemmStridedBatched");
      check_cublas(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      // The DGEMM runs on the context's non-blocking stream, which a plain cudaMemcpy does not
      // wait for: without this the reference was read half-computed on slow (large k) shapes.
      check(cudaStreamSynchronize(ctx.device.stream()), "float64 reference");
      check(cudaMemcpy(ref.data(), ref_c.data(), size_c * 8, cudaMemcpyDeviceToHost), "download");
    }

    ktune::cuda::DeviceRun run;
    run.copies = copies;
    run.poison = [&] {  // all-ones bytes are NaN floats
      check(cudaMemsetAsync(c(0), 0xFF, size_c * 4, stream), "cudaMemsetAsync(poison C)");
    };
    run.verify = [&] {
      std::vector<float> host_c(size_c);
      check(cudaMemcpyAsync(host_c.data(), c(0), size_c * 4, cudaMemcpyDeviceToHost, stream),
            "download C");
      check(cudaStreamSynchronize(stream), "download C");
      ktune::RunVerdict v;
      v.rel_error = ktune::kernels::gemm::relative_error(s, host_c.data(), ref);
      v.ok = v.rel_error <= ktune::kernels::gemm::error_bound(s.k);
      if (!v.ok) v.message = "relative error above the bound";
      return v;
    };
    run.launch = [&](int i) {
      ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f, a(i),
                                  s.lda, s.stride_a(), b(i), s.ldb, s.stride_b(), 0.0f, c(i), s.ldc,
                                  s.stride_c(), s.batch, stream);
    };
    deployed = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "ktune::gemm");
    auto cublas = [&](int i) {
      const float one = 1.0f, zero = 0.0f;
      check_cublas(cublasSgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m),
                                             int(s.n), int(s.k), &one, a(i), int(s.lda),
                                             s.stride_a(), b(i), int(s.ldb), s.stride_b(), &zero,
                                             c(i), int(s.ldc), s.stride_c(), int(s.batch)),
                   "cublasSgemmStridedBatched");
    };
    // cuBLAS loads its kernels lazily inside the first call: keep that out of the timed runs.
    cublas(0);
    check(cudaStreamSynchronize(stream), "cuBLAS warm-up");
    run.launch = cublas;
    vendor = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "cublas");
  } catch (const ktune::Error& e) {  // no device, an allocation or a reference that failed
    deployed.status = ktune::Status::failed;
    deployed.message = e.what();
  }
  return shape_result(config_name, deployed, {vendor_result("cublas", vendor)});
}

}  // namespace tuned_gemm
