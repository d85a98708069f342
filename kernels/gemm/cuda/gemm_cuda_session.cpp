// A GEMM problem opened on a CUDA device: inputs (with rotation copies), the float64 reference,
// and the verify-then-time protocol shared by seed configs and the cuBLAS baseline.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include "kernels/common/cuda/gemm_tiled_launch.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cuda/gemm_cublaslt.hpp"
#include "kernels/gemm/cuda/gemm_cuda_context.hpp"
#include "kernels/gemm/cuda/gemm_mma_launch.hpp"
#include "kernels/gemm/cuda/gemm_wgmma_launch.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/timing.hpp"

namespace ktune::kernels::gemm::cuda {
namespace {

using ktune::cuda::check;
using ktune::cuda::check_cublas;
using ktune::cuda::CudaError;
using ktune::cuda::DeviceBuffer;
using ktune::cuda::RunAbort;

constexpr size_t kAlign = 256;
size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

// A cuBLAS call's status as a launch result: a failure becomes the outcome's message (the text
// check_cublas gives it), not an exception.
LaunchResult cublas_launch(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  try {
    check_cublas(status, call);
  } catch (const CudaError& e) {
    return {Status::failed, e.what()};
  }
  return {};
}

class CudaGemmSession final : public ProblemSession {
 public:
  CudaGemmSession(GemmContext& context, const Problem& problem)
      : context_(context), shape_(shape_of(problem)), key_(problem.key()) {
    if (shape_.m < 1 || shape_.n < 1 || shape_.k < 1 || shape_.batch < 1) {
      throw Error("gemm cuda: problem '" + key_ + "' has an empty dimension");
    }
    allocate_and_fill();
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    context_.device.make_current();
    const GemmConfig g = gemm_config_of(context_.space, config);
    const std::string what = context_.space.to_string(config);
    if (!runs_on_cuda(g.kind)) return failed(what + ": this kind has no CUDA kernel");
    if (!kind_serves(g.kind, shape_.precision))
      return refused_outcome(fmt::format("{}: kind {} does not compute {} problems", what,
                                         kind_name(g.kind), precision_name(shape_.precision)));
    if (shape_.c16 && !kind_serves_c16(g.kind))
      return refused_outcome(fmt::format("{}: kind {} does not store {} C (c16)", what,
                                         kind_name(g.kind), precision_name(shape_.precision)));
    try {
      if (runs_mma_kernel(g.kind)) return run_mma(g.blocked, policy, what);
      if (runs_wgmma_kernel(g.kind)) return run_wgmma(g.blocked, policy, what);
      if (g.kind == Kind::seed) {
        const Tile tile = tile_of(context_.space, config);
        const LoadedKernel& kernel = context_.kernels.get(tile);
        return measure(
            [&](int copy) {
              return launch_seed(kernel, tile, shape_, 1.0f, a(copy), b(copy), 0.0f, c(copy),
                                 context_.device.stream());
            },
            policy, what);
      }
      if (!blocked_prepared_) {  // the round's configs, this problem's transposes
        std::vector<TiledKernels::Instance> round;
        for (const BlockedParams& q : context_.blocked_configs)
          round.push_back({q, shape_.transa, shape_.transb});
        context_.tiled.prepare(round);
        blocked_prepared_ = true;
      }
      // Compile (or fetch) before timing, so a failure is reported as such.
      context_.tiled.get({g.blocked, shape_.transa, shape_.transb});
      if (g.blocked.splits > 1) context_.tiled.reduce();
      float* workspace =
          this->workspace(tiled_workspace_floats(g.blocked, shape_.m, shape_.n, shape_.batch));
      return measure(
          [&](int copy) {
            return launch_blocked(context_.tiled, g.blocked, shape_, 1.0f, a(copy), b(copy), 0.0f,
                                  c(copy), workspace, context_.device.stream());
          },
          policy, what);
    } catch (const CudaError& e) {  // CompileError is not a CudaError; both end up failed
      return failed(e.what());
    } catch (const ktune::cuda::CompileError& e) {
      return failed(e.what());
    }
  }

  // cuBLAS, and cuBLASLt in the problem's compute type (FP32: CUBLAS_COMPUTE_32F, no TF32; C as
  // the own kernels store it: FP32, or 16-bit with c16): each of its heuristic's first
  // kLtHeuristicLimit answers as its own row ("cublaslt" is #0, "cublaslt;heuristic=<i>" #i: each
  // a call a library can ship, gemm_vendor_config.hpp), and the fastest of them ("cublaslt-top8",
  // the answer named in the row's message). FP32 datasets swept before session 29 have the
  // "cublas" row only.
  std::vector<std::string> vendors() const override {
    std::vector<std::string> names{"cublas", "cublaslt"};
    for (int i = 1; i < kLtHeuristicLimit; ++i)
      names.push_back(fmt::format("cublaslt;heuristic={}", i));
    names.push_back("cublaslt-top8");
    return names;
  }

  Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) override {
    const auto known = vendors();
    if (std::find(known.begin(), known.end(), vendor) == known.end()) {
      throw Error("gemm cuda: unknown vendor '" + vendor + "' for " +
                  precision_name(shape_.precision) + " problems");
    }
    context_.device.make_current();
    if (vendor == "cublaslt-top8") return lt_answers(vendor, policy).fastest;
    if (vendor != "cublas") {
      const int i = lt_heuristic_of("vendor=" + vendor);
      const LtAnswers& lt = lt_answers(vendor, policy);
      if (i < int(lt.each.size())) return lt.each[size_t(i)];
      return refused_outcome(
          fmt::format("cublaslt: the heuristic offers {} algorithms, not #{}", lt.each.size(), i));
    }
    // cuBLAS loads its kernels lazily on the host inside the first call, which would land in
    // the timed interval of the verification run: do one untimed call first.
    const LaunchResult warm = launch_cublas(0);
    if (warm.status != Status::ok) return failed(warm.message);
    try {
      check(cudaStreamSynchronize(context_.device.stream()),
            "cudaStreamSynchronize(cublas warm-up)");
    } catch (const CudaError& e) {
      return failed(std::string("cublas: ") + e.what());
    }
    return measure([&](int copy) { return launch_cublas(copy); }, policy, "cublas");
  }

 private:
  // Split-K partial sums or tf32 wgmma's K-major operand copies: one buffer per session, grown
  // to the largest need.
  float* workspace(size_t floats) {
    if (floats == 0) return nullptr;
    if (workspace_.size() < floats) {
      workspace_ = DeviceBuffer<float>();
      workspace_ = DeviceBuffer<float>(floats, "split-K workspace for " + key_);
    }
    return workspace_.data();
  }

  float* a(int copy) const { return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_); }
  float* b(int copy) const {
    return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_ + offset_b_);
  }
  // C: floats, or with c16 the input's 16-bit type (the launches take it as void*).
  float* c(int copy) const {
    return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_ + offset_c_);
  }

  static Outcome failed(std::string message) {
    Outcome outcome;
    outcome.status = Status::failed;
    outcome.message = std::move(message);
    return outcome;
  }

  void allocate_and_fill() {
    const size_t elems_a = size_t(shape_.stride_a() * shape_.batch);
    const size_t elems_b = size_t(shape_.stride_b() * shape_.batch);
    elems_c_ = size_t(shape_.stride_c() * shape_.batch);
    const size_t in_bytes = size_t(input_bytes(shape_.precision));
    offset_b_ = align_up(elems_a * in_bytes);
    offset_c_ = offset_b_ + align_up(elems_b * in_bytes);
    copy_bytes_ = align_up(offset_c_ + c_bytes());
    // Inputs that fit twice in L2 would be timed hot: rotate among copies (the host's rule).
    copies_ = ktune::cuda::rotation_copies(context_.device, double(copy_bytes_));
    pool_ = DeviceBuffer<char>(size_t(copies_) * copy_bytes_, "gemm inputs for " + key_);

    // Same seeded generator as the host reference helpers; never zeros.
    const uint64_t seed = seed_of(key_) ^ context_.data_seed;
    const std::vector<float> host_a = random_matrix(elems_a, seed);
    const std::vector<float> host_b = random_matrix(elems_b, seed ^ 0x9e3779b97f4a7c15ull);
    cudaStream_t stream = context_.device.stream();
    // 16-bit precisions: the device holds A and B rounded to nearest; the reference stays the
    // product of the FP32 values (error_bound counts the rounding).
    const std::vector<uint16_t> half_a = to_input_bits(host_a, shape_.precision);
    const std::vector<uint16_t> half_b = to_input_bits(host_b, shape_.precision);
    const bool half = in_bytes == 2;
    check(cudaMemcpyAsync(a(0), half ? (const void*)half_a.data() : host_a.data(),
                          elems_a * in_bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(A of " + key_ + ")");
    check(cudaMemcpyAsync(b(0), half ? (const void*)half_b.data() : host_b.data(),
                          elems_b * in_bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(B of " + key_ + ")");
    // The 16-bit copies are freed on return: wait until they are consumed.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(inputs of " + key_ + ")");
    check(cudaMemsetAsync(c(0), 0, c_bytes(), stream), "cudaMemsetAsync(C)");
    // Replicate copy 0 by doubling: log2(copies) device-to-device copies.
    for (size_t have = 1; have < size_t(copies_); have *= 2) {
      const size_t count = std::min(have, size_t(copies_) - have);
      check(cudaMemcpyAsync(pool_.data() + have * copy_bytes_, pool_.data(), count * copy_bytes_,
                            cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync(input copies)");
    }
    compute_reference(host_a, host_b);
  }

  // Float64 reference from the same (float) inputs, by cuBLAS DGEMM in PEDANTIC math mode (no
  // emulation or reduced precision): independent of the kernels under test.
  void compute_reference(const std::vector<float>& host_a, const std::vector<float>& host_b) {
    cudaStream_t stream = context_.device.stream();
    const std::vector<double> a64(host_a.begin(), host_a.end());
    const std::vector<double> b64(host_b.begin(), host_b.end());
    DeviceBuffer<double> dev_a(a64.size(), "float64 A"), dev_b(b64.size(), "float64 B");
    reference_ = DeviceBuffer<double>(elems_c_, "float64 reference C");
    check(cudaMemcpyAsync(dev_a.data(), a64.data(), dev_a.bytes(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(float64 A)");
    check(cudaMemcpyAsync(dev_b.data(), b64.data(), dev_b.bytes(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(float64 B)");
    // Elements between matrices of C (ldc > m) are never written: zero them on both sides.
    check(cudaMemsetAsync(reference_.data(), 0, reference_.bytes(), stream),
          "cudaMemsetAsync(reference)");
    cublasHandle_t handle = context_.cublas.get();
    check_cublas(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(PEDANTIC)");
    const double one = 1.0, zero = 0.0;
    const cublasStatus_t status = cublasDgemmStridedBatched_64(
        handle, op(shape_.transa), op(shape_.transb), shape_.m, shape_.n, shape_.k, &one,
        dev_a.data(), shape_.lda, shape_.stride_a(), dev_b.data(), shape_.ldb, shape_.stride_b(),
        &zero, reference_.data(), shape_.ldc, shape_.stride_c(), shape_.batch);
    check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(DEFAULT)");
    check_cublas(status, "cublasDgemmStridedBatched_64(reference of " + key_ + ")");
    // The host vectors and float64 inputs are freed on return: wait until they are consumed.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(reference of " + key_ + ")");
  }

  // cuBLAS in the problem's precision: FP32 SGEMM, or GemmEx with TF32 tensor-core math
  // (CUBLAS_COMPUTE_32F_FAST_TF32) on FP32 inputs, or BF16 / FP16 inputs with FP32 compute and
  // FP32 C, or with c16 C in the inputs' type (CUBLAS_COMPUTE_32F: cublas_output_type).
  LaunchResult launch_cublas(int copy) {
    if (shape_.precision != Precision::fp32) return launch_cublas_ex(copy);
    const float one = 1.0f, zero = 0.0f;
    return cublas_launch(
        cublasSgemmStridedBatched_64(context_.cublas.get(), op(shape_.transa), op(shape_.transb),
                                     shape_.m, shape_.n, shape_.k, &one, a(copy), shape_.lda,
                                     shape_.stride_a(), b(copy), shape_.ldb, shape_.stride_b(),
                                     &zero, c(copy), shape_.ldc, shape_.stride_c(), shape_.batch),
        "cublasSgemmStridedBatched_64");
  }

  LaunchResult launch_cublas_ex(int copy) {
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType_t in = cublas_input_type(shape_.precision);
    const cublasComputeType_t compute = cublas_compute_type(shape_.precision);
    return cublas_launch(
        cublasGemmStridedBatchedEx_64(
            context_.cublas.get(), op(shape_.transa), op(shape_.transb), shape_.m, shape_.n,
            shape_.k, &one, a(copy), in, shape_.lda, shape_.stride_a(), b(copy), in, shape_.ldb,
            shape_.stride_b(), &zero, c(copy), shape_.c16 ? in : CUDA_R_32F, shape_.ldc,
            shape_.stride_c(), shape_.batch, compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx_64");
  }

  static constexpr size_t kLtWorkspaceBytes = size_t(32) << 20;

  // cuBLASLt's heuristic answers for this problem, each verified and timed (after an untimed
  // warm-up call) on the first cuBLASLt row asked for: every answer's row and the fastest's come
  // from these same measurements, each row once. A row asked again (ktune retime's next turn)
  // gets all of them timed again, so that a re-timed turn measures cuBLASLt at that moment
  // instead of repeating the first turn's samples (which it did until session 20).
  struct LtAnswers {
    std::vector<Outcome> each;  // answer #i's outcome, message = its descriptor
    Outcome fastest;            // the fastest ok one (or why none ran)
  };

  const LtAnswers& lt_answers(const std::string& row, const TimingPolicy& policy) {
    if (!lt_answers_ || lt_rows_served_.count(row) != 0) {
      lt_answers_ = time_lt_answers(policy);
      lt_rows_served_.clear();
    }
    lt_rows_served_.insert(row);
    return *lt_answers_;
  }

  LtAnswers time_lt_answers(const TimingPolicy& policy) {
    LtAnswers answers;
    try {
      if (!lt_workspace_.data())
        lt_workspace_ = DeviceBuffer<char>(kLtWorkspaceBytes, "cuBLASLt workspace");
      const CublasLtGemm lt(context_.cublaslt.get(), shape_, kLtWorkspaceBytes, kLtHeuristicLimit,
                            shape_.c16);
      if (lt.algos() == 0) {
        answers.fastest = refused_outcome("cublaslt: the heuristic offers no algorithm");
        return answers;
      }
      for (int i = 0; i < lt.algos(); ++i) {
        auto launch = [&](int copy) -> LaunchResult {
          const cublasStatus_t status =
              lt.run(i, a(copy), b(copy), c(copy), lt_workspace_.data(), context_.device.stream());
          if (status == CUBLAS_STATUS_SUCCESS) return {};
          return {Status::failed,
                  "cublasLtMatmul(" + lt.describe(i) + "): status " + std::to_string(int(status))};
        };
        const LaunchResult warm = launch(0);  // untimed
        if (warm.status != Status::ok) {
          answers.each.push_back(failed(warm.message));
          continue;
        }
        check(cudaStreamSynchronize(context_.device.stream()),
              "cudaStreamSynchronize(cublaslt warm-up)");
        Outcome o = measure(launch, policy, "cublaslt " + lt.describe(i));
        if (o.status == Status::ok) o.message = lt.describe(i);
        answers.each.push_back(o);
        if (o.status != Status::ok) continue;
        if (answers.fastest.status != Status::ok ||
            o.timing.median_ms < answers.fastest.timing.median_ms) {
          answers.fastest = std::move(o);
          answers.fastest.message =
              lt.describe(i) + fmt::format(" (fastest of {} tried)", lt.algos());
        }
      }
      if (answers.fastest.status != Status::ok)
        answers.fastest = failed("cublaslt: no algorithm ran and verified");
    } catch (const CudaError& e) {
      // The answers timed before the error keep their rows; the others (and top-8) say why.
      answers.fastest = failed(std::string("cublaslt: ") + e.what());
      answers.each.resize(kLtHeuristicLimit, answers.fastest);
    }
    return answers;
  }

  // A split-K config's (mmasplit, wgmmasplit) reduction into C's type: the tiled module's, or
  // with c16 gemm_out16.cuh's 16-bit one, compiled in `kernels` with the kind's kernels; and its
  // workspace, none over the launcher's limit (the launch then says why it refuses). Unsplit
  // configs: neither.
  WgmmaSplitK split_k(const BlockedParams& p, KernelCache& kernels) {
    if (p.splits <= 1) return {};
    WgmmaSplitK split;
    split.reduce = shape_.c16
                       ? kernels.get(splitk_reduce16_name_expression(shape_.precision)).function()
                       : context_.tiled.reduce().function();
    const size_t floats = tiled_workspace_floats(p, shape_.m, shape_.n, shape_.batch);
    if (floats <= size_t(kMmaMaxWorkspaceFloats)) split.workspace = this->workspace(floats);
    return split;
  }

  // The mma and mmasplit kinds: compiled for this problem's precision and transposes (all the
  // sweep's mma configs at once, in parallel, when the first one runs), then verified and timed;
  // split-K adds the workspace and the tiled module's reduction kernel (with c16 gemm_out16.cuh's
  // 16-bit one, compiled with the mma kernels).
  Outcome run_mma(const BlockedParams& p, const TimingPolicy& policy, const std::string& what) {
    if (!mma_prepared_) {
      std::vector<std::string> names;
      for (const BlockedParams& q : context_.mma_configs)
        names.push_back(
            mma_name_expression(q, shape_.precision, shape_.transa, shape_.transb, shape_.c16));
      if (shape_.c16) names.push_back(splitk_reduce16_name_expression(shape_.precision));
      context_.mma.prepare(names);
      mma_prepared_ = true;
    }
    const LoadedKernel& kernel = context_.mma.get(
        mma_name_expression(p, shape_.precision, shape_.transa, shape_.transb, shape_.c16));
    const WgmmaSplitK split = split_k(p, context_.mma);
    return measure(
        [&](int copy) -> LaunchResult {
          const TiledLaunch launch = launch_mma(
              kernel.function(), kernel.attributes().maxThreadsPerBlock,
              context_.tiled.max_shared_bytes(), split.reduce, p, shape_.precision, shape_.transa,
              shape_.transb, shape_.m, shape_.n, shape_.k, shape_.batch, 1.0f, a(copy), shape_.lda,
              shape_.stride_a(), b(copy), shape_.ldb, shape_.stride_b(), 0.0f, c(copy), shape_.ldc,
              shape_.stride_c(), split.workspace, context_.device.stream(), shape_.c16);
          if (launch.refused) return {Status::refused, launch.message};
          if (launch.error == cudaSuccess) return {};
          return {Status::failed, ktune::cuda::describe_failure(launch.error, launch.message)};
        },
        policy, what);
  }

  // The wgmma kinds: like mma, compiled per precision, transposes and C type when the first one
  // runs; devices other than sm_90 refuse them without compiling (wgmma is sm_90a only). tf32
  // adds the K-major copies of its operands (their kernels and workspace), inside the timed call;
  // split-K (wgmmasplit) the workspace and the reduction as mmasplit (16-bit C: the one compiled
  // with the wgmma kernels).
  Outcome run_wgmma(const BlockedParams& p, const TimingPolicy& policy, const std::string& what) {
    if (context_.device.arch() != "sm_90")
      return refused_outcome(what + ": wgmma needs an sm_90 device, this one is " +
                             context_.device.arch());
    auto name = [&](const BlockedParams& q) {
      return wgmma_name_expression(q, shape_.precision, shape_.transa, shape_.transb, shape_.c16);
    };
    if (!wgmma_prepared_) {
      std::vector<std::string> names;
      // 16-bit C: not the staged kinds (wgmmats / wgmmacs), which run() refuses (kind_serves_c16).
      bool split = false;
      for (const BlockedParams& q : context_.wgmma_configs) {
        if (!shape_.c16 || q.ts == 0) names.push_back(name(q));
        split = split || q.splits > 1;
      }
      if (split && shape_.c16) names.push_back(splitk_reduce16_name_expression(shape_.precision));
      if (shape_.precision == Precision::tf32)
        for (bool k_contiguous : {false, true})
          names.push_back(wgmma_pack_name_expression(k_contiguous));
      context_.wgmma.prepare(names);
      wgmma_prepared_ = true;
    }
    const LoadedKernel& kernel = context_.wgmma.get(name(p));
    WgmmaTf32Pack pack;
    if (shape_.precision == Precision::tf32) {
      pack.transpose = context_.wgmma.get(wgmma_pack_name_expression(false)).function();
      pack.copy = context_.wgmma.get(wgmma_pack_name_expression(true)).function();
      // Every rotation copy has the same alignment (copy_bytes_ is a multiple of 256).
      const long long floats = wgmma_tf32_workspace_floats(
          shape_.transa, shape_.transb, shape_.m, shape_.n, shape_.k, shape_.batch, a(0),
          shape_.lda, shape_.stride_a(), b(0), shape_.ldb, shape_.stride_b());
      // Over the mma kinds' limit: no workspace, and the launch says why it refuses.
      if (floats > 0 && floats <= kMmaMaxWorkspaceFloats) {
        pack.workspace = this->workspace(size_t(floats));
        pack.workspace_floats = floats;
      }
    }
    const WgmmaSplitK split = split_k(p, context_.wgmma);
    return measure(
        [&](int copy) -> LaunchResult {
          const TiledLaunch launch =
              launch_wgmma(kernel.function(), context_.tiled.max_shared_bytes(), p,
                           shape_.precision, shape_.transa, shape_.transb, shape_.m, shape_.n,
                           shape_.k, shape_.batch, 1.0f, a(copy), shape_.lda, shape_.stride_a(),
                           b(copy), shape_.ldb, shape_.stride_b(), 0.0f, c(copy), shape_.ldc,
                           shape_.stride_c(), context_.device.stream(), pack, shape_.c16, split);
          if (launch.refused) return {Status::refused, launch.message};
          if (launch.error == cudaSuccess) return {};
          return {Status::failed, ktune::cuda::describe_failure(launch.error, launch.message)};
        },
        policy, what);
  }

  Outcome measure(const std::function<LaunchResult(int)>& launch, const TimingPolicy& policy,
                  const std::string& what) {
    ktune::cuda::DeviceRun run;
    // Verify on NaN-poisoned output (beta = 0, so C must not be read).
    run.poison = [&] {
      check(cudaMemsetAsync(c(0), 0xFF, c_bytes(), context_.device.stream()),
            "cudaMemsetAsync(poison C)");  // all ones: NaN in FP32, bf16 and fp16 alike
    };
    run.launch = [&](int copy) {
      const LaunchResult result = launch(copy);
      if (result.status != Status::ok) throw RunAbort{result.status, result.message};
    };
    run.verify = [&] {
      // 16-bit C: widened exactly, against the bound with its one rounding at the store.
      const int c_type = shape_.c16 ? int(shape_.precision) : 0;
      const double error =
          context_.rel_error(c(0), c_type, reference_.data(), shape_, context_.device.stream());
      const double bound = shape_.c16 ? error_bound_16bit_output(shape_.k, shape_.precision)
                                      : error_bound(shape_.k, shape_.precision);
      RunVerdict verdict = judge_error(error, bound);
      if (!verdict.ok && std::isfinite(error)) verdict.message += fmt::format(" (k={})", shape_.k);
      return verdict;
    };
    run.copies = copies_;
    return ktune::cuda::verify_then_time_on_device(context_.device, run, policy, what);
  }

  size_t c_bytes() const { return elems_c_ * (shape_.c16 ? 2 : sizeof(float)); }

  GemmContext& context_;
  Shape shape_;
  std::string key_;
  size_t elems_c_ = 0, offset_b_ = 0, offset_c_ = 0, copy_bytes_ = 0;
  int copies_ = 1;
  DeviceBuffer<char> pool_;
  DeviceBuffer<double> reference_;
  DeviceBuffer<float> workspace_;
  bool blocked_prepared_ = false;
  bool mma_prepared_ = false;
  bool wgmma_prepared_ = false;
  DeviceBuffer<char> lt_workspace_;
  std::optional<LtAnswers> lt_answers_;   // timed on the first cuBLASLt row asked for
  std::set<std::string> lt_rows_served_;  // the rows lt_answers_ has served
};

}  // namespace

std::unique_ptr<ProblemSession> open_session(GemmContext& context, const Problem& problem) {
  return std::make_unique<CudaGemmSession>(context, problem);
}

}  // namespace ktune::kernels::gemm::cuda
