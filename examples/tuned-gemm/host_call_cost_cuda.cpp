// The host cost of one ktune::gemm_ex call on its cuBLASLt path against the bare calls it wraps,
// printed by tuned_gemm_bench before its shapes (a caller timing ~20 us shapes with events sees
// this cost; tc-lt-call-ab-2 measured the library's call 0.6 us above the benchmark's). Per
// precision with a shipped "vendor=cublaslt": blocks of back-to-back calls on one small shape,
// each block timed on the host from its first call to its last enqueue (the device synchronized
// before a block, so its queue never fills), the calls' blocks in turns (block b of every call
// before block b + 1 of any: a drifting clock reaches them alike), the median block's time per
// call, for
//   gemm_ex_config  the library's vendor=cublaslt config (argument checks, plan, workspace)
//   gemm_ex         the selector's pick (the same, plus the selector; whatever it picks)
//   s15 steps       the library's steps composed here as session 15's library made them: the
//                   argument checks, cudaGetDevice, the cached plan, the workspace after the
//                   runtime's cudaStreamIsCapturing and cudaStreamGetId, cublasLtMatmul
//   steps           the same with this library's stream queries
//   (kernels/common/cuda/stream_queries.hpp: the
//                   driver's entry points; no id query for a default stream)
//   plan            the library's cached plan called bare (deploy/vendor_cuda.hpp)
//   cublasLtMatmul  the benchmark's own call (its heuristic #0, its workspace)
// on a created stream, then on the null stream. A last line times each step alone (ns per call).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/common/cuda/call_workspace.hpp"
#include "kernels/common/cuda/stream_queries.hpp"
#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/deploy/gemm_validate.hpp"
#include "kernels/gemm/deploy/vendor_cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/gemm.hpp"

namespace tuned_gemm {
namespace {

namespace kg = ktune::kernels::gemm;
namespace kd = ktune::kernels::gemm::deploy;
namespace kw = ktune::kernels::cuda_workspace;
using ktune::cuda::check;
using ktune::cuda::DeviceBuffer;

constexpr int kBlocks = 21;

using Timed = std::pair<std::string, std::function<void()>>;

// Each call's median over kBlocks blocks of `per_block` calls of the host time per call, in
// microseconds, the blocks in turns.
std::vector<double> host_us_per_call(const std::vector<Timed>& calls, int per_block,
                                     cudaStream_t stream) {
  using clock = std::chrono::steady_clock;
  // First calls: plans, handles, workspaces and lazily loaded kernels are not the per-call cost.
  for (const auto& [name, call] : calls) call();
  std::vector<std::vector<double>> per_call(calls.size());
  for (int b = 0; b < kBlocks; ++b)
    for (size_t i = 0; i < calls.size(); ++i) {
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const auto t0 = clock::now();
      for (int r = 0; r < per_block; ++r) calls[i].second();
      per_call[i].push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count() /
                            per_block);
    }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> medians;
  for (auto& v : per_call) {
    std::nth_element(v.begin(), v.begin() + kBlocks / 2, v.end());
    medians.push_back(v[kBlocks / 2]);
  }
  return medians;
}

// A memory pool that keeps its memory, for the workspaces the composed steps take (the library's
// own pool is internal to it; a kept workspace is allocated once either way).
cudaMemPool_t keeping_pool() {
  static cudaMemPool_t pool = [] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    check(cudaGetDevice(&props.location.id), "cudaGetDevice");
    cudaMemPool_t p = nullptr;
    check(cudaMemPoolCreate(&p, &props), "cudaMemPoolCreate");
    uint64_t keep_everything = UINT64_MAX;
    check(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep_everything),
          "cudaMemPoolSetAttribute");
    return p;
  }();
  return pool;
}

// The session-15 stream queries: the runtime's wrappers, and an id for every stream.
kw::StreamKey s15_stream_key(cudaStream_t stream, bool& capturing) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
  capturing = capture != cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  check(cudaStreamGetId(stream, &id), "cudaStreamGetId");
  return {id, false};
}

struct Problem {
  kg::Precision q;
  int64_t size;
  const void *a, *b;
  float* c;
  kg::cuda::LtProblem lt() const {
    return {q,    false,       false, size,        size, size,       1,
            size, size * size, size,  size * size, size, size * size};
  }
};

// The library's cuBLASLt path composed from its steps; old: the session-15 stream queries.
void composed_steps(const Problem& p, cudaStream_t stream, bool old) {
  const auto no = ktune::Trans::no;
  const int64_t s = p.size;
  kd::check_gemm_arguments("steps", no, no, s, s, s, p.a, s, s * s, p.b, s, s * s, p.c, s, s * s, 1,
                           p.q == kg::Precision::tf32 ? 4 : 2);
  const int device = kd::current_device("steps");
  const kd::LtPlan& plan = kd::lt_plan_for(device, p.lt(), p.a, p.b, p.c);
  bool capturing = false;
  const kw::StreamKey key =
      old ? s15_stream_key(stream, capturing)
          : ((capturing = kw::stream_is_capturing(stream)), kw::stream_key(stream));
  if (capturing) throw std::runtime_error("host call cost: the stream is being captured");
  void* workspace = kw::kept_workspaces().get(kd::kLtWorkspaceBytes, stream, key, device,
                                              kw::WorkspacePool{keeping_pool(), nullptr});
  (void)kd::run_cublaslt(plan, 1.0f, p.a, p.b, 0.0f, p.c, workspace, kd::kLtWorkspaceBytes, stream);
}

std::string cost_line(const std::vector<Timed>& calls, const std::vector<double>& us) {
  std::string line;
  for (size_t i = 0; i < calls.size(); ++i)
    line += fmt::format(" {} {:.3f};", calls[i].first, us[i]);
  return line;
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
  const Problem problem{q, size, a, b, c};
  const int pick = ktune::tuned_gemm_ex_choice_cuda(precision, no, no, size, size, size, 1);
  for (cudaStream_t on : {stream, static_cast<cudaStream_t>(nullptr)}) {
    std::vector<Timed> calls;
    calls.push_back({"gemm_ex_config", [&, on] {
                       ktune::gemm_ex_config(lt, precision, no, no, size, size, size, 1.0f, a, size,
                                             size * size, b, size, size * size, 0.0f, c, size,
                                             size * size, 1, on);
                     }});
    calls.push_back({fmt::format("gemm_ex ({})", info.configs[pick]), [&, on] {
                       ktune::gemm_ex(precision, no, no, size, size, size, 1.0f, a, size,
                                      size * size, b, size, size * size, 0.0f, c, size, size * size,
                                      1, on);
                     }});
    calls.push_back({"s15 steps", [&, on] { composed_steps(problem, on, true); }});
    calls.push_back({"steps", [&, on] { composed_steps(problem, on, false); }});
    calls.push_back({"plan", [&, on] {
                       const kd::LtPlan& plan = kd::lt_plan_for(problem.lt(), a, b, c);
                       (void)kd::run_cublaslt(plan, 1.0f, a, b, 0.0f, c, workspace,
                                              kd::kLtWorkspaceBytes, on);
                     }});
    if (bench.algos() > 0)
      calls.push_back({"cublasLtMatmul", [&, on] { (void)bench.run(0, a, b, c, workspace, on); }});
    const std::vector<double> us = host_us_per_call(calls, 100, on);
    fmt::print("host call cost {} {}x{}x{} NN{} (us per call, median of {} x 100, in turns):{}\n",
               name, size, size, size, on ? "" : " null stream", kBlocks, cost_line(calls, us));
  }
}

// Each step of the call alone on a created stream, in ns per call (blocks of 1000 calls).
void print_steps(cudaStream_t stream) {
  const int64_t s = 128;
  const DeviceBuffer<char> a_buffer(size_t(s * s) * 2, "A"), b_buffer(size_t(s * s) * 2, "B");
  const DeviceBuffer<float> c_buffer(size_t(s * s), "C");
  const void *a = a_buffer.data(), *b = b_buffer.data();
  float* c = c_buffer.data();
  const kw::DriverStreamQueries& driver = kw::driver_stream_queries();
  const int device = kd::current_device("steps");
  const Problem problem{kg::Precision::bf16, s, a, b, c};
  const kw::StreamKey key = kw::stream_key(stream);
  const kw::WorkspacePool pool{keeping_pool(), nullptr};
  volatile unsigned long long sink = 0;  // keeps each answer live
  std::vector<Timed> steps;
  steps.push_back({"cudaGetDevice", [&] { sink = sink + kd::current_device("steps"); }});
#if CUDART_VERSION >= 12050
  // The driver's answer for the current context, as a per-call device query could be asked.
  CUresult (*ctx_get_device)(CUdevice*) = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuCtxGetDevice", reinterpret_cast<void**>(&ctx_get_device),
                                       12000, cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess)
    steps.push_back({"cuCtxGetDevice (entry point)", [&] {
                       CUdevice d = 0;
                       (void)ctx_get_device(&d);
                       sink = sink + d;
                     }});
#endif
  steps.push_back({"cudaStreamIsCapturing", [&] {
                     cudaStreamCaptureStatus status{};
                     check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
                     sink = sink + status;
                   }});
  if (driver.is_capturing)
    steps.push_back({"cuStreamIsCapturing (entry point)", [&] {
                       CUstreamCaptureStatus status{};
                       (void)driver.is_capturing(stream, &status);
                       sink = sink + status;
                     }});
  steps.push_back({"cudaStreamGetId", [&] {
                     unsigned long long id = 0;
                     check(cudaStreamGetId(stream, &id), "cudaStreamGetId");
                     sink = sink + id;
                   }});
  if (driver.get_id)
    steps.push_back({"cuStreamGetId (entry point)", [&] {
                       unsigned long long id = 0;
                       (void)driver.get_id(stream, &id);
                       sink = sink + id;
                     }});
  // The wgmma launcher asks three device attributes per call (not this path's; timed for it).
  steps.push_back({"cudaDeviceGetAttribute", [&] {
                     int sms = 0;
                     check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                           "cudaDeviceGetAttribute");
                     sink = sink + sms;
                   }});
  steps.push_back(
      {"stream_key (null stream)", [&] { sink = sink + kw::stream_key(nullptr).value; }});
  steps.push_back({"argument checks", [&] {
                     kd::check_gemm_arguments("steps", ktune::Trans::no, ktune::Trans::no, s, s, s,
                                              a, s, s * s, b, s, s * s, c, s, s * s, 1, 2);
                     sink = sink + 1;
                   }});
  steps.push_back(
      {"plan lookup", [&] { sink = sink + kd::lt_plan_for(device, problem.lt(), a, b, c).found; }});
  steps.push_back({"kept workspace lookup", [&] {
                     sink = sink + reinterpret_cast<uintptr_t>(kw::kept_workspaces().get(
                                       kd::kLtWorkspaceBytes, stream, key, device, pool));
                   }});
  steps.push_back({"CallWorkspace", [&] {
                     kw::CallWorkspace w(kd::kLtWorkspaceBytes, stream, device, pool);
                     sink = sink + reinterpret_cast<uintptr_t>(w.data());
                     w.release();
                   }});
  std::vector<double> us = host_us_per_call(steps, 1000, stream);
  for (double& x : us) x *= 1000.0;  // ns
  fmt::print("host step cost (ns per call, created stream, median of {} x 1000, in turns):{}\n",
             kBlocks, cost_line(steps, us));
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
    print_steps(stream);
    cublasLtDestroy(lt);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    fmt::print("host call cost: not measured: {}\n", e.what());
  }
}

}  // namespace tuned_gemm
