#pragma once
// Helpers shared by the engine tests.
#include <random>
#include <vector>

namespace ktune::nn::testing {

// Uniform in [-1, 1), reproducible per seed.
inline std::vector<float> random_floats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace ktune::nn::testing
