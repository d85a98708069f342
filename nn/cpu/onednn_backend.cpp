// `onednn`: every convolution and fully connected layer by oneDNN (FP32, convolution_auto,
// weights reordered once into the layout the primitive asks for, bias and ReLU fused as oneDNN
// bias + eltwise post-op). Memory objects and argument maps are built at prepare time; a call
// only swaps the data handles, so nothing is allocated per inference.
// `onednn_winograd`: the same, but a convolution oneDNN has a Winograd implementation for
// (convolution_winograd: oneDNN 2.6 has them for 3×3 stride-1 layers in its blocked layouts
// only, not NHWC) runs it, with the reorders of the input from NHWC and of the output back
// inside each call (so that its time compares with the others'); other layers as `onednn`.
// layer_choice() names oneDNN's implementation of each conv / fc layer ("brgconv:avx512_core",
// "jit_wino_4x3:avx512_core", ...).
#include <fmt/format.h>

#include <dnnl.hpp>
#include <map>
#include <optional>
#include <unordered_map>

#include "ktune/error.hpp"
#include "ktune/nn/registry.hpp"
#include "nn/cpu/host_backend.hpp"
#include "nn/cpu/onednn_layer.hpp"
#include "nn/cpu/reference.hpp"

namespace ktune::nn::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

using onednn::relu_attr;

class OnednnBackend final : public HostBackend {
 public:
  explicit OnednnBackend(bool winograd) : winograd_(winograd) {}
  std::string name() const override { return winograd_ ? "onednn_winograd" : "onednn"; }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    if (winograd_ && prepare_winograd(layer, d, filter, bias)) return;
    try {
      const memory::desc src({d.n, d.c, d.h, d.w}, f32, tag::nhwc);
      const memory::desc dst({d.n, d.k, d.p(), d.q()}, f32, tag::nhwc);
      const memory::desc any_weights({d.k, d.c, d.r, d.s}, f32, tag::any);
      const memory::desc bias_desc({d.k}, f32, tag::x);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto, src, any_weights,
          bias_desc, dst, {d.stride, d.stride}, {d.pad, d.pad}, {d.pad, d.pad});
      const dnnl::convolution_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      const memory::desc user_weights({d.k, d.c, d.r, d.s}, f32, tag::ohwi);
      add_layer(layer, dnnl::convolution_forward(pd), src, dst, pd.weights_desc(), user_weights,
                bias_desc, filter, bias);
      layers_[layer].impl = pd.impl_info_str();
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no convolution for layer {}: {}", layer, e.what()));
    }
  }

  std::string layer_choice(int layer) const override {
    const auto it = layers_.find(layer);
    return it == layers_.end() ? std::string() : it->second.impl;
  }

  void prepare_fc(int layer, const FcDesc& d, const float* weight, const float* bias) override {
    try {
      const memory::desc src({d.batch, d.in}, f32, tag::nc);
      const memory::desc dst({d.batch, d.out}, f32, tag::nc);
      const memory::desc any_weights({d.out, d.in}, f32, tag::any);
      const memory::desc bias_desc({d.out}, f32, tag::x);
      const dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src,
                                                   any_weights, bias_desc, dst);
      const dnnl::inner_product_forward::primitive_desc pd(desc, relu_attr(d.relu), engine_);
      const memory::desc user_weights({d.out, d.in}, f32, tag::oi);
      add_layer(layer, dnnl::inner_product_forward(pd), src, dst, pd.weights_desc(), user_weights,
                bias_desc, weight, bias);
      layers_[layer].impl = pd.impl_info_str();
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no inner product for layer {}: {}", layer, e.what()));
    }
  }

  void conv2d(int layer, const ConvDesc&, const float* in, float* out) override {
    run(layer, in, out);
  }
  void fc(int layer, const FcDesc&, const float* x, float* y) override { run(layer, x, y); }

 private:
  struct Layer {
    dnnl::primitive primitive;
    memory src, dst;
    std::unordered_map<int, memory> args;
    std::string impl;  // oneDNN's implementation (conv layers)
    // Winograd layers: the NHWC tensors the caller passes, reordered into / out of src and dst
    // (owned, in the primitive's blocked layouts).
    memory user_src, user_dst;
    dnnl::reorder to_src, from_dst;
    bool reorders = false;
  };

  // The layer by convolution_winograd, false where oneDNN has none for it.
  bool prepare_winograd(int layer, const ConvDesc& d, const float* filter, const float* bias) {
    const memory::desc user_src({d.n, d.c, d.h, d.w}, f32, tag::nhwc);
    const memory::desc user_dst({d.n, d.k, d.p(), d.q()}, f32, tag::nhwc);
    const memory::desc bias_desc({d.k}, f32, tag::x);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    try {
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd,
          memory::desc({d.n, d.c, d.h, d.w}, f32, tag::any),
          memory::desc({d.k, d.c, d.r, d.s}, f32, tag::any), bias_desc,
          memory::desc({d.n, d.k, d.p(), d.q()}, f32, tag::any), {d.stride, d.stride},
          {d.pad, d.pad}, {d.pad, d.pad});
      pd.emplace(desc, relu_attr(d.relu), engine_);
    } catch (const dnnl::error&) {
      return false;  // no Winograd for this layer: convolution_auto
    }
    // oneDNN 2.6 reorders into its Winograd weights from OIHW, not from the KRSC (OHWI) filter.
    const memory::desc oihw({d.k, d.c, d.r, d.s}, f32, tag::oihw);
    memory krsc(memory::desc({d.k, d.c, d.r, d.s}, f32, tag::ohwi), engine_,
                const_cast<float*>(filter));  // read only
    memory plain(oihw, engine_);
    dnnl::reorder(krsc, plain).execute(stream_, krsc, plain);
    stream_.wait();
    add_layer(layer, dnnl::convolution_forward(*pd), pd->src_desc(), pd->dst_desc(),
              pd->weights_desc(), oihw, bias_desc, static_cast<float*>(plain.get_data_handle()),
              bias);
    Layer& l = layers_[layer];
    l.impl = pd->impl_info_str();
    // The blocked tensors owned here; the reorders built once.
    l.src = memory(pd->src_desc(), engine_);
    l.dst = memory(pd->dst_desc(), engine_);
    l.args[DNNL_ARG_SRC] = l.src;
    l.args[DNNL_ARG_DST] = l.dst;
    l.user_src = memory(user_src, engine_, DNNL_MEMORY_NONE);
    l.user_dst = memory(user_dst, engine_, DNNL_MEMORY_NONE);
    l.to_src = dnnl::reorder(l.user_src, l.src);
    l.from_dst = dnnl::reorder(l.dst, l.user_dst);
    l.reorders = true;
    return true;
  }

  void add_layer(int layer, dnnl::primitive primitive, const memory::desc& src,
                 const memory::desc& dst, const memory::desc& weights,
                 const memory::desc& user_weights, const memory::desc& bias_desc,
                 const float* weight_host, const float* bias_host) {
    Layer l;
    l.primitive = std::move(primitive);
    l.src = memory(src, engine_, DNNL_MEMORY_NONE);
    l.dst = memory(dst, engine_, DNNL_MEMORY_NONE);
    l.args = onednn::layer_args(engine_, stream_, l.src, l.dst, user_weights, weights, bias_desc,
                                weight_host, bias_host);
    layers_[layer] = std::move(l);
  }

  void run(int layer, const float* in, float* out) {
    auto& l = layers_.at(layer);
    if (l.reorders) {
      l.user_src.set_data_handle(const_cast<float*>(in));  // read only
      l.user_dst.set_data_handle(out);
      l.to_src.execute(stream_, l.user_src, l.src);
      l.primitive.execute(stream_, l.args);
      l.from_dst.execute(stream_, l.dst, l.user_dst);
    } else {
      l.src.set_data_handle(const_cast<float*>(in));  // read only
      l.dst.set_data_handle(out);
      l.primitive.execute(stream_, l.args);
    }
    stream_.wait();
  }

  bool winograd_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  std::map<int, Layer> layers_;
};

}  // namespace

void register_onednn_backend() {
  register_backend("onednn", "oneDNN convolution + inner product (FP32, algorithm auto)",
                   [] { return std::make_unique<OnednnBackend>(false); });
  register_backend("onednn_winograd",
                   "onednn, with oneDNN's Winograd convolution where it has one for the layer "
                   "(blocked layouts, the reorders from and to NHWC in each call)",
                   [] { return std::make_unique<OnednnBackend>(true); });
}

}  // namespace ktune::nn::cpu
