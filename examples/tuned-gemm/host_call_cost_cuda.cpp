// The host cost of one ktune::gemm_ex call on its cuBLASLt path against the bare calls it wraps,
// printed by tuned_gemm_bench before its shapes (a caller timing ~20 us shapes with events sees
// this cost; tc-lt-call-ab-2 measured the library's call 0.6 us above the benchmark's). Per
// precision with a shipped "vendor=cublaslt": blocks of back-to-back calls on one small shape,
// each block timed on the host from its first call to its last enqueue (the device synchronized
// before a block, so its queue never fills), the median block's time per call, for
//   gemm_ex_config  the library's vendor=cublaslt config (argument checks, plan, workspace)
//   gemm_ex         the selector's pick (the same, plus the selector; whatever it picks)
//   plan            the library's cached plan called bare (deploy/vendor_cuda.hpp)
//   cublasLtMatmul  the benchmark's own call (its heuristic #0, its workspace)
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/deploy/vendor_cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/gemm.hpp"

namespace tuned_gemm {
namespace {

namespace kg = ktune::kernels::gemm;
namespace kd = ktune::kernels::gemm::deploy;
using ktune::cuda::check;
using ktune::cuda::DeviceBuffer;

constexpr int kBlocks = 21, kCallsPerBlock = 100;

// Median over blocks of the host time per call, in microseconds.
double host_us_per_call(const std::function<void()>& call, cudaStream_t stream) {
  using clock = std::chrono::steady_clock;
  call();  // first call: plans, handles and lazily loaded kernels are not the per-call cost
  std::vector<double> per_call;
  for (int b = 0; b < kBlocks; ++b) {
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const auto t0 = clock::now();
    for (int i = 0; i < kCallsPerBlock; ++i) call();
    per_call.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count() /
                       kCallsPerBlock);
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::nth_element(per_call.begin(), per_call.begin() + kBlocks / 2, per_call.end());
  return per_call[kBlocks / 2];
}

void print_for(kg::Precision q, int64_t size, cudaStream_t stream, cublasLtHandle_t lt_handle) {
  const auto precision = ktune::GemmPrecision(int(q));
  const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(precision);
  int lt = -1;
  for (int i = 0; i < info.num_configs; ++i)
    if (std::string(info.configs[i]) == "vendor=cublaslt") lt = i;
  const char* name = q == kg::Precision::tf32 ? "tf32" : q == kg::Precision::bf16 ? "bf16" : "fp16";
  if (lt < 0) {
    fmt::print("host call cost {}: the library ships no vendor=cublaslt\n", name);
    return;
  }
  kg::Shape s;
  s.m = s.n = s.k = size, s.batch = 1, s.precision = q;
  s.lda = s.ldb = s.ldc = size;
  const size_t elem = q == kg::Precision::tf32 ? 4 : 2;
  const DeviceBuffer<char> a_buffer(size_t(size * size) * elem, "A"),
      b_buffer(size_t(size * size) * elem, "B"),
      workspace_buffer(kd::kLtWorkspaceBytes, "workspace");
  const DeviceBuffer<float> c_buffer(size_t(size * size), "C");
  void *a = a_buffer.data(), *b = b_buffer.data(), *workspace = workspace_buffer.data();
  float* c = c_buffer.data();
  // Finite inputs (the values do not matter for the host's cost).
  check(cudaMemset(a, 0, a_buffer.bytes()), "cudaMemset(A)");
  check(cudaMemset(b, 0, b_buffer.bytes()), "cudaMemset(B)");
  const auto no = ktune::Trans::no;
  const kg::cuda::CublasLtGemm bench(lt_handle, s, kd::kLtWorkspaceBytes, 1);
  const kg::cuda::LtProblem p{q,    false,       false, size,        size, size,       1,
                              size, size * size, size,  size * size, size, size * size};
  std::vector<std::pair<std::string, double>> costs;
  costs.push_back({"gemm_ex_config", host_us_per_call(
                                         [&] {
                                           ktune::gemm_ex_config(lt, precision, no, no, size, size,
                                                                 size, 1.0f, a, size, size * size,
                                                                 b, size, size * size, 0.0f, c,
                                                                 size, size * size, 1, stream);
                                         },
                                         stream)});
  const int pick = ktune::tuned_gemm_ex_choice_cuda(precision, no, no, size, size, size, 1);
  costs.push_back({fmt::format("gemm_ex ({})", info.configs[pick]),
                   host_us_per_call(
                       [&] {
                         ktune::gemm_ex(precision, no, no, size, size, size, 1.0f, a, size,
                                        size * size, b, size, size * size, 0.0f, c, size,
                                        size * size, 1, stream);
                       },
                       stream)});
  costs.push_back({"plan", host_us_per_call(
                               [&] {
                                 const kd::LtPlan& plan = kd::lt_plan_for(p, a, b, c);
                                 (void)kd::run_cublaslt(plan, 1.0f, a, b, 0.0f, c, workspace,
                                                        kd::kLtWorkspaceBytes, stream);
                               },
                               stream)});
  if (bench.algos() > 0)
    costs.push_back(
        {"cublasLtMatmul",
         host_us_per_call([&] { (void)bench.run(0, a, b, c, workspace, stream); }, stream)});
  std::string line =
      fmt::format("host call cost {} {}x{}x{} NN (us per call, median of {} x {}):", name, size,
                  size, size, kBlocks, kCallsPerBlock);
  for (const auto& [what, us] : costs) line += fmt::format(" {} {:.3f};", what, us);
  fmt::print("{}\n", line);
}

}  // namespace

void print_host_call_cost() {
  try {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cublasLtHandle_t lt = nullptr;
    kd::check_cublas_call(cublasLtCreate(&lt), "cublasLtCreate");
    for (kg::Precision q : {kg::Precision::tf32, kg::Precision::bf16, kg::Precision::fp16})
      print_for(q, 128, stream, lt);
    cublasLtDestroy(lt);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    fmt::print("host call cost: not measured: {}\n", e.what());
  }
}

}  // namespace tuned_gemm
