// `ktune-cuda`: convolutions by ktune::conv2d (the tuned CUDA conv2d library of
// examples/tuned-conv), fully connected layers by ktune::gemm (the tuned CUDA GEMM library of
// examples/tuned-gemm), both asynchronous on the backend's stream; bias + ReLU by one kernel
// after each (neither library has an epilogue hook).
#include <map>

#include "ktune/conv2d.hpp"
#include "ktune/gemm.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"

namespace ktune::nn::cuda {

namespace {

class KtuneBackend final : public CudaBackend {
 public:
  std::string name() const override { return "ktune-cuda"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    keep(layer, 0, filter, size_t(d.k * d.r * d.s * d.c));
    keep(layer, 1, bias, size_t(d.k));
    shapes_[layer] = d;
  }
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    keep(layer, 0, weight, size_t(d.out * d.in));
    keep(layer, 1, bias, size_t(d.out));
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    ktune::conv2d(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad, in, kept(layer, 0), out,
                  stream());
    epilogue(out, kept(layer, 1), d.n * d.p() * d.q(), d.k, d.relu);
  }
  // The config the tuned library's selector picks for the layer (by conv shape).
  std::string layer_note(int layer) const override {
    const auto it = shapes_.find(layer);
    if (it == shapes_.end()) return "";
    const ConvDesc& d = it->second;
    const auto& info = ktune::tuned_conv2d_info_cuda();
    const int choice =
        ktune::tuned_conv2d_choice_cuda(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad);
    return choice >= 0 && choice < info.num_configs ? info.configs[choice] : "";
  }

  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    // Column-major: Y (out × batch) = Wᵀ · X, with W [out][in] = an (in × out) column-major matrix.
    ktune::gemm(Trans::yes, Trans::no, d.out, d.batch, d.in, 1.0f, kept(layer, 0), d.in, x, d.in,
                0.0f, y, d.out, stream());
    epilogue(y, kept(layer, 1), d.batch, d.out, d.relu);
  }

 private:
  std::map<int, ConvDesc> shapes_;
};

}  // namespace

std::unique_ptr<Backend> make_ktune_backend() { return std::make_unique<KtuneBackend>(); }

}  // namespace ktune::nn::cuda
