// The conv1d CPU backend: the blocked kernel of conv1d_cpu_kernel.hpp (`acc` independent partial
// sums per output), measured with the shared host protocol (ktune/host_measure.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include "examples/families/conv1d/conv1d_family.hpp"
#include "examples/families/conv1d/cpu/conv1d_cpu_kernel.hpp"
#include "ktune/error.hpp"
#include "ktune/host_backend.hpp"
#include "ktune/host_measure.hpp"

namespace ktune::conv1d {
namespace {

namespace kernel = ktune::kernels::conv1d;

void conv(const Shape& s, int block, int acc, const float* x, const float* w, float* y) {
  switch (acc) {
    case 1:
      return kernel::conv<1>(s.n, s.taps, block, x, w, y);
    case 2:
      return kernel::conv<2>(s.n, s.taps, block, x, w, y);
    case 4:
      return kernel::conv<4>(s.n, s.taps, block, x, w, y);
    default:
      return kernel::conv<8>(s.n, s.taps, block, x, w, y);
  }
}

std::vector<float> random_values(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& e : v) {
    do e = u(rng);
    while (e == 0.0f);  // non-zero data
  }
  return v;
}

class Session final : public ProblemSession {
 public:
  Session(const Space& space, const Problem& p, double llc_bytes)
      : space_(space), shape_(shape_of(p)), w_(random_values(size_t(shape_.taps), 7)) {
    const auto seed = std::hash<std::string>{}(p.key());
    const auto x = random_values(size_t(shape_.n), seed);
    reference_ = reference(shape_, x, w_);
    const double bytes = 4.0 * double(shape_.n + shape_.outputs());
    rotation_ = host_rotation(bytes, llc_bytes);
    x_.assign(rotation_.copies, x);
    y_.assign(rotation_.copies, std::vector<float>(size_t(shape_.outputs())));
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    const int block = block_of(space_, config), acc = accumulators_of(space_, config);
    auto run_copy = [&](size_t c) {
      conv(shape_, block, acc, x_[c].data(), w_.data(), y_[c].data());
    };
    auto verify = [&] {
      std::fill(y_[0].begin(), y_[0].end(), std::numeric_limits<float>::quiet_NaN());
      run_copy(0);
      double diff = 0, norm = 0;
      for (size_t i = 0; i < reference_.size(); ++i) {
        diff += (double(y_[0][i]) - reference_[i]) * (double(y_[0][i]) - reference_[i]);
        norm += reference_[i] * reference_[i];
      }
      return judge_error(std::sqrt(diff / std::max(norm, 1e-300)), error_bound(shape_.taps));
    };
    return verify_then_time_on_host(verify, run_copy, rotation_, policy);
  }

  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    throw Error(fmt::format("conv1d has no vendor baseline '{}'", vendor));
  }

 private:
  const Space& space_;
  Shape shape_;
  std::vector<float> w_;
  std::vector<double> reference_;
  HostRotation rotation_;
  std::vector<std::vector<float>> x_, y_;
};

}  // namespace

void register_cpu_backend() {
  register_host_backend("conv1d",
                        [](const Family& family, const Problem& problem, double llc_bytes) {
                          return std::make_unique<Session>(family.space(), problem, llc_bytes);
                        });
}

}  // namespace ktune::conv1d
