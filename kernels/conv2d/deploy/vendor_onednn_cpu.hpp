#pragma once
// oneDNN as a candidate of a tuned CPU conv2d library (ktune deploy --vendors on a CPU conv sweep,
// whose vendor rows "onednn" and "onednn_winograd" become the configs "vendor=onednn" and
// "vendor=onednn_winograd"): the config strings decoded at compile time, and the two ways the
// library makes the call the sweep timed (cpu/conv2d_onednn_call.hpp: NHWC in and out, FP32).
// deploy/vendors.cmake links oneDNN and defines KTUNE_HAVE_ONEDNN where a selector ships one; a
// selector shipping one in a build without oneDNN is a compile error naming it (tuned_cpu.inl).
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn_call.hpp"

namespace ktune::kernels::conv2d::deploy {

enum class CpuConvVendor { none, onednn, onednn_winograd };

// CpuConvVendor::none for anything that is not a oneDNN candidate's string (a kernel config).
constexpr CpuConvVendor parse_cpu_conv_vendor(std::string_view text) {
  if (text == "vendor=onednn") return CpuConvVendor::onednn;
  if (text == "vendor=onednn_winograd") return CpuConvVendor::onednn_winograd;
  return CpuConvVendor::none;
}

constexpr cpu::OnednnAlgo onednn_algo(CpuConvVendor v) {
  return v == CpuConvVendor::onednn_winograd ? cpu::OnednnAlgo::winograd
                                             : cpu::OnednnAlgo::automatic;
}

// Whether the call may run s before oneDNN is asked (it may still refuse: then the library
// falls back along the selector's safe order): oneDNN 2.6's Winograd is for 3×3 stride 1 only.
constexpr bool vendor_may_apply(CpuConvVendor v, const Shape& s) {
  return v != CpuConvVendor::onednn_winograd || s.winograd_applies();
}

#ifdef KTUNE_HAVE_ONEDNN
// A layer's call for ktune::CpuConv2dPlan: the primitive made and the filter reordered once, at
// plan time, as the sweep's vendor rows did outside the timed runs.
struct OnednnPrepared {
  cpu::OnednnConvCall call;
  dnnl::memory weights;
  // Throws dnnl::error where oneDNN refuses s.
  OnednnPrepared(const Shape& s, cpu::OnednnAlgo algo, const float* filter) : call(s, algo) {
    call.reorder_weights(filter, weights);
  }
  void run(const float* input, float* output) { call.run(input, weights, output); }
};

// ktune::conv2d's stateless call: the calling thread's primitive for (shape, algorithm), made on
// first use (tens of microseconds) and kept with its weights buffer; the filter is reordered into
// that buffer in every call (it may change between calls, as the own kinds pack it every call).
// False where oneDNN refuses the shape (remembered, so it is asked once).
inline bool onednn_conv_stateless(const Shape& s, cpu::OnednnAlgo algo, const float* input,
                                  const float* filter, float* output) {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int>;
  struct Entry {
    std::unique_ptr<cpu::OnednnConvCall> call;
    dnnl::memory weights;
    bool refused = false;
  };
  thread_local std::map<Key, Entry> cache;
  Entry& e = cache[Key{s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad, int(algo)}];
  if (!e.call && !e.refused) {
    try {
      e.call = std::make_unique<cpu::OnednnConvCall>(s, algo);
    } catch (const dnnl::error&) {
      e.refused = true;
    }
  }
  if (e.refused) return false;
  e.call->reorder_weights(filter, e.weights);
  e.call->run(input, e.weights, output);
  return true;
}
#endif

}  // namespace ktune::kernels::conv2d::deploy
