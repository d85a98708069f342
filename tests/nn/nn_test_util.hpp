#pragma once
// Helpers shared by the engine tests.
#include <random>
#include <string>
#include <vector>

#include "ktune/nn/registry.hpp"

namespace ktune::nn::testing {

// Uniform in [-1, 1), reproducible per seed.
inline std::vector<float> random_floats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

// The CPU backends of this build (registering them first): the engine tests run on each.
inline std::vector<std::string> cpu_backend_names() {
  register_cpu_backends();
  std::vector<std::string> names;
  for (const auto& [name, summary] : backend_list())
    if (name == "reference" || name == "ktune" || name == "ktune_pool" || name == "onednn" ||
        name == "onednn_winograd" || name == "auto")
      names.push_back(name);
  return names;
}

}  // namespace ktune::nn::testing
