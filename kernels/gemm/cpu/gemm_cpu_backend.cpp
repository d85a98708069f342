// The GEMM family's CPU backend: seed, packed and packedz configs and the vendor baselines
// (OpenBLAS, oneDNN: gemm_cpu_vendors.hpp), each verified against the float64 reference on poisoned
// output before it is timed.
#include <chrono>
#include <limits>
#include <thread>

#include "kernels/common/cpu/gemm_cpu_packed_dispatch.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_dispatch.hpp"
#include "kernels/gemm/cpu/gemm_cpu_packedz_dispatch.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/host_backend.hpp"
#include "ktune/host_measure.hpp"

namespace ktune::kernels::gemm {

namespace {

using cpu::Args;

// One set of buffers; several are rotated while timing when a problem fits in the last-level
// cache, so timings do not measure a cache-resident rerun.
struct Buffers {
  std::vector<float> a, b, c;
};

class CpuSession final : public ProblemSession {
 public:
  CpuSession(const Family& family, const Problem& problem, double llc_bytes)
      : family_(family), shape_(shape_of(problem)) {
    const uint64_t seed = seed_of(problem.key());
    Buffers first{random_matrix(size_t(shape_.stride_a() * shape_.batch), seed),
                  random_matrix(size_t(shape_.stride_b() * shape_.batch), seed + 1),
                  std::vector<float>(size_t(shape_.stride_c() * shape_.batch))};
    reference_ = reference_gemm(shape_, first.a.data(), first.b.data(), 1.0, 0.0, nullptr);
    const double bytes = 4.0 * double(first.a.size() + first.b.size() + first.c.size());
    const int copies = rotation_copies(bytes, llc_bytes);
    buffers_.push_back(std::move(first));
    for (int i = 1; i < copies; ++i) buffers_.push_back(buffers_.front());
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    const GemmConfig g = gemm_config_of(family_.space(), config);
    if (!kind_serves(g.kind, shape_.precision)) return refused_precision(kind_name(g.kind));
    if (g.kind == Kind::packed)
      return measure([&](Args& args) { cpu::run_packed(args, g.packed); }, policy);
    if (g.kind == Kind::packedz) {
      if (!cpu::packedz_available())
        return refused_outcome(
            "packedz needs AVX-512: this build's kernels target a CPU without it");
      return measure([&](Args& args) { cpu::run_packedz(args, g.packed); }, policy);
    }
    const Tile tile = tile_of(family_.space(), config);  // throws for kinds without CPU kernels
    return measure([&](Args& args) { cpu::run_seed(args, tile); }, policy);
  }

  std::vector<std::string> vendors() const override { return cpu::vendor_names(); }

  // The CPU computes FP32 only: tf32 / bf16 / fp16 problems are refused (recorded, not fatal).
  Outcome refused_precision(const std::string& what) const {
    return refused_outcome(what + " computes fp32 on the CPU; the problem is " +
                           precision_name(shape_.precision));
  }

  Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) override {
    const auto gemm = cpu::make_vendor_gemm(vendor, shape_);  // throws for unknown vendors
    if (shape_.precision != Precision::fp32) return refused_precision(vendor);
    // Sweeps time a problem's vendors right after its configs and after each other.
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(cpu::kSettleMs));
    return measure([&](Args& g) { gemm->run(g); }, policy);
  }

 private:
  Args args_for(Buffers& buf) const {
    Args g;
    g.transa = shape_.transa;
    g.transb = shape_.transb;
    g.m = shape_.m;
    g.n = shape_.n;
    g.k = shape_.k;
    g.batch = shape_.batch;
    g.a = buf.a.data();
    g.lda = shape_.lda;
    g.stride_a = shape_.stride_a();
    g.b = buf.b.data();
    g.ldb = shape_.ldb;
    g.stride_b = shape_.stride_b();
    g.c = buf.c.data();
    g.ldc = shape_.ldc;
    g.stride_c = shape_.stride_c();
    return g;
  }

  template <typename Kernel>
  Outcome measure(Kernel&& kernel, const TimingPolicy& policy) {
    return verify_then_time_on_host(
        [&] {
          // Verify first, on output poisoned with NaN: an unwritten element fails the check.
          Buffers& first = buffers_.front();
          std::fill(first.c.begin(), first.c.end(), std::numeric_limits<float>::quiet_NaN());
          Args args = args_for(first);
          kernel(args);
          return judge_error(relative_error(shape_, first.c.data(), reference_),
                             error_bound(shape_.k));
        },
        [&](size_t copy) {
          Args g = args_for(buffers_[copy]);
          kernel(g);
        },
        buffers_.size(), policy);
  }

  const Family& family_;
  Shape shape_;
  std::vector<double> reference_;
  std::vector<Buffers> buffers_;
};

}  // namespace

void register_cpu_backend() {
  register_host_backend(
      "gemm", host_sessions<CpuSession>(),
      [](const Family& family, const Config& config) {
        return runs_on_cpu(gemm_config_of(family.space(), config).kind);
      },
      cpu::vendor_descriptions);  // recorded in the stores of sweeps with vendor rows
}

}  // namespace ktune::kernels::gemm
