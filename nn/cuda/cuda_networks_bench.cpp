// ktune_nn_cuda_bench: whole-network latency of the CUDA backends (issue #15), per backend,
// network and batch in one process on one GPU, plus per-layer times, the cost of the separate
// bias+ReLU kernels, CUDA-graph replay, and logits of given inputs for the PyTorch check
// (scripts/networks/check_logits.py). Timing: CUDA events at the engine's layer marks around
// each forward pass; median of --reps passes after --warmup; buffers allocated at load only.
// --onnx runs ONNX models (named by their file's stem) instead of the built-in networks, where
// the build has the ONNX loader.
//
//   ktune_nn_cuda_bench --network vgg16 resnet50 --batch 1 16 --weights-dir W --csv networks.csv
//     --layers-csv layers.csv --logits-dir L --inputs in/input-1.safetensors
//   ktune_nn_cuda_bench --onnx m/resnet18.onnx m/googlenet.onnx --batch 1 --csv onnx.csv
//   ktune_nn_cuda_bench --precision fp32 tf32 bf16 ...  (each backend in each precision it has:
//     rows `cudnn`, `cudnn-tf32`, `cudnn-bf16`, `ktune`, `ktune-bf16`, `auto-bf16`, ...)
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#ifdef KTUNE_NN_ONNX
#include "ktune/nn/onnx.hpp"
#endif
#include "ktune/nn/registry.hpp"
#include "ktune/timing.hpp"
#include "nn/cuda/cuda_backend.hpp"
#include "nn/cuda/register.hpp"

namespace {

namespace nn = ktune::nn;
namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> networks{"vgg16", "resnet50"}, backends{"ktune-cuda", "cudnn", "cublas"};
  std::vector<int64_t> batches{1, 16};
  std::vector<std::string> precisions{"fp32"};
  std::string weights_dir, csv, layers_csv, epilogue_csv, logits_dir;
  std::vector<std::string> inputs, onnx;
  int warmup = 10, reps = 30;
  uint64_t seed = 0;
  bool graph = true;
};

// Appends rows to a CSV file, writing the header when the file is new.
class CsvOut {
 public:
  CsvOut(const std::string& path, const std::string& header) {
    if (path.empty()) return;
    const bool fresh = !fs::exists(path);
    out_.open(path, std::ios::app);
    if (!out_) throw ktune::Error("cannot write " + path);
    if (fresh) out_ << header << '\n';
  }
  void row(const std::string& line) {
    if (out_.is_open()) out_ << line << '\n' << std::flush;
  }

 private:
  std::ofstream out_;
};

// The name a result row carries: the CUDA tuned backend is `ktune` on the device column's GPU
// (`ktune-bf16` in bf16), the CUDA `auto-cuda` is `auto` (`auto-tf32`, `auto-bf16`).
std::string row_name(const std::string& backend) {
  for (const std::string prefix : {"ktune", "auto"})
    if (backend.rfind(prefix + "-cuda", 0) == 0) return prefix + backend.substr(prefix.size() + 5);
  return backend;
}

double median_of(int warmup, int reps, const std::function<double()>& run) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) ms.push_back(run());
  return ktune::summarize(ms).median_ms;
}

// A network to run at any batch with its weights: built in, or an ONNX model.
struct Model {
  std::string name;
  std::function<nn::Network(int64_t batch)> network;
  nn::Weights weights;
};

Model builtin_model(const Options& o, const std::string& name) {
  Model m{name, [name](int64_t batch) { return nn::make_network(name, batch); }, {}};
  m.weights = o.weights_dir.empty()
                  ? nn::random_weights(m.network(1), o.seed)
                  : nn::Weights::load_safetensors(
                        (fs::path(o.weights_dir) / (name + ".safetensors")).string());
  return m;
}

#ifdef KTUNE_NN_ONNX
// The model's own weights; its network named after the file (result rows carry the name). Each
// batch's network is parsed once: a VGG's file is 0.5 GB, and every engine asks for one.
Model onnx_model(const std::string& path) {
  const std::string name = fs::path(path).stem().string();
  auto parsed = std::make_shared<std::map<int64_t, nn::Network>>();
  auto model = nn::load_onnx(path, 1);
  model.network.name = name;
  parsed->emplace(1, std::move(model.network));
  auto network = [path, name, parsed](int64_t batch) {
    auto it = parsed->find(batch);
    if (it == parsed->end()) {
      auto net = nn::load_onnx(path, batch).network;
      net.name = name;
      it = parsed->emplace(batch, std::move(net)).first;
    }
    return it->second;
  };
  return {name, network, std::move(model.weights)};
}
#endif

// Logits of each input file (tensor "input", NCHW, one batch size for all) written as
// <dir>/<network>-<backend>-<input name>.safetensors (tensor "logits" [batch][classes]).
void write_logits(const Options& o, const Model& model, const std::string& backend_name) {
  std::unique_ptr<nn::Backend> backend;
  std::unique_ptr<nn::Engine> engine;
  for (const auto& path : o.inputs) {
    const auto input = nn::Weights::load_safetensors(path);
    const auto& t = input.tensors().at("input");
    if (t.shape.size() != 4 || t.shape[1] != 3 || (engine && t.shape[0] != engine->network().batch))
      throw ktune::Error(path + ": tensor 'input' must be [batch, 3, h, w], one batch for all");
    if (!engine) {
      backend = nn::make_backend(backend_name);
      engine = std::make_unique<nn::Engine>(model.network(t.shape[0]), model.weights, *backend);
    }
    const auto& net = engine->network();
    const auto nhwc = nn::nchw_to_nhwc(t.data, t.shape[0], 3, t.shape[2], t.shape[3]);
    std::vector<float> logits(size_t(net.batch * net.classes), std::nanf(""));
    engine->set_input(nhwc.data());
    engine->forward();
    engine->logits(logits.data());
    nn::Weights out("logits");
    out.set("logits", nn::Tensor{{net.batch, net.classes}, logits, "F32"});
    const auto name = fs::path(path).stem().string();
    const auto file = fs::path(o.logits_dir) /
                      fmt::format("{}-{}-{}.safetensors", model.name, row_name(backend_name), name);
    out.save_safetensors(file.string());
    fmt::print("{}\n", file.string());
  }
}

// Largest |a − b| over two logit vectors.
double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
  return m;
}

void bench_one(const Options& o, const nn::Network& net, const nn::Weights& weights,
               const std::string& backend_name, CsvOut& csv, CsvOut& layers, CsvOut& epilogue) {
  auto backend = nn::make_backend(backend_name);
  auto* cuda = dynamic_cast<nn::cuda::CudaBackend*>(backend.get());
  nn::Engine engine(net, weights, *backend);
  for (const auto& note : engine.notes())
    fmt::print("note: {} batch {}: {}\n", net.name, net.batch, note);
  const auto input =
      nn::nchw_to_nhwc(nn::random_input_nchw(net, o.seed + 1), net.batch, 3, net.image, net.image);
  engine.set_input(input.data());
  const std::string device = backend->device(), name = row_name(backend_name);
  const auto prefix = fmt::format("{},{},", net.name, net.batch);

  // Eager: every layer call launched from the host, per-layer times from the same passes.
  std::vector<std::vector<double>> per_layer(net.layers.size());
  const double eager = median_of(o.warmup, o.reps, [&] {
    engine.forward();
    const double ms = engine.last_ms();
    const auto layer = engine.layer_ms();
    for (size_t i = 0; i < layer.size(); ++i) per_layer[i].push_back(layer[i]);
    return ms;
  });
  csv.row(prefix + fmt::format("{},{},{:.4f}", name, device, eager));
  fmt::print("{} batch {} {}: {:.3f} ms\n", net.name, net.batch, name, eager);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const auto& l = net.layers[i];
    const auto& t = per_layer[i];
    const double median =
        ktune::summarize(std::vector<double>(t.end() - o.reps, t.end())).median_ms;
    layers.row(prefix + fmt::format("{},{},{},{},{:.4f},\"{}\"", name, i, l.name,
                                    nn::kind_name(l.kind), median,
                                    cuda ? cuda->layer_note(int(i)) : ""));
  }
  if (!cuda) return;
  if (!o.epilogue_csv.empty()) {
    // The separate bias+ReLU kernels: the same passes without them (outputs then wrong).
    cuda->set_epilogue(false);
    const double bare = median_of(o.warmup, o.reps, [&] {
      engine.forward();
      return engine.last_ms();
    });
    cuda->set_epilogue(true);
    epilogue.row(prefix + fmt::format("{},{:.4f},{:.4f}", name, eager, bare));
  }
  if (!o.graph) return;
  // CUDA graph: the whole forward pass captured once, replayed (input uploaded before); its
  // logits must equal the eager pass's, else no row.
  std::vector<float> eager_logits(size_t(net.batch * net.classes)), graph_logits(eager_logits);
  engine.forward();
  engine.logits(eager_logits.data());
  try {
    cuda->begin_capture();
    try {
      engine.forward();
    } catch (...) {
      cuda->end_capture();
      throw;
    }
    cuda->end_capture();
    const double graph = median_of(o.warmup, o.reps, [&] {
      cuda->replay();
      return engine.last_ms();
    });
    engine.logits(graph_logits.data());
    // Equal up to summation order (split-K GEMMs may add partial sums in any order; in bf16 a
    // different sum may round to a neighbouring bf16 value, and that difference propagates).
    const double scale = max_difference(eager_logits, std::vector<float>(eager_logits.size()));
    const double tolerance = cuda->precision() == nn::cuda::Precision::bf16 ? 3e-2 : 1e-4;
    if (const double diff = max_difference(eager_logits, graph_logits);
        !(diff <= tolerance * scale))
      throw ktune::Error(fmt::format("replayed logits differ from eager ones by {}", diff));
    csv.row(prefix + fmt::format("{}-graph,{},{:.4f}", name, device, graph));
    fmt::print("{} batch {} {} (CUDA graph): {:.3f} ms\n", net.name, net.batch, name, graph);
  } catch (const std::exception& e) {
    fmt::print("{} batch {} {}: CUDA graph capture failed: {}\n", net.name, net.batch, name,
               e.what());
  }
}

// Returns how many model × backend pairs failed.
int run(const Options& o) {
  nn::register_cuda_backends();
  // Each backend in each precision: `name` in fp32, `name-tf32` / `name-bf16` in the others.
  std::vector<std::string> wanted, backends;
  for (const auto& precision : o.precisions)
    for (const auto& b : o.backends)
      wanted.push_back(nn::cuda::parse_precision(precision) == nn::cuda::Precision::fp32
                           ? b
                           : b + "-" + precision);
  for (const auto& want : wanted) {
    bool found = false;
    for (const auto& [n, summary] : nn::backend_list()) found = found || n == want;
    if (found)
      backends.push_back(want);
    else
      fmt::print("backend {} is not in this build: skipped\n", want);
  }
  CsvOut csv(o.csv, "network,batch,backend,device,median_ms");
  CsvOut layers(o.layers_csv, "network,batch,backend,layer,name,kind,median_ms,choice");
  CsvOut epilogue(o.epilogue_csv, "network,batch,backend,with_epilogue_ms,without_epilogue_ms");
  std::vector<Model> models;
  for (const auto& path : o.onnx) {
#ifdef KTUNE_NN_ONNX
    models.push_back(onnx_model(path));
#else
    throw ktune::Error(path + ": this build has no ONNX loader (libonnx-dev, libprotobuf-dev)");
#endif
  }
  if (o.onnx.empty())
    for (const auto& network : o.networks) models.push_back(builtin_model(o, network));
  // A model a backend cannot run is one line; the others still run (exit status 1 at the end).
  int failed = 0;
  for (const auto& model : models) {
    for (const auto& backend : backends) {
      try {
        if (!o.logits_dir.empty()) write_logits(o, model, backend);
        for (const int64_t batch : o.batches)
          bench_one(o, model.network(batch), model.weights, backend, csv, layers, epilogue);
      } catch (const std::exception& e) {
        fmt::print("{} {}: failed: {}\n", model.name, row_name(backend), e.what());
        ++failed;
      }
    }
  }
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Whole-network latency of ktune's CUDA backends (ktune-cuda, cudnn, cublas)"};
  app.add_option("--network", o.networks, "vgg16, resnet50, tiny")->capture_default_str();
  app.add_option("--onnx", o.onnx, "ONNX models to run instead of --network (their own weights)");
  app.add_option("--backend", o.backends, "CUDA backends")->capture_default_str();
  app.add_option("--batch", o.batches, "batch sizes")->capture_default_str();
  app.add_option("--precision", o.precisions, "fp32, tf32, bf16 (each backend in each)")
      ->capture_default_str();
  app.add_option("--weights-dir", o.weights_dir,
                 "folder of <network>.safetensors (default: seeded random weights)");
  app.add_option("--seed", o.seed, "seed of random weights and of the timed input");
  app.add_option("--warmup", o.warmup, "untimed passes")->check(CLI::NonNegativeNumber);
  app.add_option("--reps", o.reps, "timed passes (median)")->check(CLI::Range(1, 100000));
  app.add_option("--csv", o.csv, "append network,batch,backend,device,median_ms");
  app.add_option("--layers-csv", o.layers_csv, "append per-layer medians");
  app.add_option("--epilogue-csv", o.epilogue_csv, "append times with and without bias+ReLU");
  app.add_option("--logits-dir", o.logits_dir, "write logits of --inputs here");
  app.add_option("--inputs", o.inputs, "input files (tensor 'input', NCHW)");
  app.add_flag("!--no-graph", o.graph, "skip the CUDA graph rows");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a log file before a timeout kills us
  try {
    return run(o) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_nn_cuda_bench: %s\n", e.what());
    return 1;
  }
}
