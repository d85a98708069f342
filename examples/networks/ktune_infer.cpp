// ktune_infer: runs a network on a backend, prints the top-5 classes of each image and the
// median latency; optionally writes logits, per-layer times and a result row (docs/networks.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>

#include "examples/networks/infer_options.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
#ifdef KTUNE_NN_ONNX
#include "ktune/nn/onnx.hpp"
#endif
#ifdef KTUNE_NN_CUDA
#include "nn/cuda/register.hpp"  // register_cuda_backends()
#endif

namespace nn = ktune::nn;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<float> load_input(const nn::InferOptions& o, const nn::Network& net) {
  if (o.input.empty()) return nn::random_input_nchw(net, o.input_seed);
  const auto file = nn::Weights::load_safetensors(o.input);
  return file.get("input", {net.batch, 3, net.image, net.image}).data;
}

std::ofstream open_out(const std::string& path, std::ios::openmode mode = std::ios::out) {
  std::ofstream out(path, mode);
  if (!out) throw ktune::Error(fmt::format("{}: cannot write", path));
  return out;
}

std::string csv_safe(std::string s) {  // device names go into CSV fields unquoted
  std::replace(s.begin(), s.end(), ',', ';');
  return s;
}

// One backend's engine and its timings.
struct Run {
  std::unique_ptr<nn::Backend> backend;
  std::unique_ptr<nn::Engine> engine;
  std::vector<double> total;
  std::vector<double> cpu;    // the process's CPU time (all threads) per rep, ms
  std::vector<double> ratio;  // cpu / the wall time of the same stretch (which contains it)
  std::vector<std::vector<double>> per_layer;  // [layer][rep]
};

// CPU time of the whole process (every thread), ms.
double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// Several backends (--backend a,b): the file name with the backend before the extension.
std::string per_backend(const std::string& path, const std::string& backend, bool several) {
  if (!several) return path;
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + "." + backend;
  return path.substr(0, dot) + "." + backend + path.substr(dot);
}

std::string layer_shape(const nn::Network& net, const nn::Layer& layer) {
  const auto& in = net.tensors[size_t(layer.in)];
  const auto& out = net.tensors[size_t(layer.out)];
  std::string shape =
      fmt::format("{}x{}x{}x{}->{}x{}x{}x{}", in.n, in.h, in.w, in.c, out.n, out.h, out.w, out.c);
  if (layer.kind == nn::LayerKind::conv)
    shape += fmt::format(" r{}s{}", layer.conv.r, layer.conv.stride);
  return shape;
}

void report(const nn::InferOptions& o, const nn::Network& net, Run& r, bool several,
            bool per_layer_header) {
  std::vector<float> probs(size_t(net.batch * net.classes)), logits(probs.size());
  r.engine->probabilities(probs.data());
  r.engine->logits(logits.data());
  const std::string name = r.backend->name();
  // Overflowing weights (finite but huge) turn logits into NaN or Inf: an answer of "-nan"
  // classes would look like a result.
  const auto bad =
      std::find_if(logits.begin(), logits.end(), [](float v) { return !std::isfinite(v); });
  if (bad != logits.end()) {
    const auto at = bad - logits.begin();
    throw ktune::Error(
        fmt::format("backend {}: logit {} of image {} is {} (the weights or input overflow float)",
                    name, at % net.classes, at / net.classes, *bad));
  }
  for (int64_t b = 0; b < std::min<int64_t>(net.batch, 4); ++b) {
    const float* row = probs.data() + b * net.classes;
    std::vector<std::string> top;
    for (int c : nn::top_k(row, net.classes, 5))
      top.push_back(fmt::format("{} ({:.4f})", c, row[c]));
    fmt::print("{}: image {} top-5: {}\n", name, b, fmt::join(top, ", "));
  }
  if (net.batch > 4) fmt::print("(top-5 of the other {} images: --logits)\n", net.batch - 4);
  const double med = median(r.total);
  fmt::print(
      "{}: median {:.3f} ms per inference of batch {} over {} reps (min {:.3f}, max {:.3f}; "
      "{} warm-up)\n",
      name, med, net.batch, o.reps, *std::min_element(r.total.begin(), r.total.end()),
      *std::max_element(r.total.begin(), r.total.end()), o.warmup);
  // CPU time / wall time per inference: near the thread count when every thread had a core
  // throughout, near 1 when they shared one: on a quiet machine, how a team woken onto one core
  // showed (cpu_task_workers.hpp); on a loaded one, other processes lower it too. The CPU time of
  // threads other than the caller is counted at scheduler ticks (milliseconds): the ratio of an
  // inference much shorter than that can exceed the CPU count.
  if (const auto use = r.backend->variant_use(); !use.empty()) fmt::print("{}: {}\n", name, use);
  const auto& ratio = r.ratio;
  fmt::print(
      "{}: process CPU time median {:.3f} ms per inference, {:.2f}x its wall time (min {:.2f}x, "
      "max {:.2f}x)\n",
      name, median(r.cpu), median(ratio), *std::min_element(ratio.begin(), ratio.end()),
      *std::max_element(ratio.begin(), ratio.end()));

  if (!o.logits.empty()) {
    auto out = open_out(per_backend(o.logits, name, several));
    for (int64_t b = 0; b < net.batch; ++b) {
      for (int64_t c = 0; c < net.classes; ++c)
        out << (c ? "," : "") << fmt::format("{:.9g}", logits[size_t(b * net.classes + c)]);
      out << '\n';
    }
  }
  const std::string device = csv_safe(r.backend->device());
  if (!o.per_layer.empty()) {
    auto out = open_out(o.per_layer, per_layer_header ? std::ios::out : std::ios::app);
    if (per_layer_header)
      out << "network,batch,backend,device,index,layer,kind,shape,median_ms,choice\n";
    for (size_t l = 0; l < net.layers.size(); ++l) {
      const auto& layer = net.layers[l];
      out << fmt::format("{},{},{},{},{},{},{},{},{:.4f},{}\n", net.name, net.batch, name, device,
                         l, layer.name, nn::kind_name(layer.kind), layer_shape(net, layer),
                         median(r.per_layer[l]), r.backend->layer_choice(int(l)));
    }
  }
  if (!o.csv.empty()) {
    const bool fresh = !std::filesystem::exists(o.csv) || std::filesystem::file_size(o.csv) == 0;
    auto out = open_out(o.csv, std::ios::app);
    if (fresh) out << "network,batch,backend,device,median_ms\n";
    out << fmt::format("{},{},{},{},{:.4f}\n", net.name, net.batch, name, device, med);
  }
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

// The network and its weights: a built-in network (weights from --weights or --seed) or an ONNX
// model (its own).
std::pair<nn::Network, nn::Weights> load_network(const nn::InferOptions& o) {
  if (!o.onnx.empty()) {
#ifdef KTUNE_NN_ONNX
    auto model = nn::load_onnx(o.onnx, o.batch);
    return {std::move(model.network), std::move(model.weights)};
#else
    throw ktune::Error("ktune_infer: --onnx: this build has no ONNX support (libonnx-dev)");
#endif
  }
  nn::Network net = nn::make_network(o.network, o.batch);
  nn::Weights weights = o.weights.empty() ? nn::random_weights(net, o.seed)
                                          : nn::Weights::load_safetensors(o.weights);
  return {std::move(net), std::move(weights)};
}

int run(const nn::InferOptions& o) {
  std::vector<Run> runs;
  for (const auto& name : split_names(o.backend)) {  // before loading: a bad name fails fast
    for (const auto& r : runs)
      if (r.backend->name() == name)
        throw ktune::Error(fmt::format("backend '{}' given twice", name));
    runs.push_back({nn::make_backend(name), nullptr, {}, {}, {}, {}});
  }
  const auto [net, weights] = load_network(o);
  if (!o.save_weights.empty()) weights.save_safetensors(o.save_weights);
  const auto input = load_input(o, net);
  if (!o.save_input.empty()) {
    nn::Weights file("input");
    file.set("input", {{net.batch, 3, net.image, net.image}, input, "F32"});
    file.save_safetensors(o.save_input);
  }
  const auto nhwc = nn::nchw_to_nhwc(input, net.batch, 3, net.image, net.image);

  for (auto& r : runs) {
    const auto t0 = std::chrono::steady_clock::now();
    r.engine = std::make_unique<nn::Engine>(net, weights, *r.backend);
    const double load_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.engine->set_input(nhwc.data());
    fmt::print(
        "{} batch {} on backend {} ({}); weights: {}; set-up {:.2f} s, activations {:.1f} "
        "MiB\n",
        net.name, net.batch, r.backend->name(), r.backend->device(), weights.source(), load_s,
        double(r.engine->activation_bytes()) / (1 << 20));
    if (const auto chosen = r.backend->choices(); !chosen.empty())
      fmt::print("{}: {}\n", r.backend->name(), chosen);
    for (const auto& note : r.engine->notes()) fmt::print("note: {}\n", note);
    r.total.resize(size_t(o.reps));
    r.cpu.resize(size_t(o.reps));
    r.ratio.resize(size_t(o.reps));
    r.per_layer.assign(net.layers.size(), std::vector<double>(size_t(o.reps)));
  }
  for (int i = 0; i < o.warmup; ++i)
    for (auto& r : runs) {
      r.engine->forward();
      r.engine->last_ms();
    }
  // Several backends take turns, one inference each, in an order rotated every rep, so a change
  // of machine load reaches all of them alike.
  for (int rep = 0; rep < o.reps; ++rep)
    for (size_t j = 0; j < runs.size(); ++j) {
      Run& r = runs[(size_t(rep) + j) % runs.size()];
      const auto wall0 = std::chrono::steady_clock::now();
      const double cpu0 = process_cpu_ms();
      r.engine->forward();
      r.total[size_t(rep)] = r.engine->last_ms();
      r.cpu[size_t(rep)] = process_cpu_ms() - cpu0;
      const double wall =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0)
              .count();
      r.ratio[size_t(rep)] = wall > 0 ? r.cpu[size_t(rep)] / wall : 0.0;
      const auto layers = r.engine->layer_ms();
      for (size_t l = 0; l < layers.size(); ++l) r.per_layer[l][size_t(rep)] = layers[l];
    }
  for (size_t j = 0; j < runs.size(); ++j) report(o, net, runs[j], runs.size() > 1, j == 0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    nn::register_cpu_backends();
#ifdef KTUNE_NN_CUDA
    nn::register_cuda_backends();
#endif
    const auto options = nn::parse_infer_options(argc, argv);
    return options ? run(*options) : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
