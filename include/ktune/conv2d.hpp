#pragma once
// ktune::conv2d: FP32 forward 2D convolution (cross-correlation as in DNN libraries; dilation 1,
// groups 1, symmetric zero padding), served by a tuned library that ships only the configs a
// learned selector chooses between (CMake: ktune_add_tuned_library(... FAMILY conv2d ...)).
//
//   input  NHWC [n][h][w][c]
//   filter KRSC [k][r][s][c]   (oneDNN "ohwi")
//   output NHWC [n][p][q][k]   p = (h + 2·pad − r) / stride + 1, q = (w + 2·pad − s) / stride + 1
//
// Arguments are checked before anything runs: sizes below 1 (n may be 0: nothing happens),
// pad negative or not smaller than the filter, a filter larger than the padded input, tensors
// over 2^31 − 1 elements and null pointers throw ktune::Conv2dError naming the argument in one
// line; the output is not touched then. The filter is transformed or repacked inside each call
// (no state between calls); ktune::Conv2dPlan below prepares it once per layer instead.
#include <cstdint>
#include <stdexcept>

struct CUstream_st;

namespace ktune {

using cudaStream_t = ::CUstream_st*;  // the CUDA runtime's cudaStream_t (nullptr: default stream)

class Conv2dError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Host pointers (BACKENDS cpu). Threads: OpenMP.
void conv2d(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
            int64_t stride, int64_t pad, const float* input, const float* filter, float* output);
// Device pointers, asynchronous on `stream` (BACKENDS cuda).
void conv2d(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
            int64_t stride, int64_t pad, const float* input, const float* filter, float* output,
            cudaStream_t stream);

// The tensor-core precisions of conv2d_ex (codes as the conv2d sweep's precision=; fp32 serves
// conv2d above). tf32: FP32 input and filter (float), TF32 tensor-core math, FP32 output.
enum class Conv2dPrecision : int { fp32 = 0, tf32 = 1, bf16 = 2, fp16 = 3 };
// conv2d_ex's output type: FP32, or the data's 16-bit type (bf16 in bf16 precision, fp16 in fp16:
// the 16 bits of each value, NHWC): the FP32 sum rounded once to nearest even at the store, which
// the next layer of that precision reads without a conversion pass. tf32 writes FP32 only.
enum class Conv2dOutput : int { fp32 = 0, bf16 = 2, fp16 = 3 };

// Device pointers, asynchronous on `stream` (BACKENDS cuda): input and filter in `precision`
// (bf16 / fp16: the 16 bits of each value; tf32: floats; NHWC and KRSC as above), FP32
// accumulation, FP32 NHWC output. Each precision is served by its own selector (NAMED_SELECTORS
// tf32 / bf16 / fp16 of the tuned library; the shipped library has all three unless built with
// -DKTUNE_CONV_CUDA_TF32_SELECTOR= (tf32 refused)) among the tensor-core kinds cuda_igemm_mma /
// cuda_igemm_wgmma and, when the selector ships it, cuDNN ("vendor=cudnn": the first call per layer
// and pointer alignment searches cuDNN's legacy Find and backend engines synchronously, in the
// call's precision, as the training rows' cuDNN did; the kept choice writes `output` in FP32
// directly or 16 bits widened into it); a library without the precision's selector throws
// ktune::Conv2dError, as does a precision other than fp32, tf32, bf16 and fp16, and the argument
// checks of conv2d(). fp32 calls conv2d().
void conv2d_ex(Conv2dPrecision precision, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
               int64_t r, int64_t s, int64_t stride, int64_t pad, const void* input,
               const void* filter, float* output, cudaStream_t stream);
// The same with the output type: Conv2dOutput::fp32 is the call above; Conv2dOutput::bf16 (bf16
// precision only) and Conv2dOutput::fp16 (fp16 precision only; any other pairing throws
// ktune::Conv2dError) write `output` in the data's 16 bits, every config itself (ktune's kernels
// round their FP32 accumulators once at the store; cuDNN's engines write a 16-bit output tensor:
// no widening pass, no scratch output). A 16-bit output needs 2-byte alignment (4 bytes keep the
// wgmma configs and cuDNN's vectorized engines in the running; 8 bytes and k % 4 == 0 let the
// wgmma configs store whole 32-byte sectors); the first call per layer, pointer alignment and
// output type searches cuDNN as above.
void conv2d_ex(Conv2dPrecision precision, Conv2dOutput output_type, int64_t n, int64_t h, int64_t w,
               int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad,
               const void* input, const void* filter, void* output, cudaStream_t stream);

// conv2d_ex's fused epilogue (device pointers): y = act(conv(x, w) + bias[k] + residual), act =
// ReLU when relu, in FP32 and stored once in the output's type; each part optional (default:
// none, the plain call). bias: FP32 [k]; residual: NHWC [n][p][q][k] in the output's type (FP32, or
// the data's 16 bits), which may be the output itself (in place, y += conv) but no other overlap
// with the output: then, or where bias overlaps the output, or a pointer is not aligned to its
// element, ktune::Conv2dError. Who fuses it: ktune's kernels (cuda_igemm_mma, cuda_igemm_wgmma) in
// their stores (no extra pass); the cuDNN candidate and precision fp32 (ktune::conv2d's kinds) with
// one small elementwise pass on `stream` after the convolution (part of the call; a 16-bit output
// is then rounded twice: the conv's store and the pass's). The selectors were trained on plain
// convolutions: they pick the same config with or without an epilogue.
struct Conv2dEpilogue {
  const float* bias = nullptr;
  const void* residual = nullptr;
  bool relu = false;
};
// conv2d_ex with a fused epilogue: precision fp32 or tf32 (output fp32 only), bf16 (output fp32
// or bf16) or fp16 (output fp32 or fp16).
void conv2d_ex(Conv2dPrecision precision, Conv2dOutput output_type, int64_t n, int64_t h, int64_t w,
               int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride, int64_t pad,
               const void* input, const void* filter, void* output, const Conv2dEpilogue& epilogue,
               cudaStream_t stream);

// A convolution prepared once per layer for inference (BACKENDS cuda): the selector picks the
// config once, and the plan keeps its own device copy of the filter, transformed once when the
// pick is a Winograd config, so that run() does only the per-input work (input transform,
// GEMMs, output transform). A selector trained on the rows measured with the filter transform
// outside the timed run (ft=pre) fits plans best. The constructor checks the arguments like
// conv2d() (the filter only; run() checks input and output) and enqueues the filter copy or
// transform on `stream` (runs on another stream must be ordered after it); run() is
// asynchronous on its stream (device pointers, shapes as given to the constructor). One plan's
// run() calls may overlap (each takes its own workspace). The destructor waits for the device.
// Move-only. (examples/tuned-conv: ktune_tuned_conv2d_cuda_prepared ships such a selector.)
class Conv2dPlan {
 public:
  Conv2dPlan(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
             int64_t stride, int64_t pad, const float* filter, cudaStream_t stream);
  ~Conv2dPlan();
  Conv2dPlan(Conv2dPlan&& other) noexcept;
  Conv2dPlan& operator=(Conv2dPlan&& other) noexcept;
  Conv2dPlan(const Conv2dPlan&) = delete;
  Conv2dPlan& operator=(const Conv2dPlan&) = delete;

  void run(const float* input, float* output, cudaStream_t stream) const;
  int config() const;  // the index into tuned_conv2d_info_cuda().configs it runs

 private:
  struct State;
  State* state_ = nullptr;
};

// The CPU counterpart (BACKENDS cpu), for inference engines: the selector picks the config once
// per layer; a pick of kind cpu_plan (the nn engine's conv plan) packs or Winograd-transforms the
// filter once into the plan, so that run() does only the per-input work, which is how the CPU
// sweep measured that kind; a pick of another kind keeps a copy of the filter and runs as
// conv2d() does. The constructor checks its arguments like conv2d() (the filter only: run()
// checks input and output) and reads the filter only then. run(): host pointers, the shapes given
// to the constructor, threads of the calling thread's OpenMP team; one run() of a plan at a time
// (the plan owns its workspace). Move-only.
class CpuConv2dPlan {
 public:
  CpuConv2dPlan(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                int64_t stride, int64_t pad, const float* filter);
  ~CpuConv2dPlan();
  CpuConv2dPlan(CpuConv2dPlan&& other) noexcept;
  CpuConv2dPlan& operator=(CpuConv2dPlan&& other) noexcept;
  CpuConv2dPlan(const CpuConv2dPlan&) = delete;
  CpuConv2dPlan& operator=(const CpuConv2dPlan&) = delete;

  void run(const float* input, float* output);
  int config() const;  // the index into tuned_conv2d_info_cpu().configs it runs, -1 for none

 private:
  struct State;
  State* state_ = nullptr;
};

// What a tuned library ships, for reports and tests.
struct TunedConv2dInfo {
  const char* backend;         // "cpu" or "cuda"
  int num_configs;             // K
  const char* const* configs;  // the K config strings, as in the selector header
  int baseline;                // index served when the selector cannot decide
};
const TunedConv2dInfo& tuned_conv2d_info_cpu();
const TunedConv2dInfo& tuned_conv2d_info_cuda();
// Index into info.configs the selector picks for a problem (no fallback applied).
int tuned_conv2d_choice_cpu(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                            int64_t s, int64_t stride, int64_t pad);
int tuned_conv2d_choice_cuda(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                             int64_t s, int64_t stride, int64_t pad);
// Runs shipped config `index` (into info.configs) instead of the selector's pick, with the
// same argument checks (ktune::Conv2dError; an index out of range too); false, with nothing
// written, when that config does not apply to the problem (Winograd off 3x3 stride 1, ...).
// For tests and reports that must reach every shipped config.
bool tuned_conv2d_run_config_cpu(int index, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                 int64_t r, int64_t s, int64_t stride, int64_t pad,
                                 const float* input, const float* filter, float* output);
bool tuned_conv2d_run_config_cuda(int index, int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                  int64_t r, int64_t s, int64_t stride, int64_t pad,
                                  const float* input, const float* filter, float* output,
                                  cudaStream_t stream);
// conv2d_ex's counterparts: the precision's shipped configs (num_configs 0 without its
// selector), the selector's pick, and one shipped config run (false when it refuses the problem).
const TunedConv2dInfo& tuned_conv2d_ex_info_cuda(Conv2dPrecision precision);
int tuned_conv2d_ex_choice_cuda(Conv2dPrecision precision, int64_t n, int64_t h, int64_t w,
                                int64_t c, int64_t k, int64_t r, int64_t s, int64_t stride,
                                int64_t pad);
bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, int index, int64_t n, int64_t h,
                                     int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                                     int64_t stride, int64_t pad, const void* input,
                                     const void* filter, float* output, cudaStream_t stream);
bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, Conv2dOutput output_type, int index,
                                     int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                     int64_t r, int64_t s, int64_t stride, int64_t pad,
                                     const void* input, const void* filter, void* output,
                                     cudaStream_t stream);
// The same with conv2d_ex's fused epilogue (the tf32, bf16 or fp16 precision's shipped configs).
bool tuned_conv2d_ex_run_config_cuda(Conv2dPrecision precision, Conv2dOutput output_type, int index,
                                     int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                                     int64_t r, int64_t s, int64_t stride, int64_t pad,
                                     const void* input, const void* filter, void* output,
                                     const Conv2dEpilogue& epilogue, cudaStream_t stream);

}  // namespace ktune
