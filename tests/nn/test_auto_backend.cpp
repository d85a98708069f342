// The `auto` backend picks, per layer, the candidate that is fastest on that layer: planted fake
// `ktune`, `onednn` and `onednn_winograd` backends (correct results from the float64 reference,
// plus a sleep that makes them slow on chosen layers) stand in for the real ones while it is
// built.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "ktune/nn/engine.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/registry.hpp"
#include "ktune/nn/weights.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/reference.hpp"
#include "tests/nn/nn_test_util.hpp"

namespace ktune::nn {
namespace {

using testing::random_floats;

// Reference results; sleeps 40 ms (far above a loaded machine's scheduling noise) in every call on
// the layers in `slow` (for conv2d_add: the layers in `slow_fused`). The residual add runs on the
// calling thread: HostBackend's OpenMP add waits for a second thread, which on a machine loaded
// with builds can take as long as a sleep and made a fast candidate look slow.
class PlantedBackend final : public cpu::CopyingBackend {
 public:
  PlantedBackend(std::string name, std::set<int> slow, std::set<int> slow_fused)
      : name_(std::move(name)), slow_(std::move(slow)), slow_fused_(std::move(slow_fused)) {}
  std::string name() const override { return name_; }
  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    pause(slow_.count(layer));
    cpu::reference_conv2d(d, in, params(layer).weight.data(), params(layer).bias.data(), out);
  }
  bool conv2d_add(int layer, const ConvDesc& d, const float* in, const float* residual, float* out,
                  bool relu) override {
    if (name_ != "ktune") return false;  // like the real ones: only ktune fuses the add
    pause(slow_fused_.count(layer));
    cpu::reference_conv2d(d, in, params(layer).weight.data(), params(layer).bias.data(), out);
    add(out, residual, out, size_t(d.n * d.p() * d.q() * d.k), relu);
    return true;
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    pause(slow_.count(layer));
    cpu::reference_fc(d, x, params(layer).weight.data(), params(layer).bias.data(), y);
  }
  void add(const float* a, const float* b, float* out, size_t count, bool relu) override {
    for (size_t i = 0; i < count; ++i) out[i] = relu ? std::max(a[i] + b[i], 0.f) : a[i] + b[i];
  }

 private:
  static void pause(bool slow) {
    if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  std::string name_;
  std::set<int> slow_, slow_fused_;
};

class AutoBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::cpu_backend_names().size() < 5) GTEST_SKIP() << "no oneDNN in this build";
    // Each layer has one candidate that is fast where the others are slow:
    //   alone:  ktune on 0 and the fc 3, onednn on 1 and 2, onednn_winograd on 4 and the fc 5;
    //   fused:  ktune on 0, onednn (+ its add) on 2, onednn_winograd (+ its add) on 4.
    register_backend("ktune", "planted", [] {
      return std::make_unique<PlantedBackend>("ktune", std::set<int>{1, 2, 4, 5},
                                              std::set<int>{2, 4});
    });
    register_backend("onednn", "planted", [] {
      return std::make_unique<PlantedBackend>("onednn", std::set<int>{0, 3, 4, 5}, std::set<int>{});
    });
    register_backend("onednn_winograd", "planted", [] {
      return std::make_unique<PlantedBackend>("onednn_winograd", std::set<int>{0, 1, 2, 3},
                                              std::set<int>{});
    });
  }
  void TearDown() override { register_cpu_backends(); }  // the real ones again
};

TEST_F(AutoBackendTest, EachLayerRunsOnItsFastestCandidateAndStaysCorrect) {
  auto backend = make_backend("auto");
  const ConvDesc conv{1, 6, 6, 4, 8, 3, 3, 1, 1, false};
  const FcDesc fc{2, 16, 5, true};
  const auto filter = random_floats(size_t(conv.k * conv.r * conv.s * conv.c), 1);
  const auto bias = random_floats(size_t(conv.k), 2);
  const auto weight = random_floats(size_t(fc.out * fc.in), 3);
  for (int layer : {0, 1, 2, 4}) backend->prepare_conv(layer, conv, filter.data(), bias.data());
  for (int layer : {3, 5}) backend->prepare_fc(layer, fc, weight.data(), bias.data());

  EXPECT_EQ(backend->layer_choice(0), "");  // nothing ran yet
  const std::string choices = backend->choices();
  EXPECT_NE(choices.find("6 layers: 2 on ktune, 2 on onednn, 2 on onednn_winograd;"),
            std::string::npos)
      << choices;

  // Whatever runs it, the result is the reference's (outputs poisoned first).
  const auto in = random_floats(size_t(conv.n * conv.h * conv.w * conv.c), 4);
  const auto residual = random_floats(size_t(conv.n * conv.p() * conv.q() * conv.k), 5);
  std::vector<float> want(residual.size());
  cpu::reference_conv2d(conv, in.data(), filter.data(), bias.data(), want.data());
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(want[i] + residual[i], 0.f);
  for (int layer : {0, 1, 2, 4}) {
    std::vector<float> got(want.size(), std::numeric_limits<float>::quiet_NaN());
    ASSERT_TRUE(backend->conv2d_add(layer, conv, in.data(), residual.data(), got.data(), true));
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5) << "layer " << layer << " at " << i;
  }
  // With the residual add: 0 on ktune (the others' convs slow), 2 on oneDNN + add (ktune's fused
  // call and the Winograd conv slow), 4 on oneDNN's Winograd + add; 1 either of two.
  EXPECT_EQ(backend->layer_choice(0), "ktune");
  EXPECT_EQ(backend->layer_choice(2), "onednn");
  EXPECT_EQ(backend->layer_choice(4), "onednn_winograd");
  // Alone: 0 on ktune, 1 on oneDNN (2 too), 4 on oneDNN's Winograd; the fcs 3 on ktune and 5 on the
  // Winograd backend (its fc is oneDNN's inner product, but a planted win must be taken).
  std::vector<float> scratch(want.size());
  for (int layer : {0, 1, 4}) backend->conv2d(layer, conv, in.data(), scratch.data());
  EXPECT_EQ(backend->layer_choice(0), "ktune");
  EXPECT_EQ(backend->layer_choice(1), "onednn");
  EXPECT_EQ(backend->layer_choice(4), "onednn_winograd");
  const auto x = random_floats(size_t(fc.batch * fc.in), 6);
  std::vector<float> y(size_t(fc.batch * fc.out));
  backend->fc(3, fc, x.data(), y.data());
  EXPECT_EQ(backend->layer_choice(3), "ktune");
  backend->fc(5, fc, x.data(), y.data());
  EXPECT_EQ(backend->layer_choice(5), "onednn_winograd");
  EXPECT_EQ(backend->layer_choice(9), "");
  EXPECT_THROW(backend->conv2d(7, conv, in.data(), std::vector<float>(want.size()).data()),
               std::exception);
}

// The whole-network variants: the per-layer picks, then each candidate alone; a variant runs
// every layer on its candidate whatever the per-layer pick.
TEST_F(AutoBackendTest, EachCandidateAloneIsAWholeNetworkVariant) {
  auto backend = make_backend("auto");
  ASSERT_EQ(backend->variants(), 4);
  EXPECT_EQ(backend->variant_name(0), "each layer on its fastest backend");
  EXPECT_EQ(backend->variant_name(1), "ktune alone");
  EXPECT_EQ(backend->variant_name(2), "onednn alone");
  EXPECT_EQ(backend->variant_name(3), "onednn_winograd alone");
  EXPECT_THROW(backend->use_variant(4), std::exception);

  const ConvDesc conv{1, 6, 6, 4, 8, 3, 3, 1, 1, false};
  const auto filter = random_floats(size_t(conv.k * conv.r * conv.s * conv.c), 1);
  const auto bias = random_floats(size_t(conv.k), 2);
  backend->prepare_conv(0, conv, filter.data(), bias.data());  // fastest on ktune
  const auto in = random_floats(size_t(conv.n * conv.h * conv.w * conv.c), 4);
  std::vector<float> out(size_t(conv.n * conv.p() * conv.q() * conv.k));
  const char* runs[] = {"ktune", "ktune", "onednn", "onednn_winograd"};  // by variant
  for (int variant : {3, 2, 1, 0}) {
    backend->use_variant(variant);
    backend->conv2d(0, conv, in.data(), out.data());
    EXPECT_EQ(backend->layer_choice(0), runs[variant]) << "variant " << variant;
  }
}

// Two whole-network variants on the reference's layers; conv2d calls pause() first.
class TwoVariants : public cpu::CopyingBackend {
 public:
  int used = -1;
  int variants() const override { return 2; }
  void use_variant(int v) override { used = v; }
  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    pause();
    cpu::reference_conv2d(d, in, params(layer).weight.data(), params(layer).bias.data(), out);
  }
  void fc(int layer, const FcDesc& d, const float* x, float* y) override {
    cpu::reference_fc(d, x, params(layer).weight.data(), params(layer).bias.data(), y);
  }

 protected:
  virtual void pause() {}
};

// The first variant 25 ms slower per conv: the engine must time both at build time, keep the
// second, and say so.
class SlowFirstVariant final : public TwoVariants {
 public:
  std::string name() const override { return "variants"; }
  std::string variant_name(int v) const override { return v == 0 ? "first" : "second"; }
  void pause() override {
    if (used == 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
};

TEST(NnEngineVariants, TheFastestWholeNetworkVariantIsKeptAndNamed) {
  const Network net = make_network("tiny", 1);
  SlowFirstVariant backend;
  const Engine engine(net, random_weights(net, 3), backend);
  EXPECT_EQ(backend.used, 1);
  ASSERT_FALSE(engine.notes().empty());
  EXPECT_NE(engine.notes().back().find("variants: runs second"), std::string::npos)
      << engine.notes().back();
}

// Planted whole-network times (Backend::time_forward) of a machine that starts slow: the first 4
// passes take 3× as long. Variant 0 (1.0 ms) is faster than 1 (1.2 ms) but is timed first; the
// engine must time the variants in interleaved rounds, say how many, and keep variant 0.
class RampingVariants final : public TwoVariants {
 public:
  int passes = 0;
  std::vector<int> timed;  // the variant of every timed pass, in order
  std::string name() const override { return "ramping"; }
  std::string variant_name(int v) const override { return v == 0 ? "fast" : "slow"; }
  double time_forward(const std::function<void()>& forward, int) override {
    forward();
    timed.push_back(used);
    return (used == 0 ? 1.0 : 1.2) * (passes++ < 4 ? 3.0 : 1.0);
  }
};

TEST(NnEngineVariants, VariantsAreTimedInInterleavedRoundsSoADriftDecidesNothing) {
  const Network net = make_network("tiny", 1);
  RampingVariants backend;
  const Engine engine(net, random_weights(net, 3), backend);
  EXPECT_EQ(backend.used, 0);
  ASSERT_GE(backend.timed.size(), 8u);  // a warm-up round and at least 3 timed ones
  EXPECT_EQ(backend.timed[0], 0);
  EXPECT_EQ(backend.timed[1], 1);
  EXPECT_EQ(backend.timed[2], 1);  // the next round starts with the other variant
  ASSERT_FALSE(engine.notes().empty());
  const auto& note = engine.notes().back();
  EXPECT_NE(note.find("ramping: runs fast"), std::string::npos) << note;
  EXPECT_NE(note.find("interleaved rounds"), std::string::npos) << note;
}

}  // namespace
}  // namespace ktune::nn
