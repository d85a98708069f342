// `cudnn`: every convolution by cuDNN's fastest FP32 algorithm for its shape (CUDNN_FMA_MATH, no
// TF32), found once at load by cudnnFindConvolutionForwardAlgorithmEx on the layer's own filter
// with its workspace allocated then (kernels/conv2d/cuda/conv2d_cudnn.hpp, the conv2d family's
// cuDNN baseline); fully connected layers by cuBLAS; bias + ReLU by one kernel after each.
#include <map>
#include <memory>

#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "nn/cuda/cublas_backend_base.hpp"
#include "nn/cuda/register.hpp"

namespace ktune::nn::cuda {

namespace {

namespace kc = ktune::kernels::conv2d;

class CudnnBackend final : public CublasBackendBase {
 public:
  CudnnBackend() : cudnn_(stream()) {}
  std::string name() const override { return "cudnn"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    const float* w = keep(layer, 0, filter, size_t(d.k * d.r * d.s * d.c));
    keep(layer, 1, bias, size_t(d.k));
    const kc::Shape shape{d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad};
    auto conv = std::make_unique<kc::cuda::CudnnConv>(cudnn_.get(), shape);
    // The search times every algorithm on scratch activations (zeros) and the real filter.
    ktune::cuda::DeviceBuffer<float> x(size_t(shape.input_elements()), "cudnn find input");
    ktune::cuda::DeviceBuffer<float> y(size_t(shape.output_elements()), "cudnn find output");
    ktune::cuda::check(cudaMemsetAsync(x.data(), 0, x.bytes(), stream()), "cudaMemsetAsync");
    conv->find(x.data(), w, y.data());
    synchronize();  // x and y are freed on return
    convs_[layer] = std::move(conv);
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    const auto it = convs_.find(layer);
    if (it == convs_.end()) throw Error("cudnn: layer " + std::to_string(layer) + " not prepared");
    kc::cuda::check_cudnn(it->second->run(in, kept(layer, 0), out), "cudnnConvolutionForward");
    epilogue(out, kept(layer, 1), d.n * d.p() * d.q(), d.k, d.relu);
  }

  std::string layer_note(int layer) const override {
    const auto it = convs_.find(layer);
    return it == convs_.end() ? "" : it->second->description();
  }

 private:
  kc::cuda::CudnnHandle cudnn_;
  std::map<int, std::unique_ptr<kc::cuda::CudnnConv>> convs_;
};

}  // namespace

std::unique_ptr<Backend> make_cudnn_backend() { return std::make_unique<CudnnBackend>(); }

}  // namespace ktune::nn::cuda
