// epilogue_bench: where the `ktune` CPU backend's bias + ReLU should go. Per distinct conv / fc
// layer of a network it times (median of --reps, after one warm-up) the tuned kernel alone, the
// one-pass bias+ReLU it runs after the kernel, and the alternatives: two passes (bias, then ReLU)
// for conv (ktune::conv2d has no epilogue and no beta), and for fc the bias preloaded into C
// with the GEMM's beta = 1 (the GEMM's own C update as the epilogue) + a ReLU pass.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>

#include "ktune/conv2d.hpp"
#include "ktune/gemm.hpp"
#include "ktune/nn/network.hpp"
#include "nn/cpu/host_backend.hpp"

namespace nn = ktune::nn;

namespace {

template <class F>
double median_ms(int reps, F&& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void relu_pass(float* x, int64_t count) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) x[i] = std::max(x[i], 0.0f);
}

}  // namespace

int main(int argc, char** argv) {
  std::string network = "resnet50", csv;
  int64_t batch = 1;
  int reps = 10;
  CLI::App app{"epilogue_bench: bias + ReLU after the tuned kernels, one pass vs the alternatives"};
  app.add_option("--network", network, "vgg16, resnet50 or tiny");
  app.add_option("--batch", batch, "batch");
  app.add_option("--reps", reps, "timed runs per measurement")->check(CLI::Range(1, 1000));
  app.add_option("--csv", csv, "append the rows to this CSV");
  CLI11_PARSE(app, argc, argv);
  try {
    const nn::Network net = nn::make_network(network, batch);
    const nn::Weights w = nn::random_weights(net, 1);
    std::ofstream out;
    if (!csv.empty()) {
      out.open(csv, std::ios::app);
      if (!out) throw std::runtime_error(csv + ": cannot write");
      if (out.tellp() == 0)
        out << "network,batch,layer,kind,shape,kernel_ms,pass_ms,alternative,alternative_ms\n";
    }
    std::set<std::string> seen;
    for (const auto& l : net.layers) {
      if (l.kind != nn::LayerKind::conv && l.kind != nn::LayerKind::fc) continue;
      const auto& in = net.tensors[size_t(l.in)];
      const auto& o = net.tensors[size_t(l.out)];
      std::string shape = fmt::format("{}x{}x{}x{}->{}", in.n, in.h, in.w, in.c, o.c);
      if (l.kind == nn::LayerKind::conv) shape += fmt::format(" r{}s{}", l.conv.r, l.conv.stride);
      if (!seen.insert(shape).second) continue;
      std::vector<float> x(size_t(in.count()), 0.5f), y(size_t(o.count())), bias(size_t(o.c), 0.1f);
      double kernel, pass, alternative;
      std::string alt_name;
      if (l.kind == nn::LayerKind::conv) {
        const auto& d = l.conv;
        const auto& filter = w.get(l.name + ".weight", {d.k, d.c, d.r, d.s}).data;  // values only
        const int64_t rows = d.n * d.p() * d.q();
        kernel = median_ms(reps, [&] {
          ktune::conv2d(d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.stride, d.pad, x.data(), filter.data(),
                        y.data());
        });
        pass = median_ms(reps, [&] { nn::cpu::bias_relu(y.data(), bias.data(), rows, d.k, true); });
        alt_name = "bias pass + relu pass";
        alternative = median_ms(reps, [&] {
          nn::cpu::bias_relu(y.data(), bias.data(), rows, d.k, false);
          relu_pass(y.data(), o.count());
        });
      } else {
        const auto& d = l.fc;
        const auto& weight = w.get(l.name + ".weight", {d.out, d.in}).data;
        const auto gemm = [&](float beta) {
          // As the ktune backend: the weight transposed to [in][out] (values do not matter here).
          ktune::gemm(ktune::Trans::no, ktune::Trans::no, d.out, d.batch, d.in, 1.0f, weight.data(),
                      d.out, x.data(), d.in, beta, y.data(), d.out);
        };
        kernel = median_ms(reps, [&] { gemm(0.0f); });
        pass = median_ms(
            reps, [&] { nn::cpu::bias_relu(y.data(), bias.data(), d.batch, d.out, d.relu); });
        alt_name = "bias preloaded + gemm beta=1" + std::string(d.relu ? " + relu pass" : "");
        // Compared with kernel + pass: the preload and the beta=1 C update replace the pass.
        alternative = median_ms(reps, [&] {
          for (int64_t b = 0; b < d.batch; ++b)
            std::copy(bias.begin(), bias.end(), y.begin() + b * d.out);
          gemm(1.0f);
          if (d.relu) relu_pass(y.data(), o.count());
        });
        alternative -= kernel;  // reported as the cost beyond the plain kernel, like pass
      }
      const std::string row =
          fmt::format("{},{},{},{},{},{:.4f},{:.4f},{},{:.4f}", net.name, batch, l.name,
                      nn::kind_name(l.kind), shape, kernel, pass, alt_name, alternative);
      std::puts(row.c_str());
      if (out) out << row << '\n';
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
