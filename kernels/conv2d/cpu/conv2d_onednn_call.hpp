#pragma once
// oneDNN's FP32 forward convolution on ktune's NHWC tensors, header-only and free of ktune's
// libraries, so that the sweep's vendor rows (conv2d_onednn.cpp: "onednn", "onednn_winograd")
// and a tuned library shipping them as candidates (deploy/vendor_onednn_cpu.hpp) make the same
// call. Compiled with KTUNE_HAVE_ONEDNN only (the enum always).
//   automatic: convolution_auto, prop_kind forward_inference, source and destination in NHWC
//     (format tag nhwc), weights in the layout the primitive prefers (tag any), reordered from
//     KRSC (oneDNN's ohwi) once per filter by reorder_weights();
//   winograd: convolution_winograd, which oneDNN 2.6 has for 3×3 stride-1 layers in its blocked
//     layouts only: run() reorders the input from NHWC and the output back (part of the call's
//     time, as the sweep timed it) through blocked buffers owned here, made once.
// run() points persistent memory objects at the caller's tensors: no allocation per call.
#include "kernels/conv2d/conv2d_shape.hpp"

#ifdef KTUNE_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace ktune::kernels::conv2d::cpu {

enum class OnednnAlgo { automatic, winograd };

#ifdef KTUNE_HAVE_ONEDNN
struct OnednnConvCall {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc src_nhwc, user_weights, dst_nhwc;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  dnnl::memory src, dst;  // the caller's tensors, handles set per run
  bool blocked = false;   // winograd: the blocked buffers and reorders below
  dnnl::memory blocked_src, blocked_dst;
  dnnl::reorder to_blocked, from_blocked;

  // Throws dnnl::error where oneDNN has no such convolution for s.
  OnednnConvCall(const Shape& s, OnednnAlgo algo) {
    using dnnl::memory;
    using tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    blocked = algo == OnednnAlgo::winograd;
    // oneDNN's dims are always in logical N, C, H, W (O, I, H, W) order; the tags set layouts.
    src_nhwc = memory::desc({s.n, s.c, s.h, s.w}, f32, tag::nhwc);
    // oneDNN 2.6 reorders into its Winograd weights from OIHW, not from OHWI.
    user_weights = memory::desc({s.k, s.c, s.r, s.s}, f32, blocked ? tag::oihw : tag::ohwi);
    dst_nhwc = memory::desc({s.n, s.k, s.p(), s.q()}, f32, tag::nhwc);
    const memory::desc any_weights({s.k, s.c, s.r, s.s}, f32, tag::any);
    const auto layout = [&](const memory::desc& nhwc) {
      return blocked ? memory::desc(nhwc.dims(), f32, tag::any) : nhwc;
    };
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        blocked ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_auto,
        layout(src_nhwc), any_weights, layout(dst_nhwc), {s.stride, s.stride}, {s.pad, s.pad},
        {s.pad, s.pad});
    pd = dnnl::convolution_forward::primitive_desc(desc, engine);
    conv = dnnl::convolution_forward(pd);
    src = memory(src_nhwc, engine, DNNL_MEMORY_NONE);
    dst = memory(dst_nhwc, engine, DNNL_MEMORY_NONE);
    if (blocked) {
      blocked_src = memory(pd.src_desc(), engine);
      blocked_dst = memory(pd.dst_desc(), engine);
      to_blocked =
          dnnl::reorder(dnnl::reorder::primitive_desc(engine, src_nhwc, engine, pd.src_desc()));
      from_blocked =
          dnnl::reorder(dnnl::reorder::primitive_desc(engine, pd.dst_desc(), engine, dst_nhwc));
    }
  }

  // A KRSC filter reordered into the primitive's weights layout, in `into` (made here when empty,
  // else reused: the stateless library's per-call reorder allocates nothing).
  void reorder_weights(const float* filter, dnnl::memory& into) {
    using dnnl::memory;
    if (!into) into = memory(pd.weights_desc(), engine);
    // oneDNN takes non-const handles; a reorder's source is only read.
    memory given(
        memory::desc(user_weights.dims(), memory::data_type::f32, memory::format_tag::ohwi), engine,
        const_cast<float*>(filter));
    if (blocked) {  // KRSC (ohwi) -> oihw first, the format oneDNN reorders from
      memory plain(user_weights, engine);
      dnnl::reorder(given, plain).execute(stream, given, plain);
      given = plain;
    }
    dnnl::reorder(given, into).execute(stream, given, into);
    stream.wait();
  }

  void run(const float* input, const dnnl::memory& weights, float* output) {
    src.set_data_handle(const_cast<float*>(input));  // read only
    dst.set_data_handle(output);
    if (blocked) {
      to_blocked.execute(stream, src, blocked_src);
      conv.execute(
          stream,
          {{DNNL_ARG_SRC, blocked_src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, blocked_dst}});
      from_blocked.execute(stream, blocked_dst, dst);
    } else {
      conv.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    }
    stream.wait();
  }
};
#endif

}  // namespace ktune::kernels::conv2d::cpu
