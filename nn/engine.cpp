#include "ktune/nn/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ktune/error.hpp"
#include "ktune/timing_loop.hpp"

namespace ktune::nn {

void Backend::copy_channels(const float*, int64_t, float*, int64_t, int64_t, int64_t) {
  throw Error(fmt::format("backend {} does not run concat layers (copy_channels)", name()));
}

double Backend::time_forward(const std::function<void()>& forward, int last_mark) {
  forward();
  synchronize();
  return elapsed_ms(0, last_mark);
}

void Backend::clamp(const float*, float*, size_t, float, float) {
  throw Error(fmt::format("backend {} does not run clamp layers (Clip, a lone Relu)", name()));
}

ConvParams conv_params(const Layer& l, const Weights& w) {
  const auto& d = l.conv;
  // A grouped weight [k][c / groups][r][s] becomes the dense filter of a block-diagonal conv:
  // output channel k reads only the input channels of its group, the others are zeros.
  const int64_t groups = l.groups, per_group = d.c / groups, k_per_group = d.k / groups;
  const auto& weight = w.get(l.name + ".weight", {d.k, per_group, d.r, d.s}).data;
  std::vector<double> scale(size_t(d.k), 1.0), shift(size_t(d.k), 0.0);
  if (l.conv_bias) {
    const auto& b = w.get(l.name + ".bias", {d.k}).data;
    std::copy(b.begin(), b.end(), shift.begin());
  }
  if (!l.bn.empty()) {
    const auto& gamma = w.get(l.bn + ".weight", {d.k}).data;
    const auto& beta = w.get(l.bn + ".bias", {d.k}).data;
    const auto& mean = w.get(l.bn + ".running_mean", {d.k}).data;
    const auto& var = w.get(l.bn + ".running_var", {d.k}).data;
    for (size_t k = 0; k < size_t(d.k); ++k) {
      if (var[k] < 0)
        throw Error(fmt::format("{}: tensor '{}.running_var' has a negative entry {}", w.source(),
                                l.bn, var[k]));
      scale[k] = double(gamma[k]) / std::sqrt(double(var[k]) + l.bn_eps);
      shift[k] = (shift[k] - double(mean[k])) * scale[k] + double(beta[k]);
    }
  }
  ConvParams p;
  p.filter_krsc.assign(size_t(d.k * d.r * d.s * d.c), 0.0f);
  p.bias.resize(size_t(d.k));
  for (int64_t k = 0; k < d.k; ++k) {
    p.bias[size_t(k)] = float(shift[size_t(k)]);
    const int64_t first = k / k_per_group * per_group;  // the group's first input channel
    for (int64_t c = 0; c < per_group; ++c)
      for (int64_t r = 0; r < d.r; ++r)
        for (int64_t s = 0; s < d.s; ++s)
          p.filter_krsc[size_t(((k * d.r + r) * d.s + s) * d.c + first + c)] = float(
              double(weight[size_t(((k * per_group + c) * d.r + r) * d.s + s)]) * scale[size_t(k)]);
  }
  return p;
}

std::vector<float> fc_weight_nhwc(const std::vector<float>& weight, int64_t out, int64_t h,
                                  int64_t w, int64_t c) {
  const int64_t in = h * w * c;
  std::vector<float> permuted(weight.size());
  for (int64_t o = 0; o < out; ++o)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t ch = 0; ch < c; ++ch)
          permuted[size_t(o * in + (y * w + x) * c + ch)] =
              weight[size_t(o * in + (ch * h + y) * w + x)];
  return permuted;
}

std::vector<float> nchw_to_nhwc(const std::vector<float>& x, int64_t n, int64_t c, int64_t h,
                                int64_t w) {
  std::vector<float> out(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t xx = 0; xx < w; ++xx)
          out[size_t(((b * h + y) * w + xx) * c + ch)] = x[size_t(((b * c + ch) * h + y) * w + xx)];
  return out;
}

namespace {

// Tensor id -> index of the last layer that reads it (-1: none).
std::vector<int> last_uses(const Network& net) {
  std::vector<int> last_use(net.tensors.size(), -1);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const auto& l = net.layers[i];
    for (int t : {l.in, l.in2})
      if (t >= 0) last_use[size_t(t)] = int(i);
    for (int t : l.ins) last_use[size_t(t)] = int(i);
  }
  return last_use;
}

// By layer: the residual operand of a conv without ReLU whose output is read only by the add
// right after it (that pair may run as one conv2d_add), else -1.
std::vector<int> fusable_residuals(const Network& net) {
  const auto last_use = last_uses(net);
  std::vector<int> residual(net.layers.size(), -1);
  for (size_t i = 0; i + 1 < net.layers.size(); ++i) {
    const auto& conv = net.layers[i];
    const auto& add = net.layers[i + 1];
    if (conv.kind != LayerKind::conv || conv.conv.relu || add.kind != LayerKind::add) continue;
    if ((add.in == conv.out) == (add.in2 == conv.out)) continue;  // not an operand, or both
    if (last_use[size_t(conv.out)] != int(i + 1) || conv.out == net.logits) continue;
    residual[i] = add.in == conv.out ? add.in2 : add.in;
  }
  return residual;
}

// Buffers for tensors: a tensor may reuse a buffer whose tensor is no longer read. The input and
// the outputs are never shared (the input is read again by the next forward, outputs downloaded).
// A fusable conv's input stays live through its add, so that the add's output, which the conv
// writes, never takes the buffer the conv reads.
std::vector<int> plan_buffers(const Network& net, const std::vector<int>& residual_of,
                              std::vector<size_t>& sizes) {
  const size_t tensors = net.tensors.size();
  std::vector<int> last_use = last_uses(net);
  for (size_t i = 0; i < residual_of.size(); ++i)
    if (residual_of[i] >= 0)
      last_use[size_t(net.layers[i].in)] = std::max(last_use[size_t(net.layers[i].in)], int(i) + 1);
  for (int t : {net.input, net.logits, net.probs}) last_use[size_t(t)] = int(net.layers.size());
  std::vector<int> buffer(tensors, -1), holder;  // holder[b]: tensor now in buffer b
  const auto place = [&](int t, int now) {
    const size_t need = size_t(net.tensors[size_t(t)].count());
    int fit = -1, grow = -1;  // the smallest free buffer that fits, else the largest free one
    for (size_t b = 0; b < holder.size(); ++b) {
      if (last_use[size_t(holder[b])] >= now) continue;  // still read at or after this layer
      if (sizes[b] >= need) {
        if (fit < 0 || sizes[b] < sizes[size_t(fit)]) fit = int(b);
      } else if (grow < 0 || sizes[b] > sizes[size_t(grow)]) {
        grow = int(b);
      }
    }
    int best = fit >= 0 ? fit : grow;
    if (best < 0) {
      holder.push_back(t);
      sizes.push_back(need);
      best = int(holder.size()) - 1;
    }
    holder[size_t(best)] = t;
    sizes[size_t(best)] = std::max(sizes[size_t(best)], need);
    buffer[size_t(t)] = best;
  };
  place(net.input, -1);
  for (size_t i = 0; i < net.layers.size(); ++i) place(net.layers[i].out, int(i));
  return buffer;
}

}  // namespace

Engine::Engine(Network net, const Weights& weights, Backend& backend)
    : net_(std::move(net)), backend_(backend) {
  for (size_t i = 0; i < net_.layers.size(); ++i) {
    const auto& l = net_.layers[i];
    if (l.kind == LayerKind::conv) {
      if (l.groups > 1)
        notes_.push_back(fmt::format(
            "layer {} ({}): a conv of {} groups runs as a dense conv with a block-diagonal filter "
            "on {} (no tuned kind covers grouped convs)",
            i, l.name, l.groups, backend_.name()));
      const auto p = conv_params(l, weights);
      backend_.prepare_conv(int(i), l.conv, p.filter_krsc.data(), p.bias.data());
    } else if (l.kind == LayerKind::fc) {
      const auto& in = net_.tensors[size_t(l.in)];
      const auto& w = weights.get(l.name + ".weight", {l.fc.out, l.fc.in}).data;
      const auto& b = weights.get(l.name + ".bias", {l.fc.out}).data;
      const auto permuted = fc_weight_nhwc(w, l.fc.out, in.h, in.w, in.c);
      backend_.prepare_fc(int(i), l.fc, permuted.data(), b.data());
    }
  }
  residual_of_ = fusable_residuals(net_);
  std::vector<size_t> sizes;
  const auto plan = plan_buffers(net_, residual_of_, sizes);
  std::vector<float*> buffers;
  for (size_t s : sizes) {
    buffers.push_back(backend_.alloc(s));
    activation_bytes_ += s * sizeof(float);
  }
  for (int b : plan) buffer_of_.push_back(b >= 0 ? buffers[size_t(b)] : nullptr);
  backend_.reserve_marks(int(net_.layers.size()) + 1);
  if (backend_.variants() > 1) choose_variant();
}

void Engine::choose_variant() {
  // On a random input (the caller's comes later), in interleaved rounds (one warm-up) so that a
  // drift of the machine while they are timed (GPU clocks ramping, load) reaches every variant
  // alike; the median of each one's rounds decides.
  set_input(random_normal(size_t(net_.tensors[size_t(net_.input)].count()), 1).data());
  constexpr TimingPolicy kRounds{
      .warmups = 1, .min_reps = 3, .max_reps = 15, .budget_ms = 300, .timeout_ms = 1e9};
  const int last = int(net_.layers.size());
  const auto samples = run_interleaved(
      backend_.variants(),
      [&](int v) {
        backend_.use_variant(v);
        return backend_.time_forward([&] { forward(); }, last);
      },
      kRounds);
  const int best = fastest_candidate(samples, false);
  backend_.use_variant(best);
  std::string all;
  for (int v = 0; v < backend_.variants(); ++v)
    all += fmt::format("{}{} {:.3f} ms", v ? ", " : "", backend_.variant_name(v),
                       median_of_samples(samples[size_t(v)]));
  notes_.push_back(
      fmt::format("{}: runs {} (whole network, medians of {} interleaved rounds at "
                  "set-up: {})",
                  backend_.name(), backend_.variant_name(best), samples[0].size(), all));
}

void Engine::set_input(const float* nhwc) {
  backend_.upload(buffer_of_[size_t(net_.input)], nhwc,
                  size_t(net_.tensors[size_t(net_.input)].count()));
}

void Engine::forward() {
  backend_.mark(0);
  for (size_t i = 0; i < net_.layers.size(); ++i) {
    const auto& l = net_.layers[i];
    const float* in = buffer_of_[size_t(l.in)];
    float* out = buffer_of_[size_t(l.out)];
    if (residual_of_[i] >= 0) {
      const auto& add = net_.layers[i + 1];
      if (backend_.conv2d_add(int(i), l.conv, in, buffer_of_[size_t(residual_of_[i])],
                              buffer_of_[size_t(add.out)], add.relu)) {
        backend_.mark(int(i) + 1);  // the conv's time includes the add; the add's is ~0
        backend_.mark(int(++i) + 1);
        continue;
      }
    }
    switch (l.kind) {
      case LayerKind::conv:
        backend_.conv2d(int(i), l.conv, in, out);
        break;
      case LayerKind::fc:
        backend_.fc(int(i), l.fc, in, out);
        break;
      case LayerKind::max_pool:
        backend_.max_pool(l.pool, in, out);
        break;
      case LayerKind::avg_pool:
        backend_.avg_pool(l.pool, in, out);
        break;
      case LayerKind::add:
        backend_.add(in, buffer_of_[size_t(l.in2)], out,
                     size_t(net_.tensors[size_t(l.out)].count()), l.relu);
        break;
      case LayerKind::softmax:
        backend_.softmax(net_.batch, net_.classes, in, out);
        break;
      case LayerKind::concat: {
        const auto& o = net_.tensors[size_t(l.out)];
        int64_t offset = 0;
        for (int t : l.ins) {
          const int64_t c = net_.tensors[size_t(t)].c;
          backend_.copy_channels(buffer_of_[size_t(t)], c, out, o.c, offset, o.n * o.h * o.w);
          offset += c;
        }
        break;
      }
      case LayerKind::clamp:
        backend_.clamp(in, out, size_t(net_.tensors[size_t(l.out)].count()), l.lo, l.hi);
        break;
    }
    backend_.mark(int(i) + 1);
  }
}

double Engine::last_ms() {
  backend_.synchronize();
  return backend_.elapsed_ms(0, int(net_.layers.size()));
}

std::vector<double> Engine::layer_ms() {
  backend_.synchronize();
  std::vector<double> ms;
  for (size_t i = 0; i < net_.layers.size(); ++i)
    ms.push_back(backend_.elapsed_ms(int(i), int(i) + 1));
  return ms;
}

void Engine::logits(float* host) {
  backend_.synchronize();
  backend_.download(host, buffer_of_[size_t(net_.logits)], size_t(net_.batch * net_.classes));
}

void Engine::probabilities(float* host) {
  backend_.synchronize();
  backend_.download(host, buffer_of_[size_t(net_.probs)], size_t(net_.batch * net_.classes));
}

std::vector<int> top_k(const float* row, int64_t count, int k) {
  std::vector<int> index(static_cast<size_t>(count));
  std::iota(index.begin(), index.end(), 0);
  k = int(std::min<int64_t>(k, count));
  std::partial_sort(index.begin(), index.begin() + k, index.end(),
                    [&](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
  index.resize(size_t(k));
  return index;
}

}  // namespace ktune::nn
