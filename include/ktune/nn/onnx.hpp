#pragma once
// ONNX models on the inference engine (docs/networks.md, "ONNX models"): a model of Conv (groups
// included), Gemm / MatMul, Relu, Clip, BatchNormalization, Add, MaxPool / AveragePool,
// GlobalAveragePool, Flatten / Reshape, Concat, Softmax, Dropout / Identity and Constant becomes
// a Network and its Weights, which Engine runs on any backend. Batch-norm after a conv is folded
// into it; Relu after a conv, fc or add is fused into it; the last layer's output is the logits
// (a final Softmax gives the probabilities, else one is added). Shapes are checked here, at load.
// Every problem — a file that is not an ONNX model, an op outside the set, an attribute the
// engine does not run, a shape that does not fit — is one ktune::Error line naming the file and,
// where there is one, the node and its op.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ktune/nn/network.hpp"
#include "ktune/nn/weights.hpp"

namespace ktune::nn {

struct OnnxModel {
  Network network;
  Weights weights;  // keyed "<layer>.weight", "<layer>.bias", "<batch-norm>.running_mean", ...
};

// The model's input must be one float tensor [N, 3, H, H] (N fixed or symbolic: `batch` is used;
// a fixed N other than `batch` is an error); its output one [N, classes] tensor.
OnnxModel load_onnx(const std::string& path, int64_t batch);
// The same from bytes in memory (`source` names them in errors); the fuzz harness's entry.
OnnxModel parse_onnx(const void* data, size_t size, const std::string& source, int64_t batch);

}  // namespace ktune::nn
