// The cuDNN baseline's layouts, APIs and precisions (kernels/conv2d/cuda/conv2d_cudnn.hpp).
// With a GPU and cuDNN: the NCHW path (inputs transposed into staged copies, output transposed
// back) of the legacy algorithms and of the backend engines, and the NHWC engines, match the host
// float64 reference on every rotation copy, in fp32, tf32, bf16 and fp16; a poisoned NCHW output
// is not silently replaced by an earlier result; the sweep's vendor names the layout it chose
// among NHWC and NCHW. Without a GPU: the per-precision bound flags a planted error.
//
// The bound, per output (docs/networks.md, "Precisions", for one layer): the reference is float64
// over the inputs as the kernel holds them (rounded to bf16 / fp16 in those precisions), a K-term
// dot product whose inputs the kernel may round by u_in more (2^-10 in tf32, truncation allowed;
// 0 elsewhere: FP32 data under FMA math, 16-bit data whose products are exact in FP32), FP32
// accumulation (≤ 2^-23 per addition, truncating adders allowed) and the output rounded once to
// the stored type (u_out 2^-24 FP32, 2^-8 bf16, 2^-11 fp16):
//   |got − want| ≤ e + u_out·(|want| + e),  e = (2u_in + u_in² + 2·(K+1)·2^-24)·Σ|w||x|.
// Winograd and FFT round like transform methods, not dot products: for them the family's
// normwise Winograd bound (error_bound(shape, 4)) or 64·u_out, whichever is larger, an allowance.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "ktune/cuda.hpp"
#include "ktune/family.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#if KTUNE_HAVE_CUDNN
#include "kernels/conv2d/cuda/conv2d_cudnn.hpp"
#include "kernels/conv2d/cuda/conv2d_cudnn_engine_search.hpp"
#endif

namespace ktune::kernels::conv2d::cuda {
namespace {

#if KTUNE_HAVE_CUDNN
// Ragged channels, stride 2, padding, 1x1 and 5x5.
const Shape kShapes[] = {{2, 10, 9, 12, 20, 3, 3, 1, 1},
                         {1, 11, 13, 3, 12, 3, 3, 2, 1},
                         {3, 5, 6, 32, 24, 1, 1, 1, 0},
                         {1, 12, 12, 4, 36, 5, 5, 1, 2}};

double input_roundoff(CudnnPrecision p) {
  return p == CudnnPrecision::tf32 ? std::ldexp(1.0, -10) : 0.0;
}
double output_roundoff(CudnnPrecision p) {
  return std::ldexp(1.0, p == CudnnPrecision::bf16 ? -8 : p == CudnnPrecision::fp16 ? -11 : -24);
}

// Outputs outside the bound above (NaN counts); want and dot (Σ|w||x|) in float64.
int outside_bound(const std::vector<double>& got, const std::vector<double>& want,
                  const std::vector<double>& dot, int64_t terms, CudnnPrecision p) {
  const double u = input_roundoff(p), u_out = output_roundoff(p);
  const double factor = 2 * u + u * u + 2.0 * double(terms + 1) * std::ldexp(1.0, -24);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = factor * dot[i];
    if (!(std::fabs(got[i] - want[i]) <= e + u_out * (std::fabs(want[i]) + e))) ++bad;
  }
  return bad;
}

// Host values in the precision's storage: `values` as the kernel holds them (rounded in bf16 /
// fp16), `bytes` what is uploaded.
struct Operand {
  std::vector<float> values;
  std::vector<char> bytes;
};

Operand in_precision(std::vector<float> v, CudnnPrecision p) {
  Operand o;
  o.bytes.resize(v.size() * cudnn_element_bytes(p));
  for (size_t i = 0; i < v.size(); ++i) {
    if (p == CudnnPrecision::bf16) {
      const __nv_bfloat16 b = __float2bfloat16_rn(v[i]);
      v[i] = __bfloat162float(b);
      std::memcpy(o.bytes.data() + 2 * i, &b, 2);
    } else if (p == CudnnPrecision::fp16) {
      const __half h = __float2half_rn(v[i]);
      v[i] = __half2float(h);
      std::memcpy(o.bytes.data() + 2 * i, &h, 2);
    }
  }
  if (cudnn_element_bytes(p) == 4) std::memcpy(o.bytes.data(), v.data(), o.bytes.size());
  o.values = std::move(v);
  return o;
}

std::vector<double> values_of(const std::vector<char>& bytes, CudnnPrecision p) {
  const size_t n = bytes.size() / cudnn_element_bytes(p);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (p == CudnnPrecision::bf16) {
      __nv_bfloat16 b;
      std::memcpy(&b, bytes.data() + 2 * i, 2);
      v[i] = __bfloat162float(b);
    } else if (p == CudnnPrecision::fp16) {
      __half h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      v[i] = __half2float(h);
    } else {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      v[i] = f;
    }
  }
  return v;
}

std::vector<float> absolute(std::vector<float> v) {
  for (auto& x : v) x = std::fabs(x);
  return v;
}

ktune::cuda::DeviceBuffer<char> upload_bytes(const std::vector<char>& host, const char* what) {
  ktune::cuda::DeviceBuffer<char> buffer(host.size(), what);
  ktune::cuda::check(cudaMemcpy(buffer.data(), host.data(), host.size(), cudaMemcpyHostToDevice),
                     what);
  return buffer;
}

// The reference of one input pair, with Σ|w||x| for the bound.
struct Expected {
  std::vector<double> want, dot;
};

Expected expected(const Shape& s, const Operand& x, const Operand& w) {
  return {reference_conv2d(s, x.values.data(), w.values.data()),
          reference_conv2d(s, absolute(x.values).data(), absolute(w.values).data())};
}

// Whether y (on the device, the precision's type) is within the precision's bound of `e`.
::testing::AssertionResult within_bound(const Shape& s, const ktune::cuda::DeviceBuffer<char>& y,
                                        const Expected& e, const CudnnConv& conv) {
  ktune::cuda::check(cudaDeviceSynchronize(), "sync");
  std::vector<char> bytes(y.bytes());
  ktune::cuda::check(cudaMemcpy(bytes.data(), y.data(), bytes.size(), cudaMemcpyDeviceToHost),
                     "download y");
  const auto got = values_of(bytes, conv.precision());
  if (conv.transform_algorithm()) {
    std::vector<float> as_float(got.begin(), got.end());
    const double error = relative_error(s, as_float.data(), e.want);
    const double allowed = std::max(error_bound(s, 4), 64 * output_roundoff(conv.precision()));
    if (error <= allowed) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "relative error " << error << " > " << allowed;
  }
  const int bad = outside_bound(got, e.want, e.dot, s.gemm_k(), conv.precision());
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " outputs outside the bound";
}

// find() on copy 0, stage() of copy 1, runs of both copies: each matches its own inputs'
// reference; restaging copy 0 with copy 1's inputs computes on those; for NCHW, a poisoned
// output that was not run fails verification after deliver().
void check_copies(CudnnLayouts layouts, CudnnApis apis, const std::string& expect,
                  CudnnPrecision p = CudnnPrecision::fp32) {
  CudnnHandle handle(nullptr);
  for (const Shape& s : kShapes) {
    const Operand x0 = in_precision(gemm::random_matrix(size_t(s.input_elements()), 21), p);
    const Operand w0 = in_precision(gemm::random_matrix(size_t(s.filter_elements()), 22), p);
    const Operand x1 = in_precision(gemm::random_matrix(size_t(s.input_elements()), 23), p);
    const Operand w1 = in_precision(gemm::random_matrix(size_t(s.filter_elements()), 24), p);
    auto dx0 = upload_bytes(x0.bytes, "x0"), dw0 = upload_bytes(w0.bytes, "w0");
    auto dx1 = upload_bytes(x1.bytes, "x1"), dw1 = upload_bytes(w1.bytes, "w1");
    const size_t out_bytes = size_t(s.output_elements()) * cudnn_element_bytes(p);
    ktune::cuda::DeviceBuffer<char> y0(out_bytes, "y0"), y1(out_bytes, "y1");
    CudnnConv conv(handle.get(), s, layouts, apis, p);
    conv.find(dx0.data(), dw0.data(), y0.data());
    const std::string where = problem_of(s).key() + " " + conv.description();
    EXPECT_NE(conv.description().find(expect), std::string::npos) << where;
    EXPECT_NE(conv.description().find(cudnn_precision_name(p)), std::string::npos) << where;
    conv.stage(1, dx1.data(), dw1.data(), y1.data());
    const Expected ref0 = expected(s, x0, w0), ref1 = expected(s, x1, w1);
    ASSERT_EQ(conv.run(dx1.data(), dw1.data(), y1.data(), 1), CUDNN_STATUS_SUCCESS) << where;
    ASSERT_EQ(conv.run(dx0.data(), dw0.data(), y0.data(), 0), CUDNN_STATUS_SUCCESS) << where;
    conv.deliver(y0.data());
    EXPECT_TRUE(within_bound(s, y0, ref0, conv)) << where;
    if (layouts == CudnnLayouts::nhwc) {
      EXPECT_TRUE(within_bound(s, y1, ref1, conv)) << where;
    }
    conv.stage(0, dx1.data(), dw1.data(), y0.data());
    ASSERT_EQ(conv.run(dx1.data(), dw1.data(), y0.data(), 0), CUDNN_STATUS_SUCCESS) << where;
    conv.deliver(y0.data());
    EXPECT_TRUE(within_bound(s, y0, ref1, conv)) << where;
    if (layouts != CudnnLayouts::nchw) continue;
    conv.poison();
    conv.deliver(y0.data());
    EXPECT_FALSE(within_bound(s, y0, ref1, conv)) << where << ": a poisoned output passed";
  }
}

// Host only: the bound passes the exact result rounded to the output type and flags one output
// moved by three times its bound.
TEST(Conv2dCudnn, PrecisionBoundFlagsAPlantedError) {
  const Shape& s = kShapes[0];
  for (const CudnnPrecision p :
       {CudnnPrecision::fp32, CudnnPrecision::tf32, CudnnPrecision::bf16, CudnnPrecision::fp16}) {
    SCOPED_TRACE(cudnn_precision_name(p));
    const Operand x = in_precision(gemm::random_matrix(size_t(s.input_elements()), 31), p);
    const Operand w = in_precision(gemm::random_matrix(size_t(s.filter_elements()), 32), p);
    const Expected e = expected(s, x, w);
    std::vector<float> stored(e.want.begin(), e.want.end());
    auto got = values_of(in_precision(stored, p).bytes, p);
    EXPECT_EQ(outside_bound(got, e.want, e.dot, s.gemm_k(), p), 0);
    const double u = input_roundoff(p), u_out = output_roundoff(p);
    const double factor = 2 * u + u * u + 2.0 * double(s.gemm_k() + 1) * std::ldexp(1.0, -24);
    const size_t i = got.size() / 2;
    const double bound = factor * e.dot[i] + u_out * (std::fabs(e.want[i]) + factor * e.dot[i]);
    got[i] = e.want[i] + 3 * bound;
    EXPECT_EQ(outside_bound(got, e.want, e.dot, s.gemm_k(), p), 1);
  }
}

// tf32, bf16 and fp16 (tensor-core math allowed) in each API and layout.
TEST(Conv2dCudnn, EachPrecisionMatchesTheReference) {
  KTUNE_REQUIRE_GPU();
  for (const CudnnPrecision p :
       {CudnnPrecision::tf32, CudnnPrecision::bf16, CudnnPrecision::fp16}) {
    SCOPED_TRACE(cudnn_precision_name(p));
    check_copies(CudnnLayouts::nhwc, CudnnApis::legacy, "algo=", p);
    check_copies(CudnnLayouts::nhwc, CudnnApis::engines, "engine=", p);
    check_copies(CudnnLayouts::nchw, CudnnApis::legacy, "algo=", p);
    check_copies(CudnnLayouts::nchw, CudnnApis::engines, "engine=", p);
    check_copies(CudnnLayouts::nhwc_or_nchw, CudnnApis::legacy_and_engines, "cudnn", p);
  }
}

TEST(Conv2dCudnn, LegacyNchwStagedCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nchw, CudnnApis::legacy, "algo=");
}

TEST(Conv2dCudnn, EngineNchwStagedCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nchw, CudnnApis::engines, "engine=");
}

TEST(Conv2dCudnn, EngineNhwcCopiesMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  check_copies(CudnnLayouts::nhwc, CudnnApis::engines, "engine=");
}

// The shared engine search (conv2d_cudnn_engine_search.hpp) with bf16 inputs and FP32 output, the
// deployed bf16 call's candidate without a widening pass: the kept plan's output (NaN-poisoned
// before the run) is within the bound with FP32 output rounding (u_out 2^-24; Winograd / FFT:
// the transform allowance), and one output moved by three times its bound fails it. cuDNN offers
// such engines on some layers only; a layer without one is reported, and no layer with one skips.
TEST(Conv2dCudnn, Bf16EnginesWithFp32OutputMatchTheReference) {
  KTUNE_REQUIRE_GPU();
  const CudnnPrecision p = CudnnPrecision::bf16;
  const CudnnSearchChecks checks{
      [](cudnnStatus_t status, const char* call) { check_cudnn(status, call); },
      [](cudaError_t error, const char* call) { ktune::cuda::check(error, call); }};
  CudnnHandle handle(nullptr);
  int offered = 0;
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back({1, 28, 28, 64, 64, 3, 3, 1, 1});  // a ResNet-50 kind of layer
  for (const Shape& s : shapes) {
    const Operand x = in_precision(gemm::random_matrix(size_t(s.input_elements()), 41), p);
    const Operand w = in_precision(gemm::random_matrix(size_t(s.filter_elements()), 42), p);
    auto dx = upload_bytes(x.bytes, "x"), dw = upload_bytes(w.bytes, "w");
    const size_t count = size_t(s.output_elements());
    ktune::cuda::DeviceBuffer<float> y(count, "fp32 y");
    CudnnEngineSearch search(handle.get(), s, false, p, 16, checks, true);
    const float ms = search.find(dx.data(), dw.data(), y.data(), CudnnConv::kMaxFindWorkspace);
    const std::string where = problem_of(s).key();
    if (ms < 0) {
      std::printf("bf16 -> FP32 engines: none on %s\n", where.c_str());
      continue;
    }
    ++offered;
    ktune::cuda::DeviceBuffer<char> workspace(search.workspace_bytes(), "workspace");
    ASSERT_EQ(cudaMemset(y.data(), 0xFF, count * 4), cudaSuccess);  // NaN
    const CudnnDescriptor pack = search.make_pack(dx.data(), dw.data(), y.data(), workspace.data());
    ASSERT_EQ(search.execute(pack.get()), CUDNN_STATUS_SUCCESS) << where;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
    std::vector<float> host(count);
    ASSERT_EQ(cudaMemcpy(host.data(), y.data(), count * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    const Expected e = expected(s, x, w);
    std::printf("bf16 -> FP32 engines on %s: engine=%lld config=%s %.4f ms\n", where.c_str(),
                (long long)search.engine(), search.config().c_str(), ms);
    if (search.transform_algorithm()) {
      const double allowed = std::max(error_bound(s, 4), 64 * std::ldexp(1.0, -24));
      EXPECT_LE(relative_error(s, host.data(), e.want), allowed) << where;
      double norm = 0;  // the reference's: the planted error is 3 x allowed of it
      for (double v : e.want) norm += v * v;
      host[count / 2] += float(3 * allowed * std::sqrt(norm));
      EXPECT_GT(relative_error(s, host.data(), e.want), allowed) << where << ": planted";
      continue;
    }
    std::vector<double> got(host.begin(), host.end());
    // FP32 data rules (u_in 0, u_out 2^-24): the inputs are bf16 values, exact in FP32.
    EXPECT_EQ(outside_bound(got, e.want, e.dot, s.gemm_k(), CudnnPrecision::fp32), 0) << where;
    const size_t i = count / 2;
    const double factor = 2.0 * double(s.gemm_k() + 1) * std::ldexp(1.0, -24);
    const double bound =
        factor * e.dot[i] + std::ldexp(1.0, -24) * (std::fabs(e.want[i]) + factor * e.dot[i]);
    got[i] = e.want[i] + 3 * bound;
    EXPECT_EQ(outside_bound(got, e.want, e.dot, s.gemm_k(), CudnnPrecision::fp32), 1)
        << where << ": a planted error passed";
  }
  if (offered == 0) GTEST_SKIP() << "cuDNN offers no bf16 engine with FP32 output here";
}

TEST(Conv2dCudnn, SweepVendorNamesTheLayoutItChose) {
  KTUNE_REQUIRE_GPU();
  register_builtin();
  register_cuda_backends();
  auto backend = open_backend(find_family("conv2d"), "cuda:0");
  for (const Shape& s : kShapes) {
    auto session = backend->open(problem_of(s));
    TimingPolicy policy;
    policy.min_reps = 2, policy.max_reps = 2;
    const Outcome o = session->run_vendor("cudnn", policy);
    EXPECT_EQ(o.status, Status::ok) << problem_of(s).key() << ": " << o.message;
    const bool named = o.message.find("layout=NHWC") != std::string::npos ||
                       o.message.find("layout=NCHW") != std::string::npos;
    EXPECT_TRUE(named) << o.message;
  }
}
#endif

}  // namespace
}  // namespace ktune::kernels::conv2d::cuda
