#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "kernels/gemm/cpu/gemm_cpu_vendor_calls.hpp"
#include "ktune/error.hpp"

namespace ktune::kernels::gemm::cpu {

namespace {

#ifdef KTUNE_HAVE_OPENBLAS
// Whether OPENBLAS_CORETYPE chose the core OpenBLAS loaded (scripts/openblas_core.sh sets it for a
// benchmark where OpenBLAS detects only a generic core): the record says so beside the core.
bool openblas_core_forced() {
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  return forced != nullptr && *forced != '\0';
}

class OpenblasGemm final : public VendorGemm {
 public:
  void run(const Args& g) override { openblas_gemm(g); }
  void run_bf16(const Bf16Args&) override {
    throw Error("openblas: " + vendor_refuses("openblas", Precision::bf16));
  }
  // The core OpenBLAS dispatched to, "(forced)" when OPENBLAS_CORETYPE picked it.
  std::string implementation() const override {
    return std::string(openblas_get_corename()) + (openblas_core_forced() ? " (forced)" : "");
  }
};

std::string openblas_description() {
  return fmt::format("OpenBLAS core={}{} config={}", openblas_get_corename(),
                     openblas_core_forced() ? " (forced by OPENBLAS_CORETYPE)" : "",
                     openblas_get_config());
}
#endif

#ifdef KTUNE_HAVE_ONEDNN
// oneDNN's matmul primitive, built once per shape, over the whole batch in one call. Not
// dnnl_sgemm: in oneDNN 2.x that BLAS-like entry runs the older jit GEMM driver and loops over
// nothing (one call per batch entry), while the matmul primitive dispatches the brgemm kernels
// (brg:avx512_core here) and parallelizes across batch entries too; a probe here at one thread
// found matmul faster on most shapes (1024^3: 113 vs 66 GFLOP/s; 64x12544x147: 163 vs 53).
class OnednnGemm final : public VendorGemm {
 public:
  OnednnGemm(const Shape& s, float alpha, float beta)
      : shape_(shape_args(s, alpha, beta)), bf16_(s.precision == Precision::bf16) {
    using dt = dnnl::memory::data_type;
    try {
      matmul_ = std::make_unique<OnednnMatmul>(shape_, bf16_ ? dt::bf16 : dt::f32);
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no matmul for this GEMM: {}", e.what()));
    }
  }

  void run(const Args& g) override { checked_run(g, false); }
  void run_bf16(const Bf16Args& g) override { checked_run(g, true); }

  std::string implementation() const override { return matmul_->pd.impl_info_str(); }

 private:
  template <class G>
  void checked_run(const G& g, bool bf16) {
    const Args& s = shape_;
    if (g.m != s.m || g.n != s.n || g.k != s.k || g.batch != s.batch || g.transa != s.transa ||
        g.transb != s.transb || g.lda != s.lda || g.ldb != s.ldb || g.ldc != s.ldc ||
        g.stride_a != s.stride_a || g.stride_b != s.stride_b || g.stride_c != s.stride_c ||
        g.alpha != s.alpha || g.beta != s.beta || bf16 != bf16_)
      throw Error("onednn: a GEMM other than the one its primitive was made for");
    matmul_->run(g);
  }

  Args shape_;  // the shape, strides, alpha and beta it was made for (no pointers)
  bool bf16_;   // made for bf16 A and B
  std::unique_ptr<OnednnMatmul> matmul_;
};

std::string isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return fmt::format("isa-{:#x}", int(isa));
  }
}

std::string onednn_description() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("oneDNN {}.{}.{} ({}) isa={}", v->major, v->minor, v->patch, v->hash,
                     isa_name(dnnl_get_effective_cpu_isa()));
}
#endif

}  // namespace

namespace {

template <class G>
G shape_args_of(const Shape& s, float alpha, float beta) {
  return G{.transa = s.transa,
           .transb = s.transb,
           .m = s.m,
           .n = s.n,
           .k = s.k,
           .batch = s.batch,
           .alpha = alpha,
           .beta = beta,
           .lda = s.lda,
           .stride_a = s.stride_a(),
           .ldb = s.ldb,
           .stride_b = s.stride_b(),
           .ldc = s.ldc,
           .stride_c = s.stride_c()};
}

}  // namespace

Args shape_args(const Shape& s, float alpha, float beta) {
  return shape_args_of<Args>(s, alpha, beta);
}
Bf16Args shape_args_bf16(const Shape& s, float alpha, float beta) {
  return shape_args_of<Bf16Args>(s, alpha, beta);
}

std::string vendor_refuses(const std::string& vendor, Precision p) {
  if (p == Precision::fp32) return "";
  if (p == Precision::bf16 && vendor == "onednn") return "";
  if (p == Precision::bf16 && vendor == "openblas")
    return "Debian's OpenBLAS 0.3.21 does not export cblas_sbgemm (built without BUILD_BFLOAT16)";
  return fmt::format("{} computes fp32{} on the CPU; the problem is {}", vendor,
                     vendor == "onednn" ? " and bf16" : "", precision_name(p));
}

std::vector<std::string> vendor_names() {
  std::vector<std::string> names;
#ifdef KTUNE_HAVE_OPENBLAS
  names.push_back("openblas");
#endif
#ifdef KTUNE_HAVE_ONEDNN
  names.push_back("onednn");
#endif
  return names;
}

std::string vendor_description(const std::string& vendor) {
#ifdef KTUNE_HAVE_OPENBLAS
  if (vendor == "openblas") return openblas_description();
#endif
#ifdef KTUNE_HAVE_ONEDNN
  if (vendor == "onednn") return onednn_description();
#endif
  throw Error(fmt::format("vendor '{}' is not available on the cpu backend", vendor));
}

std::map<std::string, std::string> vendor_descriptions() {
  std::map<std::string, std::string> out;
  for (const auto& name : vendor_names()) out[name] = vendor_description(name);
  return out;
}

std::unique_ptr<VendorGemm> make_vendor_gemm(const std::string& vendor, const Shape& shape,
                                             float alpha, float beta) {
  (void)shape, (void)alpha, (void)beta;
  if (const std::string why = vendor_refuses(vendor, shape.precision); !why.empty())
    throw Error(fmt::format("{}: {}", vendor, why));
#ifdef KTUNE_HAVE_OPENBLAS
  if (vendor == "openblas") return std::make_unique<OpenblasGemm>();
#endif
#ifdef KTUNE_HAVE_ONEDNN
  if (vendor == "onednn") return std::make_unique<OnednnGemm>(shape, alpha, beta);
#endif
  throw Error(fmt::format("vendor '{}' is not available on the cpu backend", vendor));
}

}  // namespace ktune::kernels::gemm::cpu
