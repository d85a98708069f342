// ktune::conv2d_ex (bf16 precision, the shipped bf16 selector) with the fused epilogue
// y = relu(conv + bias + residual) against the plain call followed by a separate pass
// (epilogue_pass.cu), FP32 and bf16 output, on VGG16 and ResNet-50 layers (batch 1 and 16; the
// selector's training layers: in sample). Per layer: the pick, the plain call alone, plain +
// pass, fused (microseconds a call: CUDA events over 20 back-to-back calls, median of 7 trials
// after 3 warm-up calls, which include cuDNN's first-call search; the same buffers every call,
// so a layer that fits in L2 is timed warm), and the largest difference between the fused and
// the plain + pass outputs relative to the largest |output| (both judged against float64 by
// the GPU tests TunedConv2dExCudaEpilogue.*; here a check that the two timed calls agree).
//   tuned_conv_epilogue_bench OUT.md OUT.csv
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/tuned-conv/epilogue_pass.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "ktune/conv2d.hpp"

namespace {

struct Layer {
  const char* net;
  int64_t n, h, w, c, k, r, s, stride, pad;
};

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
}

uint16_t to_bf16(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, 4);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}
float widen(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  void* p = nullptr;
  check(cudaMalloc(&p, host.size() * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return static_cast<T*>(p);
}

// Microseconds a call of `call` (see the file's comment).
double time_us(const std::function<void()>& call, cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) call();
  check(cudaStreamSynchronize(stream), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> trials;
  for (int t = 0; t < 7; ++t) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < 20; ++i) call();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    trials.push_back(1000.0 * ms / 20);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(trials.begin(), trials.end());
  return trials[trials.size() / 2];
}

std::vector<float> values(const void* y, bool bf16, size_t count) {
  std::vector<float> v(count);
  if (bf16) {
    std::vector<uint16_t> bits(count);
    check(cudaMemcpy(bits.data(), y, count * 2, cudaMemcpyDeviceToHost), "download");
    for (size_t i = 0; i < count; ++i) v[i] = widen(bits[i]);
  } else {
    check(cudaMemcpy(v.data(), y, count * 4, cudaMemcpyDeviceToHost), "download");
  }
  return v;
}

int run(const std::string& md_path, const std::string& csv_path) {
  const std::vector<Layer> layers = {{"vgg16", 1, 224, 224, 64, 64, 3, 3, 1, 1},
                                     {"vgg16", 1, 112, 112, 128, 128, 3, 3, 1, 1},
                                     {"vgg16", 1, 28, 28, 512, 512, 3, 3, 1, 1},
                                     {"vgg16", 16, 56, 56, 256, 256, 3, 3, 1, 1},
                                     {"resnet50", 1, 56, 56, 64, 64, 3, 3, 1, 1},
                                     {"resnet50", 1, 56, 56, 64, 256, 1, 1, 1, 0},
                                     {"resnet50", 1, 14, 14, 256, 1024, 1, 1, 1, 0},
                                     {"resnet50", 1, 7, 7, 512, 512, 3, 3, 1, 1},
                                     {"resnet50", 16, 56, 56, 64, 256, 1, 1, 1, 0},
                                     {"resnet50", 16, 14, 14, 256, 256, 3, 3, 1, 1}};
  const auto& info = ktune::tuned_conv2d_ex_info_cuda(ktune::Conv2dPrecision::bf16);
  if (info.num_configs == 0) throw std::runtime_error("the library ships no bf16 selector");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const auto api_stream = reinterpret_cast<ktune::cudaStream_t>(stream);
  std::ofstream md(md_path), csv(csv_path);
  if (!md || !csv) throw std::runtime_error("cannot write " + md_path + " or " + csv_path);
  md << "# conv2d_ex fused epilogue (bias + residual + ReLU) vs plain call + separate pass\n\n"
     << "Device: " << prop.name << ". bf16 input and filter, the shipped bf16 selector (in sample: "
     << "VGG16 / ResNet-50 layers). Microseconds a call, median of 7 trials of 20 calls, warm "
     << "buffers (tuned_conv_epilogue_bench).\n\n"
     << "| net | layer | output | pick | plain | plain + pass | fused | fused vs plain + pass | "
        "max diff |\n|---|---|---|---|---:|---:|---:|---:|---:|\n";
  csv << "net,n,h,w,c,k,r,s,stride,pad,output,pick,plain_us,plain_pass_us,fused_us,max_rel_diff\n";
  double log_sum = 0, fused_total = 0, pass_total = 0;
  int rows = 0;
  for (const Layer& l : layers) {
    const int64_t p = (l.h + 2 * l.pad - l.r) / l.stride + 1,
                  q = (l.w + 2 * l.pad - l.s) / l.stride + 1;
    const size_t count = size_t(l.n * p * q * l.k);
    const auto in = ktune::kernels::gemm::random_matrix(size_t(l.n * l.h * l.w * l.c), 1);
    const auto fl = ktune::kernels::gemm::random_matrix(size_t(l.k * l.r * l.s * l.c), 2);
    const auto bias_host = ktune::kernels::gemm::random_matrix(size_t(l.k), 3);
    const auto res_host = ktune::kernels::gemm::random_matrix(count, 4);
    std::vector<uint16_t> in16(in.size()), fl16(fl.size()), res16(count);
    std::transform(in.begin(), in.end(), in16.begin(), to_bf16);
    std::transform(fl.begin(), fl.end(), fl16.begin(), to_bf16);
    std::transform(res_host.begin(), res_host.end(), res16.begin(), to_bf16);
    uint16_t* x = device_copy(in16);
    uint16_t* wt = device_copy(fl16);
    float* bias = device_copy(bias_host);
    float* res32 = device_copy(res_host);
    uint16_t* r16 = device_copy(res16);
    void *y = nullptr, *y_pass = nullptr;
    check(cudaMalloc(&y, count * 4), "cudaMalloc");
    check(cudaMalloc(&y_pass, count * 4), "cudaMalloc");
    const int pick = ktune::tuned_conv2d_ex_choice_cuda(ktune::Conv2dPrecision::bf16, l.n, l.h, l.w,
                                                        l.c, l.k, l.r, l.s, l.stride, l.pad);
    for (bool bf16 : {false, true}) {
      const auto output = bf16 ? ktune::Conv2dOutput::bf16 : ktune::Conv2dOutput::fp32;
      const void* residual = bf16 ? static_cast<const void*>(r16) : res32;
      ktune::Conv2dEpilogue epilogue;
      epilogue.bias = bias;
      epilogue.residual = residual;
      epilogue.relu = true;
      auto plain = [&](void* out) {
        ktune::conv2d_ex(ktune::Conv2dPrecision::bf16, output, l.n, l.h, l.w, l.c, l.k, l.r, l.s,
                         l.stride, l.pad, x, wt, out, api_stream);
      };
      auto plain_pass = [&] {
        plain(y_pass);
        check(tuned_conv::launch_epilogue_pass(y_pass, bf16, bias, residual, (long long)count,
                                               int(l.k), stream),
              "epilogue pass");
      };
      auto fused = [&] {
        ktune::conv2d_ex(ktune::Conv2dPrecision::bf16, output, l.n, l.h, l.w, l.c, l.k, l.r, l.s,
                         l.stride, l.pad, x, wt, y, epilogue, api_stream);
      };
      const double plain_us = time_us([&] { plain(y); }, stream);
      const double pass_us = time_us(plain_pass, stream);
      const double fused_us = time_us(fused, stream);
      fused();
      plain_pass();
      check(cudaStreamSynchronize(stream), "the compared calls");
      const auto a = values(y, bf16, count), b = values(y_pass, bf16, count);
      double diff = 0, top = 0;
      for (size_t i = 0; i < count; ++i) {
        diff = std::max(diff, double(std::fabs(a[i] - b[i])));
        top = std::max(top, double(std::fabs(b[i])));
      }
      const double rel = top > 0 ? diff / top : diff;
      const std::string layer = std::to_string(l.n) + "x" + std::to_string(l.h) + "x" +
                                std::to_string(l.w) + "x" + std::to_string(l.c) + " k" +
                                std::to_string(l.k) + " " + std::to_string(l.r) + "x" +
                                std::to_string(l.s) + "/" + std::to_string(l.stride);
      char line[512];
      std::snprintf(line, sizeof line,
                    "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.2fx | %.2g |\n", l.net,
                    layer.c_str(), bf16 ? "bf16" : "fp32", info.configs[pick], plain_us, pass_us,
                    fused_us, pass_us / fused_us, rel);
      md << line << std::flush;  // a run cut by its time limit keeps the rows it has
      std::printf("%s", line);
      csv << l.net << ',' << l.n << ',' << l.h << ',' << l.w << ',' << l.c << ',' << l.k << ','
          << l.r << ',' << l.s << ',' << l.stride << ',' << l.pad << ',' << (bf16 ? "bf16" : "fp32")
          << ",\"" << info.configs[pick] << "\"," << plain_us << ',' << pass_us << ',' << fused_us
          << ',' << rel << '\n';
      log_sum += std::log(pass_us / fused_us);
      fused_total += fused_us;
      pass_total += pass_us;
      ++rows;
    }
    for (void* ptr : {static_cast<void*>(x), static_cast<void*>(wt), static_cast<void*>(bias),
                      static_cast<void*>(res32), static_cast<void*>(r16), y, y_pass})
      cudaFree(ptr);
  }
  char summary[256];
  std::snprintf(summary, sizeof summary,
                "\nFused vs plain + pass over %d rows: geomean %.3fx, time-weighted %.3fx "
                "(sum of plain + pass / sum of fused).\n",
                rows, std::exp(log_sum / rows), pass_total / fused_total);
  md << summary;
  std::printf("%s", summary);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tuned_conv_epilogue_bench OUT.md OUT.csv\n");
    return 2;
  }
  try {
    return run(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tuned_conv_epilogue_bench: %s\n", e.what());
    return 1;
  }
}
