// CUDA side of the deployed-library benchmark: ktune::gemm (device pointers, a stream) against
// cuBLAS SGEMM (FP32, DEFAULT math: no TF32) and cuBLASLt's heuristic #0 (FP32 compute), all
// verified against cuBLAS DGEMM in float64 and timed with the sweep's device protocol
// (include/ktune/cuda/device_measure.hpp). Problems in a tensor-core precision (large@bf16, ...)
// run ktune::gemm_ex against cuBLAS (cublasGemmEx with the sweep's compute type) and cuBLASLt's
// heuristic #0, in that precision, FP32 C (or, tuned_gemm_bench --output input, C in the 16-bit
// input type for all three: ktune::GemmOutput, cuBLAS's and cuBLASLt's C / D of CUDA_R_16BF /
// CUDA_R_16F); beside them, the fastest of cuBLASLt's top 8 algorithms (the sweep's cublaslt-top8
// row: timed in the same run, but not a call a user makes, so left out of the CSV's `vendor`).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "examples/tuned-gemm/timed_in_turns.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/deploy/vendor_cuda.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/gemm.hpp"
#include "ktune/tuned_device.hpp"

namespace tuned_gemm {
namespace {

using ktune::cuda::check;
using ktune::cuda::check_cublas;
using ktune::cuda::DeviceBuffer;
using ktune::kernels::gemm::Shape;

// The benchmark's cuBLASLt workspace: the sweep's 32 MiB (gemm_cuda_session.cpp), which the
// library's cuBLASLt calls pass too, so that the heuristic answers both for the same budget.
constexpr size_t kLtWorkspaceBytes = size_t(32) << 20;
static_assert(kLtWorkspaceBytes == ktune::kernels::gemm::deploy::kLtWorkspaceBytes);

// Where each operand of a rotated copy starts: cudaMalloc's alignment, which a user's buffers
// have. Unpadded copies put the batched 197-row ViT operands at 4-128 B, where the library's
// cuBLASLt plan (keyed by the operands' alignment) changed copy by copy while the benchmark's
// cuBLASLt assumed 256 B.
constexpr size_t kCopyAlignment = 256;
size_t aligned_bytes(size_t bytes) {
  return (bytes + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
}

ktune::Trans trans(bool t) { return t ? ktune::Trans::yes : ktune::Trans::no; }
cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// Device 0 and a cuBLAS handle on its stream, for the whole program.
struct Context {
  ktune::cuda::DeviceContext device{0};
  ktune::kernels::gemm::cuda::CublasLtHandle lt;
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

// C = op(A) op(B) in float64 by cuBLAS DGEMM (PEDANTIC math) on the given values.
std::vector<double> float64_reference(Context& ctx, const Shape& s, const std::vector<float>& a,
                                      const std::vector<float>& b) {
  const size_t size_a = a.size(), size_b = b.size(), size_c = size_t(s.stride_c() * s.batch);
  std::vector<double> ref(size_c);
  const std::vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
  DeviceBuffer<double> ref_a(size_a, "A64"), ref_b(size_b, "B64"), ref_c(size_c, "C64");
  check(cudaMemcpy(ref_a.data(), da.data(), size_a * 8, cudaMemcpyHostToDevice), "upload A64");
  check(cudaMemcpy(ref_b.data(), db.data(), size_b * 8, cudaMemcpyHostToDevice), "upload B64");
  const double one = 1.0, zero = 0.0;
  check_cublas(cublasSetMathMode(ctx.cublas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  check_cublas(cublasDgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m), int(s.n),
                                         int(s.k), &one, ref_a.data(), int(s.lda), s.stride_a(),
                                         ref_b.data(), int(s.ldb), s.stride_b(), &zero,
                                         ref_c.data(), int(s.ldc), s.stride_c(), int(s.batch)),
               "cublasDgemmStridedBatched");
  check_cublas(cublasSetMathMode(ctx.cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  // The DGEMM runs on the context's non-blocking stream, which a plain cudaMemcpy does not wait
  // for: without this the reference was read half-computed on slow (large k) shapes.
  check(cudaStreamSynchronize(ctx.device.stream()), "float64 reference");
  check(cudaMemcpy(ref.data(), ref_c.data(), size_c * 8, cudaMemcpyDeviceToHost), "download");
  return ref;
}

// A verify-then-time run on C at c0: poisoned (all-ones bytes are NaN floats, and NaN bf16 /
// fp16 too), then checked against ref with the relative error bound `bound`; C holds floats, or
// with c16 the 16-bit type of s.precision. The caller sets launch.
ktune::cuda::DeviceRun checked_run(cudaStream_t stream, void* c0, size_t size_c, const Shape& s,
                                   const std::vector<double>& ref, double bound, int copies,
                                   bool c16 = false) {
  ktune::cuda::DeviceRun run;
  run.copies = copies;
  const size_t c_bytes = size_c * (c16 ? 2 : 4);
  run.poison = [=] {
    check(cudaMemsetAsync(c0, 0xFF, c_bytes, stream), "cudaMemsetAsync(poison C)");
  };
  run.verify = [=, &ref] {
    std::vector<float> host_c(size_c);
    std::vector<uint16_t> bits(c16 ? size_c : 0);
    check(cudaMemcpyAsync(c16 ? static_cast<void*>(bits.data()) : host_c.data(), c0, c_bytes,
                          cudaMemcpyDeviceToHost, stream),
          "download C");
    check(cudaStreamSynchronize(stream), "download C");
    if (c16) host_c = ktune::kernels::gemm::from_input_bits(bits, s.precision);
    ktune::RunVerdict v;
    v.rel_error = ktune::kernels::gemm::relative_error(s, host_c.data(), ref);
    v.ok = v.rel_error <= bound;
    if (!v.ok) v.message = "relative error above the bound";
    return v;
  };
  return run;
}

// cuBLASLt's heuristic on the problem at a(i), b(i), c(i): the fastest of its first `algos`
// algorithms that run and verify (each warmed up, untimed, first), 32 MiB of workspace, as the
// sweep's rows; algos = 1 is the heuristic's own pick (#0), the call a user makes.
template <class A, class B, class C>
ktune::Outcome cublaslt_best(Context& ctx, const Shape& s, ktune::cuda::DeviceRun run,
                             const ktune::TimingPolicy& policy, int algos, A a, B b, C c,
                             bool c16 = false) {
  const cudaStream_t stream = ctx.device.stream();
  DeviceBuffer<char> workspace(kLtWorkspaceBytes, "cuBLASLt workspace");
  ktune::kernels::gemm::cuda::CublasLtGemm lt(ctx.lt.get(), s, kLtWorkspaceBytes, algos, c16);
  ktune::Outcome best;
  best.status = ktune::Status::failed;
  best.message = "the cuBLASLt heuristic proposes no algorithm that runs and verifies";
  for (int algo = 0; algo < lt.algos(); ++algo) {
    // An algorithm the library refuses at run time is skipped, as in the sweep.
    if (lt.run(algo, a(0), b(0), c(0), workspace.data(), stream) != CUBLAS_STATUS_SUCCESS) continue;
    check(cudaStreamSynchronize(stream), "cuBLASLt warm-up");
    run.launch = [&](int i) {
      check_cublas(lt.run(algo, a(i), b(i), c(i), workspace.data(), stream), "cublasLtMatmul");
    };
    ktune::Outcome o =
        ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, lt.describe(algo));
    if (o.status == ktune::Status::ok &&
        (best.status != ktune::Status::ok || o.timing.median_ms < best.timing.median_ms))
      best = std::move(o);
  }
  return best;
}

// cuBLASLt's heuristic #0 as the benchmark calls it: the plan made once per shape with the
// sweep's 32 MiB workspace budget, each call on the context's stream (algos() == 0: the heuristic
// proposes no algorithm).
struct BenchLt {
  DeviceBuffer<char> workspace{kLtWorkspaceBytes, "cuBLASLt workspace"};
  ktune::kernels::gemm::cuda::CublasLtGemm plan;
  cudaStream_t stream;
  BenchLt(Context& ctx, const Shape& s, bool c16)
      : plan(ctx.lt.get(), s, kLtWorkspaceBytes, 1, c16), stream(ctx.device.stream()) {}
  void call(const void* a, const void* b, void* c) const {
    check_cublas(plan.run(0, a, b, c, workspace.data(), stream), "cublasLtMatmul");
  }
};

// A shape as the probes' lines name it: its problem key with the precision.
std::string probe_key(const Shape& s) {
  return fmt::format("transa={};transb={};m={};n={};k={};batch={};precision={}", int(s.transa),
                     int(s.transb), s.m, s.n, s.k, s.batch, int(s.precision));
}

// A timed call's median in ms, or its status when it did not run ok.
std::string median_or_status(const ktune::Outcome& o) {
  return o.status == ktune::Status::ok ? fmt::format("{:.6f}", o.timing.median_ms)
                                       : std::string(ktune::to_string(o.status));
}

// The library's cuBLASLt call against the benchmark's, timed in turns (timed_in_turns.hpp) on the
// same rotated copies: "library" is the library's vendor=cublaslt config (ktune::gemm_ex_config:
// argument checks, its plan, its kept workspace), "plan" the library's plan called bare
// (deploy/vendor_cuda.hpp, the benchmark's workspace buffer), "benchmark" the benchmark's
// heuristic #0. library / benchmark is the library's vendor call's cost; plan / benchmark its
// algorithm's, library / plan its wrapper's. One line per shape:
// "lt-call-ab KEY library MS plan MS benchmark MS same-algorithm yes|no (CONFIG)".
template <class A, class B, class C>
void print_lt_call_ab(Context& ctx, const Shape& s, const ktune::cuda::DeviceRun& run,
                      const ktune::TimingPolicy& policy, int rounds, A a, B b, C c, bool c16) {
  namespace kg = ktune::kernels::gemm;
  namespace kd = ktune::kernels::gemm::deploy;
  const std::string key = probe_key(s);
  const auto precision = ktune::GemmPrecision(int(s.precision));
  const auto output = !c16                                 ? ktune::GemmOutput::fp32
                      : s.precision == kg::Precision::bf16 ? ktune::GemmOutput::bf16
                                                           : ktune::GemmOutput::fp16;
  // gemm_ex_config's index counts in the selector serving (precision, output).
  const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(precision, output);
  int lt = -1;
  for (int i = 0; i < info.num_configs; ++i)
    if (std::string(info.configs[i]) == "vendor=cublaslt") lt = i;
  if (lt < 0) {
    fmt::print("lt-call-ab {} none: the library ships no vendor=cublaslt here\n", key);
    return;
  }
  const cudaStream_t stream = ctx.device.stream();
  const BenchLt bench(ctx, s, c16);
  const kg::cuda::LtProblem p{s.precision,  s.transa, s.transb,     s.m,          s.n,
                              s.k,          s.batch,  s.lda,        s.stride_a(), s.ldb,
                              s.stride_b(), s.ldc,    s.stride_c(), c16};
  const int device = kd::current_device("lt-call-ab");
  const kd::LtPlan& plan0 = kd::lt_plan_for(device, p, a(0), b(0), c(0));
  if (bench.plan.algos() < 1 || !plan0.found) {
    fmt::print("lt-call-ab {} none: no cuBLASLt algorithm (library {}, benchmark {})\n", key,
               plan0.found ? 1 : 0, bench.plan.algos());
    return;
  }
  const bool same =
      std::memcmp(&plan0.chosen.algo, &bench.plan.result(0).algo, sizeof plan0.chosen.algo) == 0;
  const auto ta = trans(s.transa), tb = trans(s.transb);
  std::vector<TurnCall> calls;
  calls.push_back({"library", [&](int i) {
                     if (!ktune::gemm_ex_config(lt, precision, output, ta, tb, s.m, s.n, s.k, 1.0f,
                                                a(i), s.lda, s.stride_a(), b(i), s.ldb,
                                                s.stride_b(), 0.0f, c(i), s.ldc, s.stride_c(),
                                                s.batch, stream))
                       throw ktune::cuda::RunAbort{ktune::Status::refused, "refused"};
                   }});
  calls.push_back({"plan", [&](int i) {
                     const kd::LtPlan& plan = kd::lt_plan_for(device, p, a(i), b(i), c(i));
                     if (kd::run_cublaslt(plan, 1.0f, a(i), b(i), 0.0f, c(i),
                                          bench.workspace.data(), kd::kLtWorkspaceBytes,
                                          stream) != kd::VendorOutcome::ok)
                       throw ktune::cuda::RunAbort{ktune::Status::refused, "refused"};
                   }});
  calls.push_back({"benchmark", [&](int i) { bench.call(a(i), b(i), c(i)); }});
  const std::vector<ktune::Outcome> t = time_in_turns(ctx.device, run, policy, calls, rounds);
  std::string line = "lt-call-ab " + key;
  for (size_t i = 0; i < calls.size(); ++i)
    line += " " + calls[i].name + " " + median_or_status(t[i]);
  fmt::print("{} same-algorithm {} ({})\n", line, same ? "yes" : "no",
             kg::cuda::lt_algo_config(plan0.chosen));
}

// The deployed library, cuBLAS and cuBLASLt's heuristic #0 (32 MiB of workspace, the sweep's)
// timed in turns, run by run (timed_in_turns.hpp): the deployed library is no longer always the
// first timed after the inputs' upload and the float64 reference (tuned_gemm_bench --rounds; in
// FP32 too).
template <class L, class V, class A, class B, class C>
std::vector<ktune::Outcome> library_and_vendors_in_turns(Context& ctx, const Shape& s,
                                                         const ktune::cuda::DeviceRun& run,
                                                         const ktune::TimingPolicy& policy,
                                                         int rounds, const char* library_name,
                                                         L library, V cublas, A a, B b, C c,
                                                         bool c16 = false) {
  const BenchLt lt(ctx, s, c16);
  cublas(0);  // cuBLAS and cuBLASLt load their kernels lazily inside the first call
  if (lt.plan.algos() > 0) (void)lt.plan.run(0, a(0), b(0), c(0), lt.workspace.data(), lt.stream);
  check(cudaStreamSynchronize(lt.stream), "vendor warm-up");
  auto lt_call = [&](int i) {
    if (lt.plan.algos() == 0)
      throw ktune::cuda::RunAbort{ktune::Status::failed, "the heuristic proposes no algorithm"};
    lt.call(a(i), b(i), c(i));
  };
  return time_in_turns(ctx.device, run, policy,
                       {{library_name, library}, {"cublas", cublas}, {"cublaslt", lt_call}},
                       rounds);
}

// Whether a call slows down after another library's kernel: the library's call and cuBLASLt's
// heuristic #0 each timed in turns with itself (its second copy is the first's neighbour in the
// rotation, as in a sweep's back-to-back runs) and with the other (as in --rounds, or a network's
// alternating kernels). On an H200 each ran ~2 % slower after the other than after itself, both
// ways (results/h200/gemm-turns-probe): own kernels' slowdown in turns was their registers
// (results/h200/mma-register-ab), not their start. One line:
// "turns-probe KEY CONFIG lib-after-lib MS lib-after-lt MS lt-after-lt MS lt-after-lib MS".
template <class L, class A, class B, class C>
void print_turns_probe(Context& ctx, const Shape& s, const ktune::cuda::DeviceRun& run,
                       const ktune::TimingPolicy& policy, int rounds, const std::string& config,
                       L library, A a, B b, C c, bool c16 = false) {
  const BenchLt lt(ctx, s, c16);
  if (lt.plan.algos() < 1) {
    fmt::print("turns-probe {} {} none: no cuBLASLt algorithm\n", probe_key(s), config);
    return;
  }
  auto lt_call = [&](int i) { lt.call(a(i), b(i), c(i)); };
  const auto self =
      time_in_turns(ctx.device, run, policy, {{"lib", library}, {"lib", library}}, rounds);
  const auto mixed =
      time_in_turns(ctx.device, run, policy, {{"lib", library}, {"lt", lt_call}}, rounds);
  const auto vendor =
      time_in_turns(ctx.device, run, policy, {{"lt", lt_call}, {"lt", lt_call}}, rounds);
  // A call paired with itself: both halves' samples pooled (a half that failed says so).
  auto after_itself = [](const std::vector<ktune::Outcome>& pair) {
    for (const ktune::Outcome& o : pair)
      if (o.status != ktune::Status::ok) return o;
    return ktune::pool_outcomes(pair);
  };
  fmt::print("turns-probe {} {} lib-after-lib {} lib-after-lt {} lt-after-lt {} lt-after-lib {}\n",
             probe_key(s), config, median_or_status(after_itself(self)), median_or_status(mixed[0]),
             median_or_status(after_itself(vendor)), median_or_status(mixed[1]));
}

// A tensor-core precision: ktune::gemm_ex vs cuBLAS and cuBLASLt's heuristic #0, same inputs
// (16-bit bits, or floats for tf32), each verified against the float64 product of the inputs as
// the device holds them with the precision's bound (plus the output rounding with protocol.c16:
// C in the 16-bit input type; tf32 keeps FP32 C).
ShapeResult measure_cuda_tc(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy,
                            const CudaProtocol& protocol) {
  namespace kg = ktune::kernels::gemm;
  const auto precision = ktune::GemmPrecision(int(s.precision));
  const size_t elem = s.precision == kg::Precision::tf32 ? 4 : 2;
  // 16-bit C: --output input, or a workload whose problems carry it (`large@bf16:c=bf16`).
  const bool c16 = (protocol.c16 || s.c16) && elem == 2;
  const auto output = !c16                                 ? ktune::GemmOutput::fp32
                      : s.precision == kg::Precision::bf16 ? ktune::GemmOutput::bf16
                                                           : ktune::GemmOutput::fp16;
  // The pick of the selector gemm_ex uses for this C type (its 16-bit-C selector where the
  // library ships one).
  const int config = ktune::tuned_gemm_ex_choice_cuda(precision, output, trans(s.transa),
                                                      trans(s.transb), s.m, s.n, s.k, s.batch);
  const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(precision, output);
  const std::string config_name = config >= 0 ? info.configs[config] : "";
  ktune::Outcome deployed, cublas_outcome, lt_outcome, lt_top_outcome;
  try {
    Context& ctx = context();
    cudaStream_t stream = ctx.device.stream();
    const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
    const size_t size_c = size_t(s.stride_c() * s.batch);
    // One copy: A, B and C, each at a multiple of kCopyAlignment.
    const size_t bytes_ab = aligned_bytes(size_a * elem) + aligned_bytes(size_b * elem);
    const size_t copy_bytes = bytes_ab + aligned_bytes(size_c * (c16 ? 2 : 4));
    const int copies = ktune::cuda::rotation_copies(ctx.device, double(copy_bytes));
    DeviceBuffer<unsigned char> pool(copy_bytes * size_t(copies), "deployed GEMM inputs");
    auto a = [&](int i) { return pool.data() + size_t(i) * copy_bytes; };
    auto b = [&](int i) { return a(i) + aligned_bytes(size_a * elem); };
    auto c = [&](int i) { return static_cast<void*>(a(i) + bytes_ab); };
    auto host_a = kg::random_matrix(size_a, seed);
    auto host_b = kg::random_matrix(size_b, seed + 1);
    const auto bits_a = kg::to_input_bits(host_a, s.precision);
    const auto bits_b = kg::to_input_bits(host_b, s.precision);
    const void* src_a = elem == 2 ? static_cast<const void*>(bits_a.data()) : host_a.data();
    const void* src_b = elem == 2 ? static_cast<const void*>(bits_b.data()) : host_b.data();
    for (int i = 0; i < copies; ++i) {
      check(cudaMemcpy(a(i), src_a, size_a * elem, cudaMemcpyHostToDevice), "upload A");
      check(cudaMemcpy(b(i), src_b, size_b * elem, cudaMemcpyHostToDevice), "upload B");
    }
    if (elem == 2) {  // the reference sees the 16-bit values the device holds
      for (float& x : host_a) x = kg::round_input(x, s.precision);
      for (float& x : host_b) x = kg::round_input(x, s.precision);
    }
    const std::vector<double> ref = float64_reference(ctx, s, host_a, host_b);

    const double bound =
        c16 ? kg::error_bound_16bit_output(s.k, s.precision) : kg::error_bound(s.k, s.precision);
    ktune::cuda::DeviceRun run = checked_run(stream, c(0), size_c, s, ref, bound, copies, c16);
    auto library = [&](int i) {
      ktune::gemm_ex(precision, output, trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f, a(i),
                     s.lda, s.stride_a(), b(i), s.ldb, s.stride_b(), 0.0f, c(i), s.ldc,
                     s.stride_c(), s.batch, stream);
    };
    const cudaDataType_t out_type = c16 ? kg::cuda::cublas_input_type(s.precision) : CUDA_R_32F;
    const cudaDataType_t in = kg::cuda::cublas_input_type(s.precision);
    const cublasComputeType_t compute = kg::cuda::cublas_compute_type(s.precision);
    auto cublas = [&](int i) {
      const float one = 1.0f, zero = 0.0f;
      check_cublas(cublasGemmStridedBatchedEx_64(
                       ctx.cublas, op(s.transa), op(s.transb), s.m, s.n, s.k, &one, a(i), in, s.lda,
                       s.stride_a(), b(i), in, s.ldb, s.stride_b(), &zero, c(i), out_type, s.ldc,
                       s.stride_c(), s.batch, compute, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmStridedBatchedEx_64");
    };
    if (protocol.rounds > 1) {
      const auto t = library_and_vendors_in_turns(ctx, s, run, policy, protocol.rounds,
                                                  "ktune::gemm_ex", library, cublas, a, b, c, c16);
      deployed = t[0], cublas_outcome = t[1], lt_outcome = t[2];
    } else {
      run.launch = library;
      deployed = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "ktune::gemm_ex");
      cublas(0);  // cuBLAS loads its kernels lazily inside the first call
      check(cudaStreamSynchronize(stream), "cuBLAS warm-up");
      run.launch = cublas;
      cublas_outcome = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "cublas");
      // The sweep's cuBLASLt row: the heuristic's first algorithm.
      lt_outcome = cublaslt_best(ctx, s, run, policy, 1, a, b, c, c16);
    }
    // The fastest of cuBLASLt's first lt_top (the sweep's cublaslt-top8 row when lt_top is 8).
    if (protocol.lt_top > 0)
      lt_top_outcome = cublaslt_best(ctx, s, run, policy, protocol.lt_top, a, b, c, c16);
    if (protocol.lt_ab_rounds > 0)
      print_lt_call_ab(ctx, s, run, policy, protocol.lt_ab_rounds, a, b, c, c16);
    if (protocol.probe_rounds > 0)
      print_turns_probe(ctx, s, run, policy, protocol.probe_rounds, config_name, library, a, b, c,
                        c16);
  } catch (const ktune::Error& e) {  // no device, an allocation or a reference that failed
    deployed.status = ktune::Status::failed;
    deployed.message = e.what();
  }
  std::vector<VendorResult> vendors{vendor_result("cublas", cublas_outcome),
                                    vendor_result("cublaslt", lt_outcome)};
  if (protocol.lt_top > 0) {
    vendors.push_back(
        vendor_result(fmt::format("cublaslt-top{}", protocol.lt_top), lt_top_outcome));
    vendors.back().in_fastest = false;
  }
  return shape_result(config_name, deployed, std::move(vendors));
}

}  // namespace

bool cuda_available() { return ktune::cuda_device_count() > 0; }

void print_first_call_cost() {
  context();  // the CUDA context first: starting it is not the library's cost
  using clock = std::chrono::steady_clock;
  const auto no = ktune::Trans::no;
  const auto t0 = clock::now();
  int picks = ktune::tuned_gemm_choice_cuda(no, no, 64, 64, 64, 1);
  const auto t1 = clock::now();
  constexpr int kCalls = 100000;
  for (int i = 0; i < kCalls; ++i)
    picks += ktune::tuned_gemm_choice_cuda(no, no, 64 + i % 8 * 512, 64, 64, 1);
  const auto t2 = clock::now();
  fmt::print(
      "first call: the selector's first choice took {:.1f} us (a multi-device library "
      "identifies the GPU then), later choices {:.2f} ns each (checksum {})\n",
      std::chrono::duration<double, std::micro>(t1 - t0).count(),
      std::chrono::duration<double, std::nano>(t2 - t1).count() / kCalls, picks);
  for (const auto& c : ktune::tuned_device_choices())
    fmt::print("device choice: {} ({}) on {} serves {}: {}\n", c.library, c.backend, c.detected,
               c.device, c.reason);
}

ShapeResult measure_cuda(const Shape& s, uint64_t seed, const ktune::TimingPolicy& policy,
                         const CudaProtocol& protocol) {
  if (s.precision != ktune::kernels::gemm::Precision::fp32)
    return measure_cuda_tc(s, seed, policy, protocol);
  const int config =
      ktune::tuned_gemm_choice_cuda(trans(s.transa), trans(s.transb), s.m, s.n, s.k, s.batch);
  const std::string config_name = ktune::tuned_gemm_info_cuda().configs[config];
  ktune::Outcome deployed, vendor, lt;
  try {
    Context& ctx = context();
    cudaStream_t stream = ctx.device.stream();
    const size_t size_a = size_t(s.stride_a() * s.batch), size_b = size_t(s.stride_b() * s.batch);
    const size_t size_c = size_t(s.stride_c() * s.batch);
    // One copy: A, B and C, each at a multiple of kCopyAlignment.
    const size_t floats_a = aligned_bytes(size_a * 4) / 4, floats_b = aligned_bytes(size_b * 4) / 4;
    const size_t copy_floats = floats_a + floats_b + aligned_bytes(size_c * 4) / 4;
    // The sweep's rotation rule, so deployed and swept timings see L2 alike.
    const int copies = ktune::cuda::rotation_copies(ctx.device, double(copy_floats * 4));
    DeviceBuffer<float> pool(copy_floats * size_t(copies), "deployed GEMM inputs");
    auto a = [&](int i) { return pool.data() + size_t(i) * copy_floats; };
    auto b = [&](int i) { return a(i) + floats_a; };
    auto c = [&](int i) { return b(i) + floats_b; };
    const auto host_a = ktune::kernels::gemm::random_matrix(size_a, seed);
    const auto host_b = ktune::kernels::gemm::random_matrix(size_b, seed + 1);
    for (int i = 0; i < copies; ++i) {
      check(cudaMemcpy(a(i), host_a.data(), size_a * 4, cudaMemcpyHostToDevice), "upload A");
      check(cudaMemcpy(b(i), host_b.data(), size_b * 4, cudaMemcpyHostToDevice), "upload B");
    }
    // The float64 reference: cuBLAS DGEMM in PEDANTIC math on the same (float-valued) inputs.
    const std::vector<double> ref = float64_reference(ctx, s, host_a, host_b);
    ktune::cuda::DeviceRun run =
        checked_run(stream, c(0), size_c, s, ref, ktune::kernels::gemm::error_bound(s.k), copies);
    auto library = [&](int i) {
      ktune::gemm_strided_batched(trans(s.transa), trans(s.transb), s.m, s.n, s.k, 1.0f, a(i),
                                  s.lda, s.stride_a(), b(i), s.ldb, s.stride_b(), 0.0f, c(i), s.ldc,
                                  s.stride_c(), s.batch, stream);
    };
    auto cublas = [&](int i) {
      const float one = 1.0f, zero = 0.0f;
      check_cublas(cublasSgemmStridedBatched(ctx.cublas, op(s.transa), op(s.transb), int(s.m),
                                             int(s.n), int(s.k), &one, a(i), int(s.lda),
                                             s.stride_a(), b(i), int(s.ldb), s.stride_b(), &zero,
                                             c(i), int(s.ldc), s.stride_c(), int(s.batch)),
                   "cublasSgemmStridedBatched");
    };
    if (protocol.rounds > 1) {
      const auto t = library_and_vendors_in_turns(ctx, s, run, policy, protocol.rounds,
                                                  "ktune::gemm", library, cublas, a, b, c);
      deployed = t[0], vendor = t[1], lt = t[2];
    } else {
      run.launch = library;
      deployed = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "ktune::gemm");
      // cuBLAS loads its kernels lazily inside the first call: keep that out of the timed runs.
      cublas(0);
      check(cudaStreamSynchronize(stream), "cuBLAS warm-up");
      run.launch = cublas;
      vendor = ktune::cuda::verify_then_time_on_device(ctx.device, run, policy, "cublas");
      lt = cublaslt_best(ctx, s, run, policy, 1, a, b, c);  // FP32 in, FP32 compute
    }
    if (protocol.probe_rounds > 0)
      print_turns_probe(ctx, s, run, policy, protocol.probe_rounds, config_name, library, a, b, c);
  } catch (const ktune::Error& e) {  // no device, an allocation or a reference that failed
    deployed.status = ktune::Status::failed;
    deployed.message = e.what();
  }
  return shape_result(config_name, deployed,
                      {vendor_result("cublas", vendor), vendor_result("cublaslt", lt)});
}

}  // namespace tuned_gemm
