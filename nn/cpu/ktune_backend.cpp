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
  // The weight is kept transposed, [in][out]: the tuned GEMM then runs op(A) = A, which measured
  // 1.4x faster on VGG16's fc layers than op(A) = A^T over [out][in] (docs/networks.md).
  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    std::vector<float> transposed(size_t(d.in * d.out));
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t i = 0; i < d.in; ++i) transposed[size_t(i * d.out + o)] = weight[o * d.in + i];
    store(layer, {std::move(transposed), std::vector<float>(bias, bias + d.out)});
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    const auto& p = params(layer);
    // Column-major: Y^T (out × batch) = A · X^T with A = the [in][out] weight read as an
    // out × in column-major matrix, X^T (in × batch) = x as stored.
    ktune::gemm(Trans::no, Trans::no, d.out, d.batch, d.in, 1.0f, p.weight.data(), d.out, x, d.in,
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
