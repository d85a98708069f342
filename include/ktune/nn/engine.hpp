#pragma once
// ktune::nn::Engine: runs a Network on a Backend. Everything is set up in the constructor —
// parameters checked against the network, batch-norm folded into conv weights and bias, conv
// filters transposed OIHW → KRSC, the first FC after a spatial map permuted from PyTorch's NCHW
// flatten order to NHWC, each layer prepared on the backend, activation buffers allocated (shared
// between tensors whose lifetimes do not overlap) — so forward() allocates nothing.
#include <memory>
#include <string>
#include <vector>

#include "ktune/nn/backend.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/weights.hpp"

namespace ktune::nn {

// A conv layer's parameters as the backend takes them (KRSC filter, bias; batch-norm folded:
// W' = W·γ/√(var+ε), b' = (b − mean)·γ/√(var+ε) + β).
struct ConvParams {
  std::vector<float> filter_krsc, bias;
};
ConvParams conv_params(const Layer& conv, const Weights& w);
// An fc layer's [out][in] weight with inputs reordered from NCHW flatten to NHWC flatten of a
// h × w × c input (the identity when h = w = 1).
std::vector<float> fc_weight_nhwc(const std::vector<float>& weight_nchw, int64_t out, int64_t h,
                                  int64_t w, int64_t c);

class Engine {
 public:
  // The backend must outlive the engine. Throws ktune::Error naming the tensor for bad weights.
  Engine(Network net, const Weights& weights, Backend& backend);

  const Network& network() const { return net_; }
  Backend& backend() { return backend_; }

  // Host input, NHWC [batch][image][image][3].
  void set_input(const float* nhwc);
  // One inference, asynchronous on backends that are (CUDA); marks every layer.
  void forward();
  // Time of the last forward (synchronizes), and per layer (index as network().layers).
  double last_ms();
  std::vector<double> layer_ms();
  // Host copies of the last forward's outputs, [batch][classes] (synchronize first).
  void logits(float* host);
  void probabilities(float* host);
  // Bytes of activation buffers allocated on the backend.
  size_t activation_bytes() const { return activation_bytes_; }
  // One line per layer the backend runs another way than the network states (a grouped conv
  // as a dense block-diagonal one), for the user to see.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  // For a backend with whole-network variants (Backend::variants): times each, keeps the
  // fastest, and says so in notes().
  void choose_variant();

  Network net_;
  Backend& backend_;
  std::vector<float*> buffer_of_;  // by tensor id
  // By layer: for a conv whose output only feeds the add right after it, that add's other
  // operand (tensor id), tried as one Backend::conv2d_add call; else -1.
  std::vector<int> residual_of_;
  size_t activation_bytes_ = 0;
  std::vector<std::string> notes_;
};

// Index of the k largest entries of row (descending), for top-5 printing.
std::vector<int> top_k(const float* row, int64_t count, int k);

}  // namespace ktune::nn
