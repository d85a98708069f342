// libFuzzer harness: safetensors weight files as the network engine loads them
// (ktune::nn::Weights::load_safetensors). A file that loads holds, for every F32 tensor, exactly
// the product of its shape in finite values, and saves and loads back to the same tensors.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "ktune/error.hpp"
#include "ktune/nn/weights.hpp"

namespace {

// The loader reads a path: each input goes through one file per process.
std::string scratch(const char* what) {
  return "/tmp/ktune_fuzz_safetensors_" + std::to_string(::getpid()) + what;
}

bool holds_its_shape(const ktune::nn::Tensor& t) {
  uint64_t count = 1;
  for (int64_t d : t.shape) {
    if (d < 0 || __builtin_mul_overflow(count, uint64_t(d), &count)) return false;
  }
  if (t.data.size() != count) return false;
  for (float v : t.data)
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string input = scratch(".in"), saved = scratch(".out");
  std::ofstream(input, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  ktune::nn::Weights w;
  try {
    w = ktune::nn::Weights::load_safetensors(input);
  } catch (const ktune::Error&) {
    return 0;
  }
  ktune::nn::Weights f32;  // what save writes: the F32 tensors
  for (const auto& [name, t] : w.tensors()) {
    if (t.dtype != "F32") continue;
    if (!holds_its_shape(t)) __builtin_trap();
    f32.set(name, t);
  }
  f32.save_safetensors(saved);
  const auto back = ktune::nn::Weights::load_safetensors(saved);
  if (back.tensors().size() != f32.tensors().size()) __builtin_trap();
  for (const auto& [name, t] : f32.tensors()) {
    const auto& b = back.tensors().at(name);
    if (b.shape != t.shape || b.data != t.data) __builtin_trap();
  }
  return 0;
}
