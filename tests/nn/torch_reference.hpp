#pragma once
// An independent float64 forward pass of the `tiny` network in PyTorch's own terms: NCHW
// activations, OIHW weights straight from the state_dict, batch-norm applied (not folded),
// NCHW flatten. The engine's folding, transposes and flatten permutation are checked against it.
#include <vector>

#include "ktune/nn/weights.hpp"

namespace ktune::nn::testing {

// input NCHW [batch][3][16][16]; returns logits [batch][10].
std::vector<double> tiny_forward_nchw(const Weights& w, const std::vector<float>& input, int batch);

}  // namespace ktune::nn::testing
