// conv_plan_bench: the `ktune` CPU backend's conv plans (kernels/common/cpu/conv_cpu_plan.hpp)
// against oneDNN, layer by layer, in one process. Per distinct conv / fc layer of a network
// (shape, epilogue, whether the engine fuses the residual add after it) the plan in each blocking
// variant of --variants and the `onednn` backend take turns for --reps rounds (a turn: a pause, an
// untimed call, --burst timed calls); the medians and minima and each variant's ratios to oneDNN
// are printed (and appended to --csv). The minima are the figure to read on a loaded machine
// (a call that two threads ran undisturbed); the medians on a quiet one. oneDNN runs the layer as
// the engine does: conv with bias + ReLU post-ops, then, where the engine fuses a residual add
// into ktune's conv, its separate add; as convolution_auto and, where oneDNN has a Winograd
// implementation for the layer, as that too (`onednn_winograd`, reorders from / to NHWC
// included): the faster by median is the reference (onednn_ms, onednn_impl names it; both
// medians in onednn_auto_ms, onednn_winograd_ms). Variants are named presets of PlanBlocking, so
// that a change of the plan can be measured against the old path on the same machine state. The
// plans run on OpenMP's team like the `ktune` backend (--workers pool: the helper pool).
#include <fmt/format.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "kernels/common/cpu/conv_cpu_plan.hpp"
#include "ktune/host_measure.hpp"
#include "ktune/nn/network.hpp"
#include "ktune/nn/registry.hpp"

namespace nn = ktune::nn;
namespace kc = ktune::kernels::cpu_conv;

namespace {

// The plan's blocking variants this bench knows: "plan" is the default the backend runs.
const std::map<std::string, kc::PlanBlocking>& presets() {
  static const std::map<std::string, kc::PlanBlocking> p = [] {
    std::map<std::string, kc::PlanBlocking> m;
    m["plan"] = kc::PlanBlocking{};
    auto with = [&](const char* name, auto change) {
      kc::PlanBlocking b;
      change(b);
      m[name] = b;
    };
    with("nopad", [](kc::PlanBlocking& b) { b.pad_input = false; });
    with("rowcalls", [](kc::PlanBlocking& b) { b.join_rows = false; });
    with("kc128", [](kc::PlanBlocking& b) { b.kc = 128; });
    with("kc512", [](kc::PlanBlocking& b) { b.kc = 512; });
    with("kcfixed", [](kc::PlanBlocking& b) { b.whole_k_floats = 0; });
    // K blocks of 64 / 128 on every layer (kc128 above changes nothing while whole_k_floats
    // keeps all of K in one block).
    with("kc64all", [](kc::PlanBlocking& b) {
      b.kc = 64;
      b.whole_k_floats = 0;
    });
    with("kc128all", [](kc::PlanBlocking& b) {
      b.kc = 128;
      b.whole_k_floats = 0;
    });
    with("kc256k", [](kc::PlanBlocking& b) { b.whole_k_floats = 256 * 1024; });
    with("direct", [](kc::PlanBlocking& b) { b.winograd_m = 0; });  // no Winograd
    with("wino2", [](kc::PlanBlocking& b) { b.winograd_m = 2; });
    with("wtiles12", [](kc::PlanBlocking& b) { b.winograd_min_tiles = 12; });
    with("wtiles192", [](kc::PlanBlocking& b) { b.winograd_min_tiles = 192; });
    with("cols192", [](kc::PlanBlocking& b) { b.max_cols = 192; });
    with("cols768", [](kc::PlanBlocking& b) { b.max_cols = 768; });
    with("rows128", [](kc::PlanBlocking& b) { b.max_rows = 128; });
    with("rows512", [](kc::PlanBlocking& b) { b.max_rows = 512; });
    // The order before rows_outer (on 1×1 stride-1 layers, which had channel panels outermost
    // where a task had more channels than pixels, now pixels outermost always: cpu_plan_1x1's
    // outer 0).
    with("piecesouter", [](kc::PlanBlocking& b) {
      b.rows_outer = false;
      b.prefetch_panels = false;
    });
    with("noprefetch", [](kc::PlanBlocking& b) { b.prefetch_panels = false; });
    // Each thread's own padded copy (cpu_plan_tpad), at cpu_plan's default and 192-pixel tasks.
    with("padthread", [](kc::PlanBlocking& b) { b.pad_per_thread = true; });
    with("cols192padthread", [](kc::PlanBlocking& b) {
      b.max_cols = 192;
      b.pad_per_thread = true;
    });
    with("nocopy", [](kc::PlanBlocking& b) { b.pack_aliased = false; });  // aliased rows in place
    // The shared padded copy written by the tasks, each the rows it reads (the `ktune` backend's).
    with("ondemand", [](kc::PlanBlocking& b) { b.pad_on_demand = true; });
    return m;
  }();
  return p;
}

// A preset by name, or "b" followed by "/"-separated field=value changes of the default
// PlanBlocking (cols, rows, kc: max_cols, max_rows, kc; outer, pf, bal: rows_outer,
// prefetch_panels, balanced_split as 0 / 1), e.g. b/cols=96/rows=128/bal=1.
kc::PlanBlocking preset(const std::string& name) {
  if (name.rfind("b/", 0) != 0) {
    const auto it = presets().find(name);
    if (it == presets().end())
      throw std::runtime_error("--variants: unknown preset '" + name + "'");
    return it->second;
  }
  kc::PlanBlocking b;
  for (size_t at = 2; at < name.size();) {
    const size_t end = std::min(name.find('/', at), name.size());
    const std::string field = name.substr(at, end - at);
    const size_t eq = field.find('=');
    const std::string key = field.substr(0, eq);
    const int value = eq == std::string::npos ? 0 : std::stoi(field.substr(eq + 1));
    if (key == "cols")
      b.max_cols = value;
    else if (key == "rows")
      b.max_rows = value;
    else if (key == "kc")
      b.kc = value;
    else if (key == "outer")
      b.rows_outer = value != 0;
    else if (key == "pf")
      b.prefetch_panels = value != 0;
    else if (key == "bal")
      b.balanced_split = value != 0;
    else
      throw std::runtime_error("--variants: unknown field '" + key + "' in '" + name + "'");
    at = end + 1;
  }
  return b;
}

std::vector<float> random_floats(size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 0.5f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

// Reads mb MiB through the host protocol's eviction (--cold: each timed call starts with the
// layer's data, filter and output out of the caches, as tuned_conv_bench's host protocol does for
// layers whose copies do not cover 2x the LLC), which leaves no thread of its own spinning.
void evict(int mb) { ktune::evict_host_caches(double(mb) * 1024 * 1024); }

double least(const std::vector<double>& t) { return *std::min_element(t.begin(), t.end()); }

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
double time_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A network of unconnected conv layers (each its own input and output tensor, ReLU), one per
// "n,h,w,c,k,r,s,stride,pad" of the ';'-separated list: the conv2d workloads' shapes, which are
// not all a network's layers as such (ResNet-50's strided projections appear at stride 1).
nn::Network conv_layers(const std::string& list) {
  nn::Network net;
  net.name = "shapes";
  for (size_t at = 0; at < list.size();) {
    const size_t end = std::min(list.find(';', at), list.size());
    std::vector<int64_t> v;
    for (size_t i = at; i < end;) {
      const size_t comma = std::min(list.find(',', i), end);
      v.push_back(std::stoll(list.substr(i, comma - i)));
      i = comma + 1;
    }
    if (v.size() != 9) throw std::runtime_error("--shapes: want n,h,w,c,k,r,s,stride,pad");
    nn::Layer l;
    l.name = fmt::format("conv{}", net.layers.size());
    l.conv = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], true};
    l.in = int(net.tensors.size());
    net.tensors.push_back({v[0], v[1], v[2], v[3]});
    l.out = int(net.tensors.size());
    net.tensors.push_back({v[0], l.conv.p(), l.conv.q(), v[4]});
    net.batch = v[0];
    net.layers.push_back(l);
    at = end + 1;
  }
  return net;
}

}  // namespace

int main(int argc, char** argv) {
  std::string network = "resnet50", csv, variants = "plan", only, workers = "openmp", shapes;
  int64_t batch = 1;
  int reps = 20, burst = 2, pause_ms = 5, threads = 0, cold_mb = 0;
  CLI::App app{"conv_plan_bench: the ktune CPU conv plan (blocking variants) vs oneDNN per layer"};
  app.add_option("--network", network, "vgg16, resnet50 or tiny");
  app.add_option("--batch", batch, "batch")->check(CLI::Range(1, 1024));
  app.add_option("--reps", reps, "rounds of one call each")->check(CLI::Range(1, 10000));
  app.add_option("--burst", burst, "timed calls per turn")->check(CLI::Range(1, 100));
  app.add_option("--pause-ms", pause_ms, "pause before each turn (ms)")->check(CLI::Range(0, 1000));
  app.add_option("--threads", threads, "threads of the plans and oneDNN (0: OpenMP's count)")
      ->check(CLI::Range(0, 256));
  app.add_option("--variants", variants, "comma-separated plan presets (plan, ...)");
  app.add_option("--only", only, "time only the layers whose name contains this");
  app.add_option("--workers", workers,
                 "the plans' threads: openmp (OpenMP's team, as the ktune backend) or pool (the "
                 "packed GEMM's helper pool, as ktune_pool)")
      ->check(CLI::IsMember({"openmp", "pool"}));
  app.add_option("--cold", cold_mb,
                 "MiB read before each timed call (0: none; 64 = 2x the EPYC's L3)");
  app.add_option("--csv", csv, "append the rows to this CSV");
  app.add_option(
      "--shapes", shapes,
      "instead of --network: conv layers n,h,w,c,k,r,s,stride,pad separated by ';' "
      "(the conv2d workloads' shapes, e.g. ResNet-50 b1 conv5_2 1,7,7,1024,2048,1,1,1,0), "
      "each with ReLU");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<std::pair<std::string, kc::PlanBlocking>> plans;
    for (size_t at = 0; at <= variants.size();) {
      const size_t end = std::min(variants.find(',', at), variants.size());
      const std::string name = variants.substr(at, end - at);
      plans.emplace_back(name, preset(name));
      at = end + 1;
    }
    if (threads > 0) omp_set_num_threads(threads);  // oneDNN's (OpenMP) threads
    const kc::ScopedTaskWorkers on(workers == "pool" ? kc::TaskWorkers::pool
                                                     : kc::TaskWorkers::openmp);
    nn::register_cpu_backends();
    const nn::Network net = shapes.empty() ? nn::make_network(network, batch) : conv_layers(shapes);
    std::ofstream out;
    if (!csv.empty()) {
      out.open(csv, std::ios::app);
      if (!out) throw std::runtime_error("--csv: cannot write " + csv);
      if (out.tellp() == 0)
        out << "network,batch,layer,shape,residual,count,variant,median_ms,onednn_ms,ratio,"
               "min_ms,onednn_min_ms,min_ratio,onednn_impl,onednn_auto_ms,onednn_winograd_ms\n";
    }
    // Distinct layers (shape, ReLU, fused residual) with how often each occurs.
    struct Job {
      size_t layer;
      bool residual;
      int count;
    };
    std::vector<Job> jobs;
    std::map<std::string, size_t> seen;
    std::vector<std::string> keys;
    for (size_t i = 0; i < net.layers.size(); ++i) {
      const auto& l = net.layers[i];
      if (l.kind != nn::LayerKind::conv && l.kind != nn::LayerKind::fc) continue;
      if (!only.empty() && l.name.find(only) == std::string::npos) continue;
      const auto& next = i + 1 < net.layers.size() ? net.layers[i + 1] : l;
      const bool residual = l.kind == nn::LayerKind::conv && next.kind == nn::LayerKind::add &&
                            (next.in == l.out || next.in2 == l.out);
      const auto& in = net.tensors[size_t(l.in)];
      const auto& o = net.tensors[size_t(l.out)];
      std::string key = fmt::format("{}x{}x{}x{}->{}", in.n, in.h, in.w, in.c, o.c);
      if (l.kind == nn::LayerKind::conv) key += fmt::format(" r{}s{}", l.conv.r, l.conv.stride);
      const std::string full = key + (residual ? " +res" : "");
      if (const auto it = seen.find(full); it != seen.end()) {
        ++jobs[it->second].count;
        continue;
      }
      seen[full] = jobs.size();
      keys.push_back(key);
      jobs.push_back({i, residual, 1});
    }
    std::vector<double> sum(plans.size(), 0.0), sum_min(plans.size(), 0.0);
    double sum_onednn = 0, min_onednn = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      const auto& l = net.layers[jobs[j].layer];
      const bool residual = jobs[j].residual;
      const bool conv = l.kind == nn::LayerKind::conv;
      const auto& in = net.tensors[size_t(l.in)];
      const auto& o = net.tensors[size_t(l.out)];
      const kc::Shape s = conv ? kc::Shape{l.conv.n, l.conv.h, l.conv.w,      l.conv.c,  l.conv.k,
                                           l.conv.r, l.conv.s, l.conv.stride, l.conv.pad}
                               : kc::Shape{l.fc.batch, 1, 1, l.fc.in, l.fc.out, 1, 1, 1, 0};
      // The add after the conv carries the ReLU when the residual is fused.
      const bool relu =
          residual ? net.layers[jobs[j].layer + 1].relu : (conv ? l.conv.relu : l.fc.relu);
      const auto x = random_floats(size_t(in.count()), 1);
      const auto filter = random_floats(size_t(s.k * s.gemm_k()), 2);
      const auto bias = random_floats(size_t(s.k), 3);
      const auto res = random_floats(size_t(o.count()), 4);
      std::vector<float> y(size_t(o.count())), tmp(size_t(o.count()));
      std::vector<std::unique_ptr<kc::ConvPlan>> built;
      for (const auto& p : plans)
        built.push_back(std::make_unique<kc::ConvPlan>(s, filter.data(), threads, p.second));
      // oneDNN at its best: convolution_auto (`onednn`) and, where oneDNN has a Winograd
      // implementation for the layer, that one (`onednn_winograd`, its reorders from and to NHWC
      // included); the faster by median is the reference.
      nn::ConvDesc d = l.conv;
      d.relu = residual ? false : relu;
      std::vector<std::unique_ptr<nn::Backend>> vendors;
      for (const char* name : {"onednn", "onednn_winograd"}) {
        auto b = nn::make_backend(name);
        if (conv)
          b->prepare_conv(0, d, filter.data(), bias.data());
        else
          b->prepare_fc(0, l.fc, filter.data(), bias.data());
        if (vendors.empty() || b->layer_choice(0).find("wino") != std::string::npos)
          vendors.push_back(std::move(b));
      }
      const kc::Epilogue e{bias.data(), residual ? res.data() : nullptr, relu};
      auto run_vendor = [&](nn::Backend& b) {
        if (conv) {
          b.conv2d(0, d, x.data(), residual ? tmp.data() : y.data());
          if (residual) b.add(tmp.data(), res.data(), y.data(), y.size(), relu);
        } else {
          b.fc(0, l.fc, x.data(), y.data());
        }
      };
      // Rounds in an order rotated every round; each turn of a variant is a pause (the other
      // thread pool's idle threads stop spinning: the plans' helpers after 2 ms, OpenMP's after
      // its spin count), an untimed call (wakes this one's threads, as the layer before would in
      // a network), then `burst` timed calls back to back.
      const size_t n = built.size() + vendors.size();
      std::vector<std::vector<double>> t(n);
      for (int rep = 0; rep < reps; ++rep)
        for (size_t k = 0; k < n; ++k) {
          const size_t v = (size_t(rep) + k) % n;
          auto call = [&] {
            if (v >= built.size())
              run_vendor(*vendors[v - built.size()]);
            else
              built[v]->run(x.data(), y.data(), e);
          };
          std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
          call();
          for (int b = 0; b < burst; ++b) {
            if (cold_mb > 0) evict(cold_mb);
            t[v].push_back(time_ms(call));
          }
        }
      size_t best = built.size();
      for (size_t v = best + 1; v < n; ++v)
        if (median(t[v]) < median(t[best])) best = v;
      const double ref = median(t[best]), ref_min = least(t[best]);
      const std::string auto_ms = fmt::format("{:.4f}", median(t[built.size()]));
      const std::string wino_ms =
          n > built.size() + 1 ? fmt::format("{:.4f}", median(t.back())) : "";
      const std::string impl = vendors[best - built.size()]->layer_choice(0);
      sum_onednn += ref * jobs[j].count;
      min_onednn += ref_min * jobs[j].count;
      if (std::getenv("CONV_PLAN_BENCH_TIMES"))  // every timed call, sorted (a debugging aid)
        for (size_t v = 0; v < n; ++v) {
          std::vector<double> sorted = t[v];
          std::sort(sorted.begin(), sorted.end());
          std::string line = v < built.size() ? plans[v].first : "onednn";
          for (double ms : sorted) line += fmt::format(" {:.3f}", ms);
          std::puts(line.c_str());
        }
      for (size_t v = 0; v < built.size(); ++v) {
        const double m = median(t[v]), m_min = least(t[v]);
        sum[v] += m * jobs[j].count;
        sum_min[v] += m_min * jobs[j].count;
        const std::string row = fmt::format(
            "{},{},{},{},{},{},{},{:.4f},{:.4f},{:.3f},{:.4f},{:.4f},{:.3f},{},{},{}", net.name,
            batch, l.name, keys[j], residual ? 1 : 0, jobs[j].count, plans[v].first, m, ref,
            m / ref, m_min, ref_min, m_min / ref_min, impl, auto_ms, wino_ms);
        std::puts(row.c_str());
        if (out) out << row << '\n';
      }
      std::fflush(stdout);
    }
    for (size_t v = 0; v < plans.size(); ++v)
      fmt::print(
          "total {} batch {} {}: medians {:.2f} ms vs onednn {:.2f} ms = {:.3f}; minima {:.2f} vs "
          "{:.2f} = {:.3f} (layers x count)\n",
          net.name, batch, plans[v].first, sum[v], sum_onednn, sum[v] / sum_onednn, sum_min[v],
          min_onednn, sum_min[v] / min_onednn);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
