// C = A^T * B + 0.5 * C through ktune::gemm, checked against a plain loop; and one bad call.
#include <cmath>
#include <cstdio>
#include <ktune/gemm.hpp>
#include <random>
#include <vector>

int main() {
  const int m = 37, n = 29, k = 131;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(size_t(k) * m), b(size_t(k) * n), c(size_t(m) * n);
  for (auto* v : {&a, &b, &c})
    for (float& x : *v) x = dist(rng);
  std::vector<double> expected(c.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += double(a[size_t(i) * k + p]) * b[size_t(j) * k + p];
      expected[size_t(j) * m + i] = sum + 0.5 * c[size_t(j) * m + i];
    }
  ktune::gemm(ktune::Trans::yes, ktune::Trans::no, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.5f,
              c.data(), m);
  double worst = 0;
  for (size_t i = 0; i < c.size(); ++i) worst = std::fmax(worst, std::fabs(c[i] - expected[i]));
  const auto& info = ktune::tuned_gemm_info_cpu();
  std::printf(
      "%d shipped configs; picked %s; max abs error %.3g\n", info.num_configs,
      info.configs[ktune::tuned_gemm_choice_cpu(ktune::Trans::yes, ktune::Trans::no, m, n, k, 1)],
      worst);
  if (!(worst < 1e-3)) return 1;
  try {
    ktune::gemm(ktune::Trans::no, ktune::Trans::no, m, n, k, 1.0f, a.data(), m - 1, b.data(), k,
                0.0f, c.data(), m);
    std::puts("no error for lda < m");
    return 1;
  } catch (const ktune::GemmError& e) {
    std::printf("bad call: %s\n", e.what());
  }
  return 0;
}
