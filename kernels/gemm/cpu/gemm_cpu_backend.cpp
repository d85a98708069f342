// The GEMM family's CPU backend: seed, packed and packedz configs and the vendor baselines
// (OpenBLAS, oneDNN: gemm_cpu_vendors.hpp), each verified against the float64 reference on poisoned
// output before it is timed. fp32 problems run every kind; bf16 problems the packedz kind's bf16
// kernels (where the CPU has AVX512_BF16) and oneDNN's bf16 matmul, on bf16 copies of the inputs,
// judged like the CUDA backend's: against the FP32 inputs' reference with the bf16 bound.
#include <chrono>
#include <limits>
#include <thread>
#include <type_traits>

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
using cpu::Bf16Args;

// One set of buffers; several are rotated while timing when a problem fits in the last-level
// cache, so timings do not measure a cache-resident rerun. a16, b16: the bf16 bits of a and b
// (bf16 problems only).
struct Buffers {
  std::vector<float> a, b, c;
  std::vector<uint16_t> a16, b16;
};

class CpuSession final : public ProblemSession {
 public:
  CpuSession(const Family& family, const Problem& problem, double llc_bytes)
      : family_(family), shape_(shape_of(problem)) {
    const uint64_t seed = seed_of(problem.key());
    Buffers first{random_matrix(size_t(shape_.stride_a() * shape_.batch), seed),
                  random_matrix(size_t(shape_.stride_b() * shape_.batch), seed + 1),
                  std::vector<float>(size_t(shape_.stride_c() * shape_.batch)),
                  {},
                  {}};
    reference_ = reference_gemm(shape_, first.a.data(), first.b.data(), 1.0, 0.0, nullptr);
    first.a16 = to_input_bits(first.a, shape_.precision);
    first.b16 = to_input_bits(first.b, shape_.precision);
    const double bytes = input_bytes(shape_.precision) * double(first.a.size() + first.b.size()) +
                         4.0 * double(first.c.size());
    rotation_ = host_rotation(bytes, llc_bytes);
    buffers_.push_back(std::move(first));
    for (size_t i = 1; i < rotation_.copies; ++i) buffers_.push_back(buffers_.front());
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    const GemmConfig g = gemm_config_of(family_.space(), config);
    if (!kind_serves(g.kind, shape_.precision)) return refused_precision(kind_name(g.kind));
    if (shape_.c16 && !kind_serves_c16(g.kind)) return refused_c16(kind_name(g.kind));
    if (shape_.precision == Precision::bf16) {  // kind_serves: packedz alone
      if (const std::string why = cpu::packedz_bf16_missing(); !why.empty())
        return refused_outcome(why);
      return measure(
          [&](Buffers& buf) { cpu::run_packedz_bf16(args_for<Bf16Args>(buf), g.packed); }, policy);
    }
    if (g.kind == Kind::packed)
      return measure([&](Buffers& buf) { cpu::run_packed(args_for(buf), g.packed); }, policy);
    if (g.kind == Kind::packedz) {
      if (!cpu::packedz_available())
        return refused_outcome(
            "packedz needs AVX-512: this build's kernels target a CPU without it");
      return measure([&](Buffers& buf) { cpu::run_packedz(args_for(buf), g.packed); }, policy);
    }
    const Tile tile = tile_of(family_.space(), config);  // throws for kinds without CPU kernels
    return measure([&](Buffers& buf) { cpu::run_seed(args_for(buf), tile); }, policy);
  }

  std::vector<std::string> vendors() const override { return cpu::vendor_names(); }

  // Kinds without a kernel for the problem's precision (tf32, fp16; bf16 but for packedz) are
  // refused (recorded, not fatal).
  Outcome refused_precision(const std::string& what) const {
    return refused_outcome(what + " has no " + precision_name(shape_.precision) +
                           " kernel on the CPU");
  }

  // 16-bit C (the problem's c16): no CPU kernel or vendor call here stores it (recorded, not
  // fatal, like a precision).
  Outcome refused_c16(const std::string& what) const {
    return refused_outcome(what + " has no " + precision_name(shape_.precision) +
                           " output (16-bit C) on the CPU");
  }

  Outcome run_vendor(const std::string& vendor, const TimingPolicy& policy) override {
    if (shape_.c16) {
      (void)cpu::vendor_description(vendor);  // throws for vendors this build does not have
      return refused_c16(vendor);
    }
    if (const std::string why = cpu::vendor_refuses(vendor, shape_.precision); !why.empty()) {
      (void)cpu::vendor_description(vendor);  // throws for vendors this build does not have
      return refused_outcome(vendor + ": " + why);
    }
    const auto gemm = cpu::make_vendor_gemm(vendor, shape_);  // throws for unknown vendors
    // Sweeps time a problem's vendors right after its configs and after each other.
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(cpu::kSettleMs));
    if (shape_.precision == Precision::bf16)
      return measure([&](Buffers& buf) { gemm->run_bf16(args_for<Bf16Args>(buf)); }, policy);
    return measure([&](Buffers& buf) { gemm->run(args_for(buf)); }, policy);
  }

 private:
  // The call on one set of buffers: G = Args (FP32 A and B) or Bf16Args (their bf16 bits).
  template <class G = Args>
  G args_for(Buffers& buf) const {
    G g;
    if constexpr (std::is_same_v<G, Bf16Args>) {
      g = cpu::shape_args_bf16(shape_);
      g.a = buf.a16.data(), g.b = buf.b16.data();
    } else {
      g = cpu::shape_args(shape_);
      g.a = buf.a.data(), g.b = buf.b.data();
    }
    g.c = buf.c.data();
    return g;
  }

  template <typename Kernel>
  Outcome measure(Kernel&& kernel, const TimingPolicy& policy) {
    return verify_then_time_on_host(
        [&] {
          // Verify first, on output poisoned with NaN: an unwritten element fails the check.
          Buffers& first = buffers_.front();
          std::fill(first.c.begin(), first.c.end(), std::numeric_limits<float>::quiet_NaN());
          kernel(first);
          return judge_error(relative_error(shape_, first.c.data(), reference_),
                             error_bound(shape_.k, shape_.precision));
        },
        [&](size_t copy) { kernel(buffers_[copy]); }, rotation_, policy);
  }

  const Family& family_;
  Shape shape_;
  std::vector<double> reference_;
  std::vector<Buffers> buffers_;
  HostRotation rotation_;
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
