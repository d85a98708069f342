// Runs every layer of a conv2d workload through the deployed tuned library (ktune::conv2d),
// checks each result, and times it beside the vendor library (oneDNN on the CPU) in the same
// run; the oracle is the best swept config per layer from the sweep's dataset. Writes
//   --csv: network,batch,n,h,w,c,k,r,s,stride,pad,oracle_gflops,deployed_gflops,vendor_gflops
//          (then layer, config, status, vendor_algo: the vendor's algorithm where it says;
//          output: the deployed call's output type, fp32_output_gflops: with --output bf16 / fp16,
//          the same call with FP32 output, engine_alone_gflops: on its cuDNN picks, cuDNN in the
//          call's search space (NHWC) run bare)
//   --md:  geometric means and time-weighted ratios per network and batch and over all layers,
//          the layers (and time share) served by ktune's own kernels rather than a shipped vendor
//          call, and each layer's
//          roofline position (FLOP per byte of compulsory traffic against --peak-gflops and
//          --bandwidth-gbs).
//   tuned_conv_bench --workload conv-small --dataset results/amd-epyc-2c/conv2d-conv-small.csv.gz
//                    --csv conv-vs-vendor.csv --md conv-vs-vendor.md
// --precision tf32 / bf16 / fp16 (CUDA): ktune::conv2d_ex and cuDNN on data of that precision
// (measure_cuda.cpp); --output bf16 / fp16 (the precision's own type): the deployed call writes
// 16 bits as the vendor column does (like with like), its FP32-output call timed beside it (the
// table's before / after lines).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <map>

#include "examples/tuned-conv/conv_measure.hpp"
#include "kernels/common/gemm_reference.hpp"
#include "kernels/conv2d/conv2d_workloads.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/interchange.hpp"

namespace {

namespace conv = ktune::kernels::conv2d;

struct Row {
  conv::Layer layer;
  tuned_conv::LayerResult result;
  double oracle = 0, deployed = 0, vendor = 0;  // GFLOP/s, 0 when missing
  double fp32_output = 0;                       // --output bf16: the FP32-output call's GFLOP/s
};

// Best ok GFLOP/s per problem over the swept configs (vendor rows left out).
std::map<std::string, double> oracle_of(const std::string& dataset) {
  std::map<std::string, double> best;
  if (dataset.empty()) return best;
  for (const auto& m : ktune::read_measurements_csv(dataset))
    if (m.family == "conv2d" && m.config_id >= 0 && m.outcome.status == ktune::Status::ok)
      best[m.problem] = std::max(best[m.problem], m.perf);
  return best;
}

double geomean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return v.empty() ? 0 : std::exp(sum / double(v.size()));
}

// With --output bf16 / fp16: per half (own kernels, vendor-served), Σ count · ms of the FP32-output
// call against the 16-bit-output call and the vendor column (layers where all three ran).
std::string before_after(const std::vector<Row>& rows, const std::string& output) {
  std::string md;
  for (const bool vendor_pick : {false, true}) {
    double wide_ms = 0, narrow_ms = 0, vendor_ms = 0;
    size_t layers = 0;
    for (const Row& r : rows) {
      if ((r.result.config.rfind("vendor=", 0) == 0) != vendor_pick) continue;
      if (r.deployed <= 0 || r.vendor <= 0 || r.fp32_output <= 0) continue;
      ++layers;
      wide_ms += r.layer.count * r.result.fp32_output_ms;
      narrow_ms += r.layer.count * r.result.deployed_ms;
      vendor_ms += r.layer.count * r.result.vendor_ms;
    }
    md += fmt::format(
        "{} layers, FP32 output -> {} output (the same call, same run; {} layers, each times "
        "its count): {:.3f} ms -> {:.3f} ms; vendor / deployed (time-weighted) {:.3f} -> "
        "{:.3f}.\n",
        vendor_pick ? "Vendor-served" : "Own-kernel", output, layers, wide_ms, narrow_ms,
        wide_ms > 0 ? vendor_ms / wide_ms : 0.0, narrow_ms > 0 ? vendor_ms / narrow_ms : 0.0);
  }
  return md;
}

// With --output bf16 / fp16: the vendor-served layers' deployed call against cuDNN in its search
// space run bare by the bench (same protocol): what the call itself adds.
std::string call_vs_engine(const std::vector<Row>& rows, const std::string& output) {
  std::vector<double> ratio, extra_us;
  double call_ms = 0, engine_ms = 0;
  for (const Row& r : rows) {
    if (r.deployed <= 0 || r.result.engine_alone_ms <= 0) continue;
    ratio.push_back(r.result.engine_alone_ms / r.result.deployed_ms);
    extra_us.push_back(1e3 * (r.result.deployed_ms - r.result.engine_alone_ms));
    call_ms += r.layer.count * r.result.deployed_ms;
    engine_ms += r.layer.count * r.result.engine_alone_ms;
  }
  std::sort(extra_us.begin(), extra_us.end());
  const size_t m = extra_us.size();
  const double median = m == 0 ? 0 : (extra_us[(m - 1) / 2] + extra_us[m / 2]) / 2;
  return fmt::format(
      "Vendor-served layers, the deployed call against cuDNN NHWC alone (its search space, {} "
      "output, found and run bare by the bench; {} layers): call / engine speed {:.3f} (geomean), "
      "{:.3f} (time-weighted); the call takes a median {:.1f} us more.\n",
      output, m, geomean(ratio), call_ms > 0 ? engine_ms / call_ms : 0.0, median);
}

std::string markdown(const std::vector<Row>& rows, const std::string& device,
                     const std::string& vendor, const std::string& precision,
                     const std::string& output, double peak, double bandwidth) {
  std::string md = fmt::format(
      "Device `{}`, {}: the deployed tuned conv2d library (CPU: ktune::CpuConv2dPlan, the filter "
      "prepared once per layer; CUDA: ktune::conv2d, in tf32 / bf16 / fp16 ktune::conv2d_ex) and "
      "{} "
      "measured "
      "side by side "
      "in one run; oracle = best swept config per layer. Ratios are per-layer GFLOP/s ratios "
      "(geometric mean) and total-time ratios weighted by each layer's count in its network "
      "(time-weighted: Σ vendor ms / Σ deployed ms).\n\n",
      device, precision, vendor);
  md +=
      "| network | batch | layers | deployed / vendor (geomean) | deployed / vendor "
      "(time-weighted) | worst layer (deployed / vendor) | oracle / vendor (geomean) | deployed % "
      "of oracle (geomean) |\n";
  md += "|---|---:|---:|---:|---:|---|---:|---:|\n";
  std::map<std::pair<std::string, int64_t>, std::vector<const Row*>> groups;
  for (const Row& r : rows) {
    groups[{r.layer.network, r.layer.shape.n}].push_back(&r);
    groups[{"all", 0}].push_back(&r);  // batch 0: every network and batch
  }
  for (const auto& [key, members] : groups) {
    std::vector<double> dv, ov, dor;
    double vendor_ms = 0, deployed_ms = 0;
    const Row* worst = nullptr;
    for (const Row* r : members) {
      if (r->deployed > 0 && r->vendor > 0) {
        dv.push_back(r->deployed / r->vendor);
        if (!worst || r->deployed / r->vendor < worst->deployed / worst->vendor) worst = r;
        vendor_ms += r->layer.count * r->result.vendor_ms;
        deployed_ms += r->layer.count * r->result.deployed_ms;
      }
      if (r->oracle > 0 && r->vendor > 0) ov.push_back(r->oracle / r->vendor);
      if (r->oracle > 0 && r->deployed > 0) dor.push_back(r->deployed / r->oracle);
    }
    md += fmt::format(
        "| {} | {} | {} | {:.3f} | {:.3f} | {} | {} | {} |\n", key.first, key.second,
        members.size(), geomean(dv), deployed_ms > 0 ? vendor_ms / deployed_ms : 0,
        worst ? fmt::format("{} {:.3f}", worst->layer.layer, worst->deployed / worst->vendor) : "–",
        ov.empty() ? "–" : fmt::format("{:.3f}", geomean(ov)),
        dor.empty() ? "–" : fmt::format("{:.1f} %", 100 * geomean(dor)));
  }
  // A pick that is a vendor call ("vendor=<name>", shipped with ktune deploy --vendors).
  size_t own = 0;
  double own_ms = 0, all_ms = 0;
  for (const Row& r : rows) {
    const double ms = r.layer.count * r.result.deployed_ms;
    all_ms += ms;
    if (r.result.config.rfind("vendor=", 0) != 0) ++own, own_ms += ms;
  }
  md += fmt::format(
      "\nServed by ktune's own kernels (the selector's pick is not a vendor call): {} of {} "
      "layers, {:.1f} % of the deployed time (each layer times its count).\n",
      own, rows.size(), all_ms > 0 ? 100 * own_ms / all_ms : 0.0);
  // The two halves apart: a vendor pick's ratio is the deployed vendor call against the vendor
  // column (near 1 when the call is the vendor at its best), an own pick's is ktune's kernels.
  for (const bool vendor_pick : {false, true}) {
    std::vector<double> dv;
    double vendor_ms = 0, deployed_ms = 0;
    for (const Row& r : rows) {
      if ((r.result.config.rfind("vendor=", 0) == 0) != vendor_pick) continue;
      if (r.deployed <= 0 || r.vendor <= 0) continue;
      dv.push_back(r.deployed / r.vendor);
      vendor_ms += r.layer.count * r.result.vendor_ms;
      deployed_ms += r.layer.count * r.result.deployed_ms;
    }
    md += fmt::format(
        "{} layers{} (measured on both sides): {}, deployed / vendor {:.3f} (geomean), {:.3f} "
        "(time-weighted).\n",
        vendor_pick ? "Vendor-served" : "Own-kernel",
        vendor_pick ? " (the deployed vendor call)" : "", dv.size(), geomean(dv),
        deployed_ms > 0 ? vendor_ms / deployed_ms : 0.0);
  }
  if (output != "fp32")
    md += fmt::format(
              "\nOutput types: both write {0} (like with like): the deployed ktune::conv2d_ex "
              "with Conv2dOutput::{0} (every config writes its {0} output itself; no widening "
              "pass) and the vendor column (both widened only after timing, for the check, judged "
              "by the {0}-output bound).\n",
              output) +
          before_after(rows, output) + call_vs_engine(rows, output);
  else if (precision == "bf16" || precision == "fp16")
    md += fmt::format(
        "\nOutput types: the deployed ktune::conv2d_ex writes FP32 (a cuDNN pick: an engine "
        "writing FP32 itself, or cuDNN's {0} output widened by a kernel inside the timed call; "
        "KTUNE_CONV2D_CUDNN_LOG=1 prints which per layer); the vendor column writes {0} "
        "(widened only after timing, for the check).\n",
        precision);
  md += fmt::format(
      "\nPer layer. Roofline: FLOP per byte of compulsory FP32 traffic (input + filter + output "
      "once); bound = min({:.0f} GFLOP/s, {:.0f} GB/s × FLOP/byte) (nominal figures given on the "
      "command line, not measured).\n\n",
      peak, bandwidth);
  md +=
      "| network | layer | batch | GFLOP | FLOP/byte | bound GFLOP/s | oracle | deployed | "
      "vendor | deployed / vendor | deployed % of bound | config |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const Row& r : rows) {
    const auto& s = r.layer.shape;
    const double ai = s.flops() / s.bytes(), bound = std::min(peak, bandwidth * ai);
    md += fmt::format(
        "| {} | {} | {} | {:.3f} | {:.1f} | {:.0f} | {:.1f} | {:.1f} | {:.1f} | {} | "
        "{:.1f} % | `{}` |\n",
        r.layer.network, r.layer.layer, s.n, s.flops() * 1e-9, ai, bound, r.oracle, r.deployed,
        r.vendor, r.vendor > 0 ? fmt::format("{:.3f}", r.deployed / r.vendor) : "–",
        100 * r.deployed / bound, r.result.config);
  }
  return md;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Deployed tuned conv2d library vs the vendor library, per layer"};
  std::string device = "cpu", workload = "conv-small", dataset, csv_path, md_path, slug;
  std::string precision = "fp32", output = "fp32";
  double peak = 0, bandwidth = 0;
  ktune::TimingPolicy policy;
  policy.min_reps = 5;
  policy.max_reps = 50;
  policy.budget_ms = 50;
  policy.timeout_ms = 20000;
#if KTUNE_TUNED_CONV_CUDA
  app.add_option("--device", device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--precision", precision, "fp32, or tf32 / bf16 / fp16 (cuda: ktune::conv2d_ex)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16"}))
      ->capture_default_str();
  app.add_option("--output", output,
                 "the deployed call's output type: fp32, or the precision's own 16-bit type "
                 "(bf16 with --precision bf16, fp16 with --precision fp16)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
#else
  app.add_option("--device", device, "cpu")->check(CLI::IsMember({"cpu"}));
#endif
  app.add_option("--workload", workload, "vgg16-conv, resnet50-conv, dnn, conv-small, tiny")
      ->capture_default_str();
  app.add_option("--dataset", dataset, "Sweep dataset (CSV[.gz]) for the oracle column");
  app.add_option("--device-slug", slug, "Device name in the Markdown")->required();
  app.add_option("--csv", csv_path, "Per-layer CSV to write")->required();
  app.add_option("--md", md_path, "Markdown summary to write")->required();
  app.add_option("--peak-gflops", peak, "Nominal peak for the roofline")->required();
  app.add_option("--bandwidth-gbs", bandwidth, "Nominal memory bandwidth")->required();
  app.add_option("--min-reps", policy.min_reps)->capture_default_str();
  app.add_option("--rep-budget-ms", policy.budget_ms)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (!(peak > 0) || !(bandwidth > 0))
      throw ktune::Error("--peak-gflops and --bandwidth-gbs must be positive");
    ktune::register_builtin();  // the embedded workload files
    const auto layers = conv::workload_layers(workload);
    if (layers.empty()) throw ktune::Error(fmt::format("unknown conv2d workload '{}'", workload));
    const auto oracle = oracle_of(dataset);
#if KTUNE_TUNED_CONV_CUDA
    if (precision != "fp32" && device != "cuda")
      throw ktune::Error("--precision " + precision + " needs --device cuda");
    if (output != "fp32" && precision != output)
      throw ktune::Error("--output " + output + " needs --precision " + output);
    auto measure = device == "cuda" ? tuned_conv::cuda_measure(conv::parse_precision(precision),
                                                               output != "fp32")
                                    : tuned_conv::cpu_measure();
#else
    auto measure = tuned_conv::cpu_measure();
#endif
    std::vector<Row> rows;
    std::string csv =
        "network,batch,n,h,w,c,k,r,s,stride,pad,oracle_gflops,deployed_gflops,vendor_gflops,layer,"
        "config,status,vendor_algo,output,fp32_output_gflops,engine_alone_gflops\n";
    size_t bad = 0;
    for (const conv::Layer& layer : layers) {
      const auto& s = layer.shape;
      // The sweep's key of the layer in the measured precision (the oracle's rows).
      conv::Shape keyed = s;
      keyed.precision = conv::parse_precision(precision);
      const std::string key = conv::problem_of(keyed).key();
      Row row{layer, measure->measure(s, ktune::kernels::gemm::seed_of(key), policy)};
      const double gflop = s.flops() * 1e-9;
      if (row.result.status == "ok") row.deployed = gflop / (row.result.deployed_ms * 1e-3);
      if (row.result.vendor_ms > 0) row.vendor = gflop / (row.result.vendor_ms * 1e-3);
      if (row.result.fp32_output_ms > 0)
        row.fp32_output = gflop / (row.result.fp32_output_ms * 1e-3);
      const double engine_alone =
          row.result.engine_alone_ms > 0 ? gflop / (row.result.engine_alone_ms * 1e-3) : 0;
      if (oracle.count(key)) row.oracle = oracle.at(key);
      bad += row.result.status == "ok" ? 0 : 1;
      auto num = [](double v) { return v > 0 ? fmt::format("{:.3f}", v) : std::string(); };
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                         layer.network, s.n, s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.pad,
                         num(row.oracle), num(row.deployed), num(row.vendor), layer.layer,
                         row.result.config, row.result.status, row.result.vendor_what, output,
                         num(row.fp32_output), num(engine_alone));
      fmt::print("{} {} n={}: deployed {:.1f} ({}) vendor {:.1f} oracle {:.1f} GFLOP/s {}\n",
                 layer.network, layer.layer, s.n, row.deployed, row.result.config, row.vendor,
                 row.oracle, row.result.message);
      std::fflush(stdout);
      rows.push_back(std::move(row));
    }
    ktune::write_text_file(csv_path, csv);
    ktune::write_text_file(
        md_path, markdown(rows, slug, measure->vendor(), precision, output, peak, bandwidth));
    if (bad) {
      fmt::print(stderr, "tuned_conv_bench: {} layers were not ok (see {})\n", bad, csv_path);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tuned_conv_bench: {}\n", e.what());
    return 1;
  }
}
