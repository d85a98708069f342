#pragma once
// epilogue_pass.cu: y = relu(y + bias[k] + residual) in place after a plain conv2d_ex (FP32, or
// bf16 bits when bf16), on `stream`; the launch's error.
#include <cuda_runtime_api.h>

namespace tuned_conv {

cudaError_t launch_epilogue_pass(void* y, bool bf16, const float* bias, const void* residual,
                                 long long count, int k, cudaStream_t stream);

}  // namespace tuned_conv
