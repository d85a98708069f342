// register_cuda_backends(): the CUDA backends this build has (CMake defines KTUNE_NN_CUDNN when
// cuDNN is found, KTUNE_NN_TUNED_CUDA when the tuned CUDA conv2d and GEMM libraries are built).
#include "nn/cuda/register.hpp"

#include "ktune/nn/registry.hpp"

namespace ktune::nn {

void register_cuda_backends() {
  register_backend("cublas", "CUDA: im2col + cublasSgemm for every conv, cuBLAS FC (FP32)",
                   cuda::make_cublas_backend);
#ifdef KTUNE_NN_CUDNN
  register_backend("cudnn", "CUDA: cuDNN's fastest FP32 algorithm per conv, cuBLAS FC",
                   cuda::make_cudnn_backend);
#endif
#ifdef KTUNE_NN_TUNED_CUDA
  register_backend("ktune-cuda", "CUDA: tuned ktune::conv2d + ktune::gemm, bias+ReLU kernel",
                   cuda::make_ktune_backend);
#endif
}

}  // namespace ktune::nn
