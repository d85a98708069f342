#include "kernels/stencil/stencil_reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/stencil/stencil_programs.hpp"
#include "ktune/error.hpp"

namespace ktune::stencil {

namespace {

// Reads in(r + dy, c + dx) under the boundary rule.
template <typename T>
struct Reader {
  const T* in;
  int64_t rows, cols;
  bool clamp;
  T get(int64_t r, int64_t c) const {
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
      if (!clamp) return T(0);
      r = std::clamp<int64_t>(r, 0, rows - 1);
      c = std::clamp<int64_t>(c, 0, cols - 1);
    }
    return in[r * cols + c];
  }
};

template <typename T>
T synthetic_at(const Scenario& s, const Reader<T>& in, int64_t r, int64_t c) {
  T acc = in.get(r, c);
  const int lengths[4] = {s.north, s.south, s.east, s.west};
  const int dy[4] = {-1, 1, 0, 0}, dx[4] = {0, 0, 1, -1};
  for (int arm = 0; arm < 4; ++arm)
    for (int i = 1; i <= lengths[arm]; ++i)
      acc = acc + T((i + arm) % 3 + 1) * in.get(r + dy[arm] * i, c + dx[arm] * i);
  if (s.heavy) {
    for (int round = 0; round < 16; ++round) {
      if constexpr (std::is_integral_v<T>)
        acc = (acc * T(7) + T(3)) % T(1009) - T(504);
      else
        acc = acc * T(0.5) + std::sqrt(acc * acc + T(1));
    }
  }
  return acc;
}

template <typename T>
T real_at(Program program, const Reader<T>& in, int64_t r, int64_t c) {
  switch (program) {
    case Program::gaussian: {
      const int w[5] = {1, 4, 6, 4, 1};
      T acc = T(0);
      bool first = true;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          const T term = T(w[dy + 2] * w[dx + 2]) * in.get(r + dy, c + dx);
          acc = first ? term : acc + term;
          first = false;
        }
      return acc / T(256);
    }
    case Program::life: {
      int alive_neighbours = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dy != 0 || dx != 0) && in.get(r + dy, c + dx) != T(0)) ++alive_neighbours;
      const bool alive = in.get(r, c) != T(0);
      return (alive_neighbours == 3 || (alive && alive_neighbours == 2)) ? T(1) : T(0);
    }
    case Program::heat: {
      const T centre = in.get(r, c);
      const T sum = in.get(r - 1, c) + in.get(r + 1, c) + in.get(r, c + 1) + in.get(r, c - 1);
      return centre + T(0.25) * (sum - T(4) * centre);
    }
    case Program::sobel: {
      if constexpr (std::is_integral_v<T>) {
        throw Error("sobel takes float or double");
      } else {
        auto column = [&](int dx) {
          return in.get(r - 1, c + dx) + T(2) * in.get(r, c + dx) + in.get(r + 1, c + dx);
        };
        auto row = [&](int dy) {
          return in.get(r + dy, c - 1) + T(2) * in.get(r + dy, c) + in.get(r + dy, c + 1);
        };
        const T gx = column(1) - column(-1), gy = row(1) - row(-1);
        return std::sqrt(gx * gx + gy * gy);
      }
    }
    case Program::nms: {
      const T centre = in.get(r, c);
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (in.get(r + dy, c + dx) > centre) return T(0);
      return centre;
    }
    case Program::threshold:
      return in.get(r, c) > T(0) ? T(1) : T(0);
    case Program::synthetic:
      break;
  }
  throw Error("reference_stencil: unknown program");
}

template <typename T>
void reference_typed(const Scenario& s, const HostMatrix& in, HostMatrix& out) {
  const Reader<T> reader{in.data<T>(), s.rows, s.cols, s.boundary == Boundary::clamp};
  T* o = out.data<T>();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c)
      o[r * s.cols + c] = s.program == Program::synthetic ? synthetic_at(s, reader, r, c)
                                                          : real_at(s.program, reader, r, c);
}

constexpr int32_t kIntPoison = int32_t(0x80808080u);

template <typename T>
Verdict verify_typed(const Scenario& s, const HostMatrix& out, const HostMatrix& ref) {
  Verdict v;
  const T* o = out.data<T>();
  const T* e = ref.data<T>();
  const size_t n = ref.count();
  if constexpr (std::is_integral_v<T>) {
    size_t mismatches = 0, first = n;
    for (size_t i = 0; i < n; ++i)
      if (o[i] != e[i]) {
        if (first == n) first = i;
        ++mismatches;
      }
    v.rel_error = double(mismatches) / double(n);
    v.ok = mismatches == 0;
    if (!v.ok)
      v.message =
          fmt::format("{} of {} cells differ; first at ({}, {}): {} instead of {}", mismatches, n,
                      first / size_t(s.cols), first % size_t(s.cols), o[first], e[first]);
  } else {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < n; ++i) {
      const double d = double(o[i]) - double(e[i]);
      diff += d * d;
      norm += double(e[i]) * double(e[i]);
    }
    const double error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
    v.rel_error = std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
    v.ok = error <= error_bound(s);  // false for NaN
    if (!v.ok)
      v.message =
          std::isfinite(error)
              ? fmt::format("relative error {:.3e} exceeds the bound {:.3e}", error, error_bound(s))
              : "result holds NaN or Inf (unwritten or broken cells)";
  }
  return v;
}

}  // namespace

HostMatrix::HostMatrix(ElemType type_, int64_t rows_, int64_t cols_)
    : type(type_), rows(rows_), cols(cols_), bytes(size_t(rows_ * cols_) * elem_bytes(type_)) {}

double HostMatrix::at(int64_t r, int64_t c) const {
  const size_t i = size_t(r * cols + c);
  switch (type) {
    case ElemType::i32:
      return data<int32_t>()[i];
    case ElemType::f32:
      return data<float>()[i];
    case ElemType::f64:
      return data<double>()[i];
  }
  return 0;
}

uint64_t seed_of(const std::string& key) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char ch : key) h = (h ^ ch) * 1099511628211ull;
  return h;
}

HostMatrix random_input(const Scenario& s, uint64_t seed) {
  HostMatrix m(s.type, s.rows, s.cols);
  std::mt19937_64 rng(seed);
  const size_t n = m.count();
  if (s.type == ElemType::i32) {
    int32_t* d = m.data<int32_t>();
    if (s.program == Program::life) {
      std::bernoulli_distribution alive(0.35);
      for (size_t i = 0; i < n; ++i) d[i] = alive(rng) ? 1 : 0;
    } else {
      std::uniform_int_distribution<int32_t> value(-1000, 999);
      for (size_t i = 0; i < n; ++i) {
        const int32_t v = value(rng);
        d[i] = v >= 0 ? v + 1 : v;  // skip 0
      }
    }
    return m;
  }
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (size_t i = 0; i < n; ++i) {
    double v = value(rng);
    if (v == 0) v = 0.5;
    if (s.type == ElemType::f32)
      m.data<float>()[i] = float(v) == 0.f ? 0.5f : float(v);
    else
      m.data<double>()[i] = v;
  }
  return m;
}

HostMatrix reference_stencil(const Scenario& s, const HostMatrix& in) {
  if (in.type != s.type || in.rows != s.rows || in.cols != s.cols)
    throw Error("reference_stencil: input does not match the scenario");
  HostMatrix out(s.type, s.rows, s.cols);
  switch (s.type) {
    case ElemType::i32:
      reference_typed<int32_t>(s, in, out);
      break;
    case ElemType::f32:
      reference_typed<float>(s, in, out);
      break;
    case ElemType::f64:
      reference_typed<double>(s, in, out);
      break;
  }
  return out;
}

void poison(HostMatrix& out) {
  if (out.type == ElemType::i32) {
    std::fill_n(out.data<int32_t>(), out.count(), kIntPoison);
  } else if (out.type == ElemType::f32) {
    std::fill_n(out.data<float>(), out.count(), std::numeric_limits<float>::quiet_NaN());
  } else {
    std::fill_n(out.data<double>(), out.count(), std::numeric_limits<double>::quiet_NaN());
  }
}

double error_bound(const Scenario& s) {
  const double eps = s.type == ElemType::f64 ? 1.11e-16 : 5.96e-8;
  return 32.0 * eps * double(instruction_mix(s).ops() + 1);
}

Verdict verify(const Scenario& s, const HostMatrix& out, const HostMatrix& ref) {
  if (out.type != ref.type || out.count() != ref.count())
    throw Error("stencil verify: output and reference differ in type or size");
  switch (s.type) {
    case ElemType::i32:
      return verify_typed<int32_t>(s, out, ref);
    case ElemType::f32:
      return verify_typed<float>(s, out, ref);
    case ElemType::f64:
      return verify_typed<double>(s, out, ref);
  }
  return {};
}

}  // namespace ktune::stencil
