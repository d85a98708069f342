#include "kernels/conv2d/cpu/conv2d_onednn.hpp"

#include <fmt/format.h>

#include <vector>

#include "ktune/error.hpp"

namespace ktune::kernels::conv2d::cpu {

#ifdef KTUNE_HAVE_ONEDNN

bool onednn_available() { return true; }

struct OnednnConv::Impl {
  explicit Impl(const Shape& s, OnednnAlgo algo) : call(s, algo) {}
  OnednnConvCall call;
  std::vector<dnnl::memory> weights;
};

OnednnConv::OnednnConv(const Shape& s, OnednnAlgo algo) {
  try {
    impl_ = std::make_unique<Impl>(s, algo);
  } catch (const dnnl::error& e) {
    throw Error(fmt::format("onednn: no {}convolution for this problem: {}",
                            algo == OnednnAlgo::winograd ? "Winograd " : "", e.what()));
  }
}

OnednnConv::~OnednnConv() = default;

int OnednnConv::add_weights(const float* filter) {
  dnnl::memory reordered;
  impl_->call.reorder_weights(filter, reordered);
  impl_->weights.push_back(reordered);
  return int(impl_->weights.size()) - 1;
}

void OnednnConv::run(const float* input, int weights, float* output) {
  impl_->call.run(input, impl_->weights.at(size_t(weights)), output);
}

std::string OnednnConv::implementation() const { return impl_->call.pd.impl_info_str(); }

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
