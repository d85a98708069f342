// Diagnostic (issue #30): one CPU conv config and oneDNN's convolution_auto on one layer, timed by
// the sweep (ktune bench: the conv2d CPU session with the sweep's policy), by a ktune retime turn
// (the session with the turn's policy) and by tuned_conv_bench's rounds
// (ktune::time_interleaved_on_host with the bench's policy), the three taking turns round after
// round in a rotating order so that on a loaded machine each sees the same load. Prints each
// protocol's medians and oneDNN / config (the median over rounds of the paired ratios).
// Usage: conv_protocol_probe PROBLEM CONFIG [ROUNDS]
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>

#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_family.hpp"
#include "kernels/conv2d/conv2d_reference.hpp"
#include "kernels/conv2d/cpu/conv2d_cpu.hpp"
#include "kernels/conv2d/cpu/conv2d_onednn.hpp"
#include "ktune/device.hpp"
#include "ktune/family.hpp"
#include "ktune/host_measure.hpp"
#include "ktune/timing_loop.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;

struct Buffers {
  std::vector<float> input, filter, output;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: {} PROBLEM CONFIG [ROUNDS]\n", argv[0]);
    return 2;
  }
  ktune::register_builtin();
  const auto& family = ktune::find_family("conv2d");
  const ktune::Problem problem = ktune::Problem::parse(argv[1]);
  const ktune::Config config = family.space().parse(argv[2]);
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 10;
  const conv::Shape s = conv::shape_of(problem);
  const double llc = ktune::last_level_cache_bytes(ktune::query_cpu_device());
  auto backend = ktune::open_backend(family, "cpu");
  auto session = backend->open(problem);

  // The bench's side, as measure_cpu.cpp builds it, with the sweep's kernel for the config.
  std::vector<Buffers> copies{{ktune::kernels::gemm::random_matrix(size_t(s.input_elements()), 7),
                               ktune::kernels::gemm::random_matrix(size_t(s.filter_elements()), 8),
                               std::vector<float>(size_t(s.output_elements()))}};
  const auto reference = conv::reference_conv2d(s, copies[0].input.data(), copies[0].filter.data());
  const double bytes = 4.0 * double(s.input_elements() + s.filter_elements() + s.output_elements());
  const ktune::HostRotation rotation = ktune::host_rotation(bytes, llc);
  for (size_t i = 1; i < rotation.copies; ++i) copies.push_back(copies[0]);
  const conv::cpu::Kernel kernel = conv::cpu::kernel_for(family.space(), config, s);
  auto args = [&](size_t c) {
    return conv::cpu::Args{s, copies[c].input.data(), copies[c].filter.data(),
                           copies[c].output.data()};
  };
  if (kernel.prepare)
    for (size_t c = 0; c < copies.size(); ++c) kernel.prepare(args(c));
  conv::cpu::OnednnConv dnn(s, conv::cpu::OnednnAlgo::automatic);
  std::vector<int> weights;
  for (const Buffers& b : copies) weights.push_back(dnn.add_weights(b.filter.data()));
  auto candidate = [&](std::function<void(size_t)> run, double bound) {
    ktune::HostCandidate c;
    c.verify = [&, run, bound] {
      std::fill(copies[0].output.begin(), copies[0].output.end(),
                std::numeric_limits<float>::quiet_NaN());
      run(0);
      return ktune::judge_error(conv::relative_error(s, copies[0].output.data(), reference), bound);
    };
    c.run = std::move(run);
    return c;
  };
  const std::vector<ktune::HostCandidate> bench_candidates{
      candidate([&](size_t c) { kernel.run(args(c)); }, conv::error_bound(s, kernel.winograd_m)),
      candidate(
          [&](size_t c) { dnn.run(copies[c].input.data(), weights[c], copies[c].output.data()); },
          conv::error_bound(s))};
  fmt::print("{} {}: {:.2f} MB a copy, {} copies, {:.1f} MB evicted a run, LLC {:.0f} MiB\n",
             argv[1], argv[2], bytes / 1e6, rotation.copies, rotation.evict_bytes / 1e6,
             llc / 1048576);

  ktune::TimingPolicy sweep;  // scripts/cpu_conv_sweep.sh's ktune bench
  sweep.min_reps = 5;
  sweep.budget_ms = 30;
  const ktune::TimingPolicy turn = {.warmups = 0, .min_reps = 3, .max_reps = 3, .budget_ms = 0};
  ktune::TimingPolicy bench;  // tuned_conv_bench's
  bench.min_reps = 5;
  bench.max_reps = 50;
  bench.budget_ms = 50;
  const std::array<std::string, 3> names = {"sweep (ktune bench)", "retime turn",
                                            "tuned_conv_bench rounds"};
  std::array<std::array<std::vector<double>, 2>, 3> ms;
  std::array<std::vector<double>, 3> ratio;
  auto check = [](const ktune::Outcome& o) {
    if (o.status != ktune::Status::ok) throw std::runtime_error(o.message);
    return o.timing.median_ms;
  };
  for (int r = 0; r < rounds; ++r)
    for (size_t j = 0; j < names.size(); ++j) {
      const size_t p = (size_t(r) + j) % names.size();
      double k = 0, d = 0;
      if (p < 2) {
        const ktune::TimingPolicy& policy = p == 0 ? sweep : turn;
        k = check(session->run(config, policy));
        d = check(session->run_vendor("onednn", policy));
      } else {
        const auto out = ktune::time_interleaved_on_host(bench_candidates, rotation, bench, 3);
        k = check(out[0]);
        d = check(out[1]);
      }
      ms[p][0].push_back(k);
      ms[p][1].push_back(d);
      ratio[p].push_back(d / k);
    }
  fmt::print("{:<26} {:>10} {:>10} {:>14}\n", "protocol", "config ms", "oneDNN ms",
             "oneDNN/config");
  for (size_t p = 0; p < names.size(); ++p)
    fmt::print("{:<26} {:>10.4f} {:>10.4f} {:>14.3f}\n", names[p],
               ktune::median_of_samples(ms[p][0]), ktune::median_of_samples(ms[p][1]),
               ktune::median_of_samples(ratio[p]));
  return 0;
}
