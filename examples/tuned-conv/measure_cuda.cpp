// tuned_conv_bench's CUDA part: the deployed ktune::conv2d (CUDA tuned library, device pointers,
// one stream) beside cuDNN at its fastest FP32 FMA algorithm, API and layout (legacy Find or
// backend engines, NHWC or NCHW; TF32 off), found and run exactly as the sweep's `cudnn` vendor
// (kernels/conv2d/cuda/conv2d_cudnn.hpp). In bf16 / fp16 (--precision bf16 / fp16):
// ktune::conv2d_ex on 16-bit copies of the data (FP32 output) beside cuDNN at its fastest
// tensor-core algorithm, API and layout in the same precision (16-bit output of that type, widened
// exactly before it is judged by the family's 16-bit-output bound, error_bound_output16), the
// deployed call judged by the family's bound of that precision, against the float64 reference of
// the FP32 data the 16-bit copies were rounded from. In tf32 (--precision tf32): ktune::conv2d_ex
// on the FP32 data beside cuDNN's tf32 engines (FP32 output), both judged by the tf32 bound. Both
// are verified against the float64 reference kernel on NaN-poisoned output, then timed with the
// sweep's device protocol (include/ktune/cuda/device_measure.hpp: CUDA events, warm-up, median of
// adaptive repeats, inputs rotated so that reruns do not find them in L2). --output bf16 / fp16
// (the precision's own type): the deployed call writes 16 bits (Conv2dOutput::bf16 / fp16), like
// the vendor column, both judged by the family's 16-bit-output bound (error_bound_output16); the
// same call with FP32 output is timed
// beside them (fp32_output_ms: the output type before this one, verified by the FP32 bound), and
// on a cuDNN pick cuDNN in NHWC alone (engine_alone_ms: the call's search space without the call).
// With tune and remember on (KTUNE_REMEMBER, docs/deploy.md) the config served may be another than
// the selector's pick in the config column (the cache's answer: scripts/conv_deploy/
// remember_conv_summary.py reads it from the cache), so the deployed call is judged by the bound
// of the loosest candidate (cuDNN's); each layer's first call is timed on the host to the end of
// its work and reported on stderr ("remember first call: <problem>: <ms> ms").
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "examples/tuned-conv/conv_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cuda/conv2d_cuda_kernels.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "ktune/conv2d.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_measure.hpp"
#include "ktune/error.hpp"
#include "ktune/remember.hpp"

namespace tuned_conv {

namespace {

namespace conv = ktune::kernels::conv2d;
using ktune::cuda::check;
using ktune::cuda::DeviceBuffer;

class CudaMeasure final : public DeviceMeasure {
 public:
  CudaMeasure(ktune::kernels::gemm::Precision precision, bool out16)
      : precision_(precision),
        sixteen_(ktune::kernels::gemm::input_bytes(precision) == 2),
        out16_(out16),
        device_(0),
        kernels_(device_.arch()),
        cudnn_(device_.stream()) {}
  std::string vendor() const override { return "cudnn"; }

  LayerResult measure(const conv::Shape& s, uint64_t seed,
                      const ktune::TimingPolicy& policy) override {
    LayerResult r;
    namespace kg = ktune::kernels::gemm;
    // The sweep's precision codes are conv2d_ex's (0 fp32: ktune::conv2d's selector).
    const auto precision = ktune::Conv2dPrecision(int(precision_));
    const bool tensor_core = precision_ != kg::Precision::fp32;
    const std::string name = kg::precision_name(precision_);
    const auto& info = ktune::tuned_conv2d_ex_info_cuda(precision);
    if (info.num_configs == 0)
      throw ktune::Error("the linked CUDA tuned conv2d library ships no " + name + " selector");
    r.config = info.configs[ktune::tuned_conv2d_ex_choice_cuda(precision, s.n, s.h, s.w, s.c, s.k,
                                                               s.r, s.s, s.stride, s.pad)];
    // The family's bound of the data's precision (tf32 / bf16 / fp16: FP32 term + 4u), with its
    // transform factor where the pick may be a Winograd transform: FP32 configs F(4x4); a pick of
    // cuDNN (its algorithm is cuDNN's choice) F(2x2)'s factor in 16 bits, F(4x4)'s in tf32;
    // ktune's tensor-core kernels none.
    conv::Shape judged = s;
    judged.precision = precision_;
    const bool vendor_pick = r.config.rfind("vendor=", 0) == 0;
    const bool remembering = ktune::remember::enabled();  // cuDNN may be served
    const int deployed_m = !tensor_core ? 4 : !(vendor_pick || remembering) ? 0 : sixteen_ ? 2 : 4;
    try {
      Buffers b(device_, s, seed, kernels_.reference(),
                sixteen_ ? precision_ : kg::Precision::fp32);
      cudaStream_t stream = device_.stream();
      // out16: y(copy) holds the 16-bit output (the data's type) in its front half.
      auto call = [&](int copy, bool out16) {
        ktune::conv2d_ex(precision,
                         out16 ? ktune::Conv2dOutput(int(precision)) : ktune::Conv2dOutput::fp32,
                         s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, b.in(copy),
                         b.filter(copy), b.y(copy), reinterpret_cast<ktune::cudaStream_t>(stream));
      };
      auto deployed = [&](int copy) { call(copy, out16_); };
      // One call per rotation copy and output type outside the protocol: the library's
      // workspace pool takes its memory here, and a cuDNN pick runs its search (once per layer,
      // pointer alignment and output type: the copies' offsets may differ in alignment).
      if (remembering) {  // the first call: the candidates timed, or the cache's answer read
        const auto start = std::chrono::steady_clock::now();
        deployed(0);
        check(cudaStreamSynchronize(stream), "ktune::conv2d_ex first call");
        std::fprintf(
            stderr, "remember first call: %s: %.3f ms\n", conv::problem_of(judged).key().c_str(),
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
      }
      for (int copy = 0; copy < b.copies(); ++copy) {
        deployed(copy);
        if (out16_) call(copy, false);
      }
      check(cudaStreamSynchronize(stream), "ktune::conv2d_ex warm-up");
      const ktune::Outcome out =
          out16_
              ? b.measure(deployed, policy, "ktune::conv2d_ex " + name + " (" + name + " output)",
                          conv::error_bound_output16(judged, deployed_m), {},
                          [&] { b.widen_output(); })
              : b.measure(deployed, policy,
                          tensor_core ? "ktune::conv2d_ex " + name : "ktune::conv2d",
                          conv::error_bound(judged, deployed_m));
      r.status = std::string(ktune::to_string(out.status));
      r.message = out.message;
      r.rel_error = out.rel_error;
      if (out.status != ktune::Status::ok) return r;
      r.deployed_ms = out.timing.median_ms;
      if (out16_) {  // the same call with FP32 output (cuDNN: an FP32 engine or a widening pass)
        const ktune::Outcome wide = b.measure([&](int copy) { call(copy, false); }, policy,
                                              "ktune::conv2d_ex " + name + " (FP32 output)",
                                              conv::error_bound(judged, deployed_m));
        if (wide.status == ktune::Status::ok)
          r.fp32_output_ms = wide.timing.median_ms;
        else
          r.message += " [FP32 output: " + wide.message + "]";
      }

      // cuDNN found and timed by the bench in `layouts`: its median (0 when it failed) and
      // what it ran.
      auto time_cudnn = [&](conv::cuda::CudnnLayouts layouts, std::string& what) {
        conv::cuda::CudnnConv cudnn(
            cudnn_.get(), judged, layouts, conv::cuda::CudnnApis::legacy_and_engines,
            precision_ == kg::Precision::fp32   ? conv::cuda::CudnnPrecision::fp32
            : precision_ == kg::Precision::tf32 ? conv::cuda::CudnnPrecision::tf32
            : precision_ == kg::Precision::fp16 ? conv::cuda::CudnnPrecision::fp16
                                                : conv::cuda::CudnnPrecision::bf16);
        cudnn.find(b.in(0), b.filter(0), b.y(0));  // also loads cuDNN's kernels before timing
        for (int copy = 1; copy < b.copies(); ++copy)
          cudnn.stage(copy, b.in(copy), b.filter(copy), b.y(copy));
        check(cudaStreamSynchronize(stream), "cudnn find");
        // Transform algorithms: F(4x4)'s factor in FP32, F(2x2)'s in 16 bits (the sweep's).
        const int transform_m = cudnn.transform_algorithm() ? (sixteen_ ? 2 : 4) : 0;
        // cuDNN's 16-bit output: the store's rounding (in its type) in its bound.
        const double bound = sixteen_ ? conv::error_bound_output16(judged, transform_m)
                                      : conv::error_bound(judged, transform_m);
        const ktune::Outcome vendor = b.measure(
            [&](int copy) {
              conv::cuda::check_cudnn(cudnn.run(b.in(copy), b.filter(copy), b.y(copy), copy),
                                      "cudnnConvolutionForward");
            },
            policy, cudnn.description(), bound, [&] { cudnn.poison(); },
            [&] {
              cudnn.deliver(b.y(0));
              if (sixteen_) b.widen_output();
            });
        what = cudnn.description();
        r.message += fmt::format(" [{}{}]", what,
                                 vendor.status == ktune::Status::ok ? "" : ": " + vendor.message);
        return vendor.status == ktune::Status::ok ? vendor.timing.median_ms : 0.0;
      };
      r.vendor_ms = time_cudnn(conv::cuda::CudnnLayouts::nhwc_or_nchw, r.vendor_what);
      // A cuDNN pick with 16-bit output: cuDNN in the call's own search space (NHWC, legacy Find +
      // engines, 16-bit output) run bare by the bench, so call - engine is the call's own cost.
      if (out16_ && r.config.rfind("vendor=", 0) == 0)
        r.engine_alone_ms = time_cudnn(conv::cuda::CudnnLayouts::nhwc, r.engine_alone_what);
    } catch (const std::exception& e) {
      r.status = "failed";
      r.message = e.what();
    }
    return r;
  }

 private:
  // The layer's rotated input copies, its output and its float64 reference on the device.
  class Buffers {
   public:
    // precision: fp32, or bf16 / fp16 (16-bit copies of the data; a 16-bit output widened from
    // that type).
    Buffers(ktune::cuda::DeviceContext& device, const conv::Shape& s, uint64_t seed,
            const ktune::cuda::LoadedKernel& reference, ktune::kernels::gemm::Precision precision)
        : device_(device), shape_(s), precision_(precision) {
      nx_ = size_t(s.input_elements());
      nw_ = size_t(s.filter_elements());
      ny_ = size_t(s.output_elements());
      copy_ = nx_ + nw_ + ny_;
      copies_ = ktune::cuda::rotation_copies(device, double(copy_ * sizeof(float)));
      pool_ = DeviceBuffer<float>(copy_ * size_t(copies_), "conv2d inputs");
      const auto hx = ktune::kernels::gemm::random_matrix(nx_, seed);
      const auto hw = ktune::kernels::gemm::random_matrix(nw_, seed + 1);
      for (int i = 0; i < copies_; ++i) {
        check(cudaMemcpy(x(i), hx.data(), nx_ * 4, cudaMemcpyHostToDevice), "upload input");
        check(cudaMemcpy(w(i), hw.data(), nw_ * 4, cudaMemcpyHostToDevice), "upload filter");
      }
      if (ktune::kernels::gemm::input_bytes(precision) == 2) {
        // Each copy's 16-bit input and filter in a buffer of their own (the FP32 copy 0 stays
        // whole for the reference below). (Rounded to nearest even as the sweep's conv2d backend
        // rounds them.)
        namespace kg = ktune::kernels::gemm;
        std::vector<uint16_t> h16 = kg::to_input_bits(hx, precision);
        const std::vector<uint16_t> w16 = kg::to_input_bits(hw, precision);
        h16.insert(h16.end(), w16.begin(), w16.end());
        data16_ = DeviceBuffer<uint16_t>((nx_ + nw_) * size_t(copies_), "16-bit inputs");
        for (int i = 0; i < copies_; ++i)
          check(cudaMemcpy(data16_.data() + size_t(i) * (nx_ + nw_), h16.data(), h16.size() * 2,
                           cudaMemcpyHostToDevice),
                "upload 16-bit input and filter");
        widened_ = DeviceBuffer<float>(ny_, "widened cudnn output");
      }
      reference_ = DeviceBuffer<double>(ny_, "float64 reference");
      const float* xp = x(0);
      const float* wp = w(0);
      double* out = reference_.data();
      int n = int(s.n), h = int(s.h), wd = int(s.w), c = int(s.c), k = int(s.k), rr = int(s.r),
          ss = int(s.s), stride = int(s.stride), pad = int(s.pad), p = int(s.p()), q = int(s.q());
      void* args[] = {&xp, &wp, &out, &n, &h, &wd, &c, &k, &rr, &ss, &stride, &pad, &p, &q};
      const long long blocks = std::min<long long>((long long)(ny_ + 255) / 256, 65535LL * 8);
      check(cudaLaunchKernel(reference.function(), dim3(unsigned(blocks)), dim3(256), args, 0,
                             device.stream()),
            "cudaLaunchKernel(ktune_conv2d_reference)");
      check(cudaStreamSynchronize(device.stream()), "float64 reference");
      ref_host_.resize(ny_);
      check(cudaMemcpy(ref_host_.data(), reference_.data(), ny_ * 8, cudaMemcpyDeviceToHost),
            "download reference");
    }
    // The data a convolution reads: 16-bit copies when there are, else the FP32 ones.
    const void* in(int i) const {
      return data16_.data() ? static_cast<const void*>(data16_.data() + size_t(i) * (nx_ + nw_))
                            : static_cast<const void*>(x(i));
    }
    const void* filter(int i) const {
      return data16_.data()
                 ? static_cast<const void*>(data16_.data() + size_t(i) * (nx_ + nw_) + nx_)
                 : static_cast<const void*>(w(i));
    }
    // y(0)'s 16-bit values (a 16-bit output of the data's precision) widened exactly into the
    // buffer verify reads.
    void widen_output() {
      std::vector<uint16_t> h16(ny_);
      check(cudaMemcpy(h16.data(), y(0), ny_ * 2, cudaMemcpyDeviceToHost),
            "download 16-bit output");
      const std::vector<float> wide = ktune::kernels::gemm::from_input_bits(h16, precision_);
      check(cudaMemcpy(widened_.data(), wide.data(), ny_ * 4, cudaMemcpyHostToDevice),
            "upload widened output");
      verify_from_ = widened_.data();
    }
    float* x(int i) const { return pool_.data() + size_t(i) * copy_; }
    float* w(int i) const { return x(i) + nx_; }
    float* y(int i) const { return w(i) + nw_; }
    int copies() const { return copies_; }

    // A run that writes its own buffers poisons them too (poison_own) and brings copy 0's
    // output into y(0) before it is judged (deliver).
    template <typename Launch>
    ktune::Outcome measure(Launch&& launch, const ktune::TimingPolicy& policy,
                           const std::string& what, double bound,
                           const std::function<void()>& poison_own = {},
                           const std::function<void()>& deliver = {}) {
      ktune::cuda::DeviceRun run;
      run.copies = copies_;
      run.poison = [&] {  // all-ones bytes are NaN floats
        check(cudaMemsetAsync(y(0), 0xFF, ny_ * 4, device_.stream()), "poison output");
        if (poison_own) poison_own();
      };
      run.launch = launch;
      run.verify = [&] {
        verify_from_ = y(0);
        if (deliver) deliver();
        std::vector<float> out(ny_);
        check(cudaMemcpyAsync(out.data(), verify_from_, ny_ * 4, cudaMemcpyDeviceToHost,
                              device_.stream()),
              "download output");
        check(cudaStreamSynchronize(device_.stream()), "download output");
        ktune::RunVerdict v;
        v.rel_error = conv::relative_error(shape_, out.data(), ref_host_);
        v.ok = v.rel_error <= bound;
        if (!v.ok) v.message = fmt::format("relative error {:.3g} over {:.3g}", v.rel_error, bound);
        return v;
      };
      return ktune::cuda::verify_then_time_on_device(device_, run, policy, what);
    }

   private:
    ktune::cuda::DeviceContext& device_;
    conv::Shape shape_;
    ktune::kernels::gemm::Precision precision_;
    size_t nx_ = 0, nw_ = 0, ny_ = 0, copy_ = 0;
    int copies_ = 1;
    DeviceBuffer<float> pool_;
    DeviceBuffer<uint16_t> data16_;  // 16-bit runs: each copy's input then filter
    DeviceBuffer<float> widened_;    // 16-bit runs: the vendor's output widened
    const float* verify_from_ = nullptr;
    DeviceBuffer<double> reference_;
    std::vector<double> ref_host_;
  };

  ktune::kernels::gemm::Precision precision_;
  bool sixteen_ = false;  // a 16-bit precision (bf16 or fp16)
  bool out16_ = false;    // the deployed call writes the data's 16 bits
  ktune::cuda::DeviceContext device_;
  conv::cuda::ConvKernelSet kernels_;
  conv::cuda::CudnnHandle cudnn_;
};

}  // namespace

std::unique_ptr<DeviceMeasure> cuda_measure(ktune::kernels::gemm::Precision precision, bool out16) {
  return std::make_unique<CudaMeasure>(precision, out16);
}

}  // namespace tuned_conv
