// `ktune`: convolutions by ktune::conv2d (the tuned CPU conv library of examples/tuned-conv),
// fully connected layers by ktune::gemm (the tuned CPU GEMM library of examples/tuned-gemm),
// bias + ReLU in one OpenMP pass after each kernel (neither library has an epilogue hook).
#include <vector>

#include "ktune/conv2d.hpp"
#include "ktune/gemm.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/reference.hpp"

namespace ktune::nn::cpu {

namespace {

class KtuneBackend final : public CopyingBackend {
 public:
  std::string name() const override { return "ktune"; }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    const auto& p = params(layer);
    ktune::conv2d(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad, in, p.weight.data(), out);
    bias_relu(out, p.bias.data(), d.n * d.p() * d.q(), d.k, d.relu);
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    const auto& p = params(layer);
    // Column-major: Y^T (out × batch) = op(W) · X^T, where W [out][in] is an in × out
    // column-major matrix taken transposed and X^T (in × batch) is x as stored.
    ktune::gemm(Trans::yes, Trans::no, d.out, d.batch, d.in, 1.0f, p.weight.data(), d.in, x, d.in,
                0.0f, y, d.out);
    bias_relu(y, p.bias.data(), d.batch, d.out, d.relu);
  }
};

}  // namespace

void register_ktune_backend() {
  register_backend("ktune", "tuned CPU libraries: ktune::conv2d + ktune::gemm, bias+ReLU pass",
                   [] { return std::make_unique<KtuneBackend>(); });
}

}  // namespace ktune::nn::cpu
