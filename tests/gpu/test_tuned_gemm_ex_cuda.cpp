// ktune::gemm_ex of the CUDA tuned library (libraries/: ktune_tuned_gemm_cuda with its
// per-precision selectors): argument errors and refusals (checked before any CUDA call, so they
// run without a GPU), and on a GPU every shipped config of every shipped precision against the
// float64 reference with the precision's error bound, NaN-poisoned C and guards around it.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/deploy/gemm_validate.hpp"
#include "ktune/cuda.hpp"
#include "ktune/gemm.hpp"
#include "tests/gpu/gemm_ex_cases.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

using ktune::GemmPrecision;
using ktune::Trans;
namespace kg = ktune::kernels::gemm;
using ktune::test::check_shipped;
using ktune::test::ShippedCase;

const GemmPrecision kTensorPrecisions[] = {GemmPrecision::tf32, GemmPrecision::bf16,
                                           GemmPrecision::fp16};

std::string error_of(const std::function<void()>& call) {
  return ktune::test::thrown_message<ktune::GemmError>(call);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The shipped precisions: the library must ship a tensor-core selector, each of whose configs
// is a tensor-core kind's config (mma, mmasplit, or one of the wgmma kernels: what the deployed
// kernels are) or a vendor candidate (the `vendors` selectors: cuBLAS's or cuBLASLt's call in
// the precision).
TEST(TunedGemmEx, ShipsTensorCoreSelectorsOfTheirOwnKinds) {
  int shipped = 0;
  for (GemmPrecision q : kTensorPrecisions) {
    const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(q);
    EXPECT_STREQ(info.backend, "cuda");
    EXPECT_LE(info.num_configs, 16);
    if (info.num_configs == 0) continue;
    ++shipped;
    EXPECT_GE(info.baseline, 0);
    EXPECT_LT(info.baseline, info.num_configs);
    for (int i = 0; i < info.num_configs; ++i) {
      const std::string config = info.configs[i];
      bool tensor_core_or_vendor = config == "vendor=cublas" || config == "vendor=cublaslt" ||
                                   config.rfind("vendor=cublaslt;heuristic=", 0) == 0;
      for (const char* kind : {"mma", "mmasplit", "wgmma", "wgmmatf32", "wgmmapp", "wgmmamc",
                               "wgmmats", "wgmmacs", "wgmmasplit"})
        tensor_core_or_vendor =
            tensor_core_or_vendor || config.rfind(std::string("kind=") + kind + ";", 0) == 0;
      EXPECT_TRUE(tensor_core_or_vendor) << config;
    }
    const int pick =
        ktune::tuned_gemm_ex_choice_cuda(q, Trans::yes, Trans::no, 4096, 2048, 4096, 1);
    EXPECT_GE(pick, 0);
    EXPECT_LT(pick, info.num_configs);
  }
  EXPECT_GE(shipped, 1) << "the library ships no tensor-core precision";
  EXPECT_EQ(ktune::tuned_gemm_ex_info_cuda(GemmPrecision::fp32).num_configs,
            ktune::tuned_gemm_info_cuda().num_configs);
}

// The selectors of 16-bit C (NAMED_SELECTORS bf16_c16 / fp16_c16) where the library ships them:
// K <= 16 configs of the kinds that store 16-bit C (mma, mmasplit, wgmma, wgmmapp, wgmmamc,
// wgmmasplit) or vendor calls, and a pick in range; where it ships none, 16-bit C gets the
// precision's selector (the same object).
TEST(TunedGemmEx, SixteenBitCSelectorsShipKindsThatStoreIt) {
  for (GemmPrecision q : {GemmPrecision::bf16, GemmPrecision::fp16}) {
    const auto out = q == GemmPrecision::bf16 ? ktune::GemmOutput::bf16 : ktune::GemmOutput::fp16;
    const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(q, out);
    if (&info == &ktune::tuned_gemm_ex_info_cuda(q)) continue;  // falls back: checked above
    EXPECT_GT(info.num_configs, 0);
    EXPECT_LE(info.num_configs, 16);
    for (int i = 0; i < info.num_configs; ++i) {
      const std::string config = info.configs[i];
      bool stores = config.rfind("vendor=cublas", 0) == 0;
      for (const char* kind : {"mma", "mmasplit", "wgmma", "wgmmapp", "wgmmamc", "wgmmasplit"})
        stores = stores || config.rfind(std::string("kind=") + kind + ";", 0) == 0;
      EXPECT_TRUE(stores) << config;
    }
    const int pick =
        ktune::tuned_gemm_ex_choice_cuda(q, out, Trans::yes, Trans::no, 4096, 2048, 4096, 1);
    EXPECT_GE(pick, 0);
    EXPECT_LT(pick, info.num_configs);
  }
}

TEST(TunedGemmEx, BadArgumentsAndUnshippedPrecisionsThrowBeforeTouchingTheDevice) {
  const void* fake = reinterpret_cast<const void*>(uintptr_t(256));  // never dereferenced
  float* fake_c = reinterpret_cast<float*>(uintptr_t(1 << 20));
  const Trans N = Trans::no;
  GemmPrecision shipped = GemmPrecision::fp32;
  for (GemmPrecision q : kTensorPrecisions)
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs > 0) shipped = q;
  ASSERT_NE(shipped, GemmPrecision::fp32);
  auto call = [&](GemmPrecision q, int64_t m, int64_t lda, const void* a, float* c, int64_t batch,
                  int64_t stride_c) {
    return error_of([&] {
      ktune::gemm_ex(q, N, N, m, 8, 8, 1, a, lda, 64, fake, 8, 64, 0, c, 8, stride_c, batch,
                     nullptr);
    });
  };
  EXPECT_TRUE(contains(call(shipped, -1, 8, fake, fake_c, 1, 64), "m = -1"));
  EXPECT_TRUE(contains(call(shipped, 8, 7, fake, fake_c, 1, 64), "lda = 7"));
  EXPECT_TRUE(contains(call(shipped, 8, 8, nullptr, fake_c, 1, 64), "A is a null"));
  EXPECT_TRUE(contains(call(shipped, 8, 8, fake, nullptr, 1, 64), "C is a null"));
  EXPECT_TRUE(contains(call(shipped, 8, 8, fake, fake_c, 3, 60), "stride_c = 60"));
  EXPECT_TRUE(contains(call(GemmPrecision(7), 8, 8, fake, fake_c, 1, 64), "precision 7"));
  // C overlapping A: the span of A is counted in 16-bit (or TF32's 4-byte) elements.
  const auto* a_near_c = reinterpret_cast<const unsigned char*>(fake_c) - 8 * 8;
  const std::string overlap = call(shipped, 8, 8, a_near_c, fake_c, 1, 64);
  EXPECT_TRUE(contains(overlap, "C overlaps A")) << overlap;
  for (GemmPrecision q : kTensorPrecisions) {
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs > 0) continue;
    EXPECT_TRUE(contains(call(q, 8, 8, fake, fake_c, 1, 64), "ships no")) << int(q);
  }
  // gemm_ex_config's FP32 form serves the FP32 library's configs, arguments checked as gemm's.
  const int fp32_configs = ktune::tuned_gemm_info_cuda().num_configs;
  auto fp32_config = [&](int config, int64_t lda) {
    return error_of([&] {
      ktune::gemm_ex_config(config, GemmPrecision::fp32, N, N, 8, 8, 8, 1, fake, lda, 64, fake, 8,
                            64, 0, fake_c, 8, 64, 1, nullptr);
    });
  };
  EXPECT_TRUE(contains(fp32_config(fp32_configs, 8), "shipped fp32 configs"));
  EXPECT_TRUE(contains(fp32_config(-1, 8), "config -1"));
  EXPECT_TRUE(contains(fp32_config(0, 7), "lda = 7"));
  EXPECT_TRUE(contains(error_of([&] {
                         ktune::gemm_ex_config(999, shipped, N, N, 8, 8, 8, 1, fake, 8, 64, fake, 8,
                                               64, 0, fake_c, 8, 64, 1, nullptr);
                       }),
                       "config 999"));
}

// Every shipped config x the four transpose pairs on a ragged batched shape (partial tiles,
// leading dimensions padded to the 16-byte grid) and a multi-tile one with alpha and beta; the
// selector's own pick on an unaligned shape (odd leading dimensions: wgmma refuses, the
// fallback order must serve it). A 512^3 shape too, where cuBLASLt offers its later answers
// ("vendor=cublaslt;heuristic=<i>", which it may not offer for the small ones): every shipped
// config must run and match on at least one shape.
TEST(TunedGemmEx, EveryShippedConfigMatchesTheReference) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  size_t ran = 0;
  for (GemmPrecision q : kTensorPrecisions) {
    std::set<std::string> ran_once;
    for (const ShippedCase& c :
         {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
          ShippedCase{512, 512, 512, 1, 1, 0, true}}) {
      const std::vector<std::string> names = check_shipped(q, c, true, false);
      ran += names.size();
      ran_once.insert(names.begin(), names.end());
    }
    const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(q);
    for (int config = 0; config < info.num_configs; ++config)
      EXPECT_TRUE(ran_once.count(info.configs[config])) << info.configs[config] << " never ran";
    if (info.num_configs > 0)
      check_shipped(q, ShippedCase{33, 17, 41, 1, 1, 0, false}, false, true);
  }
  EXPECT_GT(ran, 0u);
}

// The FP32 library's shipped configs (ktune::gemm's selector: its own kinds and, with the
// default `vendors` header, cuBLAS's SGEMM) through gemm_ex_config's FP32 form, on the cases
// above: each within the FP32 bound, guards intact, each config run at least once.
TEST(TunedGemmEx, EveryShippedFp32ConfigMatchesTheReference) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(GemmPrecision::fp32);
  ASSERT_GT(info.num_configs, 0);
  std::set<std::string> ran_once;
  for (const ShippedCase& c :
       {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
        ShippedCase{512, 512, 512, 1, 1, 0, true}}) {
    const std::vector<std::string> names = check_shipped(GemmPrecision::fp32, c, true, false);
    ran_once.insert(names.begin(), names.end());
  }
  for (int config = 0; config < info.num_configs; ++config)
    EXPECT_TRUE(ran_once.count(info.configs[config])) << info.configs[config] << " never ran";
  check_shipped(GemmPrecision::fp32, ShippedCase{33, 17, 41, 1, 1, 0, false}, false, true);
}

// BLAS: alpha == 0 or k == 0 reads neither A nor B (their NaN must not reach C); beta == 0
// does not read C.
TEST(TunedGemmEx, AlphaZeroAndEmptyKScaleCWithoutReadingAOrB) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  for (GemmPrecision q : kTensorPrecisions) {
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs == 0) continue;
    const int64_t m = 40, n = 24, k = 16;
    std::vector<float> nan_a(size_t(m * k) * 2, std::numeric_limits<float>::quiet_NaN());
    void *da = nullptr, *db = nullptr;
    float* dc = nullptr;
    ASSERT_EQ(cudaMalloc(&da, nan_a.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, nan_a.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), size_t(m * n) * 4), cudaSuccess);
    cudaMemcpy(da, nan_a.data(), nan_a.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, nan_a.data(), nan_a.size() * 4, cudaMemcpyHostToDevice);
    for (const auto& [alpha, kk, beta] :
         {std::tuple{0.0f, k, 0.5f}, std::tuple{1.0f, int64_t(0), 2.0f},
          std::tuple{0.0f, k, 0.0f}}) {
      const std::vector<float> c0 = kg::random_matrix(size_t(m * n), 9);
      cudaMemcpy(dc, c0.data(), c0.size() * 4, cudaMemcpyHostToDevice);
      ktune::gemm_ex(q, Trans::no, Trans::no, m, n, kk, alpha, da, m, 0, db,
                     std::max<int64_t>(kk, 1), 0, beta, dc, m, 0, 1, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> c(c0.size());
      cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(c[i], beta * c0[i]) << "alpha=" << alpha << " k=" << kk << " at " << i;
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
  }
}

// The output type's argument errors (before any CUDA call): an output the precision does not
// produce, an unknown one, and C's span counted in its 16-bit bytes.
TEST(TunedGemmEx, BadOutputTypesThrowBeforeTouchingTheDevice) {
  const void* fake = reinterpret_cast<const void*>(uintptr_t(256));  // never dereferenced
  void* fake_c = reinterpret_cast<void*>(uintptr_t(1 << 20));
  const Trans N = Trans::no;
  auto call = [&](GemmPrecision q, ktune::GemmOutput out, const void* a) {
    return error_of([&] {
      ktune::gemm_ex(q, out, N, N, 8, 8, 8, 1, a, 8, 64, fake, 8, 64, 0, fake_c, 8, 64, 1, nullptr);
    });
  };
  using Out = ktune::GemmOutput;
  for (GemmPrecision q : {GemmPrecision::bf16, GemmPrecision::fp16}) {
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs == 0) continue;
    const Out other = q == GemmPrecision::bf16 ? Out::fp16 : Out::bf16;
    const std::string wrong = call(q, other, fake);
    EXPECT_TRUE(contains(wrong, "is neither fp32 nor the")) << wrong;
    EXPECT_TRUE(contains(call(q, Out(9), fake), "output 9")) << int(q);
    // A starting 60 bytes past C: inside the 8 x 8 16-bit C (128 bytes), so C overlaps A.
    const auto* a_in_c = static_cast<const unsigned char*>(fake_c) + 60;
    const Out own = q == GemmPrecision::bf16 ? Out::bf16 : Out::fp16;
    EXPECT_TRUE(contains(call(q, own, a_in_c), "C overlaps A")) << int(q);
  }
  if (ktune::tuned_gemm_ex_info_cuda(GemmPrecision::tf32).num_configs > 0) {
    EXPECT_TRUE(contains(call(GemmPrecision::tf32, Out::bf16, fake), "is neither fp32 nor"));
  }
  EXPECT_TRUE(contains(call(GemmPrecision::fp32, Out::bf16, fake), "precision 0"));
}

// C's span and its overlap with A are counted in the output type's bytes: A just past an 8 x 8
// 16-bit C is disjoint from it, but inside the same C in floats.
TEST(TunedGemmEx, OutputSpansAreCountedInTheOutputTypesBytes) {
  namespace kd = ktune::kernels::gemm::deploy;
  const Trans N = Trans::no;
  const void* b = reinterpret_cast<const void*>(uintptr_t(1) << 24);
  void* c = reinterpret_cast<void*>(uintptr_t(1) << 20);
  const auto* a = static_cast<const unsigned char*>(c) + 8 * 8 * 2;
  EXPECT_NO_THROW(
      kd::check_gemm_arguments("t", N, N, 8, 8, 8, a, 8, 64, b, 8, 64, c, 8, 64, 1, 2, 2));
  const std::string floats = error_of(
      [&] { kd::check_gemm_arguments("t", N, N, 8, 8, 8, a, 8, 64, b, 8, 64, c, 8, 64, 1, 2, 4); });
  EXPECT_TRUE(contains(floats, "C overlaps A")) << floats;
}

ktune::GemmOutput own_output(GemmPrecision q) {
  return q == GemmPrecision::bf16 ? ktune::GemmOutput::bf16 : ktune::GemmOutput::fp16;
}

// Every shipped bf16 / fp16 config with C in the inputs' 16-bit type, as with FP32 C above: the
// configs of the selector serving 16-bit C (the library's bf16_c16 / fp16_c16 selector where it
// ships one, else the precision's), the four transpose pairs, ragged / multi-tile (beta != 0 reads
// the old 16-bit C) / 512^3 shapes, the selector on odd leading dimensions; within the
// precision's bound plus the output rounding.
TEST(TunedGemmEx, EveryShippedConfigMatchesTheReferenceWith16BitC) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  size_t ran = 0;
  for (GemmPrecision q : {GemmPrecision::bf16, GemmPrecision::fp16}) {
    const ktune::TunedGemmInfo& info = ktune::tuned_gemm_ex_info_cuda(q, own_output(q));
    std::printf(
        "%s with %s C: %d configs of %s selector\n", q == GemmPrecision::bf16 ? "bf16" : "fp16",
        q == GemmPrecision::bf16 ? "bf16" : "fp16", info.num_configs,
        &info == &ktune::tuned_gemm_ex_info_cuda(q) ? "the precision's" : "its own 16-bit-C");
    if (info.num_configs == 0) continue;
    std::set<std::string> ran_once;
    for (const ShippedCase& c :
         {ShippedCase{77, 45, 70, 2, 1, 0, true}, ShippedCase{300, 260, 264, 3, 0.5f, 2, true},
          ShippedCase{512, 512, 512, 1, 1, 0, true}}) {
      const std::vector<std::string> names = check_shipped(q, c, true, false, own_output(q));
      ran += names.size();
      ran_once.insert(names.begin(), names.end());
    }
    // cuBLASLt's later answers ("heuristic=<i>") depend on C's type: with 16-bit C the heuristic
    // may offer fewer for these shapes, and the library then refuses them (never a wrong result:
    // check_shipped bounds every run). Every other config must run.
    for (int config = 0; config < info.num_configs; ++config) {
      const std::string name = info.configs[config];
      if (ran_once.count(name)) continue;
      if (name.rfind("vendor=cublaslt;heuristic=", 0) == 0)
        std::printf("note: %s not offered for 16-bit C on these shapes\n", name.c_str());
      else
        ADD_FAILURE() << name << " never ran";
    }
    check_shipped(q, ShippedCase{33, 17, 41, 1, 1, 0, false}, false, true, own_output(q));
    check_shipped(q, ShippedCase{129, 67, 300, 2, 1.5f, -1, false}, false, true, own_output(q));
  }
  EXPECT_GT(ran, 0u);
}

// The bound catches what a wrong 16-bit epilogue would do: a run with beta = 2 (within the bound)
// measured against the reference without the beta * C term (as if the kernel ignored the old C)
// fails it, and so do the stored bits decoded as the other 16-bit format (a store in the wrong
// type).
TEST(TunedGemmEx, SixteenBitCBoundCatchesPlantedErrors) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  for (GemmPrecision q : {GemmPrecision::bf16, GemmPrecision::fp16}) {
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs == 0) continue;
    const auto kq = kg::Precision(int(q));
    const int64_t m = 96, n = 80, k = 128;
    ktune::test::DeviceCase d =
        ktune::test::make_case(kq, false, true, m, n, k, 1, true, 1.0f, 2.0f, true);
    std::string guard;
    const std::vector<float> c =
        ktune::test::run_16bit_c(d, q, own_output(q), -1, 1.0f, 2.0f, guard);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(guard, "");
    const double bound = kg::error_bound_16bit_output(k, kq);
    EXPECT_LE(kg::relative_error(d.shape, c.data(), d.reference), bound);
    std::vector<float> a = d.a, b = d.b;
    for (float& x : a) x = kg::round_input(x, kq);
    for (float& x : b) x = kg::round_input(x, kq);
    const std::vector<double> without_old_c =
        kg::reference_gemm(d.shape, a.data(), b.data(), 1.0, 0.0, nullptr);
    EXPECT_GT(kg::relative_error(d.shape, c.data(), without_old_c), bound);
    // The stored bits read as the other 16-bit format: garbage the bound must reject.
    const kg::Precision other =
        kq == kg::Precision::bf16 ? kg::Precision::fp16 : kg::Precision::bf16;
    const std::vector<float> misread = kg::from_input_bits(kg::to_input_bits(c, kq), other);
    EXPECT_GT(kg::relative_error(d.shape, misread.data(), d.reference), bound);
    ktune::test::free_case(d);
  }
}

// alpha == 0 or k == 0 with 16-bit C: C = beta * C rounded once to the type (zeros for beta == 0,
// the poisoned C not read), A and B (NaN) not read.
TEST(TunedGemmEx, AlphaZeroAndEmptyKScale16BitC) {
  if (ktune::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU";
  for (GemmPrecision q : {GemmPrecision::bf16, GemmPrecision::fp16}) {
    if (ktune::tuned_gemm_ex_info_cuda(q).num_configs == 0) continue;
    const auto kq = kg::Precision(int(q));
    const int64_t m = 40, n = 24, k = 16;
    const std::vector<uint16_t> nan_bits(size_t(m * k) * 2, 0x7FFF);
    void *da = nullptr, *db = nullptr, *dc = nullptr;
    ASSERT_EQ(cudaMalloc(&da, nan_bits.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, nan_bits.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dc, size_t(m * n) * 2), cudaSuccess);
    cudaMemcpy(da, nan_bits.data(), nan_bits.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, nan_bits.data(), nan_bits.size() * 2, cudaMemcpyHostToDevice);
    for (const auto& [alpha, kk, beta] :
         {std::tuple{0.0f, k, 0.5f}, std::tuple{1.0f, int64_t(0), 2.0f},
          std::tuple{0.0f, k, 0.0f}}) {
      const std::vector<uint16_t> c0 = kg::to_input_bits(kg::random_matrix(size_t(m * n), 9), kq);
      cudaMemcpy(dc, c0.data(), c0.size() * 2, cudaMemcpyHostToDevice);
      ktune::gemm_ex(q, own_output(q), Trans::no, Trans::no, m, n, kk, alpha, da, m, 0, db,
                     std::max<int64_t>(kk, 1), 0, beta, dc, m, 0, 1, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<uint16_t> c(c0.size());
      cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost);
      const std::vector<float> got = kg::from_input_bits(c, kq), old = kg::from_input_bits(c0, kq);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(got[i], kg::round_input(beta * old[i], kq)) << "alpha=" << alpha << " at " << i;
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
  }
}

}  // namespace
