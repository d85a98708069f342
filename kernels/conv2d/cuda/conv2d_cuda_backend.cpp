#include "kernels/conv2d/cuda/conv2d_cuda_backend.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_kernels.hpp"
#include "kernels/conv2d/cuda/conv2d_wgmma_launch.hpp"
#if KTUNE_HAVE_CUDNN
#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#endif
#include "kernels/common/gemm_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"

namespace ktune::kernels::conv2d::cuda {
namespace {

using ktune::cuda::check;
using ktune::cuda::CudaError;
using ktune::cuda::DeviceBuffer;

constexpr size_t kAlign = 256;
size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

CudaConvConfig decode(const Space& space, const Config& config) {
  const std::string text = space.to_string(config);
  return parse_cuda_conv_config(text);
}

ConvDims dims_of(const Shape& s) {
  return {s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, s.precision};
}

// Per-device resources shared by the backend and its sessions.
struct Context {
  Context(const Space& space_, int device_index)
      : space(space_),
        device(device_index),
        kernels(device.arch()),
        rel_error(device.arch())
#if KTUNE_HAVE_CUDNN
        ,
        cudnn(device.stream())
#endif
  {
  }
  const Space& space;
  ktune::cuda::DeviceContext device;  // stream, events, arch, L2
  ConvKernelSet kernels;
  gemm::cuda::RelErrorKernel rel_error;
#if KTUNE_HAVE_CUDNN
  CudnnHandle cudnn;
#endif
};

Outcome failed(std::string message, Status status = Status::failed) {
  Outcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

class Session final : public ProblemSession {
 public:
  Session(Context& context, const Problem& problem)
      : context_(context), shape_(shape_of(problem)), key_(problem.key()) {
    allocate_and_fill();
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    context_.device.make_current();
    const CudaConvConfig g = decode(context_.space, config);
    const std::string what = context_.space.to_string(config);
    if (!g.valid) return failed(what + ": not a CUDA conv2d config");
    const ConvDims d = dims_of(shape_);
    const std::string why = refusal(g, d);
    if (!why.empty()) return failed(what + ": " + why, Status::refused);
    try {
      if (g.kind == CudaKind::igemm_mma) return run_igemm_mma(g, d, what, policy);
      if (g.kind == CudaKind::igemm_wgmma) return run_igemm_wgmma(g, d, what, policy);
      const ConvKernels kernels = context_.kernels.kernels(g, shape_.c % 4 == 0);
      float* ws = workspace(workspace_floats(g, d));
      bool filter_ready = false;
      if (g.kind == CudaKind::winograd && !g.filter_each_run) {
        // Inference precomputes the filter transform once per layer: outside the timed runs.
        // Every input copy holds the same filter, so one transform serves all of them.
        const ConvLaunch f = launch_wino_filter(g, kernels, d, w(0), ws, context_.device.stream());
        if (f.refused) return failed(what + ": " + f.message, Status::refused);
        if (f.error != cudaSuccess)
          return failed(ktune::cuda::describe_failure(f.error, what + ": " + f.message));
        filter_ready = true;
      }
      const double bound = error_bound(shape_, g.kind == CudaKind::winograd ? g.m : 0);
      return measure(
          [&](int copy) -> std::optional<Outcome> {
            const ConvLaunch l = launch_conv(g, kernels, d, x(copy), w(copy), y(copy), ws,
                                             filter_ready, context_.device.stream());
            if (l.refused) return failed(what + ": " + l.message, Status::refused);
            if (l.error != cudaSuccess)
              return failed(ktune::cuda::describe_failure(l.error, what + ": " + l.message));
            return std::nullopt;
          },
          policy, what, bound);
    } catch (const CudaError& e) {
      return failed(what + ": " + e.what());
    } catch (const ktune::cuda::CompileError& e) {
      return failed(what + ": " + e.what());
    }
  }

#if KTUNE_HAVE_CUDNN
  std::vector<std::string> vendors() const override { return {"cudnn"}; }
#else
  std::vector<std::string> vendors() const override { return {}; }  // built without cuDNN
#endif

  Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) override {
    if (vendors() != std::vector<std::string>{vendor}) {
      throw Error("conv2d cuda: unknown vendor '" + vendor + "' (this build has: " +
                  (vendors().empty() ? std::string("none") : vendors().front()) + ")");
    }
#if KTUNE_HAVE_CUDNN
    // The problem's own precision: a bf16 / fp16 problem runs cuDNN on the same 16-bit data with
    // tensor-core math; its 16-bit output is widened to FP32 (exactly) before it is judged. A
    // tf32 problem runs it on the FP32 data with TF32 tensor-core math permitted.
    const bool narrow = gemm::input_bytes(shape_.precision) == 2;
    context_.device.make_current();
    try {
      if (!cudnn_) {
        cudnn_ =
            std::make_unique<CudnnConv>(context_.cudnn.get(), shape_, CudnnLayouts::nhwc_or_nchw,
                                        CudnnApis::legacy_and_engines, cudnn_precision());
        cudnn_->find(x(0), w(0), y(0));  // also loads cuDNN's kernels before any timing
        for (int copy = 1; copy < copies_; ++copy) cudnn_->stage(copy, x(copy), w(copy), y(copy));
        check(cudaStreamSynchronize(context_.device.stream()), "cudaStreamSynchronize(cudnn find)");
      }
      if (narrow && !widened_.data())
        widened_ = DeviceBuffer<float>(elems_y_, "widened cudnn output of " + key_);
      const std::string what = cudnn_->description();
      Outcome outcome = measure(
          [&](int copy) -> std::optional<Outcome> {
            const cudnnStatus_t status = cudnn_->run(x(copy), w(copy), y(copy), copy);
            if (status == CUDNN_STATUS_SUCCESS) return std::nullopt;
            return failed(what + ": cudnnConvolutionForward: " + cudnnGetErrorString(status));
          },
          policy, what, vendor_bound(), [&] { cudnn_->poison(); },
          [&] {
            cudnn_->deliver(y(0));
            if (narrow) widen16(y(0), widened_.data());
          },
          narrow ? widened_.data() : nullptr);
      if (outcome.message.empty()) outcome.message = what;  // which algorithm was timed
      return outcome;
    } catch (const std::exception& e) {
      return failed(std::string("cudnn: ") + e.what());
    }
#else
    (void)policy;
    return failed("conv2d cuda: built without cuDNN");
#endif
  }

 private:
  // The tensor-core kind: 16-bit x and w (FP32 for tf32), its own kernel per precision and loader.
  Outcome run_igemm_mma(const CudaConvConfig& g, const ConvDims& d, const std::string& what,
                        const TimingPolicy& policy) {
    const bool vec8 = igemm_mma_vectorized(d, x(0), w(0));  // every copy has the same alignment
    const ktune::cuda::LoadedKernel& kernel = context_.kernels.igemm_mma(g, d.precision, vec8);
    const int max_threads = kernel.attributes().maxThreadsPerBlock;
    return measure(
        [&](int copy) -> std::optional<Outcome> {
          const ConvLaunch l = launch_igemm_mma(g, kernel.function(), max_threads, d, x(copy),
                                                w(copy), y(copy), context_.device.stream());
          if (l.refused) return failed(what + ": " + l.message, Status::refused);
          if (l.error != cudaSuccess)
            return failed(ktune::cuda::describe_failure(l.error, what + ": " + l.message));
          return std::nullopt;
        },
        policy, what, error_bound(shape_));
  }

  // The Hopper kind: sm_90 devices only (the kernel is sm_90a code), its refusals checked on copy
  // 0 (every copy has the same alignment), one pair of TMA maps per input copy encoded before the
  // verified and timed runs.
  Outcome run_igemm_wgmma(const CudaConvConfig& g, const ConvDims& d, const std::string& what,
                          const TimingPolicy& policy) {
    if (!context_.kernels.hopper())
      return failed(what + ": cuda_igemm_wgmma needs an sm_90 device (wgmma), this one is " +
                        context_.device.arch(),
                    Status::refused);
    const std::string why = igemm_wgmma_refusal(g, d, x(0), w(0));
    if (!why.empty()) return failed(what + ": " + why, Status::refused);
    std::vector<WgmmaConvMaps> maps(static_cast<size_t>(copies_));
    for (int copy = 0; copy < copies_; ++copy)
      if (!encode_igemm_wgmma_maps(g, d, x(copy), w(copy), maps[size_t(copy)]))
        return failed(what + ": the driver refused the TMA tensor maps", Status::refused);
    const void* kernel = context_.kernels.igemm_wgmma(g, d.precision).function();
    const ConvLaunch opt_in = igemm_wgmma_opt_in(g, kernel);
    if (opt_in.refused) return failed(what + ": " + opt_in.message, Status::refused);
    if (opt_in.error != cudaSuccess)
      return failed(ktune::cuda::describe_failure(opt_in.error, what + ": " + opt_in.message));
    return measure(
        [&](int copy) -> std::optional<Outcome> {
          const ConvLaunch l = launch_igemm_wgmma(g, kernel, d, maps[size_t(copy)], y(copy),
                                                  context_.device.stream());
          if (l.refused) return failed(what + ": " + l.message, Status::refused);
          if (l.error != cudaSuccess)
            return failed(ktune::cuda::describe_failure(l.error, what + ": " + l.message));
          return std::nullopt;
        },
        policy, what, error_bound(shape_));
  }

#if KTUNE_HAVE_CUDNN
  CudnnPrecision cudnn_precision() const {
    switch (shape_.precision) {
      case gemm::Precision::bf16:
        return CudnnPrecision::bf16;
      case gemm::Precision::fp16:
        return CudnnPrecision::fp16;
      case gemm::Precision::tf32:
        return CudnnPrecision::tf32;
      default:
        return CudnnPrecision::fp32;
    }
  }
  // The family's bound of the problem's precision. A 16-bit output is rounded once more (to
  // nearest: relative error <= u per element, so <= u in the Frobenius norm) on top of the
  // input rounding's ~0.8u: within the bound's 4u. Winograd / FFT algorithms: F(4×4)'s factor
  // 64 in FP32, F(2×2)'s 8 in 16 bits (64 × 4u would pass O(1) errors in bf16).
  double vendor_bound() const {
    if (!cudnn_->transform_algorithm()) return error_bound(shape_);
    return error_bound(shape_, shape_.precision == gemm::Precision::fp32 ? 4 : 2);
  }
  // out (FP32) = the 16-bit values of in, elems_y_ of them, on the session's stream.
  void widen16(const void* in, float* out) {
    const unsigned short* src = static_cast<const unsigned short*>(in);
    long long count = (long long)elems_y_;
    int fp16 = shape_.precision == gemm::Precision::fp16 ? 1 : 0;
    void* args[] = {&src, &out, &count, &fp16};
    const long long blocks = std::min<long long>((count + 255) / 256, 65535LL * 8);
    check(cudaLaunchKernel(context_.kernels.widen16().function(), dim3(unsigned(blocks)), dim3(256),
                           args, 0, context_.device.stream()),
          "cudaLaunchKernel(ktune_conv2d_widen16)");
  }
#endif

  // x and w: FP32 for fp32 / tf32 problems, 16-bit bits for bf16 / fp16 ones (element_bytes_ each).
  float* x(int copy) const { return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_); }
  float* w(int copy) const {
    return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_ + offset_w_);
  }
  float* y(int copy) const {
    return reinterpret_cast<float*>(pool_.data() + copy * copy_bytes_ + offset_y_);
  }

  float* workspace(size_t floats) {
    if (floats == 0) return nullptr;
    if (workspace_.size() < floats) {
      workspace_ = DeviceBuffer<float>();
      workspace_ = DeviceBuffer<float>(floats, "conv2d workspace for " + key_);
    }
    return workspace_.data();
  }

  void allocate_and_fill() {
    const size_t elems_x = size_t(shape_.input_elements());
    const size_t elems_w = size_t(shape_.filter_elements());
    const size_t element_bytes = size_t(gemm::input_bytes(shape_.precision));
    elems_y_ = size_t(shape_.output_elements());
    offset_w_ = align_up(elems_x * element_bytes);
    offset_y_ = offset_w_ + align_up(elems_w * element_bytes);
    copy_bytes_ = align_up(offset_y_ + elems_y_ * sizeof(float));
    // Inputs that fit twice in L2 would be timed hot: rotate among copies so that at least
    // 2 x L2 of other data is touched between two uses of the same copy.
    copies_ = ktune::cuda::rotation_copies(context_.device, double(copy_bytes_));
    pool_ = DeviceBuffer<char>(size_t(copies_) * copy_bytes_, "conv2d inputs for " + key_);

    // The seeded generator of the host reference helpers: never zeros.
    const uint64_t seed = gemm::seed_of(key_);
    const std::vector<float> host_x = gemm::random_matrix(elems_x, seed);
    const std::vector<float> host_w = gemm::random_matrix(elems_w, seed ^ 0x9e3779b97f4a7c15ull);
    cudaStream_t stream = context_.device.stream();
    // 16-bit problems: the kernels get the data rounded to nearest even; the reference keeps
    // the FP32 values (error_bound counts the rounding), read from buffers freed after it ran.
    // fp32 and tf32 problems: FP32 data (a tf32 kernel rounds it itself).
    const bool narrow = gemm::input_bytes(shape_.precision) == 2;
    const std::vector<uint16_t> bits_x = gemm::to_input_bits(host_x, shape_.precision);
    const std::vector<uint16_t> bits_w = gemm::to_input_bits(host_w, shape_.precision);
    const void* src_x = narrow ? static_cast<const void*>(bits_x.data()) : host_x.data();
    const void* src_w = narrow ? static_cast<const void*>(bits_w.data()) : host_w.data();
    check(cudaMemcpyAsync(x(0), src_x, elems_x * element_bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(input of " + key_ + ")");
    check(cudaMemcpyAsync(w(0), src_w, elems_w * element_bytes, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync(filter of " + key_ + ")");
    check(cudaMemsetAsync(y(0), 0, elems_y_ * sizeof(float), stream), "cudaMemsetAsync(output)");
    for (size_t have = 1; have < size_t(copies_); have *= 2) {
      const size_t count = std::min(have, size_t(copies_) - have);
      check(cudaMemcpyAsync(pool_.data() + have * copy_bytes_, pool_.data(), count * copy_bytes_,
                            cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync(input copies)");
    }
    // Float64 reference on the device (ktune_conv2d_reference; checked against the host
    // reference in tests/gpu): independent of the kernels under test.
    reference_ = DeviceBuffer<double>(elems_y_, "float64 reference of " + key_);
    const ktune::cuda::LoadedKernel& ref = context_.kernels.reference();
    DeviceBuffer<float> fp32_x, fp32_w;
    if (narrow) {
      fp32_x = DeviceBuffer<float>(elems_x, "FP32 input of " + key_);
      fp32_w = DeviceBuffer<float>(elems_w, "FP32 filter of " + key_);
      check(cudaMemcpyAsync(fp32_x.data(), host_x.data(), elems_x * sizeof(float),
                            cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync(FP32 input of " + key_ + ")");
      check(cudaMemcpyAsync(fp32_w.data(), host_w.data(), elems_w * sizeof(float),
                            cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync(FP32 filter of " + key_ + ")");
    }
    const float* xp = narrow ? fp32_x.data() : x(0);
    const float* wp = narrow ? fp32_w.data() : w(0);
    double* out = reference_.data();
    int n = int(shape_.n), h = int(shape_.h), wd = int(shape_.w), c = int(shape_.c),
        k = int(shape_.k), r = int(shape_.r), s = int(shape_.s), stride = int(shape_.stride),
        pad = int(shape_.pad), p = int(shape_.p()), q = int(shape_.q());
    void* args[] = {&xp, &wp, &out, &n, &h, &wd, &c, &k, &r, &s, &stride, &pad, &p, &q};
    const long long blocks = std::min<long long>((long long)(elems_y_ + 255) / 256, 65535LL * 8);
    check(cudaLaunchKernel(ref.function(), dim3(unsigned(blocks)), dim3(256), args, 0, stream),
          "cudaLaunchKernel(ktune_conv2d_reference)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(reference of " + key_ + ")");
  }

  // Waits for the stop event; kernel faults surface here.
  using Launch = std::function<std::optional<Outcome>(int)>;

  // Verify on NaN-poisoned output, then time with rotation (the shared device protocol).
  // A run that writes its own buffers poisons them too (poison_own) and brings copy 0's output
  // into y(0) before it is judged (deliver); `judged`: the FP32 buffer deliver fills, else y(0).
  Outcome measure(const Launch& launch, const TimingPolicy& policy, const std::string& what,
                  double bound, const std::function<void()>& poison_own = {},
                  const std::function<void()>& deliver = {}, const float* judged = nullptr) {
    ktune::cuda::DeviceRun run;
    run.poison = [&] {
      check(cudaMemsetAsync(y(0), 0xFF, elems_y_ * sizeof(float), context_.device.stream()),
            "cudaMemsetAsync(poison output)");
      if (poison_own) poison_own();
    };
    run.launch = [&](int copy) {
      if (std::optional<Outcome> bad = launch(copy))
        throw ktune::cuda::RunAbort{bad->status, bad->message};
    };
    run.verify = [&] {
      if (deliver) deliver();
      gemm::Shape as_matrix;  // y as a k x (n*p*q) column-major matrix
      as_matrix.m = shape_.k;
      as_matrix.n = int64_t(elems_y_) / shape_.k;
      as_matrix.ldc = shape_.k;
      const double error = context_.rel_error(judged ? judged : y(0), reference_.data(), as_matrix,
                                              context_.device.stream());
      return judge_error(error, bound);
    };
    run.copies = copies_;
    return ktune::cuda::verify_then_time_on_device(context_.device, run, policy, what);
  }

  Context& context_;
  Shape shape_;
  std::string key_;
  size_t elems_y_ = 0, offset_w_ = 0, offset_y_ = 0, copy_bytes_ = 0;
  int copies_ = 1;
  DeviceBuffer<char> pool_;
  DeviceBuffer<double> reference_;
  DeviceBuffer<float> workspace_;
#if KTUNE_HAVE_CUDNN
  std::unique_ptr<CudnnConv> cudnn_;
  DeviceBuffer<float> widened_;  // bf16 / fp16: cuDNN's output in FP32, judged
#endif
};

class CudaConvBackend final : public Backend {
 public:
  CudaConvBackend(const Family& family, int device_index)
      : context_(family.space(), device_index) {}

  const DeviceInfo& device() const override { return context_.device.info(); }

  bool implements(const Config& config) const override {
    return decode(context_.space, config).valid;
  }

  void prepare(const std::vector<Config>& configs) override {
    context_.device.make_current();
    std::vector<CudaConvConfig> decoded;
    for (const Config& config : configs) {
      const CudaConvConfig g = decode(context_.space, config);
      if (g.valid) decoded.push_back(g);
    }
    context_.kernels.prepare(decoded);
  }

  std::unique_ptr<ProblemSession> open(const Problem& problem) override {
    context_.device.make_current();
    return std::make_unique<Session>(context_, problem);
  }

 private:
  Context context_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Family& family, int device_index) {
  if (family.name() != "conv2d") {
    throw Error("conv2d cuda backend: cannot run family '" + family.name() + "'");
  }
  return std::make_unique<CudaConvBackend>(family, device_index);
}

}  // namespace ktune::kernels::conv2d::cuda

// The conv2d family's CUDA registration entry (called by register_cuda_backends).
KTUNE_FAMILY_CUDA_ENTRY(conv2d) {
  ktune::register_backend("conv2d", "cuda", [](const ktune::Family& family, int device_index) {
    return ktune::kernels::conv2d::cuda::make_backend(family, device_index);
  });
}
