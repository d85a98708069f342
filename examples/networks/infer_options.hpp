#pragma once
// ktune_infer's command line (docs/networks.md, "ktune_infer").
#include <cstdint>
#include <optional>
#include <string>

namespace ktune::nn {

struct InferOptions {
  std::string network, backend = "ktune";
  std::string onnx;  // an ONNX model instead of --network (its weights with it)
  int64_t batch = 1;
  std::string weights;  // safetensors file, or empty: random weights of `seed`
  uint64_t seed = 1;
  std::string input;  // safetensors file with "input" [batch][3][H][W], or empty
  uint64_t input_seed = 1;
  int reps = 20, warmup = 3;
  std::string logits, per_layer, csv, save_weights, save_input;
  bool list = false;
};

// Parses argv; returns nullopt after --help / --list (printed) and throws ktune::Error with one
// line for a bad option.
std::optional<InferOptions> parse_infer_options(int argc, char** argv);

}  // namespace ktune::nn
