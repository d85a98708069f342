// The stencil family's CPU backend: every work-group config verified against the plain
// reference on poisoned output, then timed. Maximum work-group size: 1024 cells (the space's
// largest), so the CPU refuses nothing by size; its "local memory" is a heap buffer per thread.
#include <fmt/format.h>

#include <cmath>

#include "kernels/stencil/cpu/stencil_cpu.hpp"
#include "kernels/stencil/cpu/stencil_cpu_dispatch.hpp"
#include "kernels/stencil/stencil_family.hpp"
#include "kernels/stencil/stencil_reference.hpp"
#include "ktune/error.hpp"
#include "ktune/host_backend.hpp"
#include "ktune/host_measure.hpp"

namespace ktune::stencil {

namespace {

constexpr int kCpuMaxWorkGroup = 1024;

template <typename T>
void run_typed(const Scenario& s, const cpu::Geometry& g, const T* in, T* out) {
  const cpu::Shape shape{int(s.program), s.north, s.south, s.east, s.west, s.heavy};
  if (!cpu::with_user_function<T>(shape, [&](const auto& fn) { cpu::run_tiled(g, in, out, fn); }))
    throw Error(fmt::format("stencil cpu: program {} does not take type {}",
                            program_name(s.program), type_name(s.type)));
}

}  // namespace

// Runs one scenario with one work-group on the CPU (also used by tests).
void run_cpu(const Scenario& s, const WorkGroup& wg, const HostMatrix& in, HostMatrix& out) {
  if (wg.rows < 1 || wg.cols < 1) throw Error("stencil cpu: work-group sizes must be positive");
  const cpu::Geometry g{.rows = s.rows,
                        .cols = s.cols,
                        .north = s.north,
                        .south = s.south,
                        .east = s.east,
                        .west = s.west,
                        .clamp = s.boundary == Boundary::clamp,
                        .wg_rows = wg.rows,
                        .wg_cols = wg.cols};
  switch (s.type) {
    case ElemType::i32:
      run_typed(s, g, in.data<int32_t>(), out.data<int32_t>());
      return;
    case ElemType::f32:
      run_typed(s, g, in.data<float>(), out.data<float>());
      return;
    case ElemType::f64:
      run_typed(s, g, in.data<double>(), out.data<double>());
      return;
  }
}

namespace {

class CpuSession final : public ProblemSession {
 public:
  CpuSession(const Family& family, const Problem& problem, double llc_bytes)
      : family_(family), scenario_(scenario_of(problem)) {
    inputs_.push_back(random_input(scenario_, seed_of(problem.key())));
    reference_ = reference_stencil(scenario_, inputs_.front());
    outputs_.emplace_back(scenario_.type, scenario_.rows, scenario_.cols);
    // Rotate copies when a problem fits in the last-level cache, so timings are not of a
    // cache-resident rerun (as the GEMM backend does).
    const double bytes = 2.0 * double(inputs_.front().bytes.size());
    rotation_ = host_rotation(bytes, llc_bytes);
    for (size_t i = 1; i < rotation_.copies; ++i) {
      inputs_.push_back(inputs_.front());
      outputs_.push_back(outputs_.front());
    }
  }

  Outcome run(const Config& config, const TimingPolicy& policy) override {
    const WorkGroup wg = work_group_of(family_.space(), config);
    if (wg.size() > kCpuMaxWorkGroup) {
      return refused_outcome(
          fmt::format("work-group {}x{} = {} cells exceeds the cpu maximum of {}", wg.rows, wg.cols,
                      wg.size(), kCpuMaxWorkGroup));
    }
    return verify_then_time_on_host(
        [&] {
          // Verify on poisoned output first: an unwritten cell fails the check.
          poison(outputs_.front());
          run_cpu(scenario_, wg, inputs_.front(), outputs_.front());
          const Verdict verdict = verify(scenario_, outputs_.front(), reference_);
          return RunVerdict{verdict.ok, verdict.rel_error, verdict.message};
        },
        [&](size_t copy) { run_cpu(scenario_, wg, inputs_[copy], outputs_[copy]); }, rotation_,
        policy);
  }

  std::vector<std::string> vendors() const override { return {}; }
  Outcome run_vendor(const std::string& vendor, const TimingPolicy&) override {
    throw Error(fmt::format("vendor '{}' is not available for stencils on the cpu", vendor));
  }

 private:
  const Family& family_;
  Scenario scenario_;
  std::vector<HostMatrix> inputs_, outputs_;
  HostRotation rotation_;
  HostMatrix reference_;
};

}  // namespace

void register_cpu_backend() { register_host_backend("stencil", host_sessions<CpuSession>()); }

}  // namespace ktune::stencil
