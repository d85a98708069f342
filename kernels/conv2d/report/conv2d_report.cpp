// What conv2d adds to the HTML report (docs/report.md): the arithmetic intensity of a layer for the
// roofline (direct-convolution FLOPs per byte of compulsory FP32 traffic: input, filter and
// output once, as Shape::bytes), and the per-layer comparison of the kernel kinds: each kind's
// best verified GFLOP/s on each layer beside the vendor library's (Winograd split by whether
// its timed run includes the filter transform, ft=each, or not, ft=pre).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kernels/conv2d/conv2d_shape.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/report.hpp"

namespace ktune::kernels::conv2d {
namespace {

using nlohmann::json;

Shape shape_at(const Dataset& d, Eigen::Index row) {
  auto f = [&](const char* name) {
    return int64_t(d.features(row, ml::require_feature(d, name, "the conv2d report")));
  };
  return {f("n"), f("h"), f("w"), f("c"), f("k"), f("r"), f("s"), f("stride"), f("pad")};
}

double intensity(const Dataset& d, Eigen::Index row) {
  const Shape s = shape_at(d, row);
  return s.flops() / s.bytes();
}

// "cuda_winograd (ft=pre)" from "kind=cuda_winograd;m=4;ft=pre;..."; the space's first kind
// (cpu_direct) writes no kind.
std::string kind_of(const std::string& config) {
  std::string kind = "cpu_direct";
  if (config.rfind("kind=", 0) == 0) kind = config.substr(5, config.find(';') - 5);
  if (config.find(";ft=pre") != std::string::npos) kind += " (ft=pre)";
  if (config.find(";ft=each") != std::string::npos) kind += " (ft=each)";
  return kind;
}

std::vector<report::Figure> figures(const report::ReportInputs& in) {
  const Dataset& d = in.data;
  std::vector<std::string> kinds;
  std::vector<int> kind_of_config;
  for (const std::string& config : d.config_names) {
    const std::string kind = kind_of(config);
    auto it = std::find(kinds.begin(), kinds.end(), kind);
    if (it == kinds.end()) it = kinds.insert(kinds.end(), kind);
    kind_of_config.push_back(int(it - kinds.begin()));
  }
  json table = json::array();
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    const Shape s = shape_at(d, r);
    std::string layer =
        fmt::format("n={} {}x{} {}→{} {}x{}/{}", s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride);
    std::string networks;
    for (const std::string& tag : d.problem_groups[size_t(r)])
      networks += (networks.empty() ? "" : ", ") + tag;
    std::vector<double> best(kinds.size(), 0.0);
    for (Eigen::Index c = 0; c < d.cols(); ++c)
      best[size_t(kind_of_config[size_t(c)])] =
          std::max(best[size_t(kind_of_config[size_t(c)])], d.perf(r, c));
    auto add = [&](const std::string& who, double gflops, bool vendor) {
      if (gflops > 0)
        table.push_back({{"layer", layer},
                         {"networks", networks},
                         {"flops", s.flops()},
                         {"kind", who},
                         {"vendor", vendor},
                         {"gflops", gflops}});
    };
    for (size_t k = 0; k < kinds.size(); ++k) add(kinds[k], best[k], false);
    for (Eigen::Index v = 0; v < d.vendor_perf.cols(); ++v)
      if (std::isfinite(d.vendor_perf(r, v)))
        add(d.vendor_names[size_t(v)] + " (vendor)", d.vendor_perf(r, v), true);
  }
  if (table.empty()) return {};
  json spec = {
      {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
      {"width", 520},
      {"height", {{"step", 14}}},
      {"encoding",
       {{"y",
         {{"field", "layer"},
          {"type", "nominal"},
          {"title", "layer (batch, h×w, c→k, filter/stride)"},
          {"sort", {{"field", "flops"}, {"op", "max"}, {"order", "descending"}}}}},
        {"x",
         {{"field", "gflops"},
          {"type", "quantitative"},
          {"title", "GFLOP/s (direct-convolution FLOPs; best verified config of the kind)"},
          {"scale", {{"type", "log"}}}}},
        {"color", {{"field", "kind"}, {"type", "nominal"}, {"title", "kind"}}},
        {"shape",
         {{"field", "vendor"},
          {"type", "nominal"},
          {"title", "vendor library"},
          {"scale", {{"range", {"circle", "diamond"}}}}}},
        {"tooltip",
         {{{"field", "layer"}},
          {{"field", "networks"}},
          {{"field", "kind"}},
          {{"field", "gflops"}, {"title", "GFLOP/s"}, {"format", ".0f"}}}}}}};
  return {report::make_figure(
      "conv2d-kinds", "Conv2d: the kernel kinds per layer against the vendor library",
      fmt::format("Best verified GFLOP/s of each kind on each of the {} layers on {} (largest "
                  "layers first), and the vendor library's (diamonds). Winograd's ft=pre rows "
                  "leave the filter transform out of the timed run (inference transforms the "
                  "filter once per layer); it is credited with direct-convolution FLOPs, so it "
                  "can pass the FMA roof.",
                  d.rows(), d.device),
      spec, table)};
}

const bool conv2d_report_registered =
    report::register_family_report("conv2d", {.intensity = intensity, .figures = figures});

}  // namespace
}  // namespace ktune::kernels::conv2d
