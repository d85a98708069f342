// `ktune-cuda`: convolutions by ktune::conv2d (the tuned CUDA conv2d library of
// examples/tuned-conv), fully connected layers by ktune::gemm (the tuned CUDA GEMM library of
// examples/tuned-gemm), both asynchronous on the backend's stream; bias + ReLU by one kernel
// after each (neither library has an epilogue hook); each conv the fastest at load of that
// library's conv, im2col + cuBLAS (the `cublas` backend's path) and cuDNN's fp32 conv (FMA math),
// each FC layer the faster of ktune::gemm and cuBLAS (the `cudnn` / `cublas` backends' FC), by the
// rule below: ktune-cuda is then no slower per layer than its own cublas and cudnn backends.
// `ktune-cuda-bf16`: the bf16 engine on the tuned GEMM library's tensor-core path
// (ktune::gemm_ex, its shipped bf16 selector): a 1×1 stride-1 unpadded convolution is one GEMM
// on the NHWC input itself, every other one im2col (bf16) + that GEMM, fully connected layers
// that GEMM too; gemm_ex writes FP32, and the bias + ReLU kernel rounds its result to bf16.
// Each bf16 conv runs the fastest of that path, cuDNN's bf16 convolution where the build has cuDNN
// (nn/cuda/cudnn_layer_conv.hpp: legacy Find and backend-API engines, NHWC) and, where the build
// has sm_90a code and the layer c % 64 == 0, the wgmma implicit-GEMM conv in each of its configs
// (nn/cuda/wgmma_conv.hpp: bias, ReLU and the residual add of conv2d_add fused into its bf16
// store), all timed with their epilogues at load on the layer's filter and zero activations;
// layer_note() names the pick. The timing: each candidate recorded once as a CUDA graph of 3 runs
// (as the network's graph runs it), the graphs replayed by the rule of nn/cuda/layer_pick.hpp
// (interleaved rounds, fastest replay kept). `ktune-cuda-bf16-gemm_ex` (auto-cuda-bf16's candidate,
// not registered): every conv on gemm_ex. `ktune-cuda-tf32`: the same engine in tf32 (FP32
// activations and weights, ktune::gemm_ex's shipped tf32 selector, im2col in FP32): gemm_ex writes
// the FP32 result straight into the layer's output and the bias + ReLU kernel runs in place (its
// weights and the activations it writes rounded to TF32: CudaBackend::set_tf32_storage); each
// conv the fastest of that path, cuDNN's tf32 convolution and (sm_90a builds, c % 32 == 0) the
// wgmma implicit-GEMM conv in tf32 (FP32 output, bias, ReLU and the residual add fused), picked at
// load as in bf16.
// In tf32 and bf16 too, im2col + cuBLAS is one more conv candidate and each FC layer runs the
// faster of gemm_ex and cuBLAS (the cuBLAS call of the cudnn / cublas backends), timed alike.
// `ktune-cuda-tf32-gemm_ex` (auto-cuda-tf32's candidate, not registered): every conv on gemm_ex.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "ktune/conv2d.hpp"
#include "ktune/gemm.hpp"
#include "nn/cuda/cublas_backend_base.hpp"
#ifdef KTUNE_NN_CUDNN
#include "nn/cuda/cudnn_layer_conv.hpp"
#endif
#include "nn/cuda/layer_kernels.hpp"
#include "nn/cuda/layer_pick.hpp"
#include "nn/cuda/register.hpp"
#ifdef KTUNE_NN_WGMMA_CONV
#include "nn/cuda/wgmma_conv.hpp"
#endif

namespace ktune::nn::cuda {

namespace {

// The gemm_ex precision of a tf32 or bf16 engine (activations and weights in that type).
GemmPrecision gemm_ex_precision(Precision precision) {
  return precision == Precision::bf16 ? GemmPrecision::bf16 : GemmPrecision::tf32;
}

bool is_gemm(const ConvDesc& d) { return d.r == 1 && d.s == 1 && d.stride == 1 && d.pad == 0; }

class KtuneBackend final : public CublasBackendBase {
 public:
  KtuneBackend(Precision precision, bool pick_layers)
      : CublasBackendBase(precision), pick_layers_(pick_layers) {
    if (!ktune_backend_serves(precision))
      throw Error(std::string("ktune-cuda: no ") + precision_name(precision) +
                  " path (the tuned GEMM library ships no " + precision_name(precision) +
                  " selector)");
    // Its tf32 tensor-core kinds (wgmma conv, gemm_ex's wgmmatf32) truncate FP32 operands.
    set_tf32_storage(precision == Precision::tf32);
  }
  std::string name() const override {
    if (!on_gemm_ex()) return "ktune-cuda";
    return std::string("ktune-cuda-") + precision_name(precision()) +
           (pick_layers_ ? "" : "-gemm_ex");
  }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    keep_operand(layer, 0, filter, size_t(d.k * d.r * d.s * d.c));
    keep(layer, 1, bias, size_t(d.k));
    shapes_[layer] = d;
    // The patch matrix (gemm_ex's and cuBLAS's) and (bf16) the FP32 result, sized for the
    // largest layer, allocated here.
    const int64_t rows = d.n * d.p() * d.q();
    if (on_gemm_ex() || pick_layers_)
      grow(col_, is_gemm(d) ? 0 : storage_floats(size_t(rows * d.r * d.s * d.c)), "im2col matrix");
    if (is_bf16()) grow(acc_, size_t(rows * d.k), "FP32 GEMM result");
    if (pick_layers_) choose(layer, d);
  }
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    keep_operand(layer, 0, weight, size_t(d.out * d.in));
    keep(layer, 1, bias, size_t(d.out));
    if (is_bf16()) grow(acc_, size_t(d.batch * d.out), "FP32 GEMM result");
    if (pick_layers_) choose_fc(layer, d);
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
#ifdef KTUNE_NN_WGMMA_CONV
    if (const auto it = wgmma_layers_.find(layer); it != wgmma_layers_.end()) {
      wgmma_run(layer, d, it->second, in, nullptr, epilogue_on() && d.relu, out);
      return;
    }
#endif
#ifdef KTUNE_NN_CUDNN
    if (const auto it = cudnn_convs_.find(layer); it != cudnn_convs_.end()) {
      check_cudnn(it->second->run(in, kept(layer, 0), out), "cudnnConvolutionForward");
      epilogue(out, kept(layer, 1), d.n * d.p() * d.q(), d.k, d.relu);
      return;
    }
#endif
    if (cublas_layers_.contains(layer))
      cublas_conv(layer, d, in, out);
    else
      library_conv(layer, d, in, out);
  }
  // The residual add fused into the conv where the layer runs on the wgmma conv.
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
#ifdef KTUNE_NN_WGMMA_CONV
    if (const auto it = wgmma_layers_.find(layer); it != wgmma_layers_.end()) {
      wgmma_run(layer, d, it->second, in, residual, relu, out);  // the add's ReLU
      return true;
    }
#endif
    (void)layer, (void)d, (void)in, (void)residual, (void)out, (void)relu;
    return false;
  }
  // The config the tuned library's selector picks for the layer (by conv shape).
  std::string layer_note(int layer) const override {
    std::string pick;
    if (const auto p = picks_.find(layer); p != picks_.end()) pick = p->second + "; ";
    const std::string in_precision = precision_name(precision());
    const auto it = shapes_.find(layer);
    if (it == shapes_.end()) {  // an FC layer (picked) or none
      if (pick.empty()) return "";
      return pick +
             (cublas_layers_.contains(layer) ? "cuBLAS "
              : on_gemm_ex()                 ? "gemm_ex "
                                             : "ktune::gemm ") +
             in_precision;
    }
    const ConvDesc& d = it->second;
    if (cublas_layers_.contains(layer))
      return pick + (is_gemm(d) ? "cuBLAS " : "im2col + cuBLAS ") + in_precision;
#ifdef KTUNE_NN_WGMMA_CONV
    if (const auto w = wgmma_layers_.find(layer); w != wgmma_layers_.end())
      return pick + "wgmma implicit GEMM " + in_precision + " " +
             wgmma_conv_config_name(precision(), w->second) + " (bias + ReLU + residual fused)";
#endif
#ifdef KTUNE_NN_CUDNN
    if (const auto c = cudnn_convs_.find(layer); c != cudnn_convs_.end())
      return pick + c->second->description();
#endif
    if (on_gemm_ex()) {
      const auto& info = ktune::tuned_gemm_ex_info_cuda(gemm_precision());
      const int64_t rows = d.n * d.p() * d.q();
      const int choice = ktune::tuned_gemm_ex_choice_cuda(gemm_precision(), Trans::yes, Trans::no,
                                                          d.k, rows, d.r * d.s * d.c, 1);
      const std::string how =
          std::string(is_gemm(d) ? "gemm_ex " : "im2col + gemm_ex ") + in_precision + " ";
      return choice >= 0 && choice < info.num_configs
                 ? pick + how + std::string(info.configs[choice])
                 : pick;
    }
    const auto& info = ktune::tuned_conv2d_info_cuda();
    const int choice =
        ktune::tuned_conv2d_choice_cuda(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad);
    return choice >= 0 && choice < info.num_configs ? pick + info.configs[choice] : pick;
  }

  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    if (cublas_layers_.contains(layer))
      CublasBackendBase::fc(layer, d, x, y);
    else
      library_fc(layer, d, x, y);
  }

 private:
  // The FC layer on the tuned GEMM library (gemm_ex in tf32 / bf16).
  void library_fc(int layer, const FcDesc& d, const float* x, float* y) {
    // Column-major: Y (out × batch) = Wᵀ · X, with W [out][in] = an (in × out) column-major matrix.
    if (on_gemm_ex()) {
      ex_gemm(d.out, d.batch, d.in, kept(layer, 0), x, y);
      gemm_epilogue(y, kept(layer, 1), d.batch, d.out, d.relu);
      return;
    }
    ktune::gemm(Trans::yes, Trans::no, d.out, d.batch, d.in, 1.0f, kept(layer, 0), d.in, x, d.in,
                0.0f, y, d.out, stream());
    epilogue(y, kept(layer, 1), d.batch, d.out, d.relu);
  }
  // The conv on the tuned library's path: (im2col +) gemm_ex in tf32 / bf16, ktune::conv2d in
  // fp32.
  void library_conv(int layer, const ConvDesc& d, const float* in, float* out) {
    if (on_gemm_ex()) {
      gemm_conv(layer, d, in, out);
      return;
    }
    ktune::conv2d(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad, in, kept(layer, 0), out,
                  stream());
    epilogue(out, kept(layer, 1), d.n * d.p() * d.q(), d.k, d.relu);
  }
  // The conv as the `cublas` backend runs it: (im2col +) cuBLAS in the precision, then bias + ReLU.
  void cublas_conv(int layer, const ConvDesc& d, const float* in, float* out) {
    const int64_t rows = d.n * d.p() * d.q(), patch = d.r * d.s * d.c;
    gemm(true, d.k, rows, patch, kept(layer, 0), patch, patches(d, in), patch, out, d.k);
    epilogue(out, kept(layer, 1), rows, d.k, d.relu);
  }
  // The GEMM's right operand of a conv: the input itself (1×1 stride 1) or its im2col in col_.
  const float* patches(const ConvDesc& d, const float* in) {
    if (is_gemm(d)) return in;
    if (is_bf16())
      im2col(d, reinterpret_cast<const bf16*>(in), reinterpret_cast<bf16*>(col_.data()), stream());
    else
      im2col(d, in, col_.data(), stream());
    return col_.data();
  }
  // tf32 / bf16: convs and FC layers on gemm_ex.
  bool on_gemm_ex() const { return precision() != Precision::fp32; }
  GemmPrecision gemm_precision() const { return gemm_ex_precision(precision()); }
  // The conv by (im2col +) gemm_ex (bf16: into acc_), then bias + ReLU (bf16: rounding into out).
  void gemm_conv(int layer, const ConvDesc& d, const float* in, float* out) {
    const int64_t rows = d.n * d.p() * d.q(), patch = d.r * d.s * d.c;
    // Column-major: out (k × rows) = Wᵀ · col, W [k][patch] = (patch × k), col (patch × rows).
    ex_gemm(d.k, rows, patch, kept(layer, 0), patches(d, in), out);
    gemm_epilogue(out, kept(layer, 1), rows, d.k, d.relu);
  }
  // y = relu?(result + bias) after ex_gemm(..., y): from acc_ in bf16, in place in tf32.
  void gemm_epilogue(float* y, const float* bias, int64_t rows, int64_t channels, bool relu) {
    if (is_bf16())
      epilogue_from(acc_.data(), y, bias, rows, channels, relu);
    else
      epilogue(y, bias, rows, channels, relu);
  }
  // Times this conv's candidates (the library's path; im2col + cuBLAS; cuDNN's conv, found
  // first; each wgmma config that serves the layer) and keeps the fastest.
  void choose(int layer, const ConvDesc& d) {
#ifdef KTUNE_NN_WGMMA_CONV
    wgmma_layers_.erase(layer);  // a layer prepared again: its earlier pick no longer holds
#endif
#ifdef KTUNE_NN_CUDNN
    cudnn_convs_.erase(layer);
#endif
    cublas_layers_.erase(layer);
    const ConvScratch scratch = conv_scratch(d, name() + " choice");
    float* x = scratch.x.data();
    float* y = scratch.y.data();
    std::vector<std::string> names{on_gemm_ex() ? "gemm_ex" : "conv2d", "cublas"};
    std::vector<std::function<void()>> run{[&] { library_conv(layer, d, x, y); },
                                           [&] { cublas_conv(layer, d, x, y); }};
#ifdef KTUNE_NN_CUDNN
    if (!cudnn_) cudnn_ = make_cudnn_handle(stream());
    auto conv = std::make_unique<CudnnLayerConv>(cudnn_.get(), d, precision());
    conv->find(x, kept(layer, 0), y);
    const int64_t rows = d.n * d.p() * d.q();
    names.push_back("cudnn");
    run.push_back([&] {
      check_cudnn(conv->run(x, kept(layer, 0), y), "cudnnConvolutionForward");
      epilogue(y, kept(layer, 1), rows, d.k, d.relu);
    });
#endif
    std::vector<int> wgmma_configs(run.size(), -1);  // candidate -> wgmma config
#ifdef KTUNE_NN_WGMMA_CONV
    for (int c = 0; c < wgmma_conv_configs(precision()); ++c) {
      if (!wgmma_conv_refusal(precision(), d, c).empty()) continue;
      names.push_back("wgmma " + wgmma_conv_config_name(precision(), c));
      run.push_back([&, c] { wgmma_run(layer, d, c, x, nullptr, epilogue_on() && d.relu, y); });
      wgmma_configs.push_back(c);
    }
#endif
    const int pick = time_and_pick(layer, names, run);
    if (names[pick] == "cublas") cublas_layers_.insert(layer);
    if (wgmma_configs[pick] >= 0) wgmma_layers_[layer] = wgmma_configs[pick];
#ifdef KTUNE_NN_CUDNN
    if (names[pick] == "cudnn") cudnn_convs_[layer] = std::move(conv);
#endif
  }
  // Times this FC layer on the tuned GEMM library and on cuBLAS (zero activations) and keeps
  // the faster.
  void choose_fc(int layer, const FcDesc& d) {
    cublas_layers_.erase(layer);
    ktune::cuda::DeviceBuffer<float> x(storage_floats(size_t(d.batch * d.in)), name() + " fc x");
    ktune::cuda::DeviceBuffer<float> y(storage_floats(size_t(d.batch * d.out)), name() + " fc y");
    ktune::cuda::check(cudaMemsetAsync(x.data(), 0, x.bytes(), stream()), "cudaMemsetAsync");
    const std::vector<std::string> names{on_gemm_ex() ? "gemm_ex" : "gemm", "cublas"};
    const std::vector<std::function<void()>> run{
        [&] { library_fc(layer, d, x.data(), y.data()); },
        [&] { CublasBackendBase::fc(layer, d, x.data(), y.data()); }};
    if (time_and_pick(layer, names, run) == 1) cublas_layers_.insert(layer);
  }
  // Each candidate recorded once as a CUDA graph of 3 runs (as the network's graph runs it), the
  // graphs replayed by the rule of nn/cuda/layer_pick.hpp; the pick's note kept for layer_note().
  int time_and_pick(int layer, const std::vector<std::string>& names,
                    const std::vector<std::function<void()>>& run) {
    constexpr int kRuns = 3;  // per graph: a layer at batch 1 takes microseconds
    std::vector<std::unique_ptr<StreamGraph>> graphs;
    for (const auto& candidate : run) {
      candidate();  // eager first: libraries set up lazily, outside the recording
      graphs.push_back(std::make_unique<StreamGraph>());
      graphs.back()->capture(stream(), [&] {
        for (int i = 0; i < kRuns; ++i) candidate();
      });
    }
    const LayerPick pick =
        pick_layer(names, [&](int c) { return graphs[c]->launch_timed_ms(stream()) / kRuns; });
    synchronize();  // the scratch activations are freed on return
    picks_[layer] = pick.note;
    return pick.index;
  }
#ifdef KTUNE_NN_WGMMA_CONV
  // The layer on the wgmma conv, config `config`: out = act(conv + bias + residual) in one kernel
  // (bf16: rounded once; tf32: FP32), act = ReLU when relu (the bias left out with the epilogue
  // switched off, as the other paths do).
  void wgmma_run(int layer, const ConvDesc& d, int config, const float* in, const float* residual,
                 bool relu, float* out) {
    const float* bias = epilogue_on() ? kept(layer, 1) : nullptr;
    if (is_bf16())
      wgmma_conv(config, d, reinterpret_cast<const bf16*>(in),
                 reinterpret_cast<const bf16*>(kept(layer, 0)), bias,
                 reinterpret_cast<const bf16*>(residual), relu, reinterpret_cast<bf16*>(out),
                 stream());
    else
      wgmma_conv(config, d, in, kept(layer, 0), bias, residual, relu, out, tf32_storage(),
                 stream());
  }
  std::map<int, int> wgmma_layers_;  // the layers the wgmma conv serves -> its config
#endif
#ifdef KTUNE_NN_CUDNN
  CudnnHandle cudnn_;
  std::map<int, std::unique_ptr<CudnnLayerConv>> cudnn_convs_;  // the layers cuDNN serves
#endif
  std::map<int, std::string> picks_;  // layer -> its load-time pick note
  std::set<int> cublas_layers_;       // the convs and FC layers cuBLAS serves
  // (m × n, FP32, column-major) = Wᵀ · B with W (k × m) and B (k × n) in the activations' type:
  // into acc_ in bf16 (the epilogue rounds it into y), into y itself in tf32.
  void ex_gemm(int64_t m, int64_t n, int64_t k, const float* w, const float* b, float* y) {
    ktune::gemm_ex(gemm_precision(), Trans::yes, Trans::no, m, n, k, 1.0f, w, k, 0, b, k, 0, 0.0f,
                   is_bf16() ? acc_.data() : y, m, 0, 1, stream());
  }
  void grow(ktune::cuda::DeviceBuffer<float>& buffer, size_t floats, const char* what) {
    if (floats > buffer.size())
      buffer = ktune::cuda::DeviceBuffer<float>(floats, name() + " " + what);
  }
  // Each layer on its fastest candidate at load (else the library's path on all).
  bool pick_layers_;
  std::map<int, ConvDesc> shapes_;
  ktune::cuda::DeviceBuffer<float> col_, acc_;
};

}  // namespace

bool ktune_backend_serves(Precision precision) {
  if (precision == Precision::fp32) return true;
  return ktune::tuned_gemm_ex_info_cuda(gemm_ex_precision(precision)).num_configs > 0;
}

std::unique_ptr<Backend> make_ktune_backend(Precision precision, bool pick_layers) {
  return std::make_unique<KtuneBackend>(precision, pick_layers);
}

}  // namespace ktune::nn::cuda
