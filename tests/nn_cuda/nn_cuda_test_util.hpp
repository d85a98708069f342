#pragma once
// Helpers of the CUDA network backend tests: one layer call on device copies into a
// NaN-poisoned output, the relative error against a reference, pooling in float64.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ktune/nn/backend.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/reference.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace ktune::nn::test {

// Uniform in [-1, 1), reproducible per seed.
constexpr auto* random_vector = &testing::random_floats;

// Runs one layer call on device copies of `in` (and `in2`) into a NaN-poisoned output.
template <typename Call>
std::vector<float> run_on(Backend& b, const std::vector<float>& in, size_t out_count, Call call,
                          const std::vector<float>& in2 = {}) {
  float* x = b.alloc(in.size());
  float* x2 = b.alloc(std::max<size_t>(in2.size(), 1));
  float* y = b.alloc(out_count);
  const std::vector<float> poison(out_count, std::numeric_limits<float>::quiet_NaN());
  b.upload(x, in.data(), in.size());
  if (!in2.empty()) b.upload(x2, in2.data(), in2.size());
  b.upload(y, poison.data(), out_count);
  call(x, x2, y);
  std::vector<float> out(out_count);
  b.download(out.data(), y, out_count);
  return out;
}

// Relative Frobenius error ||got − want|| / ||want|| (infinite when got holds a NaN).
inline double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

// Values that are not TF32 values (one of the 13 low mantissa bits set): what a TF32-rounded
// store must never leave.
inline int64_t not_tf32_values(const std::vector<float>& values) {
  int64_t n = 0;
  for (float v : values) n += (std::bit_cast<uint32_t>(v) & 0x1fffu) != 0;
  return n;
}

// The conv shapes of the layer tests: VGG 3×3 (`vgg_c` input channels), ResNet 1×1 (stride 1 and
// the stride-2 downsample), the 7×7 stem, a strided 3×3.
inline std::vector<ConvDesc> conv_shapes(int64_t vgg_c) {
  return {{2, 9, 9, vgg_c, 8 + (vgg_c > 8 ? 8 : 0), 3, 3, 1, 1, true},
          {2, 7, 7, 16, 12, 1, 1, 1, 0, false},
          {2, 8, 8, 8, 16, 1, 1, 2, 0, false},
          {2, 15, 15, 3, 8, 7, 7, 2, 3, true},
          {2, 9, 9, 8, 8, 3, 3, 2, 1, true}};
}

// Seeded operands of conv case `i` and the float64 reference's output.
struct ConvCase {
  std::vector<float> in, filter, bias, want;
};
inline ConvCase conv_case(const ConvDesc& d, unsigned i) {
  ConvCase c{random_vector(size_t(d.n * d.h * d.w * d.c), 1 + i),
             random_vector(size_t(d.k * d.r * d.s * d.c), 11 + i),
             random_vector(size_t(d.k), 21 + i),
             std::vector<float>(size_t(d.n * d.p() * d.q() * d.k))};
  cpu::reference_conv2d(d, c.in.data(), c.filter.data(), c.bias.data(), c.want.data());
  return c;
}

// Row-wise softmax of rows × cols values in float64 (max subtracted).
inline std::vector<double> reference_softmax(const std::vector<float>& x, int64_t rows,
                                             int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t row = 0; row < rows; ++row) {
    const float* l = x.data() + row * cols;
    const double top = *std::max_element(l, l + cols);
    double sum = 0;
    for (int64_t i = 0; i < cols; ++i) sum += std::exp(double(l[i]) - top);
    for (int64_t i = 0; i < cols; ++i)
      y[size_t(row * cols + i)] = std::exp(double(l[i]) - top) / sum;
  }
  return y;
}

// Max and average pooling of NHWC `in` as PoolDesc defines them, in float64, rounded once.
inline void reference_pool(const PoolDesc& pool, const std::vector<float>& in,
                           std::vector<float>& max, std::vector<float>& avg) {
  max.assign(size_t(pool.n * pool.p() * pool.q() * pool.c), 0.0f);
  avg = max;
  for (int64_t b = 0; b < pool.n; ++b)
    for (int64_t y = 0; y < pool.p(); ++y)
      for (int64_t xq = 0; xq < pool.q(); ++xq)
        for (int64_t c = 0; c < pool.c; ++c) {
          double m = -1e300, sum = 0;
          for (int64_t i = 0; i < pool.window; ++i)
            for (int64_t j = 0; j < pool.window; ++j) {
              const int64_t iy = y * pool.stride - pool.pad + i,
                            ix = xq * pool.stride - pool.pad + j;
              if (iy < 0 || iy >= pool.h || ix < 0 || ix >= pool.w) continue;
              const double v = in[size_t(((b * pool.h + iy) * pool.w + ix) * pool.c + c)];
              m = std::max(m, v), sum += v;
            }
          const size_t o = size_t(((b * pool.p() + y) * pool.q() + xq) * pool.c + c);
          max[o] = float(m), avg[o] = float(sum / double(pool.window * pool.window));
        }
}

// The CPU `reference` backend's logits and probabilities of `net` on `input_nhwc` (float64
// accumulation): what the CUDA backends' whole networks are checked against.
struct ReferenceOutputs {
  std::vector<float> logits, probs;
};
inline ReferenceOutputs reference_outputs(const Network& net, const Weights& weights,
                                          const std::vector<float>& input_nhwc) {
  cpu::register_reference_backend();
  auto reference = make_backend("reference");
  Engine engine(net, weights, *reference);
  engine.set_input(input_nhwc.data());
  engine.forward();
  const size_t count = size_t(net.batch * net.classes);
  ReferenceOutputs out{std::vector<float>(count), std::vector<float>(count)};
  engine.logits(out.logits.data());
  engine.probabilities(out.probs.data());
  return out;
}

// The tiny network at `batch` with weights of `seed`, an input of seed + 1 (NHWC) and the
// reference's outputs on it.
struct TinyCase {
  Network net;
  Weights weights;
  std::vector<float> input;
  ReferenceOutputs want;
};
inline TinyCase tiny_case(int64_t batch, uint64_t seed) {
  TinyCase t{make_network("tiny", batch), {}, {}, {}};
  t.weights = random_weights(t.net, seed);
  t.input = nchw_to_nhwc(random_input_nchw(t.net, seed + 1), batch, 3, t.net.image, t.net.image);
  t.want = reference_outputs(t.net, t.weights, t.input);
  return t;
}

}  // namespace ktune::nn::test
