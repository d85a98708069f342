#pragma once
// The vendor calls of a tuned CPU GEMM library whose selector ships vendor candidates
// ("vendor=openblas", "vendor=onednn"). deploy/vendors.cmake links the vendors the selector names
// and defines KTUNE_HAVE_OPENBLAS / KTUNE_HAVE_ONEDNN; a vendor the selector ships but the build
// did not find is a compile error naming it.
#include <map>
#include <memory>
#include <tuple>

#include "kernels/gemm/cpu/gemm_cpu_vendor_calls.hpp"
#include "kernels/gemm/gemm_vendor_config.hpp"

namespace ktune::kernels::gemm::deploy {

#ifdef KTUNE_HAVE_ONEDNN
// oneDNN builds a primitive per shape (tens of microseconds): each thread keeps those it made.
// The calling thread's primitive for g's shape, strides, alpha and beta (made on first use): the
// same cpu::OnednnMatmul the sweep and the benchmark time, so the same implementation
// (onednn_call_ab prints both).
inline cpu::OnednnMatmul& onednn_matmul_cached(const cpu::Args& g) {
  using Key = std::tuple<bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, float, float>;
  thread_local std::map<Key, std::unique_ptr<cpu::OnednnMatmul>> cache;
  const Key key{g.transa, g.transb, g.m,        g.n,        g.k,        g.batch, g.lda,
                g.ldb,    g.ldc,    g.stride_a, g.stride_b, g.stride_c, g.alpha, g.beta};
  auto& matmul = cache[key];
  if (!matmul) matmul = std::make_unique<cpu::OnednnMatmul>(g);
  return *matmul;
}

inline void onednn_gemm_cached(const cpu::Args& g) { onednn_matmul_cached(g).run(g); }
#endif

template <VendorCall V>
void run_vendor_cpu(const cpu::Args& g) {
  static_assert(vendor_on_cpu(V), "the selector ships a vendor call that has no CPU library");
  if constexpr (V == VendorCall::openblas) {
#ifdef KTUNE_HAVE_OPENBLAS
    cpu::openblas_gemm(g);
#else
    static_assert(V != VendorCall::openblas,
                  "the selector ships vendor=openblas but OpenBLAS was not found (pkg-config "
                  "openblas; Debian libopenblas-dev)");
#endif
  } else {
#ifdef KTUNE_HAVE_ONEDNN
    onednn_gemm_cached(g);
#else
    static_assert(V != VendorCall::onednn,
                  "the selector ships vendor=onednn but oneDNN was not found (Debian libdnnl-dev)");
#endif
  }
}

}  // namespace ktune::kernels::gemm::deploy
