#include "tests/nn/torch_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ktune::nn::testing {

namespace {

struct Map {  // NCHW
  int n, c, h, w;
  std::vector<double> v;
  double& at(int b, int ch, int y, int x) { return v[size_t(((b * c + ch) * h + y) * w + x)]; }
  double at(int b, int ch, int y, int x) const { return v[size_t(((b * c + ch) * h + y) * w + x)]; }
};

Map conv(const Map& in, const Weights& ws, const std::string& name, int k, int r, int stride,
         int pad) {
  const auto& wt = ws.get(name + ".weight", {k, in.c, r, r}).data;
  const int p = (in.h + 2 * pad - r) / stride + 1, q = (in.w + 2 * pad - r) / stride + 1;
  Map out{in.n, k, p, q, std::vector<double>(size_t(in.n * k * p * q))};
  for (int b = 0; b < in.n; ++b)
    for (int o = 0; o < k; ++o)
      for (int y = 0; y < p; ++y)
        for (int x = 0; x < q; ++x) {
          double acc = 0;
          for (int c = 0; c < in.c; ++c)
            for (int i = 0; i < r; ++i)
              for (int j = 0; j < r; ++j) {
                const int iy = y * stride - pad + i, ix = x * stride - pad + j;
                if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w)
                  acc += in.at(b, c, iy, ix) * wt[size_t(((o * in.c + c) * r + i) * r + j)];
              }
          out.at(b, o, y, x) = acc;
        }
  return out;
}

Map batch_norm(Map m, const Weights& ws, const std::string& name, bool relu) {
  const std::vector<int64_t> shape = {m.c};
  const auto& g = ws.get(name + ".weight", shape).data;
  const auto& beta = ws.get(name + ".bias", shape).data;
  const auto& mean = ws.get(name + ".running_mean", shape).data;
  const auto& var = ws.get(name + ".running_var", shape).data;
  for (int b = 0; b < m.n; ++b)
    for (int c = 0; c < m.c; ++c)
      for (int y = 0; y < m.h; ++y)
        for (int x = 0; x < m.w; ++x) {
          double& v = m.at(b, c, y, x);
          v = (v - mean[size_t(c)]) / std::sqrt(double(var[size_t(c)]) + 1e-5) * g[size_t(c)] +
              beta[size_t(c)];
          if (relu) v = std::max(v, 0.0);
        }
  return m;
}

Map pool(const Map& in, int window, int stride, int pad, bool max) {
  const int p = (in.h + 2 * pad - window) / stride + 1, q = (in.w + 2 * pad - window) / stride + 1;
  Map out{in.n, in.c, p, q, std::vector<double>(size_t(in.n * in.c * p * q))};
  for (int b = 0; b < in.n; ++b)
    for (int c = 0; c < in.c; ++c)
      for (int y = 0; y < p; ++y)
        for (int x = 0; x < q; ++x) {
          double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
          for (int i = 0; i < window; ++i)
            for (int j = 0; j < window; ++j) {
              const int iy = y * stride - pad + i, ix = x * stride - pad + j;
              if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;
              acc = max ? std::max(acc, in.at(b, c, iy, ix)) : acc + in.at(b, c, iy, ix);
            }
          out.at(b, c, y, x) = max ? acc : acc / (window * window);
        }
  return out;
}

}  // namespace

std::vector<double> tiny_forward_nchw(const Weights& ws, const std::vector<float>& input,
                                      int batch) {
  Map x{batch, 3, 16, 16, std::vector<double>(input.begin(), input.end())};
  x = batch_norm(conv(x, ws, "conv1", 8, 3, 1, 1), ws, "bn1", true);
  x = pool(x, 3, 2, 1, true);
  Map y = batch_norm(conv(x, ws, "layer1.0.conv1", 16, 3, 2, 1), ws, "layer1.0.bn1", true);
  y = batch_norm(conv(y, ws, "layer1.0.conv2", 16, 3, 1, 1), ws, "layer1.0.bn2", false);
  const Map identity = batch_norm(conv(x, ws, "layer1.0.downsample.0", 16, 1, 2, 0), ws,
                                  "layer1.0.downsample.1", false);
  for (size_t i = 0; i < y.v.size(); ++i) y.v[i] = std::max(y.v[i] + identity.v[i], 0.0);
  y = pool(y, 2, 2, 0, false);
  const int features = y.c * y.h * y.w;  // torch.flatten of NCHW: the map is already in order
  const auto& fw = ws.get("fc.weight", {10, features}).data;
  const auto& fb = ws.get("fc.bias", {10}).data;
  std::vector<double> logits(size_t(batch * 10));
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < 10; ++o) {
      double acc = fb[size_t(o)];
      for (int i = 0; i < features; ++i)
        acc += y.v[size_t(b * features + i)] * fw[size_t(o * features + i)];
      logits[size_t(b * 10 + o)] = acc;
    }
  return logits;
}

}  // namespace ktune::nn::testing
