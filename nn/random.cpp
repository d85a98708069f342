// Seeded random parameters and inputs (network.hpp): portable, so a seed names one network.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "ktune/nn/network.hpp"

namespace ktune::nn {

namespace {

// std::normal_distribution differs between standard libraries; this does not.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();  // u1 in (0, 1]
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace

Weights random_weights(const Network& net, uint64_t seed) {
  Rng rng(seed);
  Weights w(net.name + " random weights (seed " + std::to_string(seed) + ")");
  const auto add = [&](const std::string& name, std::vector<int64_t> shape, auto draw) {
    Tensor t;
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    t.shape = std::move(shape);
    t.data.resize(size_t(count));
    for (auto& v : t.data) v = float(draw());
    w.set(name, std::move(t));
  };
  const auto normal = [&](double std_dev) {
    return [&rng, std_dev] { return std_dev * rng.normal(); };
  };
  const auto gamma_like = [&rng] { return 0.5 + rng.uniform(); };
  for (const auto& l : net.layers) {
    if (l.kind == LayerKind::conv) {
      const auto& d = l.conv;
      const int64_t fan_in = d.c / l.groups * d.r * d.s;
      add(l.name + ".weight", {d.k, d.c / l.groups, d.r, d.s},
          normal(std::sqrt(2.0 / double(fan_in))));
      if (l.conv_bias) add(l.name + ".bias", {d.k}, normal(0.01));
      if (!l.bn.empty()) {
        // The last batch-norm of a residual branch gets a small gamma (as torchvision's
        // zero_init_residual, not zero): otherwise the variance doubles at every block and
        // ResNet-50's logits reach ~1e5, a saturated softmax that checks nothing.
        const bool branch_end =
            std::any_of(net.layers.begin(), net.layers.end(),
                        [&](const Layer& a) { return a.kind == LayerKind::add && a.in == l.out; });
        if (branch_end)
          add(l.bn + ".weight", {d.k}, [&rng] { return 0.05 + 0.2 * rng.uniform(); });
        else
          add(l.bn + ".weight", {d.k}, gamma_like);
        add(l.bn + ".bias", {d.k}, normal(0.1));
        add(l.bn + ".running_mean", {d.k}, normal(0.1));
        add(l.bn + ".running_var", {d.k}, gamma_like);
      }
    } else if (l.kind == LayerKind::fc) {
      add(l.name + ".weight", {l.fc.out, l.fc.in}, normal(std::sqrt(2.0 / double(l.fc.in))));
      add(l.name + ".bias", {l.fc.out}, normal(0.01));
    }
  }
  return w;
}

std::vector<float> random_normal(size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(count);
  for (auto& v : x) v = float(rng.normal());
  return x;
}

std::vector<float> random_input_nchw(const Network& net, uint64_t seed) {
  // Not the weights' stream for the same seed.
  return random_normal(size_t(net.batch * 3 * net.image * net.image), seed ^ 0x9e3779b97f4a7c15ULL);
}

}  // namespace ktune::nn
