// A 3x3 stride-1 padded convolution (NHWC, KRSC) and a 1x1 one through ktune::conv2d, checked
// against a plain loop on NaN-poisoned output; and one bad call.
#include <cmath>
#include <cstdio>
#include <ktune/conv2d.hpp>
#include <limits>
#include <random>
#include <vector>

namespace {

// Max abs error of ktune::conv2d against a float64 loop, or +inf when anything is NaN.
double check(int n, int h, int w, int c, int k, int r, int stride, int pad) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int p = (h + 2 * pad - r) / stride + 1, q = (w + 2 * pad - r) / stride + 1;
  std::vector<float> x(size_t(n) * h * w * c), f(size_t(k) * r * r * c);
  std::vector<float> y(size_t(n) * p * q * k, std::numeric_limits<float>::quiet_NaN());
  for (auto* v : {&x, &f})
    for (float& e : *v) e = dist(rng);
  ktune::conv2d(n, h, w, c, k, r, r, stride, pad, x.data(), f.data(), y.data());
  double worst = 0;
  for (int b = 0; b < n; ++b)
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < q; ++j)
        for (int o = 0; o < k; ++o) {
          double sum = 0;
          for (int u = 0; u < r; ++u)
            for (int v = 0; v < r; ++v) {
              const int yi = i * stride - pad + u, xj = j * stride - pad + v;
              if (yi < 0 || yi >= h || xj < 0 || xj >= w) continue;
              for (int ch = 0; ch < c; ++ch)
                sum += double(x[((size_t(b) * h + yi) * w + xj) * c + ch]) *
                       f[((size_t(o) * r + u) * r + v) * c + ch];
            }
          const float got = y[((size_t(b) * p + i) * q + j) * k + o];
          if (std::isnan(got)) return std::numeric_limits<double>::infinity();
          worst = std::fmax(worst, std::fabs(got - sum));
        }
  return worst;
}

}  // namespace

int main() {
  const double e3 = check(2, 13, 11, 16, 24, 3, 1, 1), e1 = check(1, 7, 9, 32, 16, 1, 1, 0);
  const auto& info = ktune::tuned_conv2d_info_cpu();
  std::printf("%d shipped configs; picked %s for 3x3; max abs errors %.3g (3x3) %.3g (1x1)\n",
              info.num_configs,
              info.configs[ktune::tuned_conv2d_choice_cpu(2, 13, 11, 16, 24, 3, 3, 1, 1)], e3, e1);
  if (!(e3 < 1e-3) || !(e1 < 1e-3)) return 1;
  std::vector<float> buffer(64, 1.0f);
  try {
    ktune::conv2d(1, 4, 4, 1, 1, 3, 3, 1, 3, buffer.data(), buffer.data(), buffer.data());
    std::puts("no error for pad >= r");
    return 1;
  } catch (const ktune::Conv2dError& e) {
    std::printf("bad call: %s\n", e.what());
  }
  return 0;
}
