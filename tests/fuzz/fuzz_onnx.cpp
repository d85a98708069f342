// libFuzzer harness: ONNX models as ktune_infer --onnx loads them (ktune::nn::parse_onnx). A
// model that loads is a well-formed network — every layer reads tensors written before it, every
// shape positive, the weights it names present with the shapes it needs — and, when small, runs
// on the reference backend to finite or non-finite logits but never a crash.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ktune/error.hpp"
#include "ktune/nn/engine.hpp"
#include "ktune/nn/onnx.hpp"
#include "ktune/nn/registry.hpp"

namespace {

namespace nn = ktune::nn;

bool well_formed(const nn::Network& net) {
  const int tensors = int(net.tensors.size());
  std::vector<bool> written(net.tensors.size(), false);
  if (net.input < 0 || net.input >= tensors) return false;
  written[size_t(net.input)] = true;
  for (const auto& l : net.layers) {
    std::vector<int> reads = l.ins;
    reads.push_back(l.in);
    if (l.in2 >= 0) reads.push_back(l.in2);
    for (int t : reads)
      if (t < 0 || t >= tensors || !written[size_t(t)]) return false;
    if (l.out < 0 || l.out >= tensors) return false;
    written[size_t(l.out)] = true;
  }
  for (const auto& s : net.tensors)
    if (s.n < 1 || s.h < 1 || s.w < 1 || s.c < 1) return false;
  return net.logits >= 0 && net.logits < tensors && net.probs >= 0 && net.probs < tensors &&
         net.classes == net.tensors[size_t(net.logits)].c;
}

// Multiply-adds of the network as the engine runs it (grouped convs dense), to skip big ones.
double work(const nn::Network& net) {
  double macs = 0;
  for (const auto& l : net.layers) {
    const auto& o = net.tensors[size_t(l.out)];
    macs +=
        double(o.count()) * (l.kind == nn::LayerKind::conv ? double(l.conv.r * l.conv.s * l.conv.c)
                             : l.kind == nn::LayerKind::fc ? double(l.fc.in)
                                                           : 1.0);
  }
  return macs;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nn::register_cpu_backends();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nn::OnnxModel model;
  try {
    model = nn::parse_onnx(data, size, "fuzz.onnx", 1);
  } catch (const ktune::Error&) {
    return 0;
  }
  if (!well_formed(model.network)) __builtin_trap();
  // get() throws, uncaught (a finding), for a tensor the network names that is missing or has
  // another shape; so does the engine for anything the loader should have refused.
  for (const auto& p : nn::parameters(model.network)) (void)model.weights.get(p.name, p.shape);
  if (work(model.network) > 2e6) return 0;
  auto backend = nn::make_backend("reference");
  nn::Engine engine(model.network, model.weights, *backend);
  const auto& in = model.network.tensors[size_t(model.network.input)];
  std::vector<float> x(size_t(in.count()), 0.5f);
  engine.set_input(x.data());
  engine.forward();
  std::vector<float> logits(size_t(model.network.batch * model.network.classes));
  engine.logits(logits.data());
  return 0;
}
