#include "kernels/gemm/gemm_family.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ktune/error.hpp"

namespace ktune::gemm {

namespace {

const std::vector<std::string> kTileValues = {"1", "2", "4", "8"};
// The seed paper's ten work-group shapes (x along M, y along N).
const std::vector<std::string> kWorkGroups = {"1x64", "1x128", "8x8",  "8x16", "8x32",
                                              "16x8", "16x16", "32x8", "64x1", "128x1"};
// Element counts above this would overflow 32-bit index arithmetic in kernels.
constexpr double kMaxElements = 2147483647.0;

bool is_integer(double v) { return std::isfinite(v) && std::floor(v) == v; }

}  // namespace

int64_t Shape::stride_a() const { return lda * (transa ? m : k); }
int64_t Shape::stride_b() const { return ldb * (transb ? k : n); }
int64_t Shape::stride_c() const { return ldc * n; }

GemmFamily::GemmFamily()
    : space_("gemm",
             {{"r", kTileValues}, {"a", kTileValues}, {"c", kTileValues}, {"wg", kWorkGroups}}) {}

std::vector<std::string> GemmFamily::feature_names() const {
  return {"transa", "transb", "m", "n", "k", "batch"};
}

std::vector<std::string> GemmFamily::derived_feature_names() const {
  std::vector<std::string> names = {"mn", "bmn", "kn", "km", "m_over_k", "n_over_k", "mn_over_k"};
  for (const char* dim : {"m", "n", "k"})
    for (int mod : {2, 4, 8}) names.push_back(fmt::format("{}_mod{}", dim, mod));
  return names;
}

std::vector<double> GemmFamily::derived_features(const Problem& p) const {
  const Shape s = shape_of(p);
  const double m = double(s.m), n = double(s.n), k = double(s.k), b = double(s.batch);
  std::vector<double> v = {m * n, b * m * n, k * n, k * m, m / k, n / k, m * n / k};
  for (int64_t dim : {s.m, s.n, s.k})
    for (int mod : {2, 4, 8}) v.push_back(double(dim % mod));
  return v;
}

void GemmFamily::validate(const Problem& p) const { shape_of(p); }

Shape shape_of(const Problem& p) {
  auto get = [&](const char* name) {
    double v = p.get(name);
    if (!is_integer(v))
      throw Error(fmt::format("gemm problem '{}': {} must be an integer", p.key(), name));
    return v;
  };
  Shape s;
  const double ta = get("transa"), tb = get("transb");
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
    throw Error(fmt::format("gemm problem '{}': transa/transb must be 0 or 1", p.key()));
  s.transa = ta == 1;
  s.transb = tb == 1;
  const double m = get("m"), n = get("n"), k = get("k"), batch = get("batch");
  if (m < 1 || n < 1 || k < 1 || batch < 1)
    throw Error(fmt::format("gemm problem '{}': m, n, k and batch must be at least 1", p.key()));
  if (m * k * batch > kMaxElements || k * n * batch > kMaxElements || m * n * batch > kMaxElements)
    throw Error(fmt::format("gemm problem '{}': a matrix exceeds 2^31 elements", p.key()));
  s.m = int64_t(m);
  s.n = int64_t(n);
  s.k = int64_t(k);
  s.batch = int64_t(batch);
  s.lda = s.transa ? s.k : s.m;
  s.ldb = s.transb ? s.n : s.k;
  s.ldc = s.m;
  return s;
}

Problem problem_of(const Shape& s, std::vector<std::string> tags) {
  Problem p;
  p.names = {"transa", "transb", "m", "n", "k", "batch"};
  p.values = {s.transa ? 1.0 : 0.0, s.transb ? 1.0 : 0.0, double(s.m),
              double(s.n),          double(s.k),          double(s.batch)};
  p.tags = std::move(tags);
  return p;
}

Tile tile_of(const Space& space, const Config& c) {
  Tile t;
  t.r = space.int_value(c, "r");
  t.a = space.int_value(c, "a");
  t.c = space.int_value(c, "c");
  const std::string& wg = space.value(c, "wg");
  const size_t x = wg.find('x');
  t.wg_x = std::stoi(wg.substr(0, x));
  t.wg_y = std::stoi(wg.substr(x + 1));
  return t;
}

std::string tile_config_string(const Tile& t) {
  return fmt::format("r={};a={};c={};wg={}x{}", t.r, t.a, t.c, t.wg_x, t.wg_y);
}

double error_bound(int64_t k) {
  constexpr double kEpsFloat = 5.96e-8;  // 2^-24
  return 16.0 * kEpsFloat * std::sqrt(double(std::max<int64_t>(k, 1))) + 1e-6;
}

}  // namespace ktune::gemm
