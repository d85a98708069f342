// `onednn_bf16`: every convolution and fully connected layer by oneDNN in bf16 (the vendor
// baseline of `ktune_bf16`): weights reordered once into the bf16 layout the primitive asks
// for, activations rounded to bf16 by a oneDNN reorder from the engine's FP32 NHWC tensors into
// the primitive's source layout (format `any`: oneDNN's blocked layout where it prefers one)
// inside each call, FP32 accumulation and FP32 output (format `any`, reordered back to NHWC
// in the call where oneDNN picks another), bias and ReLU fused as bias + eltwise post-op.
// (NHWC source and destination named instead of `any`: the same time, ResNet-50's conv layers
// at batch 1 summed on one thread, 35.8 vs 35.7 ms.)
// The reorders are counted in the layer's time, as `ktune_bf16`'s conversion in its packing is:
// the engine keeps FP32 NHWC activations between layers for both. Memory objects and reorders
// are built at prepare time; nothing is allocated per inference.
// Needs AVX512_BF16 (cpuid): refused elsewhere rather than timing oneDNN's bf16 emulation.
#include <fmt/format.h>

#include <dnnl.hpp>
#include <map>
#include <unordered_map>

#include "ktune/error.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/bf16_backends.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/onednn_layer.hpp"

namespace ktune::nn::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;
constexpr auto bf16 = memory::data_type::bf16;

using onednn::relu_attr;

class OnednnBf16Backend final : public HostBackend {
 public:
  OnednnBf16Backend() {
    if (const std::string missing = bf16_missing(); !missing.empty())
      throw Error("onednn_bf16: " + missing);
  }
  std::string name() const override { return "onednn_bf16"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    try {
      const memory::dims src_dims{d.n, d.c, d.h, d.w}, dst_dims{d.n, d.k, d.p(), d.q()};
      const memory::desc bias_desc({d.k}, f32, tag::x);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto,
          memory::desc(src_dims, bf16, tag::any),
          memory::desc({d.k, d.c, d.r, d.s}, bf16, tag::any), bias_desc,
          memory::desc(dst_dims, f32, tag::any), {d.stride, d.stride}, {d.pad, d.pad},
          {d.pad, d.pad});
      const dnnl::convolution_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      add_layer(layer, dnnl::convolution_forward(pd), memory::desc(src_dims, f32, tag::nhwc),
                pd.src_desc(), memory::desc(dst_dims, f32, tag::nhwc), pd.dst_desc(),
                memory::desc({d.k, d.c, d.r, d.s}, f32, tag::ohwi), pd.weights_desc(), bias_desc,
                filter, bias, pd.impl_info_str());
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn_bf16: no convolution for layer {}: {}", layer, e.what()));
    }
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    try {
      const memory::desc bias_desc({d.out}, f32, tag::x);
      const dnnl::inner_product_forward::desc desc(
          dnnl::prop_kind::forward_inference, memory::desc({d.batch, d.in}, bf16, tag::any),
          memory::desc({d.out, d.in}, bf16, tag::any), bias_desc,
          memory::desc({d.batch, d.out}, f32, tag::any));
      const dnnl::inner_product_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      add_layer(layer, dnnl::inner_product_forward(pd), memory::desc({d.batch, d.in}, f32, tag::nc),
                pd.src_desc(), memory::desc({d.batch, d.out}, f32, tag::nc), pd.dst_desc(),
                memory::desc({d.out, d.in}, f32, tag::oi), pd.weights_desc(), bias_desc, weight,
                bias, pd.impl_info_str());
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn_bf16: no inner product for layer {}: {}", layer, e.what()));
    }
  }

  void conv2d(int layer, const ConvDesc&, const float* in, float* out) override {
    run(layer, in, out);
  }
  void fc(int layer, const FcDesc&, const float* x, float* y) override { run(layer, x, y); }

  std::string layer_choice(int layer) const override {
    const auto it = layers_.find(layer);
    return it == layers_.end() ? std::string() : it->second.impl;
  }

 private:
  struct Layer {
    dnnl::primitive primitive;
    std::unordered_map<int, memory> args;
    // The caller's FP32 tensors (handles set per call), the primitive's (owned where they
    // differ: always for the bf16 source) and the reorders between them.
    memory user_src, user_dst, src, dst;
    dnnl::reorder to_src, from_dst;
    bool dst_reorder = false;
    std::string impl;
  };

  void add_layer(int layer, dnnl::primitive primitive, const memory::desc& user_src,
                 const memory::desc& src, const memory::desc& user_dst, const memory::desc& dst,
                 const memory::desc& user_weights, const memory::desc& weights,
                 const memory::desc& bias_desc, const float* weight_host, const float* bias_host,
                 std::string impl) {
    Layer l;
    l.primitive = std::move(primitive);
    l.impl = std::move(impl);
    l.user_src = memory(user_src, engine_, DNNL_MEMORY_NONE);
    l.src = memory(src, engine_);
    l.to_src = dnnl::reorder(l.user_src, l.src);
    l.user_dst = memory(user_dst, engine_, DNNL_MEMORY_NONE);
    l.dst_reorder = dst != user_dst;
    if (l.dst_reorder) {
      l.dst = memory(dst, engine_);
      l.from_dst = dnnl::reorder(l.dst, l.user_dst);
    } else {
      l.dst = l.user_dst;
    }
    l.args = onednn::layer_args(engine_, stream_, l.src, l.dst, user_weights, weights, bias_desc,
                                weight_host, bias_host);
    layers_[layer] = std::move(l);
  }

  void run(int layer, const float* in, float* out) {
    auto& l = layers_.at(layer);
    l.user_src.set_data_handle(const_cast<float*>(in));  // read only
    l.user_dst.set_data_handle(out);  // l.dst is this memory where no reorder is needed
    l.to_src.execute(stream_, l.user_src, l.src);
    l.primitive.execute(stream_, l.args);
    if (l.dst_reorder) l.from_dst.execute(stream_, l.dst, l.user_dst);
    stream_.wait();
  }

  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  std::map<int, Layer> layers_;
};

}  // namespace

void register_onednn_bf16_backend() {
  register_backend("onednn_bf16",
                   "oneDNN convolution + inner product in bf16 (AVX512_BF16; weights reordered "
                   "once, activations reordered to bf16 in its layout per call, FP32 output)",
                   [] { return std::make_unique<OnednnBf16Backend>(); });
}

}  // namespace ktune::nn::cpu
