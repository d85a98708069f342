// `cublas`: every convolution as im2col + a cuBLAS GEMM (the matrix-backend comparison of the
// seed paper), 1×1 stride-1 unpadded convolutions as one GEMM on the input itself; fully
// connected layers by cuBLAS; bias + ReLU by one kernel after each GEMM. In the backend's
// precision (cublas_backend_base.hpp): `cublas`, `cublas-tf32`, `cublas-bf16`.
#include <algorithm>
#include <map>

#include "nn/cuda/cublas_backend_base.hpp"
#include "nn/cuda/layer_kernels.hpp"
#include "nn/cuda/register.hpp"

namespace ktune::nn::cuda {

namespace {

bool needs_im2col(const ConvDesc& d) {
  return !(d.r == 1 && d.s == 1 && d.stride == 1 && d.pad == 0);
}

class CublasBackend final : public CublasBackendBase {
 public:
  explicit CublasBackend(Precision precision) : CublasBackendBase(precision) {}
  std::string name() const override {
    return precision() == Precision::fp32 ? "cublas"
                                          : std::string("cublas-") + precision_name(precision());
  }

  void prepare_conv(int layer, const ConvDesc& d, const float* filter, const float* bias) override {
    keep_operand(layer, 0, filter, size_t(d.k * d.r * d.s * d.c));
    keep(layer, 1, bias, size_t(d.k));
    // One patch matrix, sized for the largest layer, allocated here and never per inference.
    const auto need = size_t(needs_im2col(d) ? d.n * d.p() * d.q() * d.r * d.s * d.c : 0);
    if (storage_floats(need) > col_.size())
      col_ = ktune::cuda::DeviceBuffer<float>(storage_floats(need), "cublas im2col matrix");
  }

  void conv2d(int layer, const ConvDesc& d, const float* in, float* out) override {
    const int64_t rows = d.n * d.p() * d.q(), patch = d.r * d.s * d.c;
    const float* b = in;
    if (needs_im2col(d)) {
      if (is_bf16())
        im2col(d, reinterpret_cast<const bf16*>(in), reinterpret_cast<bf16*>(col_.data()),
               stream());
      else
        im2col(d, in, col_.data(), stream());
      b = col_.data();
    }
    // Column-major: out (k × rows) = Wᵀ · col, W [k][patch] = (patch × k), col = (patch × rows).
    gemm(true, d.k, rows, patch, kept(layer, 0), patch, b, patch, out, d.k);
    epilogue(out, kept(layer, 1), rows, d.k, d.relu);
  }

 private:
  ktune::cuda::DeviceBuffer<float> col_;
};

}  // namespace

std::unique_ptr<Backend> make_cublas_backend(Precision precision) {
  return std::make_unique<CublasBackend>(precision);
}

}  // namespace ktune::nn::cuda
