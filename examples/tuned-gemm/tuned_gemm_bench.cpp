// Runs every shape of a workload through the deployed tuned library (ktune::gemm), checks each
// result, and times it beside the vendor libraries (OpenBLAS and oneDNN on the CPU, cuBLAS on
// CUDA) in the same run. One CSV row per shape, appended as soon as it is measured: an
// interrupted run resumes where it stopped. `vendor` is the fastest vendor of the shape; the
// CPU vendors also get their own columns, with the kernel each dispatched (OpenBLAS core,
// oneDNN implementation). `ktune report --deployed` joins the rows with the sweep's oracle;
// scripts/gemm_deployed_tables.py makes the deployed-vs-vendor tables.
//   tuned_gemm_bench --device cuda --workload dnn --out deployed.csv
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "examples/tuned-gemm/deployed_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/gemm/cpu/gemm_cpu_vendors.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/workload.hpp"

namespace {

constexpr const char* kCpuVendors[] = {"openblas", "onednn"};  // their own columns
constexpr const char* kHeader =
    "problem,networks,config,status,rel_error,deployed_ms,deployed_gflops,vendor,vendor_ms,"
    "vendor_gflops,openblas_ms,openblas_gflops,openblas_kernel,onednn_ms,onednn_gflops,"
    "onednn_kernel,message";
// The header before the per-vendor columns: such a file cannot take the new rows.
constexpr const char* kOldHeader =
    "problem,networks,config,status,rel_error,deployed_ms,deployed_gflops,vendor,vendor_ms,"
    "vendor_gflops,message";

std::set<std::string> done_problems(const std::string& path) {
  std::set<std::string> done;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return done;
  if (line == kOldHeader)
    throw ktune::Error(fmt::format(
        "'{}' was written by an older tuned_gemm_bench (no per-vendor columns): write to a new "
        "file",
        path));
  if (line != kHeader)
    throw ktune::Error(fmt::format("'{}' is not a tuned_gemm_bench CSV (header differs)", path));
  while (std::getline(in, line))
    if (!line.empty()) done.insert(line.substr(0, line.find(',')));
  return done;
}

std::string csv_field(std::string text) {
  for (char& ch : text)
    if (ch == ',' || ch == '\n') ch = ' ';
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Deployed tuned GEMM library vs the vendor library over a workload"};
  std::string device = "cpu", workload_name = "dnn-small", out_path;
  ktune::TimingPolicy policy;
  policy.min_reps = 5;
  policy.max_reps = 50;
  policy.budget_ms = 50;
  app.add_option("--device", device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--workload", workload_name, "Builtin workload or CSV")->capture_default_str();
  app.add_option("--out", out_path, "CSV to append to (resumes)")->required();
  size_t limit = 0;
  app.add_option("--limit", limit, "Measure at most this many shapes not yet in --out (0: all)")
      ->capture_default_str();
  tuned_gemm::CpuProtocol protocol;
  protocol.gap_ms = ktune::kernels::gemm::cpu::kSettleMs;
  app.add_option("--gap-ms", protocol.gap_ms,
                 "CPU: idle pause before each library's runs, so the previous library's spinning "
                 "threads sleep first")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  tuned_gemm::CudaProtocol cuda_protocol;
  app.add_option("--rounds", protocol.rounds,
                 "CPU and CUDA: rounds over the deployed library and the vendors "
                 "per shape, each round starting with the next library; each side's time is the "
                 "median of its rounds (CUDA: the calls alternate run by run, rounds times a "
                 "round's runs)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  std::string rounds_path;
  app.add_option("--rounds-out", rounds_path,
                 "CPU: CSV to append every round's times to (problem,round,position,library,ms)");
  app.add_option("--lt-top", cuda_protocol.lt_top,
                 "CUDA tf32/bf16/fp16: also time the fastest of cuBLASLt's first N algorithms "
                 "(logged, never the vendor column; 0: skip)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  bool host_call_cost = false;
  app.add_flag("--host-call-cost", host_call_cost,
               "CUDA: first print the host cost per ktune::gemm_ex call on its cuBLASLt path "
               "against the bare calls it wraps (host_call_cost_cuda.cpp)");
  app.add_option("--lt-call-ab", cuda_protocol.lt_ab_rounds,
                 "CUDA tf32/bf16/fp16: also time the library's cuBLASLt call against the "
                 "benchmark's, N rounds in turns (an lt-call-ab line per shape; 0: skip)")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  app.add_option("--turns-probe", cuda_protocol.probe_rounds,
                 "CUDA: also time the library's call and cuBLASLt #0's each after itself and "
                 "after the other, N rounds in turns (a turns-probe line per shape; 0: skip)")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  std::string output = "fp32";
  app.add_option(
         "--output", output,
         "CUDA bf16/fp16: C's type, fp32 or input (the 16-bit input type, for ktune::gemm_ex "
         "and both vendors; tf32 keeps FP32 C). A workload variant with 16-bit C "
         "(large@bf16:c=bf16) is timed with it whatever this says")
      ->check(CLI::IsMember({"fp32", "input"}))
      ->capture_default_str();
  app.add_option("--min-reps", policy.min_reps)->capture_default_str();
  app.add_option("--max-reps", policy.max_reps)->capture_default_str();
  app.add_option("--rep-budget-ms", policy.budget_ms)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  cuda_protocol.rounds = protocol.rounds;
  cuda_protocol.c16 = output == "input";
  try {
    ktune::register_builtin();
    const ktune::Family& family = ktune::find_family("gemm");
    const ktune::Workload workload = ktune::load_workload(family, workload_name);
    if (device == "cuda" && !tuned_gemm::cuda_available())
      throw ktune::Error("tuned_gemm_bench: no CUDA device (or this build has no CUDA backend)");
    if (device == "cuda") tuned_gemm::print_first_call_cost();
    if (device == "cuda" && host_call_cost) tuned_gemm::print_host_call_cost();
    if (device == "cpu")  // what the vendors run here, for the run's log
      for (const auto& [name, what] : ktune::kernels::gemm::cpu::vendor_descriptions())
        fmt::print("vendor {}: {}\n", name, what);
    const auto done = done_problems(out_path);
    const bool fresh = done.empty() && !std::ifstream(out_path).good();
    std::ofstream out(out_path, std::ios::app);
    if (!out) throw ktune::Error(fmt::format("cannot open '{}' for writing", out_path));
    if (fresh) out << kHeader << '\n' << std::flush;
    std::ofstream rounds_out;
    if (!rounds_path.empty()) {
      const bool rounds_fresh = !std::ifstream(rounds_path).good();
      rounds_out.open(rounds_path, std::ios::app);
      if (!rounds_out) throw ktune::Error(fmt::format("cannot open '{}' for writing", rounds_path));
      if (rounds_fresh) rounds_out << "problem,round,position,library,ms\n" << std::flush;
    }
    size_t index = 0, bad = 0, measured = 0;
    for (const auto& problem : workload.problems) {
      ++index;
      const std::string key = problem.key();
      if (done.count(key)) continue;
      if (limit > 0 && measured == limit) break;
      ++measured;
      const auto shape = ktune::kernels::gemm::shape_of(problem);
      const uint64_t seed = ktune::kernels::gemm::seed_of(key);
      const auto r = device == "cuda" ? tuned_gemm::measure_cuda(shape, seed, policy, cuda_protocol)
                                      : tuned_gemm::measure_cpu(shape, seed, policy, protocol);
      if (rounds_out.is_open()) {
        for (const auto& t : r.rounds)
          rounds_out << fmt::format("{},{},{},{},{}\n", key, t.round, t.position, t.library,
                                    t.ms > 0 ? fmt::format("{:.6f}", t.ms) : "");
        rounds_out << std::flush;
      }
      std::string networks;
      for (const auto& t : problem.tags) networks += (networks.empty() ? "" : "+") + t;
      const double gflop = shape.flops() * 1e-9;
      auto ms = [](double v) { return v > 0 ? fmt::format("{:.6f}", v) : ""; };
      auto gflops = [&](double v) {
        return v > 0 ? fmt::format("{:.3f}", gflop / (v * 1e-3)) : "";
      };
      const bool ok = r.status == "ok";
      const auto* fastest = r.fastest_vendor();
      std::string message = r.message, per_vendor;
      for (const char* name : kCpuVendors) {
        const tuned_gemm::VendorResult* v = nullptr;
        for (const auto& x : r.vendors)
          if (x.name == name) v = &x;
        per_vendor +=
            v ? fmt::format(",{},{},{}", ms(v->ms), gflops(v->ms), csv_field(v->kernel)) : ",,,";
      }
      for (const auto& v : r.vendors)  // a vendor that failed is a finding too: say so
        if (v.status != "ok")
          message +=
              fmt::format("{}{} {}: {}", message.empty() ? "" : "; ", v.name, v.status, v.message);
      bad += ok && fastest ? 0 : 1;
      out << fmt::format("{},{},{},{},{:.3e},{},{},{},{},{}{},{}\n", key, networks, r.config,
                         r.status, r.rel_error, ok ? ms(r.deployed_ms) : "",
                         ok ? gflops(r.deployed_ms) : "", fastest ? fastest->name : "",
                         fastest ? ms(fastest->ms) : "", fastest ? gflops(fastest->ms) : "",
                         per_vendor, csv_field(message))
          << std::flush;
      std::string line;
      for (const auto& v : r.vendors)
        line += fmt::format(" {} {}", v.name, v.status == "ok" ? gflops(v.ms) : v.status);
      fmt::print("[{}/{}] {} {} {}{}\n", index, workload.problems.size(), key, r.config,
                 ok ? "ktune " + gflops(r.deployed_ms) : r.status + ": " + r.message, line);
      std::fflush(stdout);
    }
    if (bad) {
      fmt::print(stderr, "tuned_gemm_bench: {} shapes were not ok or had no ok vendor (see {})\n",
                 bad, out_path);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tuned_gemm_bench: {}\n", e.what());
    return 1;
  }
}
