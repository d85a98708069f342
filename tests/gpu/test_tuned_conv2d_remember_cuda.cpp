// Tune and remember in the CUDA tuned conv2d library (ktune_tuned_conv2d_cuda: ktune::conv2d's
// FP32 selector, ktune::conv2d_ex's bf16 / fp16 / tf32 selectors with cuDNN as a candidate). The
// shipped headers state no kUnsure rule, so the tests tune every layer (KTUNE_REMEMBER_SHAPES=all,
// RememberSettings::all_shapes). On a GPU: a first call times its candidates on the device (the
// cuDNN call among the first three), the answer is served bit for bit as a direct call of that
// config, from memory and from the cache file (a new process's view), planted answers too, each
// within the precision's bound of the float64 reference; with tune and remember off, or on with
// sure shapes only, nothing changes and nothing is stored; an in-place residual is read, never
// clobbered by the candidates; two worker processes on one cache serve the same bits; candidates
// that refuse the layer never compete and leave no CUDA error; nothing is timed while the stream
// is captured into a graph. Skips without a GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "kernels/conv2d/deploy/remember_conv2d.hpp"
#include "ktune/cuda.hpp"
#include "ktune/remember.hpp"
#include "tests/gpu/conv2d_remember_case.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/remember/remember_cache_util.hpp"
#include "tests/remember/remember_test_util.hpp"

namespace {

namespace cr = ktune::test::conv_remember;
namespace conv = ktune::kernels::conv2d;
using ktune::Conv2dPrecision;
using ktune_test::index_of;
using ktune_test::plant_answer;
using ktune_test::timings_of;
using ktune_test::winner_of;

struct Served {
  Conv2dPrecision p;
  bool out16;
  const char* backend;  // the cache's library is conv2d/<backend>/<hash>
};
const Served kServed[] = {{Conv2dPrecision::fp32, false, "cuda"},
                          {Conv2dPrecision::tf32, false, "cuda-tf32"},
                          {Conv2dPrecision::bf16, false, "cuda-bf16"},
                          {Conv2dPrecision::bf16, true, "cuda-bf16"},
                          {Conv2dPrecision::fp16, true, "cuda-fp16"}};

// 64 channels: every kind of the tensor-core selectors applies (wgmma needs c % 64 == 0).
const conv::Shape kLayer{1, 14, 14, 64, 64, 3, 3, 1, 1};

bool shipped(const Served& s) { return cr::info_of(s.p).num_configs > 0; }

std::string key_of(const cr::Layer& l, bool out16, const ktune::Conv2dEpilogue& e = {}) {
  conv::deploy::RememberKey key;
  const conv::Shape& s = l.shape;
  key.n = s.n, key.h = s.h, key.w = s.w, key.c = s.c, key.k = s.k, key.r = s.r, key.s = s.s;
  key.stride = s.stride, key.pad = s.pad, key.precision = int(l.precision), key.out16 = out16;
  key.bias = e.bias != nullptr, key.residual = e.residual != nullptr, key.relu = e.relu;
  return key.problem();
}

ktune::RememberSettings settings_for(const std::string& cache, bool all_shapes = true,
                                     int candidates = 3) {
  ktune::RememberSettings s;
  s.cache = cache;
  s.budget_ms = 5000;  // every candidate timed (a cuDNN layer's first run searches)
  s.all_shapes = all_shapes;
  s.candidates = candidates;
  return s;
}

std::string gpu_key() {
  cudaDeviceProp p{};
  EXPECT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  return ktune::remember::cuda_device(p.name, p.multiProcessorCount, p.major, p.minor);
}

// The Winograd tile a config may use (the bound's m): its m= for ktune's cuda_winograd kind (FP32),
// 2 for cuDNN (whose 16-bit engines may be Winograd), 0 otherwise.
int winograd_m_of(const std::string& config) {
  if (config.rfind("vendor=", 0) == 0) return 2;
  if (config.find("kind=cuda_winograd;") == std::string::npos) return 0;
  const size_t at = config.find(";m=");
  return at == std::string::npos ? 0 : std::stoi(config.substr(at + 3));
}

// The output's relative error against the float64 reference is within the precision's bound
// (conv2d_family.hpp: error_bound, error_bound_output16 for the data's 16-bit type).
void expect_within_bound(cr::Layer& l, bool out16, const std::vector<unsigned char>& bytes,
                         const std::string& config) {
  const std::vector<float> values = cr::values_of(l, out16, bytes);
  const int m = winograd_m_of(config);
  const double bound =
      out16 ? conv::error_bound_output16(l.shape, m) : conv::error_bound(l.shape, m);
  const double error = conv::relative_error(l.shape, values.data(), l.reference());
  EXPECT_LE(error, bound) << config;
  EXPECT_TRUE(std::isfinite(error)) << config;
}

// Tune and remember is off again after each test, whatever it ended in (a failed assertion
// included): the other tests of the program serve their selectors' picks.
class TunedConv2dRememberCuda : public ::testing::Test {
 protected:
  void TearDown() override { ktune::remember_disable(); }
};

bool is_vendor_config(const std::string& config) { return config.rfind("vendor=", 0) == 0; }

// `got` is what a call serving `config` should write: want's bytes for ktune's kernels; within the
// bound for a vendor call (cuDNN's engines need not give the same bits call after call).
void expect_served(cr::Layer& l, bool out16, const std::optional<std::vector<unsigned char>>& got,
                   const std::vector<unsigned char>& want, const std::string& config) {
  ASSERT_TRUE(got) << config;
  if (is_vendor_config(config))
    expect_within_bound(l, out16, *got, config);
  else
    EXPECT_EQ(*got, want) << config;
}

TEST_F(TunedConv2dRememberCuda, AFirstCallTimesOnTheGpuAndTheAnswerIsServedBitForBit) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  for (const Served& s : kServed) {
    if (!shipped(s)) continue;  // a library without that precision's selector
    SCOPED_TRACE(std::string(s.backend) + (s.out16 ? " out16" : ""));
    const std::string cache = ktune_test::fresh_path(std::string(s.backend) + ".sqlite");
    ktune::remember_enable(settings_for(cache));
    cr::Layer l(kLayer, s.p);
    const std::string problem = key_of(l, s.out16);
    const auto first = cr::run(l, s.out16, -1);
    ASSERT_TRUE(first);
    const auto rows = timings_of(cache, problem);
    const auto& info = cr::info_of(s.p);
    ASSERT_FALSE(rows.empty());
    EXPECT_LE(int(rows.size()), std::min(info.num_configs, 3));
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const auto& t) { return t.winner; }), 1);
    for (const auto& t : rows) {
      EXPECT_EQ(t.device, gpu_key());  // the GPU, not the host's CPU
      EXPECT_EQ(t.library.rfind("conv2d/" + std::string(s.backend) + "/", 0), 0u) << t.library;
      EXPECT_GT(t.reps, 0);
      EXPECT_GT(t.median_ms, 0);
    }
    // The shipped cuDNN call is timed right after the pick (when it runs the layer).
    const int cudnn = conv::deploy::first_vendor_config(info.configs, info.num_configs);
    if (cudnn >= 0 && cr::run(l, s.out16, cudnn)) {
      EXPECT_TRUE(std::any_of(rows.begin(), rows.end(),
                              [](const auto& t) { return t.config == "vendor=cudnn"; }));
    }
    const std::string winner = winner_of(rows);
    expect_within_bound(l, s.out16, *first, winner);
    // From memory, then (memory forgotten) from the cache file: the same bits, those of a direct
    // call of the winner.
    expect_served(l, s.out16, cr::run(l, s.out16, -1), *first, winner);
    ktune::remember_enable(settings_for(cache));
    expect_served(l, s.out16, cr::run(l, s.out16, -1), *first, winner);
    expect_served(l, s.out16, cr::run(l, s.out16, index_of(info, winner)), *first, winner);
    // Every shipped config planted as the answer is served, bit for bit its direct call, within
    // the bound (one that refuses the layer: the fallback order serves it).
    for (int i = 0; i < info.num_configs; ++i) {
      SCOPED_TRACE(info.configs[i]);
      plant_answer(cache, problem, info.configs[i]);
      ktune::remember_enable(settings_for(cache));
      const auto served = cr::run(l, s.out16, -1);
      ASSERT_TRUE(served);
      const auto direct = cr::run(l, s.out16, i);
      if (direct) {
        expect_served(l, s.out16, served, *direct, info.configs[i]);
        expect_within_bound(l, s.out16, *served, info.configs[i]);
      }
    }
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  }
  ktune::remember_disable();
}

// Off: the selector's pick, no file; on with the default (unsure shapes only), the shipped
// selectors (no kUnsure rule) tune nothing: the same bits, no row.
TEST_F(TunedConv2dRememberCuda, OffOrSureChangesNothing) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const std::string cache = ktune_test::fresh_path("sure.sqlite");
  for (const Served& s : kServed) {
    if (!shipped(s)) continue;
    SCOPED_TRACE(std::string(s.backend) + (s.out16 ? " out16" : ""));
    cr::Layer l(kLayer, s.p);
    ktune::remember_disable();
    EXPECT_FALSE(ktune::remember::enabled());
    const auto off = cr::run(l, s.out16, -1);
    ASSERT_TRUE(off);
    const conv::Shape& g = l.shape;
    const int pick =
        s.p == Conv2dPrecision::fp32
            ? ktune::tuned_conv2d_choice_cuda(g.n, g.h, g.w, g.c, g.k, g.r, g.s, g.stride, g.pad)
            : ktune::tuned_conv2d_ex_choice_cuda(s.p, g.n, g.h, g.w, g.c, g.k, g.r, g.s, g.stride,
                                                 g.pad);
    const std::string config = cr::info_of(s.p).configs[pick];
    if (const auto direct = cr::run(l, s.out16, pick))
      expect_served(l, s.out16, off, *direct, config);
    EXPECT_FALSE(std::filesystem::exists(cache));
    ktune::remember_enable(settings_for(cache, false));
    expect_served(l, s.out16, cr::run(l, s.out16, -1), *off, config);
    EXPECT_TRUE(!std::filesystem::exists(cache) || timings_of(cache, key_of(l, s.out16)).empty());
  }
  ktune::remember_disable();
}

// y = relu(conv + bias + residual) with the residual in place (the output itself): the candidates
// write a scratch output, so the residual the served call reads is still the caller's. Judged
// against the float64 reference (the bound of test_tuned_conv2d_ex_epilogue_cuda.cpp's
// epilogue_bound: the conv's bound, cuDNN's possible 16-bit store, two FP32 additions, the 16-bit
// store) and bit for bit against a direct call of the winner on a fresh copy of the residual.
TEST_F(TunedConv2dRememberCuda, AnInPlaceResidualIsReadNotClobbered) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  for (bool out16 : {false, true}) {
    SCOPED_TRACE(out16 ? "bf16 output" : "FP32 output");
    const std::string cache = ktune_test::fresh_path(out16 ? "res16.sqlite" : "res32.sqlite");
    ktune::remember_enable(settings_for(cache));
    cr::Layer l(kLayer, Conv2dPrecision::bf16);
    const std::vector<float> bias = ktune::kernels::gemm::random_matrix(size_t(l.shape.k), 41);
    std::vector<float> residual = ktune::kernels::gemm::random_matrix(l.count(), 42);
    std::vector<unsigned char> initial(l.count() * cr::output_bytes(out16));
    if (out16) {
      const auto bits = ktune::kernels::gemm::to_input_bits(residual, l.shape.precision);
      std::memcpy(initial.data(), bits.data(), initial.size());
      residual = ktune::kernels::gemm::from_input_bits(bits, l.shape.precision);  // as stored
    } else {
      std::memcpy(initial.data(), residual.data(), initial.size());
    }
    const ktune::cuda::DeviceBuffer<float> bias_d = ktune::test::upload(bias, "bias");
    ktune::Conv2dEpilogue e;
    e.bias = bias_d.data();
    e.relu = true;
    ktune::Conv2dEpilogue keyed = e;
    keyed.residual = &e;  // any non-null pointer: the key says a residual is read
    const auto first = cr::run(l, out16, -1, e, true, initial);
    ASSERT_TRUE(first);
    const auto rows = timings_of(cache, key_of(l, out16, keyed));
    ASSERT_FALSE(rows.empty());
    const std::string winner = winner_of(rows);
    const auto& info = cr::info_of(Conv2dPrecision::bf16);
    if (!is_vendor_config(winner)) {  // cuDNN's: the float64 check below
      EXPECT_EQ(cr::run(l, out16, index_of(info, winner), e, true, initial), first) << winner;
    }
    // The float64 reference and the bound.
    const std::vector<double>& conv_ref = l.reference();
    const size_t k = size_t(l.shape.k);
    double conv_norm = 0, bias_norm = 0, res_norm = 0, y_norm = 0, diff = 0;
    const std::vector<float> got = cr::values_of(l, out16, *first);
    for (size_t i = 0; i < l.count(); ++i) {
      const double y = std::max(conv_ref[i] + double(bias[i % k]) + double(residual[i]), 0.0);
      conv_norm += conv_ref[i] * conv_ref[i];
      bias_norm += double(bias[i % k]) * bias[i % k];
      res_norm += double(residual[i]) * residual[i];
      y_norm += y * y;
      diff += (double(got[i]) - y) * (double(got[i]) - y);
    }
    conv_norm = std::sqrt(conv_norm), bias_norm = std::sqrt(bias_norm);
    res_norm = std::sqrt(res_norm), y_norm = std::sqrt(y_norm);
    const double eb = conv::error_bound(l.shape, winograd_m_of(winner));
    const double u16 = std::ldexp(1.0, -8);
    double abs = eb * conv_norm;
    if (winner.rfind("vendor=", 0) == 0) abs += u16 * (1 + eb) * conv_norm;
    abs += std::ldexp(1.0, -22) * ((1 + eb) * conv_norm + bias_norm + res_norm);
    if (out16) abs += u16 * (y_norm + abs);
    EXPECT_LE(std::sqrt(diff) / y_norm, abs / y_norm) << winner;
    // The residual weighs in the result (else a clobbered one could pass the bound).
    EXPECT_GT(res_norm, 0.1 * y_norm);
  }
  ktune::remember_disable();
}

TEST_F(TunedConv2dRememberCuda, TwoProcessesOnOneCacheServeTheSameBits) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const std::string cache = ktune_test::fresh_path("two-conv.sqlite");
  const int layers = 6;
  const auto hashes = ktune_test::run_two_workers(
      KTUNE_CONV_REMEMBER_CUDA_WORKER, layers, "conv-worker",
      {"KTUNE_REMEMBER=" + cache,
       // a fresh process loads modules and searches cuDNN in its first calls: a budget of tens
       // of ms would be spent before a candidate is timed (the GEMM test's lesson on the H200)
       "KTUNE_REMEMBER_BUDGET_MS=5000", "KTUNE_REMEMBER_SHAPES=all"});
  const auto &first = hashes[0], &second = hashes[1];
  ASSERT_EQ(int(first.size()), layers);
  ASSERT_EQ(int(second.size()), layers);
  // One answer per layer, and both served it: a direct call of it gives the same bits (ktune's
  // kernels; a cuDNN answer's engines need not repeat their bits, so both workers' runs of it are
  // only known to have succeeded).
  const auto& info = cr::info_of(Conv2dPrecision::bf16);
  for (int i = 0; i < layers; ++i) {
    cr::Layer l(cr::worker_layer(i), Conv2dPrecision::bf16);
    const auto rows = timings_of(cache, key_of(l, true));
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const auto& t) { return t.winner; }), 1);
    const std::string answer = winner_of(rows);
    ASSERT_GE(index_of(info, answer), 0) << "layer " << i << ": '" << answer << "'";
    if (is_vendor_config(answer)) continue;
    EXPECT_EQ(first.at(i), second.at(i)) << answer;
    const auto direct = cr::run(l, true, index_of(info, answer));
    ASSERT_TRUE(direct);
    EXPECT_EQ(std::to_string(ktune_test::fnv1a(*direct)), first.at(i)) << answer;
  }
}

// The 3-channel stem: the wgmma configs refuse it (c % 64 != 0). With every shipped config a
// candidate, those that refuse have no row and never win, every other one is timed, and no CUDA
// error is left behind.
TEST_F(TunedConv2dRememberCuda, CandidatesThatRefuseAreLeftOut) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const auto& info = cr::info_of(Conv2dPrecision::bf16);
  const std::string cache = ktune_test::fresh_path("refused.sqlite");
  ktune::remember_enable(settings_for(cache, true, info.num_configs));
  cr::Layer l(conv::Shape{1, 16, 16, 3, 64, 3, 3, 1, 1}, Conv2dPrecision::bf16);
  const auto served = cr::run(l, false, -1);
  ASSERT_TRUE(served);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto rows = timings_of(cache, key_of(l, false));
  std::set<std::string> timed;
  for (const auto& t : rows) timed.insert(t.config);
  int refused = 0;
  for (int i = 0; i < info.num_configs; ++i) {
    const bool runs = cr::run(l, false, i).has_value();
    refused += runs ? 0 : 1;
    EXPECT_EQ(timed.count(info.configs[i]), runs ? 1u : 0u) << info.configs[i];
  }
  ASSERT_GT(refused, 0) << "no shipped bf16 config refuses the stem: the test's premise is gone";
  const std::string winner = winner_of(rows);
  ASSERT_GE(index_of(info, winner), 0);
  expect_served(l, false, cr::run(l, false, index_of(info, winner)), *served, winner);
  expect_within_bound(l, false, *served, winner);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ktune::remember_disable();
}

// Captured into a graph: nothing timed, nothing stored; the graph replays the selector's pick.
TEST_F(TunedConv2dRememberCuda, NothingIsTimedWhileTheStreamIsCaptured) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cr::Layer l(kLayer, Conv2dPrecision::bf16);
  ktune::remember_disable();
  const auto plain = cr::run(l, false, -1, {}, false, {}, stream);  // a cuDNN pick searches here
  ASSERT_TRUE(plain);
  const std::string cache = ktune_test::fresh_path("captured-conv.sqlite");
  ktune::remember_enable(settings_for(cache));
  ktune::cuda::DeviceBuffer<float> y(l.count(), "output");
  ASSERT_EQ(cudaMemset(y.data(), 0xFF, l.count() * sizeof(float)), cudaSuccess);
  const conv::Shape& g = l.shape;
  auto* st = reinterpret_cast<ktune::cudaStream_t>(stream);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ktune::conv2d_ex(Conv2dPrecision::bf16, ktune::Conv2dOutput::fp32, g.n, g.h, g.w, g.c, g.k, g.r,
                   g.s, g.stride, g.pad, l.x.data(), l.w.data(), y.data(), st);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  EXPECT_TRUE(!std::filesystem::exists(cache) || timings_of(cache, key_of(l, false)).empty());
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<unsigned char> replayed(l.count() * sizeof(float));
  ASSERT_EQ(cudaMemcpy(replayed.data(), y.data(), replayed.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  const int pick = ktune::tuned_conv2d_ex_choice_cuda(Conv2dPrecision::bf16, g.n, g.h, g.w, g.c,
                                                      g.k, g.r, g.s, g.stride, g.pad);
  expect_served(l, false, replayed, *plain, cr::info_of(Conv2dPrecision::bf16).configs[pick]);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Outside the capture the same call tunes.
  EXPECT_EQ(cr::run(l, false, -1, {}, false, {}, stream).has_value(), true);
  EXPECT_FALSE(timings_of(cache, key_of(l, false)).empty());
  cudaStreamDestroy(stream);
  ktune::remember_disable();
}

}  // namespace
