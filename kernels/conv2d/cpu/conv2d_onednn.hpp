#pragma once
// The oneDNN baseline (vendor row "onednn"): FP32 forward convolution, algorithm
// convolution_auto, prop_kind forward_inference, source and destination in ktune's NHWC layout
// (format tag nhwc), weights in the layout the primitive prefers (format tag any), reordered
// from KRSC (oneDNN's ohwi) once per filter outside the timed runs, as inference does once per
// layer. Available when ktune is built with Debian's libdnnl-dev (KTUNE_HAVE_ONEDNN).
// OnednnAlgo::winograd (vendor row "onednn_winograd"): convolution_winograd, which oneDNN 2.6 has
// for 3×3 stride-1 layers in its blocked layouts only: the input is reordered from NHWC and the
// output back inside each run (counted in its time, as the nn engine's onednn_winograd does);
// the constructor throws Error where oneDNN has no Winograd for the problem. The call itself is
// conv2d_onednn_call.hpp's, which a tuned library shipping "vendor=onednn" makes too.
#include <memory>
#include <string>

#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn_call.hpp"

namespace ktune::kernels::conv2d::cpu {

bool onednn_available();

class OnednnConv {
 public:
  // Throws Error when oneDNN is missing or refuses.
  explicit OnednnConv(const Shape& s, OnednnAlgo algo = OnednnAlgo::automatic);
  ~OnednnConv();
  OnednnConv(const OnednnConv&) = delete;
  OnednnConv& operator=(const OnednnConv&) = delete;

  // Reorders a KRSC filter into the primitive's weights layout; returns its handle for run().
  int add_weights(const float* filter);
  void run(const float* input, int weights, float* output);
  std::string implementation() const;  // oneDNN's name of the kernel it chose ("jit:avx2")

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune::kernels::conv2d::cpu
