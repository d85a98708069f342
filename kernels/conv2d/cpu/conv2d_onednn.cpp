#include "kernels/conv2d/cpu/conv2d_onednn.hpp"

#include <fmt/format.h>

#include <vector>

#include "ktune/error.hpp"

#ifdef KTUNE_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace ktune::kernels::conv2d::cpu {

#ifdef KTUNE_HAVE_ONEDNN

bool onednn_available() { return true; }

struct OnednnConv::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc src, user_weights, dst;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  std::vector<dnnl::memory> weights;
  // Winograd: the blocked source and destination owned here, and the reorders from / to NHWC.
  bool blocked = false;
  dnnl::memory blocked_src, blocked_dst;
  dnnl::reorder to_blocked, from_blocked;
};

OnednnConv::OnednnConv(const Shape& s, OnednnAlgo algo) : impl_(std::make_unique<Impl>()) {
  using dnnl::memory;
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  const bool winograd = algo == OnednnAlgo::winograd;
  try {
    // oneDNN's dims are always in logical N, C, H, W (O, I, H, W) order; the tags set layouts.
    impl_->src = memory::desc({s.n, s.c, s.h, s.w}, f32, tag::nhwc);
    // oneDNN 2.6 reorders into its Winograd weights from OIHW, not from OHWI (add_weights).
    impl_->user_weights = memory::desc({s.k, s.c, s.r, s.s}, f32, winograd ? tag::oihw : tag::ohwi);
    impl_->dst = memory::desc({s.n, s.k, s.p(), s.q()}, f32, tag::nhwc);
    const memory::desc any_weights({s.k, s.c, s.r, s.s}, f32, tag::any);
    const auto layout = [&](const memory::desc& nhwc) {
      return winograd ? memory::desc(nhwc.dims(), f32, tag::any) : nhwc;
    };
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_auto,
        layout(impl_->src), any_weights, layout(impl_->dst), {s.stride, s.stride}, {s.pad, s.pad},
        {s.pad, s.pad});
    impl_->pd = dnnl::convolution_forward::primitive_desc(desc, impl_->engine);
    impl_->conv = dnnl::convolution_forward(impl_->pd);
    if (winograd) {
      impl_->blocked = true;
      impl_->blocked_src = memory(impl_->pd.src_desc(), impl_->engine);
      impl_->blocked_dst = memory(impl_->pd.dst_desc(), impl_->engine);
      impl_->to_blocked = dnnl::reorder(dnnl::reorder::primitive_desc(
          impl_->engine, impl_->src, impl_->engine, impl_->pd.src_desc()));
      impl_->from_blocked = dnnl::reorder(dnnl::reorder::primitive_desc(
          impl_->engine, impl_->pd.dst_desc(), impl_->engine, impl_->dst));
    }
  } catch (const dnnl::error& e) {
    throw Error(fmt::format("onednn: no {}convolution for this problem: {}",
                            winograd ? "Winograd " : "", e.what()));
  }
}

OnednnConv::~OnednnConv() = default;

int OnednnConv::add_weights(const float* filter) {
  using dnnl::memory;
  memory user(impl_->user_weights, impl_->engine, const_cast<float*>(filter));  // read only
  if (impl_->blocked) {  // KRSC (ohwi) -> oihw first, the format oneDNN reorders from
    const memory::desc krsc(impl_->user_weights.dims(), memory::data_type::f32,
                            memory::format_tag::ohwi);
    memory given(krsc, impl_->engine, const_cast<float*>(filter));  // read only
    memory plain(impl_->user_weights, impl_->engine);
    dnnl::reorder(given, plain).execute(impl_->stream, given, plain);
    user = plain;
  }
  memory reordered(impl_->pd.weights_desc(), impl_->engine);
  dnnl::reorder(user, reordered).execute(impl_->stream, user, reordered);
  impl_->stream.wait();
  impl_->weights.push_back(reordered);
  return int(impl_->weights.size()) - 1;
}

void OnednnConv::run(const float* input, int weights, float* output) {
  using dnnl::memory;
  memory src(impl_->src, impl_->engine, const_cast<float*>(input));  // read only
  memory dst(impl_->dst, impl_->engine, output);
  if (impl_->blocked) {
    impl_->to_blocked.execute(impl_->stream, src, impl_->blocked_src);
    impl_->conv.execute(impl_->stream, {{DNNL_ARG_SRC, impl_->blocked_src},
                                        {DNNL_ARG_WEIGHTS, impl_->weights.at(size_t(weights))},
                                        {DNNL_ARG_DST, impl_->blocked_dst}});
    impl_->from_blocked.execute(impl_->stream, impl_->blocked_dst, dst);
    impl_->stream.wait();
    return;
  }
  impl_->conv.execute(impl_->stream, {{DNNL_ARG_SRC, src},
                                      {DNNL_ARG_WEIGHTS, impl_->weights.at(size_t(weights))},
                                      {DNNL_ARG_DST, dst}});
  impl_->stream.wait();
}

std::string OnednnConv::implementation() const { return impl_->pd.impl_info_str(); }

#else

bool onednn_available() { return false; }

struct OnednnConv::Impl {};

OnednnConv::OnednnConv(const Shape& s, OnednnAlgo algo) {
  (void)s;
  (void)algo;
  throw Error("onednn: this build has no oneDNN (install libdnnl-dev and reconfigure)");
}
OnednnConv::~OnednnConv() = default;
int OnednnConv::add_weights(const float*) { return 0; }
void OnednnConv::run(const float*, int, float*) {}
std::string OnednnConv::implementation() const { return ""; }

#endif

}  // namespace ktune::kernels::conv2d::cpu
