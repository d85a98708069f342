// register_cuda_backends(): the CUDA backends this build has (CMake defines KTUNE_NN_CUDNN when
// cuDNN is found, KTUNE_NN_TUNED_CUDA when the tuned CUDA conv2d and GEMM libraries are built),
// each in its precisions.
#include "nn/cuda/register.hpp"

#include <vector>

#include "ktune/nn/registry.hpp"

namespace ktune::nn {

namespace {

using cuda::Precision;

// "<name>" in fp32, "<name>-tf32" / "<name>-bf16" in the others.
void register_in(const std::string& name, const std::string& summary,
                 std::unique_ptr<Backend> (*make)(Precision), std::initializer_list<Precision> ps) {
  for (const Precision p : ps) {
    const bool fp32 = p == Precision::fp32;
    register_backend(fp32 ? name : name + "-" + cuda::precision_name(p),
                     summary + " (" + cuda::precision_name(p) + ")", [make, p] { return make(p); });
  }
}

// auto-cuda's candidates in precision p: every backend of p, and in tf32 / bf16 also ktune's own
// kernels without cuDNN's layers (ktune-cuda-<p>'s per-layer mix is the other).
std::vector<std::unique_ptr<Backend>> candidates(Precision p) {
  std::vector<std::unique_ptr<Backend>> all;
#ifdef KTUNE_NN_TUNED_CUDA
  if (cuda::ktune_backend_serves(p)) {
    all.push_back(cuda::make_ktune_backend(p));
#ifdef KTUNE_NN_CUDNN
    if (p != Precision::fp32) all.push_back(cuda::make_ktune_backend(p, false));
#endif
  }
#endif
#ifdef KTUNE_NN_CUDNN
  all.push_back(cuda::make_cudnn_backend(p));
#endif
  all.push_back(cuda::make_cublas_backend(p));
  return all;
}

std::unique_ptr<Backend> make_auto(Precision p) {
  return cuda::make_auto_backend(p, candidates(p));
}

}  // namespace

void register_cuda_backends() {
  const auto all = {Precision::fp32, Precision::tf32, Precision::bf16};
  register_in("cublas", "CUDA: im2col + cuBLAS GEMM for every conv, cuBLAS FC",
              cuda::make_cublas_backend, all);
#ifdef KTUNE_NN_CUDNN
  register_in("cudnn", "CUDA: cuDNN's fastest algorithm per conv, cuBLAS FC",
              cuda::make_cudnn_backend, all);
#endif
#ifdef KTUNE_NN_TUNED_CUDA
  register_backend("ktune-cuda", "CUDA: tuned ktune::conv2d + ktune::gemm, bias+ReLU kernel (fp32)",
                   [] { return cuda::make_ktune_backend(Precision::fp32); });
  for (const Precision p : {Precision::tf32, Precision::bf16}) {
    if (!cuda::ktune_backend_serves(p)) continue;
    const std::string name = cuda::precision_name(p);
    register_backend("ktune-cuda-" + name,
                     "CUDA: (im2col +) tuned ktune::gemm_ex " + name +
                         " per conv and FC, or cuDNN's conv where faster at load (" + name + ")",
                     [p] { return cuda::make_ktune_backend(p); });
  }
#endif
  register_in("auto-cuda",
              "CUDA: the fastest whole network of the CUDA backends of this precision, timed "
              "(CUDA graphs, interleaved rounds) at set-up",
              make_auto, all);
}

}  // namespace ktune::nn
