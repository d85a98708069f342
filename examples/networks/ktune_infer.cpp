// ktune_infer: runs a network on a backend, prints the top-5 classes of each image and the
// median latency; optionally writes logits, per-layer times and a result row (docs/networks.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "examples/networks/infer_options.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/registry.hpp"
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

int run(const nn::InferOptions& o) {
  const nn::Network net = nn::make_network(o.network, o.batch);
  auto backend = nn::make_backend(o.backend);  // before loading: a bad name fails fast
  const nn::Weights weights = o.weights.empty() ? nn::random_weights(net, o.seed)
                                                : nn::Weights::load_safetensors(o.weights);
  if (!o.save_weights.empty()) weights.save_safetensors(o.save_weights);
  const auto input = load_input(o, net);
  if (!o.save_input.empty()) {
    nn::Weights file("input");
    file.set("input", {{net.batch, 3, net.image, net.image}, input, "F32"});
    file.save_safetensors(o.save_input);
  }

  const auto t0 = std::chrono::steady_clock::now();
  nn::Engine engine(net, weights, *backend);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  engine.set_input(nn::nchw_to_nhwc(input, net.batch, 3, net.image, net.image).data());
  fmt::print(
      "{} batch {} on backend {} ({}); weights: {}; set-up {:.2f} s, activations {:.1f} MiB\n",
      net.name, net.batch, backend->name(), backend->device(), weights.source(), load_s,
      double(engine.activation_bytes()) / (1 << 20));

  for (int i = 0; i < o.warmup; ++i) engine.forward();
  std::vector<double> total(size_t(o.reps));
  std::vector<std::vector<double>> per_layer(net.layers.size(),
                                             std::vector<double>(size_t(o.reps)));
  for (int rep = 0; rep < o.reps; ++rep) {
    engine.forward();
    total[size_t(rep)] = engine.last_ms();
    const auto layers = engine.layer_ms();
    for (size_t l = 0; l < layers.size(); ++l) per_layer[l][size_t(rep)] = layers[l];
  }

  std::vector<float> probs(size_t(net.batch * net.classes)), logits(probs.size());
  engine.probabilities(probs.data());
  engine.logits(logits.data());
  for (int64_t b = 0; b < std::min<int64_t>(net.batch, 4); ++b) {
    const float* row = probs.data() + b * net.classes;
    std::vector<std::string> top;
    for (int c : nn::top_k(row, net.classes, 5))
      top.push_back(fmt::format("{} ({:.4f})", c, row[c]));
    fmt::print("image {} top-5: {}\n", b, fmt::join(top, ", "));
  }
  if (net.batch > 4) fmt::print("(top-5 of the other {} images: --logits)\n", net.batch - 4);
  const double med = median(total);
  fmt::print(
      "median {:.3f} ms per inference of batch {} over {} reps (min {:.3f}, max {:.3f}; {} "
      "warm-up)\n",
      med, net.batch, o.reps, *std::min_element(total.begin(), total.end()),
      *std::max_element(total.begin(), total.end()), o.warmup);

  if (!o.logits.empty()) {
    auto out = open_out(o.logits);
    for (int64_t b = 0; b < net.batch; ++b) {
      for (int64_t c = 0; c < net.classes; ++c)
        out << (c ? "," : "") << fmt::format("{:.9g}", logits[size_t(b * net.classes + c)]);
      out << '\n';
    }
  }
  const std::string device = csv_safe(backend->device());
  if (!o.per_layer.empty()) {
    auto out = open_out(o.per_layer);
    out << "network,batch,backend,device,index,layer,kind,shape,median_ms\n";
    for (size_t l = 0; l < net.layers.size(); ++l) {
      const auto& layer = net.layers[l];
      const auto& in = net.tensors[size_t(layer.in)];
      const auto& outs = net.tensors[size_t(layer.out)];
      std::string shape = fmt::format("{}x{}x{}x{}->{}x{}x{}x{}", in.n, in.h, in.w, in.c, outs.n,
                                      outs.h, outs.w, outs.c);
      if (layer.kind == nn::LayerKind::conv)
        shape += fmt::format(" r{}s{}", layer.conv.r, layer.conv.stride);
      out << fmt::format("{},{},{},{},{},{},{},{},{:.4f}\n", net.name, net.batch, backend->name(),
                         device, l, layer.name, nn::kind_name(layer.kind), shape,
                         median(per_layer[l]));
    }
  }
  if (!o.csv.empty()) {
    const bool fresh = !std::filesystem::exists(o.csv) || std::filesystem::file_size(o.csv) == 0;
    auto out = open_out(o.csv, std::ios::app);
    if (fresh) out << "network,batch,backend,device,median_ms\n";
    out << fmt::format("{},{},{},{},{:.4f}\n", net.name, net.batch, backend->name(), device, med);
  }
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
