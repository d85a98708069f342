#pragma once
// Pushes a stream's operands out of the L2 cache without dirtying it: a kernel reads a buffer of
// twice the L2's size, so that the next run meets its inputs in device memory, as the benchmarks'
// rotated input copies do, and evicts only clean lines (an untimed memset instead left the L2
// full of dirty lines whose write-back landed in the next timed run: results/h200/
// remember-vit-l2evict). Used by tune-and-remember's first-call trials (ktune/cuda/
// remember_cuda.hpp). Header-only on the CUDA runtime API, for the deployed libraries that link
// no ktune library and may be compiled by a host compiler: the kernel is PTX, loaded once per
// process with cudaLibraryLoadData (the driver compiles it for the GPU at hand). C++17.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

namespace ktune::cuda {

// The reading kernel, hand-written PTX because a host-compiled header cannot hold CUDA C++:
// every thread XORs 16-byte loads (ld.global.cg: cached in L2 only) over a grid-stride loop and
// stores the result to sink only if it equals the `never` argument. The buffer is zeroed once,
// so the XOR is 0 and the caller passes a nonzero `never`: nothing is written, yet the loads
// cannot be optimized away.
inline constexpr char kL2ReadFlushPtx[] = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry ktune_l2_read_flush(.param .u64 buf, .param .u64 n16, .param .u32 never,
                                    .param .u64 sink)
{
  .reg .pred p;
  .reg .b32 r<12>;
  .reg .b64 rd<10>;
  ld.param.u64 rd1, [buf];
  ld.param.u64 rd2, [n16];
  ld.param.u32 r10, [never];
  ld.param.u64 rd3, [sink];
  cvta.to.global.u64 rd1, rd1;
  cvta.to.global.u64 rd3, rd3;
  mov.u32 r1, %ctaid.x;
  mov.u32 r2, %ntid.x;
  mov.u32 r3, %tid.x;
  mov.u32 r4, %nctaid.x;
  mul.wide.u32 rd4, r1, r2;
  cvt.u64.u32 rd5, r3;
  add.u64 rd4, rd4, rd5;
  mul.wide.u32 rd6, r4, r2;
  mov.u32 r11, 0;
LOOP:
  setp.ge.u64 p, rd4, rd2;
  @p bra DONE;
  shl.b64 rd7, rd4, 4;
  add.u64 rd8, rd1, rd7;
  ld.global.cg.v4.u32 {r5, r6, r7, r8}, [rd8];
  xor.b32 r11, r11, r5;
  xor.b32 r11, r11, r6;
  xor.b32 r11, r11, r7;
  xor.b32 r11, r11, r8;
  add.u64 rd4, rd4, rd6;
  bra LOOP;
DONE:
  setp.ne.u32 p, r11, r10;
  @p ret;
  st.global.u32 [rd3], r11;
  ret;
}
)";

// The loaded kernel, or nullptr where it cannot be loaded (an old driver; the caller then times
// with the operands where they are). Loaded once per process, never unloaded.
inline cudaKernel_t l2_read_flush_kernel() {
  static cudaKernel_t kernel = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    cudaLibrary_t library = nullptr;
    if (cudaLibraryLoadData(&library, kL2ReadFlushPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) !=
            cudaSuccess ||
        cudaLibraryGetKernel(&kernel, library, "ktune_l2_read_flush") != cudaSuccess)
      kernel = nullptr;
    (void)cudaGetLastError();  // a failed load only means "not available"
  });
  return kernel;
}

// One buffer of twice the current device's L2 (zeroed at construction), read on a stream before
// each timed run. ok() is false when the kernel, the L2 size or the memory is not to be had (no
// error is left behind); enqueue() then does nothing.
class L2ReadFlush {
 public:
  explicit L2ReadFlush(cudaStream_t stream) : stream_(stream) {
    kernel_ = l2_read_flush_kernel();
    int device = 0, l2 = 0, sms = 0;
    if (!kernel_ || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        l2 <= 0 || sms <= 0) {
      (void)cudaGetLastError();
      return;
    }
    bytes_ = 2 * size_t(l2);
    blocks_ = 4u * unsigned(sms);
    if (cudaMalloc(&buffer_, bytes_) != cudaSuccess) {
      (void)cudaGetLastError();
      buffer_ = nullptr;
      return;
    }
    // Zeroed (the kernel's XOR must be 0) on the stream, untimed; its dirty lines are pushed out
    // by the first read.
    if (cudaMemsetAsync(buffer_, 0, bytes_, stream_) != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaFree(buffer_);
      buffer_ = nullptr;
    }
  }
  ~L2ReadFlush() {
    if (buffer_) (void)cudaFree(buffer_);
  }
  L2ReadFlush(const L2ReadFlush&) = delete;
  L2ReadFlush& operator=(const L2ReadFlush&) = delete;

  bool ok() const { return buffer_ != nullptr; }
  size_t bytes() const { return bytes_; }
  const void* data() const { return buffer_; }

  // Enqueues one read of the buffer on the stream; false when not ok() or the launch failed
  // (the error cleared).
  bool enqueue() {
    if (!buffer_) return false;
    unsigned long long n16 = bytes_ / 16;
    unsigned never = 0x5eed1e55u;  // nonzero: the zeroed buffer never XORs to it
    void* sink = buffer_;
    void* args[] = {&buffer_, &n16, &never, &sink};
    if (cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(blocks_), dim3(256), args, 0,
                         stream_) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return true;
  }

 private:
  cudaStream_t stream_;
  cudaKernel_t kernel_ = nullptr;
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  unsigned blocks_ = 0;
};

}  // namespace ktune::cuda
