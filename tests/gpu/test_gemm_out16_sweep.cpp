// The sweep's path for 16-bit C (problems with c16=1, workloads "NAME@bf16:c=bf16"): the
// verification kernel widening bf16 / fp16 C exactly (a planted error fails), and the CUDA
// backend running the kinds that store 16-bit C and the vendors with the same C type, refusing
// the staged-epilogue and FP32 kinds.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/cuda/gemm_kernel_cache.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/cuda.hpp"
#include "ktune/cuda/cuda_device.hpp"
#include "ktune/cuda/cuda_error.hpp"
#include "ktune/cuda/device_buffer.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace gemm = ktune::kernels::gemm;
using gemm::Precision;

// The relative error the verification kernel finds for `values` stored as q's 16-bit C against
// the float64 reference `ref` (one 24 x 20 matrix).
double device_error(const std::vector<float>& values, const std::vector<double>& ref, Precision q) {
  const gemm::Shape s = gemm::packed_shape(false, false, 24, 20, 8);
  const std::vector<uint16_t> bits = gemm::to_input_bits(values, q);
  ktune::cuda::DeviceBuffer<uint16_t> c(bits.size(), "16-bit C");
  ktune::cuda::DeviceBuffer<double> r(ref.size(), "reference");
  ktune::cuda::check(cudaMemcpy(c.data(), bits.data(), c.bytes(), cudaMemcpyHostToDevice), "C");
  ktune::cuda::check(cudaMemcpy(r.data(), ref.data(), r.bytes(), cudaMemcpyHostToDevice), "ref");
  gemm::cuda::RelErrorKernel rel_error(ktune::cuda::device_arch(0));
  return rel_error(c.data(), int(q), r.data(), s, nullptr);
}

TEST(GemmOut16Verify, WidensSixteenBitCExactlyAndCatchesAPlantedError) {
  KTUNE_REQUIRE_GPU();
  ktune::cuda::use_device(0);
  const std::vector<float> exact = gemm::random_matrix(24 * 20, 11);
  const std::vector<double> ref(exact.begin(), exact.end());
  for (Precision q : {Precision::bf16, Precision::fp16}) {
    const double u = gemm::input_unit_roundoff(q);
    // Values already in q's format widen to themselves: error 0.
    std::vector<float> representable(exact.size());
    for (size_t i = 0; i < exact.size(); ++i) representable[i] = gemm::round_input(exact[i], q);
    const std::vector<double> ref_q(representable.begin(), representable.end());
    EXPECT_EQ(device_error(representable, ref_q, q), 0.0) << gemm::precision_name(q);
    // Rounding the FP32 values once: within u, and really rounded (above u / 8).
    const double rounded = device_error(exact, ref, q);
    EXPECT_LE(rounded, u) << gemm::precision_name(q);
    EXPECT_GT(rounded, u / 8) << gemm::precision_name(q);
    // A tenth of the elements with the wrong sign (error about 2 sqrt(0.1) = 0.63): far past
    // the 16-bit C bound of a long k.
    std::vector<float> planted = exact;
    for (size_t i = 0; i < planted.size() / 10; ++i) planted[i] = -planted[i];
    EXPECT_GT(device_error(planted, ref, q), gemm::error_bound_16bit_output(1 << 20, q))
        << gemm::precision_name(q);
  }
}

// Through the backend, as `ktune bench --workload tiny@bf16:c=bf16` runs it: mma and mmasplit
// (its 16-bit reduction) verify with bf16 C, so do wgmma on sm_90 and the vendor rows with C of
// bf16; wgmmats and an FP32 kind are refused, saying why.
TEST(MmaGemmBackend, SixteenBitCRunsItsKindsAndVendorsAndRefusesTheRest) {
  KTUNE_REQUIRE_GPU();
  ktune::register_builtin();
  ktune::register_cuda_backends();
  const ktune::Family& family = ktune::find_family("gemm");
  auto backend = ktune::open_backend(family, "cuda:0");
  const auto parse = [&](const char* text) { return family.space().parse(text); };
  const ktune::Config mma = parse("kind=mma;bm=64;bn=64;bk=32;wm=32;wn=32;st=3");
  const ktune::Config split = parse("kind=mmasplit;bm=64;bn=64;bk=32;wm=32;wn=32;st=3;splits=8");
  const ktune::Config wgmma = parse("kind=wgmma;bm=128;bn=128;bk=64;st=4;gr=1");
  const ktune::Config staged = parse("kind=wgmmats;bm=128;bn=128;bk=64;st=4;gr=1;cl=1");
  const ktune::Config warp =
      parse("kind=warp;bm=64;bn=64;bk=8;wm=32;wn=32;tm=4;tn=4;st=3;gr=1;splits=1");
  backend->prepare({mma, split, wgmma, staged, warp});
  const bool sm90 = ktune::cuda::device_arch(0) == "sm_90";
  ktune::TimingPolicy quick;
  quick.warmups = 0;
  quick.min_reps = quick.max_reps = 1;
  const auto problems = ktune::load_workload(family, "tiny@bf16:c=bf16").problems;
  ASSERT_FALSE(problems.empty());
  for (const ktune::Problem& p : problems) {
    ASSERT_TRUE(gemm::shape_of(p).c16) << p.key();
    auto session = backend->open(p);
    for (const ktune::Config& c : {mma, split}) {
      const ktune::Outcome o = session->run(c, quick);
      EXPECT_EQ(o.status, ktune::Status::ok) << p.key() << ": " << o.message;
    }
    const ktune::Outcome w = session->run(wgmma, quick);
    // wgmma: ok on sm_90, or refused there for TMA's alignment (the odd tiny shapes).
    if (sm90 && w.status != ktune::Status::ok) {
      EXPECT_EQ(w.status, ktune::Status::refused) << p.key() << ": " << w.message;
      EXPECT_NE(w.message.find("TMA"), std::string::npos) << w.message;
    }
    const ktune::Outcome ts = session->run(staged, quick);
    EXPECT_EQ(ts.status, ktune::Status::refused) << p.key();
    EXPECT_NE(ts.message.find("c16"), std::string::npos) << ts.message;
    EXPECT_EQ(session->run(warp, quick).status, ktune::Status::refused);
    for (const std::string& vendor : session->vendors()) {
      const ktune::Outcome v = session->run_vendor(vendor, quick);
      if (vendor.rfind("cublaslt;heuristic=", 0) == 0 && v.status == ktune::Status::refused)
        continue;  // an answer the heuristic does not offer for this shape
      EXPECT_EQ(v.status, ktune::Status::ok) << vendor << " " << p.key() << ": " << v.message;
    }
  }
}

}  // namespace
