#pragma once
// The CPU vendor GEMM calls, header-only and free of ktune's libraries, so that the sweep's
// baselines (gemm_cpu_vendors.cpp) and a tuned library shipping a vendor candidate
// (deploy/tuned_cpu.inl) call the vendors alike. OpenBLAS with KTUNE_HAVE_OPENBLAS, oneDNN with
// KTUNE_HAVE_ONEDNN.
#include <cstdint>

#include "kernels/common/cpu/gemm_cpu_kernel.hpp"

#ifdef KTUNE_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef KTUNE_HAVE_ONEDNN
#include <dnnl.hpp>
#endif

namespace ktune::kernels::gemm::cpu {

#ifdef KTUNE_HAVE_OPENBLAS
// cblas_sgemm per batch entry: OpenBLAS has no strided-batched SGEMM.
inline void openblas_gemm(const Args& g) {
  for (int64_t i = 0; i < g.batch; ++i)
    cblas_sgemm(CblasColMajor, g.transa ? CblasTrans : CblasNoTrans,
                g.transb ? CblasTrans : CblasNoTrans, int(g.m), int(g.n), int(g.k), g.alpha,
                g.a + i * g.stride_a, int(g.lda), g.b + i * g.stride_b, int(g.ldb), g.beta,
                g.c + i * g.stride_c, int(g.ldc));
}
#endif

#ifdef KTUNE_HAVE_ONEDNN
// oneDNN's matmul primitive for the shape, strides, alpha and beta of g (pointers unused).
// Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T: oneDNN's src is op(B)^T
// (n×k), its weights op(A)^T (k×m) and its dst C^T (n×m), each described by its strides, so no
// data is copied or reordered. Throws dnnl::error when oneDNN has no matmul for it. `in`: the
// type of A and B (f32, or bf16 for bf16 problems: FP32 accumulation and C either way).
inline dnnl::matmul::primitive_desc onednn_matmul_desc(
    const Args& g, const dnnl::engine& engine,
    dnnl::memory::data_type in = dnnl::memory::data_type::f32) {
  using dnnl::memory;
  const auto f32 = memory::data_type::f32;
  const memory::desc src({g.batch, g.n, g.k}, in,
                         {g.stride_b, g.transb ? 1 : g.ldb, g.transb ? g.ldb : 1});
  const memory::desc weights({g.batch, g.k, g.m}, in,
                             {g.stride_a, g.transa ? 1 : g.lda, g.transa ? g.lda : 1});
  const memory::desc dst({g.batch, g.n, g.m}, f32, {g.stride_c, g.ldc, 1});
  dnnl::primitive_attr attr;
  if (g.alpha != 1) attr.set_output_scales(0, {g.alpha});
  if (g.beta != 0) {
    dnnl::post_ops ops;
    ops.append_sum(g.beta);
    attr.set_post_ops(ops);
  }
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine);
}

// A matmul made by onednn_matmul_desc(g) with its memory objects, run on g's pointers.
struct OnednnMatmul {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul matmul;
  dnnl::memory src, weights, dst;

  explicit OnednnMatmul(const Args& g, dnnl::memory::data_type in = dnnl::memory::data_type::f32)
      : pd(onednn_matmul_desc(g, engine, in)),
        matmul(pd),
        src(pd.src_desc(), engine, DNNL_MEMORY_NONE),
        weights(pd.weights_desc(), engine, DNNL_MEMORY_NONE),
        dst(pd.dst_desc(), engine, DNNL_MEMORY_NONE) {}

  // G: Args, or Bf16Args for a matmul made with bf16 inputs.
  template <class G>
  void run(const G& g) {
    // Read-only inputs: oneDNN takes non-const handles but does not write src or weights.
    src.set_data_handle(const_cast<void*>(static_cast<const void*>(g.b)));
    weights.set_data_handle(const_cast<void*>(static_cast<const void*>(g.a)));
    dst.set_data_handle(g.c);
    matmul.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
  }
};
#endif

}  // namespace ktune::kernels::gemm::cpu
