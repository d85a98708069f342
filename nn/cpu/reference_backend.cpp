// `reference`: direct loops accumulating in float64, for tests (slow; no blocking, no SIMD).
#include <algorithm>
#include <vector>

#include "ktune/nn/registry.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/reference.hpp"

namespace ktune::nn::cpu {

namespace {

class ReferenceBackend final : public CopyingBackend {
 public:
  std::string name() const override { return "reference"; }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    const auto& p = params(layer);
    reference_conv2d(d, in, p.weight.data(), p.bias.data(), out);
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    const auto& p = params(layer);
    reference_fc(d, x, p.weight.data(), p.bias.data(), y);
  }
};

}  // namespace

void reference_conv2d(const ConvDesc& d, const float* in, const float* filter, const float* bias,
                      float* out) {
  const int64_t p = d.p(), q = d.q();
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t b = 0; b < d.n; ++b)
    for (int64_t y = 0; y < p; ++y)
      for (int64_t x = 0; x < q; ++x)
        for (int64_t k = 0; k < d.k; ++k) {
          double acc = bias[k];
          for (int64_t i = 0; i < d.r; ++i) {
            const int64_t iy = y * d.stride - d.pad + i;
            if (iy < 0 || iy >= d.h) continue;
            for (int64_t j = 0; j < d.s; ++j) {
              const int64_t ix = x * d.stride - d.pad + j;
              if (ix < 0 || ix >= d.w) continue;
              const float* src = in + ((b * d.h + iy) * d.w + ix) * d.c;
              const float* f = filter + ((k * d.r + i) * d.s + j) * d.c;
              for (int64_t c = 0; c < d.c; ++c) acc += double(src[c]) * double(f[c]);
            }
          }
          out[((b * p + y) * q + x) * d.k + k] = float(d.relu ? std::max(acc, 0.0) : acc);
        }
}

void reference_fc(const FcDesc& d, const float* x, const float* weight, const float* bias,
                  float* y) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t o = 0; o < d.out; ++o) {
      double acc = bias[o];
      for (int64_t i = 0; i < d.in; ++i)
        acc += double(x[b * d.in + i]) * double(weight[o * d.in + i]);
      y[b * d.out + o] = float(d.relu ? std::max(acc, 0.0) : acc);
    }
}

void register_reference_backend() {
  register_backend("reference", "float64-accumulating direct loops (tests; slow)",
                   [] { return std::make_unique<ReferenceBackend>(); });
}

}  // namespace ktune::nn::cpu
