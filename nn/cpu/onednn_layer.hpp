#pragma once
// What the oneDNN backends (onednn_backend.cpp, onednn_bf16_backend.cpp) share: the fused ReLU
// post-op and a layer's weight and bias arguments, built once at prepare time.
#include <algorithm>
#include <dnnl.hpp>
#include <unordered_map>

namespace ktune::nn::cpu::onednn {

inline dnnl::primitive_attr relu_attr(bool relu) {
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// A layer's arguments: src and dst as given; DNNL_ARG_WEIGHTS the host weights (read only, in
// user_weights' layout) reordered into the primitive's `weights` layout and data type;
// DNNL_ARG_BIAS a copy of the FP32 bias.
inline std::unordered_map<int, dnnl::memory> layer_args(
    const dnnl::engine& engine, dnnl::stream& stream, const dnnl::memory& src,
    const dnnl::memory& dst, const dnnl::memory::desc& user_weights,
    const dnnl::memory::desc& weights, const dnnl::memory::desc& bias_desc,
    const float* weight_host, const float* bias_host) {
  dnnl::memory user(user_weights, engine, const_cast<float*>(weight_host));  // read only
  dnnl::memory packed(weights, engine);
  dnnl::reorder(user, packed).execute(stream, user, packed);
  dnnl::memory bias(bias_desc, engine);
  stream.wait();
  std::copy_n(bias_host, bias_desc.get_size() / sizeof(float),
              static_cast<float*>(bias.get_data_handle()));
  return {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
}

}  // namespace ktune::nn::cpu::onednn
