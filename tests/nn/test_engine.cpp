// The engine on the tiny network: every CPU backend against an independent float64 forward pass
// in PyTorch's terms (tests/nn/torch_reference.cpp), batch-norm folding, the flatten permutation,
// buffer sharing, and the network catalogue's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#include "tests/nn/nn_test_util.hpp"
#include "tests/nn/torch_reference.hpp"

namespace ktune::nn {
namespace {

using testing::random_floats;

// Tolerance: float32 storage between layers and float32 accumulation in the fast backends over
// at most 144-term dot products; 1e-4 of the largest |logit| leaves a margin of ~10x.
constexpr double kRelTolerance = 1e-4;

TEST(NnEngine, TinyOnEveryCpuBackendMatchesTorchSemanticsInFloat64) {
  register_cpu_backends();
  constexpr int batch = 3;
  const Network net = make_network("tiny", batch);
  const Weights w = random_weights(net, 42);
  const auto input = random_floats(size_t(batch * 3 * 16 * 16), 7);
  const auto want = testing::tiny_forward_nchw(w, input, batch);
  double scale = 0;
  for (double v : want) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 0.1);
  const auto nhwc = nchw_to_nhwc(input, batch, 3, 16, 16);
  int tested = 0;
  for (const auto& name : testing::cpu_backend_names()) {
    auto backend = make_backend(name);
    Engine engine(net, w, *backend);
    engine.set_input(nhwc.data());
    std::vector<float> logits(size_t(batch * 10), std::numeric_limits<float>::quiet_NaN());
    for (int rep = 0; rep < 2; ++rep) {  // a second forward must see the same input
      engine.forward();
      std::fill(logits.begin(), logits.end(), std::numeric_limits<float>::quiet_NaN());
      engine.logits(logits.data());
      for (size_t i = 0; i < logits.size(); ++i)
        ASSERT_NEAR(logits[i], want[i], kRelTolerance * scale) << name << " logit " << i;
    }
    std::vector<float> probs(logits.size(), std::nanf(""));
    engine.probabilities(probs.data());
    for (int b = 0; b < batch; ++b) {
      double sum = 0, top = -1e300;
      for (int i = 0; i < 10; ++i) top = std::max(top, want[size_t(b * 10 + i)]);
      for (int i = 0; i < 10; ++i) sum += std::exp(want[size_t(b * 10 + i)] - top);
      for (int i = 0; i < 10; ++i)
        EXPECT_NEAR(probs[size_t(b * 10 + i)], std::exp(want[size_t(b * 10 + i)] - top) / sum, 1e-4)
            << name;
    }
    EXPECT_GT(engine.last_ms(), 0.0) << name;
    EXPECT_EQ(engine.layer_ms().size(), net.layers.size());
    ++tested;
  }
  EXPECT_GE(tested, 1);
  std::printf("tiny network checked on %d CPU backends\n", tested);
}

// The reference backend, with conv2d_add as its own conv2d then add (counted), so that the fused
// path of the engine can be compared with the plain one operation for operation.
class FusingReference final : public Backend {
 public:
  FusingReference() : inner_(make_backend("reference")) {}
  int fused = 0;
  std::string name() const override { return "fusing-reference"; }
  std::string device() const override { return inner_->device(); }
  float* alloc(size_t n) override { return inner_->alloc(n); }
  void upload(float* d, const float* h, size_t n) override { inner_->upload(d, h, n); }
  void download(float* h, const float* d, size_t n) override { inner_->download(h, d, n); }
  void prepare_conv(int l, const ConvDesc& d, const float* f, const float* b) override {
    inner_->prepare_conv(l, d, f, b);
    out_count_[l] = size_t(d.n * d.p() * d.q() * d.k);
  }
  void prepare_fc(int l, const FcDesc& d, const float* w, const float* b) override {
    inner_->prepare_fc(l, d, w, b);
  }
  void conv2d(int l, const ConvDesc& d, const float* in, float* out) override {
    inner_->conv2d(l, d, in, out);
  }
  bool conv2d_add(int l, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    EXPECT_NE(out, in);
    EXPECT_NE(out, residual);
    inner_->conv2d(l, d, in, out);
    inner_->add(out, residual, out, out_count_.at(l), relu);
    ++fused;
    return true;
  }
  void fc(int l, const FcDesc& d, const float* x, float* y) override { inner_->fc(l, d, x, y); }
  void max_pool(const PoolDesc& d, const float* i, float* o) override { inner_->max_pool(d, i, o); }
  void avg_pool(const PoolDesc& d, const float* i, float* o) override { inner_->avg_pool(d, i, o); }
  void add(const float* a, const float* b, float* o, size_t n, bool relu) override {
    inner_->add(a, b, o, n, relu);
  }
  void softmax(int64_t b, int64_t c, const float* x, float* y) override {
    inner_->softmax(b, c, x, y);
  }
  void synchronize() override {}
  void reserve_marks(int n) override { inner_->reserve_marks(n); }
  void mark(int i) override { inner_->mark(i); }
  double elapsed_ms(int i, int j) override { return inner_->elapsed_ms(i, j); }

 private:
  std::unique_ptr<Backend> inner_;
  std::map<int, size_t> out_count_;
};

TEST(NnEngine, ConvThenResidualAddRunsAsOneFusedCall) {
  register_cpu_backends();
  const Network net = make_network("tiny", 2);
  const Weights w = random_weights(net, 5);
  const auto input = random_floats(size_t(2 * 16 * 16 * 3), 6);
  std::vector<float> plain(20), fused(20, std::nanf(""));
  auto reference = make_backend("reference");
  Engine a(net, w, *reference);
  a.set_input(input.data());
  a.forward();
  a.logits(plain.data());
  FusingReference backend;
  Engine b(net, w, backend);
  b.set_input(input.data());
  b.forward();
  b.logits(fused.data());
  EXPECT_EQ(backend.fused, 1);  // tiny's one block: its downsample conv feeds the add
  EXPECT_EQ(fused, plain);
  EXPECT_EQ(b.layer_ms().size(), net.layers.size());
}

TEST(NnEngine, BatchNormIsFoldedIntoWeightAndBias) {
  // One 1×1 conv, 1 input channel, 2 outputs: W' = W·γ/√(var+ε), b' = (0 − mean)·γ/√(var+ε) + β.
  Layer l;
  l.kind = LayerKind::conv;
  l.name = "c";
  l.bn = "b";
  l.conv = {1, 1, 1, 1, 2, 1, 1, 1, 0, false};
  Weights w;
  w.set("c.weight", {{2, 1, 1, 1}, {2.0f, -3.0f}});
  w.set("b.weight", {{2}, {0.5f, 2.0f}});
  w.set("b.bias", {{2}, {1.0f, -1.0f}});
  w.set("b.running_mean", {{2}, {0.25f, 4.0f}});
  w.set("b.running_var", {{2}, {3.0f, 0.0f}});
  const auto p = conv_params(l, w);
  const double s0 = 0.5 / std::sqrt(3.0 + 1e-5), s1 = 2.0 / std::sqrt(1e-5);
  EXPECT_FLOAT_EQ(p.filter_krsc[0], float(2.0 * s0));
  EXPECT_FLOAT_EQ(p.filter_krsc[1], float(-3.0 * s1));
  EXPECT_FLOAT_EQ(p.bias[0], float(-0.25 * s0 + 1.0));
  EXPECT_FLOAT_EQ(p.bias[1], float(-4.0 * s1 - 1.0));
  w.set("b.running_var", {{2}, {3.0f, -1.0f}});
  EXPECT_THROW(conv_params(l, w), Error);
}

TEST(NnEngine, FlattenPermutationMapsNchwToNhwc) {
  // in = h·w·c = 2·3·2; weight[o][i] = i (NCHW index) → permuted[o][nhwc index] = nchw index.
  std::vector<float> weight(12);
  for (int i = 0; i < 12; ++i) weight[size_t(i)] = float(i);
  const auto p = fc_weight_nhwc(weight, 1, 2, 3, 2);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 2; ++c)
        EXPECT_EQ(p[size_t((y * 3 + x) * 2 + c)], float((c * 2 + y) * 3 + x));
}

TEST(NnEngine, BuffersAreSharedAcrossLayers) {
  register_cpu_backends();
  const Network net = make_network("tiny", 2);
  size_t all = 0, largest = 0;
  for (const auto& t : net.tensors) {
    all += size_t(t.count()) * sizeof(float);
    largest = std::max(largest, size_t(t.count()) * sizeof(float));
  }
  auto backend = make_backend("reference");
  Engine engine(net, random_weights(net, 1), *backend);
  EXPECT_LT(engine.activation_bytes(), all);
  EXPECT_GE(engine.activation_bytes(), largest);
}

TEST(NnEngine, CatalogueShapesAndErrors) {
  const Network vgg = make_network("vgg16", 2);
  size_t convs = 0, fcs = 0;
  for (const auto& l : vgg.layers)
    convs += l.kind == LayerKind::conv, fcs += l.kind == LayerKind::fc;
  EXPECT_EQ(convs, 13u);
  EXPECT_EQ(fcs, 3u);
  EXPECT_EQ(vgg.layers[size_t(vgg.layers.size() - 4)].fc.in, 7 * 7 * 512);
  const Network resnet = make_network("resnet50", 1);
  size_t resnet_convs = 0;
  for (const auto& l : resnet.layers) resnet_convs += l.kind == LayerKind::conv;
  EXPECT_EQ(resnet_convs, 53u);  // 1 + 16 bottlenecks × 3 + 4 downsamples
  // torchvision's parameter counts: VGG16 138,357,544; ResNet-50 25,557,032 (+ BN running stats).
  const auto count = [](const Network& n, bool with_stats) {
    int64_t total = 0;
    for (const auto& p : parameters(n)) {
      if (!with_stats && p.name.find("running_") != std::string::npos) continue;
      int64_t c = 1;
      for (int64_t d : p.shape) c *= d;
      total += c;
    }
    return total;
  };
  EXPECT_EQ(count(vgg, false), 138357544);
  EXPECT_EQ(count(resnet, false), 25557032);
  EXPECT_THROW(make_network("vgg19", 1), Error);
  EXPECT_THROW(make_network("tiny", 0), Error);
  try {
    make_network("alexnet", 1);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown network 'alexnet' (known: resnet50, tiny, vgg16)");
  }
}

}  // namespace
}  // namespace ktune::nn
