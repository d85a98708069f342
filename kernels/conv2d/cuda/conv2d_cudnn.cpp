#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ktune/cuda/cuda_error.hpp"

namespace ktune::kernels::conv2d::cuda {

namespace {

const char* algo_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "?";
  }
}

}  // namespace

void check_cudnn(cudnnStatus_t status, const std::string& call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw ktune::cuda::CudaError(call + ": " + cudnnGetErrorString(status), int(status), false);
}

CudnnHandle::CudnnHandle(cudaStream_t stream) {
  check_cudnn(cudnnCreate(&handle_), "cudnnCreate");
  const cudnnStatus_t status = cudnnSetStream(handle_, stream);
  if (status != CUDNN_STATUS_SUCCESS) {
    cudnnDestroy(handle_);
    check_cudnn(status, "cudnnSetStream");
  }
}

CudnnHandle::~CudnnHandle() {
  if (handle_ && !ktune::cuda::context_corrupted()) cudnnDestroy(handle_);
}

CudnnConv::CudnnConv(cudnnHandle_t handle, const Shape& s) : handle_(handle) {
  try {
    check_cudnn(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, int(s.n),
                                           int(s.c), int(s.h), int(s.w)),
                "cudnnSetTensor4dDescriptor(x)");
    // KRSC is cuDNN's NHWC filter format (k, then r, s, c innermost).
    check_cudnn(cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, int(s.k),
                                           int(s.c), int(s.r), int(s.s)),
                "cudnnSetFilter4dDescriptor(w)");
    check_cudnn(cudnnSetConvolution2dDescriptor(conv_desc_, int(s.pad), int(s.pad), int(s.stride),
                                                int(s.stride), 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionMathType(conv_desc_, CUDNN_FMA_MATH),
                "cudnnSetConvolutionMathType(FMA)");
    int n = 0, c = 0, p = 0, q = 0;
    check_cudnn(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_, &n, &c, &p, &q),
                "cudnnGetConvolution2dForwardOutputDim");
    if (n != s.n || c != s.k || p != s.p() || q != s.q())
      throw Error(fmt::format("cudnn: output {}x{}x{}x{} differs from the family's {}x{}x{}x{}", n,
                              p, q, c, s.n, s.p(), s.q(), s.k));
    check_cudnn(
        cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, p, q),
        "cudnnSetTensor4dDescriptor(y)");
  } catch (...) {
    release();
    throw;
  }
}

CudnnConv::~CudnnConv() { release(); }

void CudnnConv::release() {
  if (conv_desc_) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_) cudnnDestroyFilterDescriptor(w_desc_);
  if (y_desc_) cudnnDestroyTensorDescriptor(y_desc_);
  if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
  conv_desc_ = nullptr, w_desc_ = nullptr, y_desc_ = nullptr, x_desc_ = nullptr;
}

void CudnnConv::find(const float* x, const float* w, float* y) {
  size_t largest = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle_, x_desc_, w_desc_, conv_desc_, y_desc_,
                                                cudnnConvolutionFwdAlgo_t(a),
                                                &bytes) == CUDNN_STATUS_SUCCESS &&
        bytes <= kMaxFindWorkspace)
      largest = std::max(largest, bytes);
  }
  {
    ktune::cuda::DeviceBuffer<char> search(largest, "cudnn find workspace");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    int returned = 0;
    check_cudnn(
        cudnnFindConvolutionForwardAlgorithmEx(handle_, x_desc_, x, w_desc_, w, conv_desc_, y_desc_,
                                               y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
                                               perf.data(), search.data(), largest),
        "cudnnFindConvolutionForwardAlgorithmEx");
    // Results come sorted by time, fastest first.
    for (int i = 0; i < returned && !found_; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) {
        algo_ = perf[i].algo;
        workspace_ = ktune::cuda::DeviceBuffer<char>(perf[i].memory, "cudnn workspace");
        found_ = true;
      }
    }
  }
  if (!found_)
    throw ktune::cuda::CudaError("cudnn: no FP32 FMA forward algorithm for this problem", 0, false);
}

cudnnStatus_t CudnnConv::run(const float* x, const float* w, float* y) const {
  const float one = 1.0f, zero = 0.0f;
  return cudnnConvolutionForward(handle_, &one, x_desc_, x, w_desc_, w, conv_desc_, algo_,
                                 workspace_.data(), workspace_.bytes(), &zero, y_desc_, y);
}

std::string CudnnConv::description() const {
  return fmt::format("cudnn algo={} workspace={} B", algo_name(algo_), workspace_.bytes());
}

bool CudnnConv::transform_algorithm() const {
  return algo_ == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
         algo_ == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         algo_ == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
         algo_ == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

}  // namespace ktune::kernels::conv2d::cuda
