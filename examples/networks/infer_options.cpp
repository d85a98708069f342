#include "examples/networks/infer_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "apps/ktune/numeric_options.hpp"
#include "ktune/error.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/registry.hpp"

namespace ktune::nn {

std::optional<InferOptions> parse_infer_options(int argc, char** argv) {
  InferOptions o;
  CLI::App app{"ktune_infer: VGG16 / ResNet-50 / tiny inference on a ktune::nn backend"};
  auto* network = app.add_option("--network", o.network, "vgg16, resnet50 or tiny");
  auto* onnx = app.add_option("--onnx", o.onnx, "an ONNX model (with its weights) instead")
                   ->excludes(network);
  app.add_option("--batch", o.batch, "images per inference (1..1024)");
  app.add_option("--backend", o.backend,
                 "backend name, or several separated by commas, timed taking turns (--list)");
  auto* weights =
      app.add_option("--weights", o.weights, "safetensors file with torchvision state_dict names")
          ->excludes(onnx);
  app.add_option("--seed", o.seed, "seed of random weights (without --weights)")
      ->excludes(weights)
      ->excludes(onnx);
  auto* input = app.add_option(
      "--input", o.input, "safetensors file with one F32 tensor 'input' [batch][3][H][W] (NCHW)");
  app.add_option("--input-seed", o.input_seed, "seed of a random N(0,1) input (without --input)")
      ->excludes(input);
  app.add_option("--reps", o.reps, "timed inferences (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed inferences first")->check(CLI::Range(0, 100000));
  app.add_option(
      "--logits", o.logits,
      "write the logits as CSV, one row per image (several backends: OUT.<backend>.csv)");
  app.add_option("--per-layer", o.per_layer, "write the per-layer median times as CSV");
  app.add_option("--csv", o.csv, "append network,batch,backend,device,median_ms to this CSV");
  app.add_option("--save-weights", o.save_weights,
                 "write the weights used (PyTorch layout) as safetensors");
  app.add_option("--save-input", o.save_input, "write the input used (NCHW) as safetensors");
  app.add_flag("--list", o.list, "list networks and backends, then exit");
  cli::check_numeric_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help: CLI11 prints it from the exception
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (o.list && !e.get_name().empty() && e.get_name() == "RequiredError") {
      // --list needs no network
    } else {
      throw Error(fmt::format("ktune_infer: {}", e.what()));
    }
  }
  if (!o.list && o.network.empty() == o.onnx.empty())
    throw Error("ktune_infer: give one of --network and --onnx");
  if (o.list) {
    fmt::print("networks: {}\nbackends:\n", fmt::join(network_names(), ", "));
    for (const auto& [name, summary] : backend_list()) fmt::print("  {:10} {}\n", name, summary);
    return std::nullopt;
  }
  return o;
}

}  // namespace ktune::nn
