// `cudnn`, `cudnn-tf32`, `cudnn-bf16`: every convolution by cuDNN's fastest algorithm or engine
// config for its shape in the backend's precision (nn/cuda/cudnn_layer_conv.hpp: FMA math only
// in fp32, TF32 tensor-core math permitted in tf32, bf16 data with FLOAT compute in bf16), found
// once at load by the legacy Find and the backend API's engine search in NHWC on the layer's own
// filter, with its workspace allocated then (the layer note names the pick and its time); fully
// connected layers by cuBLAS; bias + ReLU by one kernel after each.
#include <map>
#include <memory>

#include "nn/cuda/cublas_backend_base.hpp"
#include "nn/cuda/cudnn_layer_conv.hpp"
#include "nn/cuda/register.hpp"

namespace ktune::nn::cuda {

namespace {

class CudnnBackend final : public CublasBackendBase {
 public:
  explicit CudnnBackend(Precision precision)
      : CublasBackendBase(precision), cudnn_(make_cudnn_handle(stream())) {}
  std::string name() const override {
    return precision() == Precision::fp32 ? "cudnn"
                                          : std::string("cudnn-") + precision_name(precision());
  }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    const float* w = keep_operand(layer, 0, filter, size_t(d.k * d.r * d.s * d.c));
    keep(layer, 1, bias, size_t(d.k));
    auto conv = std::make_unique<CudnnLayerConv>(cudnn_.get(), d, precision());
    // The search times every algorithm on scratch activations (zeros) and the real filter.
    const ConvScratch scratch = conv_scratch(d, "cudnn find");
    conv->find(scratch.x.data(), w, scratch.y.data());
    synchronize();  // x and y are freed on return
    convs_[layer] = std::move(conv);
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    check_cudnn(conv(layer).run(in, kept(layer, 0), out), "cudnnConvolutionForward");
    epilogue(out, kept(layer, 1), d.n * d.p() * d.q(), d.k, d.relu);
  }

  std::string layer_note(int layer) const override {
    const auto it = convs_.find(layer);
    return it == convs_.end() ? "" : it->second->description();
  }

 private:
  const CudnnLayerConv& conv(int layer) const {
    const auto it = convs_.find(layer);
    if (it == convs_.end())
      throw Error(name() + ": layer " + std::to_string(layer) + " not prepared");
    return *it->second;
  }
  CudnnHandle cudnn_;
  std::map<int, std::unique_ptr<CudnnLayerConv>> convs_;
};

}  // namespace

std::unique_ptr<Backend> make_cudnn_backend(Precision precision) {
  return std::make_unique<CudnnBackend>(precision);
}

}  // namespace ktune::nn::cuda
