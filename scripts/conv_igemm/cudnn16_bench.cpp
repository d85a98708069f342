// cuDNN's fastest legacy-API forward convolution per layer in bf16 or fp16, timed like ktune's
// device runs, as the baseline of the cuda_igemm_mma measurements (scripts/gpu_conv_igemm.sh)
// until the family's `cudnn` vendor runs 16-bit problems itself.
//   cudnn16_bench LAYERS.csv bf16|fp16 OUT.csv
// LAYERS.csv: header with network, layer, n, h, w, c, k, r, s, stride, pad (any order, more
// columns ignored). Per layer: NHWC input, KRSC filter (cuDNN's NHWC filter format) and NHWC
// output, all 16-bit, FLOAT compute (FP32 accumulation), CUDNN_TENSOR_OP_MATH allowed;
// cudnnFindConvolutionForwardAlgorithmEx times every algorithm with a workspace of the largest
// size any needs (at most 4 GiB); the fastest successful one is kept and timed: 3 warm-ups, then
// 20 runs each between two events, rotating over copies of the tensors that together exceed
// twice the L2 cache (no run reads a tensor the previous one left in L2); the median is written.
// Only NHWC is tried (the layout the tensor-core kernels use; NCHW data would add transposes).
// The output is 16-bit (cuDNN's legacy API takes one data type for x and y), where ktune's kind
// writes FP32: cuDNN moves half the output bytes. Build: nvcc -O2 -std=c++17 (see the script).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void fail(const std::string& what) {
  std::fprintf(stderr, "cudnn16_bench: %s\n", what.c_str());
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) fail(std::string(what) + ": " + cudnnGetErrorString(s));
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) out.push_back(field);
  return out;
}

struct Layer {
  std::string network, layer;
  int n, h, w, c, k, r, s, stride, pad;
};

std::vector<Layer> read_layers(const char* path) {
  std::ifstream in(path);
  if (!in) fail(std::string("cannot read ") + path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) fail(std::string(path) + ": the header lacks '" + name + "'");
    return size_t(it - header.begin());
  };
  std::vector<Layer> out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line);
    if (f.size() != header.size()) fail(std::string(path) + ": bad line '" + line + "'");
    auto num = [&](const char* name) { return std::atoi(f[column(name)].c_str()); };
    out.push_back({f[column("network")], f[column("layer")], num("n"), num("h"), num("w"), num("c"),
                   num("k"), num("r"), num("s"), num("stride"), num("pad")});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) fail("usage: cudnn16_bench LAYERS.csv bf16|fp16 OUT.csv");
  const std::string precision = argv[2];
  if (precision != "bf16" && precision != "fp16") fail("precision must be bf16 or fp16");
  const cudnnDataType_t type = precision == "bf16" ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const std::vector<Layer> layers = read_layers(argv[1]);
  std::ofstream out(argv[3]);
  out << "network,layer,n,h,w,c,k,r,s,stride,pad,precision,algo,math,workspace_mb,median_ms\n";

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  for (const Layer& l : layers) {
    const int p = (l.h + 2 * l.pad - l.r) / l.stride + 1,
              q = (l.w + 2 * l.pad - l.s) / l.stride + 1;
    const size_t ex = size_t(l.n) * l.h * l.w * l.c, ew = size_t(l.k) * l.r * l.s * l.c,
                 ey = size_t(l.n) * p * q * l.k;
    const size_t copy_bytes = 2 * (ex + ew + ey) + 3 * 256;
    const int copies = int(
        std::min<size_t>(64, std::max<size_t>(1, 2 * size_t(prop.l2CacheSize) / copy_bytes + 1)));

    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    check(cudnnCreateTensorDescriptor(&xd), "x descriptor");
    check(cudnnCreateTensorDescriptor(&yd), "y descriptor");
    check(cudnnCreateFilterDescriptor(&wd), "w descriptor");
    check(cudnnCreateConvolutionDescriptor(&cd), "conv descriptor");
    check(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, type, l.n, l.c, l.h, l.w), "x");
    check(cudnnSetFilter4dDescriptor(wd, type, CUDNN_TENSOR_NHWC, l.k, l.c, l.r, l.s), "w");
    check(cudnnSetConvolution2dDescriptor(cd, l.pad, l.pad, l.stride, l.stride, 1, 1,
                                          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "conv");
    check(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH), "math type");
    check(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, type, l.n, l.k, p, q), "y");

    const size_t count = size_t(copies);
    std::vector<void*> x(count), w(count), y(count);
    for (int i = 0; i < copies; ++i) {
      check(cudaMalloc(&x[size_t(i)], 2 * ex), "cudaMalloc x");
      check(cudaMalloc(&w[size_t(i)], 2 * ew), "cudaMalloc w");
      check(cudaMalloc(&y[size_t(i)], 2 * ey), "cudaMalloc y");
    }
    {  // uniform values in [-1, 1) (never all zeros), the same in every copy
      std::vector<uint16_t> host(std::max(ex, ew));
      uint64_t state = 0x9e3779b97f4a7c15ull ^ ex ^ (ew << 20);
      for (uint16_t& v : host) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const float f = float(int64_t(state >> 40) - (1 << 23)) / float(1 << 23);
        if (type == CUDNN_DATA_BFLOAT16) {
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          v = uint16_t(bits >> 16);
        } else {
          const __half hv = __float2half(f);
          std::memcpy(&v, &hv, 2);
        }
      }
      for (int i = 0; i < copies; ++i) {
        check(cudaMemcpy(x[size_t(i)], host.data(), 2 * ex, cudaMemcpyHostToDevice), "copy x");
        check(cudaMemcpy(w[size_t(i)], host.data(), 2 * ew, cudaMemcpyHostToDevice), "copy w");
      }
    }

    size_t workspace_bytes = 0;
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
      size_t bytes = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(
              handle, xd, wd, cd, yd, cudnnConvolutionFwdAlgo_t(a), &bytes) == CUDNN_STATUS_SUCCESS)
        workspace_bytes = std::max(workspace_bytes, std::min(bytes, size_t(4) << 30));
    }
    void* workspace = nullptr;
    if (workspace_bytes) check(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    check(cudnnFindConvolutionForwardAlgorithmEx(handle, xd, x[0], wd, w[0], cd, yd, y[0],
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf,
                                                 workspace, workspace_bytes),
          "cudnnFindConvolutionForwardAlgorithmEx");
    int best = -1;
    for (int i = 0; i < found; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= workspace_bytes &&
          (best < 0 || perf[i].time < perf[best].time))
        best = i;
    if (best < 0) fail(l.network + " " + l.layer + ": cuDNN offers no algorithm");
    check(cudnnSetConvolutionMathType(cd, perf[best].mathType), "math type of the best");

    const float alpha = 1.0f, beta = 0.0f;
    auto run = [&](int i) {
      check(cudnnConvolutionForward(handle, &alpha, xd, x[size_t(i)], wd, w[size_t(i)], cd,
                                    perf[best].algo, workspace, workspace_bytes, &beta, yd,
                                    y[size_t(i)]),
            "cudnnConvolutionForward");
    };
    for (int i = 0; i < 3; ++i) run(i % copies);
    std::vector<float> ms;
    for (int rep = 0; rep < 20; ++rep) {
      check(cudaEventRecord(start), "record");
      run((rep + 3) % copies);
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "synchronize");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "elapsed");
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const float median = 0.5f * (ms[9] + ms[10]);
    out << l.network << ',' << l.layer << ',' << l.n << ',' << l.h << ',' << l.w << ',' << l.c
        << ',' << l.k << ',' << l.r << ',' << l.s << ',' << l.stride << ',' << l.pad << ','
        << precision << ',' << int(perf[best].algo) << ','
        << (perf[best].mathType == CUDNN_DEFAULT_MATH ? "default" : "tensor_op") << ','
        << double(perf[best].memory) / (1 << 20) << ',' << median << '\n';
    out.flush();
    std::printf("%s %s n=%d: algo %d %.4f ms\n", l.network.c_str(), l.layer.c_str(), l.n,
                int(perf[best].algo), double(median));

    if (workspace) check(cudaFree(workspace), "cudaFree");
    for (int i = 0; i < copies; ++i) {
      check(cudaFree(x[size_t(i)]), "cudaFree");
      check(cudaFree(w[size_t(i)]), "cudaFree");
      check(cudaFree(y[size_t(i)]), "cudaFree");
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
  cudnnDestroy(handle);
  return 0;
}
