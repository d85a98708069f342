#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"

#include <fmt/format.h>

#include "ktune/error.hpp"

#ifdef KTUNE_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef KTUNE_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace ktune::kernels::gemm::cpu {

namespace {

#ifdef KTUNE_HAVE_OPENBLAS
// cblas_sgemm per batch entry: OpenBLAS has no strided-batched SGEMM.
class OpenblasGemm final : public VendorGemm {
 public:
  void run(const Args& g) override {
    for (int64_t i = 0; i < g.batch; ++i)
      cblas_sgemm(CblasColMajor, g.transa ? CblasTrans : CblasNoTrans,
                  g.transb ? CblasTrans : CblasNoTrans, int(g.m), int(g.n), int(g.k), g.alpha,
                  g.a + i * g.stride_a, int(g.lda), g.b + i * g.stride_b, int(g.ldb), g.beta,
                  g.c + i * g.stride_c, int(g.ldc));
  }
  // The core OpenBLAS dispatched to (OPENBLAS_CORETYPE can force one).
  std::string implementation() const override { return openblas_get_corename(); }
};

std::string openblas_description() {
  return fmt::format("OpenBLAS core={} config={}", openblas_get_corename(), openblas_get_config());
}
#endif

#ifdef KTUNE_HAVE_ONEDNN
// oneDNN's matmul primitive, built once per shape, over the whole batch in one call. Not
// dnnl_sgemm: in oneDNN 2.x that BLAS-like entry runs the older jit GEMM driver and loops over
// nothing (one call per batch entry), while the matmul primitive dispatches the brgemm kernels
// (brg:avx512_core here) and parallelizes across batch entries too; a probe here at one thread
// found matmul faster on most shapes (1024^3: 113 vs 66 GFLOP/s; 64x12544x147: 163 vs 53).
// Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T: oneDNN's src is op(B)^T
// (n×k), its weights op(A)^T (k×m) and its dst C^T (n×m), each described by its strides, so no
// data is copied or reordered.
class OnednnGemm final : public VendorGemm {
 public:
  OnednnGemm(const Shape& s, float alpha, float beta) : shape_(s), alpha_(alpha), beta_(beta) {
    using dnnl::memory;
    const auto f32 = memory::data_type::f32;
    const memory::desc src({s.batch, s.n, s.k}, f32,
                           {s.stride_b(), s.transb ? 1 : s.ldb, s.transb ? s.ldb : 1});
    const memory::desc weights({s.batch, s.k, s.m}, f32,
                               {s.stride_a(), s.transa ? 1 : s.lda, s.transa ? s.lda : 1});
    const memory::desc dst({s.batch, s.n, s.m}, f32, {s.stride_c(), s.ldc, 1});
    dnnl::primitive_attr attr;
    if (alpha != 1) attr.set_output_scales(0, {alpha});
    if (beta != 0) {
      dnnl::post_ops ops;
      ops.append_sum(beta);
      attr.set_post_ops(ops);
    }
    try {
      pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine_);
      matmul_ = dnnl::matmul(pd_);
    } catch (const dnnl::error& e) {
      throw Error(fmt::format("onednn: no matmul for this GEMM: {}", e.what()));
    }
    src_ = memory(src, engine_, DNNL_MEMORY_NONE);
    weights_ = memory(weights, engine_, DNNL_MEMORY_NONE);
    dst_ = memory(dst, engine_, DNNL_MEMORY_NONE);
  }

  void run(const Args& g) override {
    if (g.m != shape_.m || g.n != shape_.n || g.k != shape_.k || g.batch != shape_.batch ||
        g.transa != shape_.transa || g.transb != shape_.transb || g.lda != shape_.lda ||
        g.ldb != shape_.ldb || g.ldc != shape_.ldc || g.stride_a != shape_.stride_a() ||
        g.stride_b != shape_.stride_b() || g.stride_c != shape_.stride_c() || g.alpha != alpha_ ||
        g.beta != beta_)
      throw Error("onednn: a GEMM other than the one its primitive was made for");
    // Read-only inputs: oneDNN takes non-const handles but does not write src or weights.
    src_.set_data_handle(const_cast<float*>(g.b));
    weights_.set_data_handle(const_cast<float*>(g.a));
    dst_.set_data_handle(g.c);
    matmul_.execute(stream_,
                    {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_}});
    stream_.wait();
  }

  std::string implementation() const override { return pd_.impl_info_str(); }

 private:
  Shape shape_;
  float alpha_, beta_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul matmul_;
  dnnl::memory src_, weights_, dst_;
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
#ifdef KTUNE_HAVE_OPENBLAS
  if (vendor == "openblas") return std::make_unique<OpenblasGemm>();
#endif
#ifdef KTUNE_HAVE_ONEDNN
  if (vendor == "onednn") return std::make_unique<OnednnGemm>(shape, alpha, beta);
#endif
  throw Error(fmt::format("vendor '{}' is not available on the cpu backend", vendor));
}

}  // namespace ktune::kernels::gemm::cpu
